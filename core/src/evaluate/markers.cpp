// The measured runs beside the serving curve (markers.hpp).
#include "evaluate/markers.hpp"

#include <cmath>

#include "catalog/ids.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/memory.hpp"

namespace gpucalc::detail {

namespace {

// Same request shape: each length within this factor of the run's mean length.
constexpr double kShapeFactor = 1.12;

bool same_length(double scenario_tokens, double run_tokens) {
  return run_tokens > 0.0 && scenario_tokens <= run_tokens * kShapeFactor &&
         scenario_tokens * kShapeFactor >= run_tokens;
}

bool same_run(const Catalog& catalog, const Scenario& s, const Model& model,
              const std::string& run_model, const std::string& run_weights, int run_mtp,
              double input, double output) {
  const Model* named = catalog.find_model(run_model);  // an id or an alias
  // Weights as the matrix units see them ("native" DeepSeek is FP8).
  const auto weights = parse_weight_format(run_weights);
  return named != nullptr && named->id == model.id && weights &&
         math_weight_format(model, *weights) == math_weight_format(model, s.weights) &&
         (run_mtp > 0) == (s.mtp > 0) && same_length(static_cast<double>(s.input_tokens), input) &&
         same_length(static_cast<double>(s.output_tokens), output);
}

}  // namespace

std::vector<MeasuredMarker> measured_markers(const Catalog& catalog, const Scenario& s,
                                             const Model& model, const std::string& gpu_id,
                                             const std::string& engine_id,
                                             const ServingCalibration* calibration) {
  std::vector<MeasuredMarker> out;
  if (calibration != nullptr) {
    for (const CalibrationPoint& p : calibration->points) {
      const PointFigures& m = p.measured;
      if (!(m.tpot_s > 0.0) || !(m.total_tokens_per_s_per_gpu > 0.0)) continue;
      if (!same_run(catalog, s, model, p.model, p.weights, p.mtp, p.input_tokens, p.output_tokens))
        continue;
      out.push_back(MeasuredMarker{"calibration", calibration->id, p.source, p.date,
                                   p.engine_version, p.tp, p.ep, p.dp_attention == 1, p.concurrency,
                                   1.0 / m.tpot_s, m.total_tokens_per_s_per_gpu, m.ttft_s});
    }
  }
  if (catalog.error_bands) {
    for (const MeasuredRun& r : catalog.error_bands->measured.runs) {
      if (!detail::same_id(r.gpu_id, gpu_id) || !detail::same_id(r.engine, engine_id)) continue;
      if (!same_run(catalog, s, model, r.model, r.weights, r.mtp, r.input_tokens, r.output_tokens))
        continue;
      out.push_back(MeasuredMarker{"validation", "validation-serving.json", "", r.date,
                                   r.engine_version, r.tp, r.ep, r.dp_attention == 1, r.concurrency,
                                   r.tokens_per_s_per_user, r.total_tokens_per_s_per_gpu,
                                   r.ttft_s});
    }
  }
  return out;
}

}  // namespace gpucalc::detail
