#pragma once
/** Statistics over repeated timings: best, median and spread of a rate (BabelStream reports min/avg/max). */
#include <cstddef>
#include <vector>

namespace gpucalc::bench {

struct RateSummary {
  double best = 0;    // highest rate
  double median = 0;
  double worst = 0;   // lowest rate
  double spread = 0;  // (best - worst) / median, a fraction
  std::size_t samples = 0;
};

/** Median of `values` (mean of the middle two for an even count); 0 when empty. */
double median_of(std::vector<double> values);

/** Summarises rates (e.g. bytes_per_s) drawn from repeated samples. */
RateSummary summarize_rates(const std::vector<double>& rates);

/** Converts per-sample seconds to rates: `work / seconds` (work in bytes or FLOP). */
std::vector<double> rates_from_seconds(const std::vector<double>& seconds, double work);

}  // namespace gpucalc::bench
