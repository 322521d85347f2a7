// GEMM cost on one GPU: fixed kernel latency plus the roofline of weight streaming and math.
#include <algorithm>
#include <cmath>

#include "gpucalc/serving.hpp"

namespace gpucalc {

double matmul_rate_at(double tokens, double achieved, const ModelConstants& k) {
  const double lo = k.small_m_tokens, hi = std::max(k.large_m_tokens, k.small_m_tokens * 1.0001);
  if (tokens <= lo) return achieved * k.matmul_fraction;
  if (tokens >= hi) return achieved * k.large_m_matmul_fraction;
  const double t = std::log(tokens / lo) / std::log(hi / lo);
  return achieved * (k.matmul_fraction + (k.large_m_matmul_fraction - k.matmul_fraction) * t);
}

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
