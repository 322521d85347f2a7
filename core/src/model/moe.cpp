// Mixture-of-experts: experts a step touches and their spread over expert-parallel GPUs.
#include <algorithm>
#include <cmath>

#include "model/serving.hpp"

namespace gpucalc {

double experts_touched(double experts, double active, double tokens) {
  if (experts <= 0.0 || active <= 0.0 || tokens <= 0.0) return 0.0;
  const double k = std::min(active, experts);
  return experts * (1.0 - std::pow(1.0 - k / experts, tokens));
}

double experts_on_busiest_gpu(double experts, double touched, int ep) {
  if (ep <= 1) return touched;
  const double mean = touched / ep;
  if (mean <= 0.0) return 0.0;
  const double busiest = mean + std::sqrt(2.0 * mean * std::log(static_cast<double>(ep)));
  return std::min(busiest, experts / ep);
}

}  // namespace gpucalc
