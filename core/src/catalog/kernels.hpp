#pragma once
// Measured kernel tables (data/kernels.json): small-GEMM latency, all-reduce and all-to-all
// curves per GPU, replaced by a calibration record's figures where it has them.
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/result.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {


/** A measured curve y(x), x ascending, at most kMaxCurvePoints points (no allocation: the
 *  step model copies it per evaluation); interpolated log-linearly in x. */
constexpr int kMaxCurvePoints = 16;
struct Curve {
  int n = 0;
  std::array<double, kMaxCurvePoints> x{}, y{};
  bool empty() const { return n == 0; }
  bool push(double xv, double yv) {
    if (n >= kMaxCurvePoints) return false;
    x[static_cast<std::size_t>(n)] = xv;
    y[static_cast<std::size_t>(n)] = yv;
    ++n;
    return true;
  }
  double front_x() const { return x[0]; }
  double back_x() const { return x[static_cast<std::size_t>(n - 1)]; }
};
/** y at x: log-linear between points, the first y below, the last point's y / x slope above. */
double curve_at(const Curve& c, double x);

/** An all-reduce implementation's measured curve: bytes per GPU -> seconds. */
struct NamedCurve {
  std::array<char, 24> name{};  // "sglang", "vllm", "trtllm", "nccl", "custom", "calibrated"
  Curve curve;
  int gpus = 0;  // GPUs the all-reduce was measured over
  std::string_view id() const { return std::string_view(name.data()); }
};
constexpr int kMaxAllreduceImpls = 6;

struct GpuKernels {
  double gemm_latency_s = 0.0;  // fixed cost of one small-M GEMM kernel
  int allreduce_count = 0;
  std::array<NamedCurve, kMaxAllreduceImpls> allreduce{};
  Curve alltoall_dispatch, alltoall_combine;             // tokens per GPU -> seconds
  double small_kernel_latency_s = 0.0;  // 0: data/performance.json's constant
  // Fused FP4 MoE (routing, both expert GEMMs and the weighted sum in one kernel): its fixed
  // cost and the small MoE kernels it absorbs. 0: none measured (the grouped GEMM's two
  // kernel latencies plus the small kernels of data/performance.json).
  double fp4_moe_latency_s = 0.0;
  double fp4_moe_fused_small_kernels = 0.0;
  bool calibrated = false;              // some figure comes from a calibration record
};

struct KernelCatalog {
  std::vector<std::pair<std::string, GpuKernels>> gpus;
  const GpuKernels* find(std::string_view gpu_id) const;
};

constexpr std::string_view kKernelsSchema = "gpucalc-kernels/1";
Result<KernelCatalog> parse_kernels(std::string_view json_text);
/** The catalog's kernel tables (a --catalog kernels document replaces the built-in ones). */
const KernelCatalog& catalog_kernels(const Catalog& catalog);
const KernelCatalog& default_kernels();

/** The kernels of `gpu`: data/kernels.json, replaced by a calibration record's serving fields
 *  (gemm_small latency fit, allreduce curve, graph launch latency) where it carries them. */
GpuKernels resolve_kernels(const Catalog& catalog, const KernelCatalog& kernels, const Gpu& gpu);

}  // namespace gpucalc
