#include "stats.hpp"

#include <algorithm>

namespace gpucalc::bench {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

RateSummary summarize_rates(const std::vector<double>& rates) {
  RateSummary s;
  if (rates.empty()) return s;
  s.samples = rates.size();
  s.best = *std::max_element(rates.begin(), rates.end());
  s.worst = *std::min_element(rates.begin(), rates.end());
  s.median = median_of(rates);
  s.spread = s.median > 0 ? (s.best - s.worst) / s.median : 0;
  return s;
}

std::vector<double> rates_from_seconds(const std::vector<double>& seconds, double work) {
  std::vector<double> rates;
  rates.reserve(seconds.size());
  for (double t : seconds) {
    if (t > 0) rates.push_back(work / t);
  }
  return rates;
}

}  // namespace gpucalc::bench
