// GEMM cost on one GPU: fixed kernel latency plus the roofline of weight streaming and math.
#include <algorithm>

#include "gpucalc/serving.hpp"

namespace gpucalc {

GemmCost gemm_cost(double kernels, double weight_bytes, double flops, double latency_s,
                   double stream_bytes_per_s, double flops_per_s) {
  GemmCost g;
  g.latency_s = kernels * latency_s;
  g.memory_s = stream_bytes_per_s > 0.0 ? weight_bytes / stream_bytes_per_s : 0.0;
  g.compute_s = flops_per_s > 0.0 ? flops / flops_per_s : 0.0;
  g.total_s = g.latency_s + std::max(g.memory_s, g.compute_s);
  return g;
}

}  // namespace gpucalc
