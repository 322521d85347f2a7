#pragma once
/** Numeric formats: matrix-unit precisions and weight storage formats. */
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpucalc {

/** Matrix-unit math precisions with a datasheet peak. */
enum class Precision { kFp64 = 0, kTf32, kBf16, kFp8, kFp6, kFp4 };
constexpr std::size_t kPrecisionCount = 6;
const char* precision_name(Precision p);  // "fp64", "tf32", "bf16", ...
std::optional<Precision> parse_precision(std::string_view name);

template <class T>
using PerPrecision = std::array<T, kPrecisionCount>;
constexpr std::size_t index_of(Precision p) { return static_cast<std::size_t>(p); }

/** How weights are stored (scenario key `weights`). kNative: as the model's release ships them,
 *  per weight group (Model::checkpoint); the others apply to the quantizable weights. */
enum class WeightFormat { kBf16 = 0, kFp8, kFp6, kFp4, kInt4, kNative };
const char* weight_format_name(WeightFormat f);
std::optional<WeightFormat> parse_weight_format(std::string_view name);

/** KV-cache storage (scenario key `kv`). */
enum class KvFormat { kBf16 = 0, kFp8 };
const char* kv_format_name(KvFormat f);
std::optional<KvFormat> parse_kv_format(std::string_view name);
/** 2 for BF16, 1 for FP8. */
double kv_bytes_per_value(KvFormat f);

/** FP4 block-scaled encodings; which one a GPU uses decides the scale overhead. */
enum class Fp4Encoding { kMxfp4, kNvfp4 };

/**
 * Bytes per stored parameter, block scales included:
 * BF16 2; FP8 1; FP6 as MXFP6 0.75 + 1/32 (one E8M0 scale per 32 values, OCP MX spec);
 * FP4 as MXFP4 0.5 + 1/32 or NVFP4 0.5 + 1/16 (one E4M3 scale per 16 values);
 * INT4 weight-only (AWQ/GPTQ) 0.5 + 2.5/128 (FP16 scale and 4-bit zero point per group of 128).
 * kNative has no single figure (see weight_bytes in memory.hpp); it returns the BF16 2.
 */
double weight_bytes_per_param(WeightFormat f, Fp4Encoding fp4);

}  // namespace gpucalc
