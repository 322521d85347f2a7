#pragma once
/**
 * Calibration of the serving model to measured benchmark runs (bench_results.hpp) for one
 * (GPU, engine): five named corrections fitted by least squares on the log error of TTFT, TPOT
 * and throughput per GPU, each held within physical bounds, kept as a catalog document
 * ("schema": "gpucalc-serving-calibration/1") with the points' provenance and the model's error
 * on them before and after the fit, in sample and cross-validated (leave one out). Loaded with
 * `--catalog`, it corrects every serving figure of its GPU and engine (make_serving_context) and
 * its cross-validated error replaces the generic error band.
 */
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/bench_results.hpp"
#include "gpucalc/catalog.hpp"
#include "gpucalc/error_band.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr std::string_view kServingCalibrationSchema = "gpucalc-serving-calibration/1";

/** Most measured points one calibration fits (the fit costs points x iterations model runs). */
constexpr std::size_t kMaxCalibrationPoints = 200;
/** Up to this many points the error out of sample is leave-one-out, above it 10-fold. */
constexpr std::size_t kMaxLeaveOneOutPoints = 40;

/** The corrections, in the order of their names (kCorrectionNames). */
enum class Correction {
  kWeightStreamScale,  // x weight-streaming rate of every GEMM (dense and routed experts)
  kMatmulScale,        // x achieved matrix rate (compute-bound GEMMs: prefill, large batches)
  kAttentionScale,     // x achieved KV read rate of decode attention
  kStepOverheadS,      // + seconds per decode or prefill step (scheduler, launches)
  kRequestOverheadS,   // + seconds per request before its first token (HTTP, tokenizer, queue)
};
constexpr std::size_t kCorrectionCount = 5;
extern const std::array<const char*, kCorrectionCount> kCorrectionNames;

struct ServingCorrections {
  std::array<double, kCorrectionCount> value{1.0, 1.0, 1.0, 0.0, 0.0};
  std::array<double, kCorrectionCount> min{1.0, 1.0, 1.0, 0.0, 0.0};  // physical bounds
  std::array<double, kCorrectionCount> max{1.0, 1.0, 1.0, 0.0, 0.0};
  double at(Correction c) const { return value[static_cast<std::size_t>(c)]; }
};

/** Measured and predicted figures of one point; 0 = not measured (or did not fit). */
struct PointFigures {
  double ttft_s = 0.0, tpot_s = 0.0, total_tokens_per_s_per_gpu = 0.0;
};

/** One measured run described to the model. */
struct CalibrationPoint {
  std::string source, format, date;  // where it came from (file:line), its format, its date
  std::string model, weights, engine_version;  // catalog model id, weight format
  int tp = 1, ep = 1, dp_attention = 0, mtp = 0;
  double input_tokens = 0.0, output_tokens = 0.0;  // mean per request
  double concurrency = 0.0;                          // requests in flight on the instance
  PointFigures measured, before, after;
};

/** Mean absolute percentage error per metric (fractions), with the points scored. */
struct CalibrationErrors {
  double interactivity = 0.0, throughput_per_gpu = 0.0, ttft = 0.0;
  int n_interactivity = 0, n_throughput_per_gpu = 0, n_ttft = 0;
};

struct ServingCalibration {
  std::string id, date, gpu_id, engine, offering_id, scenario, note;
  // Who supplied the document (not part of it: set when loaded, CatalogTrust): the user's file
  // name or the embedding host's URL; empty for gpucalc's own data. Results built on it name it
  // in `supplied_by`.
  std::string supplied_by;
  ServingCorrections corrections;
  std::vector<CalibrationPoint> points;
  int skipped_points = 0;  // runs of another GPU or engine in the files
  int unfit_points = 0;    // runs of this GPU and engine the model cannot hold (not fitted)
  CalibrationErrors before, after, cross_validated;
  std::string cross_validation;  // "leave-one-out" | "10-fold"
  /** cross_validated as error bands (group "calibrated <id>"), shared with results. */
  std::shared_ptr<const std::vector<ErrorBand>> band;
};

/**
 * Fits the corrections of the scenario's first offering's GPU and engine to `runs`. The
 * scenario names what the files do not (engine, tp, weights, model, input, output, users): a
 * run missing a figure that the scenario string does not name either is an error naming the
 * run and the key to set. Runs of another GPU or engine (InferenceX rows), and runs the model
 * cannot hold in memory, are skipped and counted. `date` (ISO 8601) dates the document.
 */
Result<ServingCalibration> calibrate_serving(const Catalog& catalog, std::string_view scenario,
                                             const std::vector<BenchRun>& runs,
                                             std::string_view date);

/** The model's error on other runs of the calibration's GPU and engine (described with its
 *  scenario, as calibrate_serving describes its own), without and with its corrections. */
struct CalibrationScore {
  std::vector<CalibrationPoint> points;  // before: no corrections; after: the calibration's
  CalibrationErrors before, after;
};
Result<CalibrationScore> score_calibration(const Catalog& catalog, const ServingCalibration& calibration,
                                           const std::vector<BenchRun>& runs);

/** The calibration document (pretty JSON, ends with a newline). */
std::string serving_calibration_to_json(const ServingCalibration& calibration);

/** Parses a calibration document: every key known, every figure within its bounds, the
 *  corrections within their own min/max; errors name `source_name` and the field. */
Result<ServingCalibration> parse_serving_calibration(std::string_view json_text,
                                                     std::string_view source_name);

/** The catalog's calibration for (GPU, engine), or nullptr. */
std::shared_ptr<const ServingCalibration> find_serving_calibration(const Catalog& catalog,
                                                                   std::string_view gpu_id,
                                                                   std::string_view engine_id);

struct ServingContext;
/** Applies corrections to a context: rates scaled, the step overhead spread over the layers'
 *  per-layer latency (the same seconds per step), the request overhead added. */
void apply_serving_corrections(const ServingCorrections& corrections, ServingContext& c);

}  // namespace gpucalc
