// Leave-one-group-out folds over a measured table (folds.hpp).
#include "gpucalc/folds.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace gpucalc {

std::vector<FoldFigures> leave_one_group_out(const std::vector<std::string>& group_of,
                                             const FitAndPredict& fit_and_predict) {
  std::vector<FoldFigures> out(group_of.size(), FoldFigures{});
  const std::set<std::string> groups(group_of.begin(), group_of.end());
  for (const std::string& g : groups) {
    if (g.empty()) continue;
    std::vector<bool> train(group_of.size());
    for (std::size_t i = 0; i < group_of.size(); ++i) train[i] = group_of[i] != g;
    const std::vector<FoldFigures> predicted = fit_and_predict(train);
    for (std::size_t i = 0; i < group_of.size() && i < predicted.size(); ++i) {
      if (!train[i]) out[i] = predicted[i];
    }
  }
  return out;
}

double grid_minimum(double lo, double hi, const std::function<double(double)>& cost) {
  constexpr int kGridSteps = 40;    // the first pass over lo..hi
  constexpr int kRefineSteps = 10;  // then within one step either side of the best
  const double step = (hi - lo) / kGridSteps;
  double best = lo, best_cost = cost(lo);
  for (int k = 1; k <= kGridSteps; ++k) {
    const double v = lo + step * k;
    const double c = cost(v);
    if (c < best_cost) best = v, best_cost = c;
  }
  const double centre = best;
  for (int k = -kRefineSteps; k <= kRefineSteps; ++k) {
    const double v = centre + step * k / kRefineSteps;
    if (k == 0 || v < lo || v > hi) continue;
    const double c = cost(v);
    if (c < best_cost) best = v, best_cost = c;
  }
  return best;
}

FoldFigures relative_errors(const FoldFigures& predicted, const FoldFigures& measured) {
  FoldFigures e{};
  for (std::size_t m = 0; m < kFoldMetrics; ++m) {
    e[m] = predicted[m] > 0.0 && measured[m] > 0.0 ? std::fabs(predicted[m] / measured[m] - 1.0) : -1.0;
  }
  return e;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(values.size() - 1, lo + 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace gpucalc
