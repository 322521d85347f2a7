// Communication inside an instance: tensor-parallel all-reduce and expert-parallel all-to-all
// over the scale-up fabric (NVLink switch or Infinity Fabric full mesh).
#include <algorithm>

#include "gpucalc/serving.hpp"

namespace gpucalc {

double allreduce_s(const Fabric& f, double bytes, int gpus) {
  if (gpus <= 1 || bytes <= 0.0) return 0.0;
  if (f.allreduce != nullptr && !f.allreduce->empty() && f.allreduce_gpus >= 2) {
    // The curve is a measurement over n GPUs. A ring (or reduce-scatter + all-gather)
    // all-reduce over g GPUs takes 2 (g - 1) steps, each moving a 1 / g chunk of the message:
    // t_g(b) = 2 (g - 1) (alpha + b / (g beta)). n GPUs with the message n b / g move the same
    // chunk per step in 2 (n - 1) steps, so t_g(b) = t_n(n b / g) x (g - 1) / (n - 1); never
    // below the smallest measured all-reduce (a one-shot kernel's floor).
    const int n = f.allreduce_gpus;
    const double g = std::min(gpus, n);
    const double ring = curve_at(*f.allreduce, bytes * static_cast<double>(n) / g) * (g - 1.0) /
                        (static_cast<double>(n) - 1.0);
    return std::max(ring, f.allreduce->y[0]);
  }
  const double g = gpus;
  const double bw = f.bus_bytes_per_s > 0.0 ? f.bus_bytes_per_s : 1e11;
  return f.latency_s + 2.0 * (g - 1.0) / g * bytes / bw;
}

double alltoall_s(const Fabric& f, double tokens_per_gpu, double hidden, int ep) {
  if (ep <= 1 || tokens_per_gpu <= 0.0) return 0.0;
  if (f.dispatch != nullptr && f.combine != nullptr && !f.dispatch->empty() &&
      !f.combine->empty()) {
    // Below the smallest measured batch the time shrinks with tokens, to half the first point.
    auto at = [&](const Curve& c) {
      if (tokens_per_gpu >= c.x[0]) return curve_at(c, tokens_per_gpu);
      return c.y[0] * std::max(0.5, tokens_per_gpu / c.x[0]);
    };
    return at(*f.dispatch) + at(*f.combine);
  }
  Fabric ar = f;
  ar.allreduce = nullptr;
  if (f.alltoall_latency_s > 0.0) ar.latency_s = f.alltoall_latency_s;
  return 2.0 * allreduce_s(ar, tokens_per_gpu * hidden * 2.0, ep);
}

}  // namespace gpucalc
