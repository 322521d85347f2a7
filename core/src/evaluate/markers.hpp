#pragma once
// Internal: the measured runs drawn beside a result's serving curve.
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/serving_calibration.hpp"

namespace gpucalc::detail {

/**
 * The measured runs of the scenario's configuration: the points of `calibration` (when the
 * result uses one) and the newest rows of the serving table kept in the error bands
 * (MeasuredSet::runs) on `gpu_id` with `engine_id`, each of the same model, weights and MTP
 * (on or off), and of the same request shape: input and output each within 12 % of the run's
 * mean (InferenceX's nominal 1,024 tokens is a mean of 922, 11 % below). Runs without both a
 * TPOT and a throughput are left out.
 */
std::vector<MeasuredMarker> measured_markers(const Catalog& catalog, const Scenario& s,
                                             const Model& model, const std::string& gpu_id,
                                             const std::string& engine_id,
                                             const ServingCalibration* calibration);

}  // namespace gpucalc::detail
