// Communication inside an instance: tensor-parallel all-reduce and expert-parallel all-to-all
// over the scale-up fabric (NVLink switch or Infinity Fabric full mesh).
#include <algorithm>

#include "model/serving.hpp"

namespace gpucalc {

double allreduce_s(const Fabric& f, double bytes, int gpus) {
  if (gpus <= 1 || bytes <= 0.0) return 0.0;
  if (f.allreduce != nullptr && !f.allreduce->empty() && f.allreduce_gpus >= 2) {
    // The curve is a measurement over n GPUs. A ring (or reduce-scatter + all-gather)
    // all-reduce over g GPUs takes 2 (g - 1) steps, each moving a 1 / g chunk of the message:
    // t_g(b) = 2 (g - 1) (alpha + b / (g beta)). n GPUs with the message n b / g move the same
    // chunk per step in 2 (n - 1) steps, so t_g(b) = t_n(n b / g) x (g - 1) / (n - 1); never
    // below the smallest measured all-reduce (a one-shot kernel's floor).
    // Past the curve's last point the message is larger than any small-message kernel
    // measured (vLLM's custom all-reduce stops at 8 MiB and hands larger ones to NCCL/RCCL,
    // engines.md V-car): the bytes beyond it move at the large-message bus bandwidth when that
    // is faster than the last point's own rate.
    const int n = f.allreduce_gpus;
    const double g = std::min(gpus, n);
    const Curve& c = *f.allreduce;
    const double at_n = bytes * static_cast<double>(n) / g;
    const std::size_t last = static_cast<std::size_t>(c.n - 1);
    double t_n = curve_at(c, at_n);
    if (at_n > c.x[last] && f.bus_bytes_per_s > 0.0) {
      const double nd = n;
      t_n = std::min(t_n, c.y[last] + 2.0 * (nd - 1.0) / nd * (at_n - c.x[last]) / f.bus_bytes_per_s);
    }
    const double ring = t_n * (g - 1.0) / (static_cast<double>(n) - 1.0);
    return std::max(ring, c.y[0]);
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
