#include "backend.hpp"

namespace gpucalc::bench {

const char* stream_kernel_name(StreamKernel k) {
  switch (k) {
    case StreamKernel::kCopy: return "copy";
    case StreamKernel::kTriad: return "triad";
    case StreamKernel::kDot: return "dot";
  }
  return "?";
}

int stream_arrays_moved(StreamKernel k) { return k == StreamKernel::kTriad ? 3 : 2; }

const char* gemm_precision_name(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kBf16: return "bf16";
    case GemmPrecision::kFp8: return "fp8";
    case GemmPrecision::kFp4: return "fp4";
  }
  return "?";
}

std::optional<GemmPrecision> parse_gemm_precision(const std::string& name) {
  if (name == "bf16") return GemmPrecision::kBf16;
  if (name == "fp8") return GemmPrecision::kFp8;
  if (name == "fp4") return GemmPrecision::kFp4;
  return std::nullopt;
}

}  // namespace gpucalc::bench
