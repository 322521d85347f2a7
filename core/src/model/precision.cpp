#include "gpucalc/precision.hpp"

namespace gpucalc {

namespace {
constexpr const char* kPrecisionNames[kPrecisionCount] = {"fp64", "tf32", "bf16",
                                                          "fp8",  "fp6",  "fp4"};
constexpr const char* kWeightNames[] = {"bf16", "fp8", "fp6", "fp4", "int4", "native"};
constexpr const char* kKvNames[] = {"bf16", "fp8"};
}  // namespace

const char* precision_name(Precision p) { return kPrecisionNames[index_of(p)]; }

std::optional<Precision> parse_precision(std::string_view name) {
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    if (name == kPrecisionNames[i]) return static_cast<Precision>(i);
  }
  if (name == "fp16") return Precision::kBf16;  // same matrix rate on every catalog GPU
  return std::nullopt;
}

const char* weight_format_name(WeightFormat f) { return kWeightNames[static_cast<int>(f)]; }

std::optional<WeightFormat> parse_weight_format(std::string_view name) {
  for (int i = 0; i < 6; ++i) {
    if (name == kWeightNames[i]) return static_cast<WeightFormat>(i);
  }
  return std::nullopt;
}

const char* kv_format_name(KvFormat f) { return kKvNames[static_cast<int>(f)]; }

std::optional<KvFormat> parse_kv_format(std::string_view name) {
  if (name == "bf16") return KvFormat::kBf16;
  if (name == "fp8") return KvFormat::kFp8;
  return std::nullopt;
}

double kv_bytes_per_value(KvFormat f) { return f == KvFormat::kBf16 ? 2.0 : 1.0; }

double weight_bytes_per_param(WeightFormat f, Fp4Encoding fp4) {
  switch (f) {
    case WeightFormat::kBf16: return 2.0;
    case WeightFormat::kFp8: return 1.0;
    case WeightFormat::kFp6: return 0.75 + 1.0 / 32.0;
    case WeightFormat::kFp4:
      return fp4 == Fp4Encoding::kNvfp4 ? 0.5 + 1.0 / 16.0 : 0.5 + 1.0 / 32.0;
    case WeightFormat::kInt4: return 0.5 + 2.5 / 128.0;
    case WeightFormat::kNative: return 2.0;
  }
  return 2.0;
}

}  // namespace gpucalc
