#pragma once
/**
 * Leave-one-group-out scoring of a measured table, independent of what the rows hold: the
 * caller gives each row a group label and a function that sets the model on some rows and
 * predicts every row; the folds return each row's prediction by the fold that did not see it.
 * Used by the serving validation (validation.cpp) and reusable for any other measured table.
 */
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpucalc {

/** Metrics scored per row; a figure of 0 means "none" (the row has no such measurement, or the
 *  model has no prediction). */
constexpr std::size_t kFoldMetrics = 3;  // interactivity, throughput per GPU, mean TTFT
using FoldFigures = std::array<double, kFoldMetrics>;

/** fit_and_predict(train): set the model's constants on the rows with train[i] true, then
 *  return a prediction for every row. */
using FitAndPredict = std::function<std::vector<FoldFigures>(const std::vector<bool>& train)>;

/**
 * For each distinct non-empty label of `group_of`: fit on every row of another label (and the
 * rows labelled "", which are never held out), predict the held-out rows. Returns per row its
 * out-of-sample prediction (all 0 for rows labelled "").
 */
std::vector<FoldFigures> leave_one_group_out(const std::vector<std::string>& group_of,
                                             const FitAndPredict& fit_and_predict);

/** The value in lo..hi with the least `cost`: a grid of 41 points over the range, then 21
 *  within one grid step either side of the best (ties keep the value found first). How the
 *  validation tables re-set a constant set against them. */
double grid_minimum(double lo, double hi, const std::function<double(double)>& cost);

/** |predicted / measured - 1| per metric, or -1 where either is missing (<= 0). */
FoldFigures relative_errors(const FoldFigures& predicted, const FoldFigures& measured);

/** The q-quantile (0..1, linear between order statistics) of `values`; 0 when empty. */
double quantile(std::vector<double> values, double q);

}  // namespace gpucalc
