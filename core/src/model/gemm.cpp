// GEMM cost on one GPU: fixed kernel latency plus the roofline of weight streaming and math.
#include <algorithm>
#include <cmath>

#include "model/serving.hpp"

namespace gpucalc {

namespace {

double large_m_tokens(const ModelConstants& k) {
  return std::max(k.large_m_tokens, k.small_m_tokens * 1.0001);
}

}  // namespace

double matmul_log_span(const ModelConstants& k) {
  return std::log(large_m_tokens(k) / k.small_m_tokens);
}

double matmul_rate_at(double tokens, double achieved, const ModelConstants& k) {
  return matmul_rate_at(tokens, achieved, k, matmul_log_span(k));
}

double matmul_rate_at(double tokens, double achieved, const ModelConstants& k, double log_span) {
  const double lo = k.small_m_tokens, hi = large_m_tokens(k);
  if (tokens <= lo) return achieved * k.matmul_fraction;
  if (tokens >= hi) return achieved * k.large_m_matmul_fraction;
  const double t = std::log(tokens / lo) / log_span;
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
