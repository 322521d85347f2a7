#pragma once
/**
 * The validation table: the model's prediction against public end-to-end results
 * (data/validation.json, from shared/reference/measured.md), with the error of each.
 */
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/folds.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

struct ValidationRow {
  std::string id;        // entry id
  std::string workload;  // entries of one workload are ranked together
  std::string gpu_id;
  std::string system;    // as submitted
  std::string unit;      // "tokens_per_s" | "minutes"
  double predicted = 0.0;
  double measured = 0.0;
  double error = 0.0;  // predicted / measured - 1
  std::string conditions;  // the scenario string used
  std::string source;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  double median_abs_error = 0.0;  // fraction, 0.1 = 10 %
  double max_abs_error = 0.0;
  bool ranks_match = false;  // on every workload the predictions order the GPUs as measured
  bool ranks_match_beyond_ties = false;  // the same, ignoring pairs measured within 5 %
  std::vector<std::string> rank_mismatches;  // workloads whose order differs
  std::string note;          // data/validation.json's note
};

/**
 * Runs every entry of `validation_json` (data/validation.json's schema, "gpucalc-validation/1")
 * through the throughput or training model with `catalog`.
 */
Result<ValidationReport> run_validation(const Catalog& catalog, std::string_view validation_json);

/** Aligned text table: entry, prediction, measurement, error %, then median, worst, ranks. */
std::string validation_report_to_text(const ValidationReport& report);

/** {"rows": [...], "median_abs_error", "max_abs_error", "ranks_match", ...} */
std::string validation_report_to_json(const ValidationReport& report);

/** Fold kinds of the serving table's leave-one-group-out scoring: model family, engine, request
 *  shape (isl/osl), GPU, and "users": the rows above kFoldUsersMeasured users per instance
 *  predicted from the rows at or below (how error grows beyond the measured concurrency). */
constexpr std::size_t kFoldKinds = 5;
extern const char* const kFoldKindNames[kFoldKinds];
constexpr double kFoldUsersMeasured = 32;
enum FoldKind : std::size_t { kFoldModel = 0, kFoldEngine, kFoldShape, kFoldGpu, kFoldUsers };


/** One measured serving point (data/validation-serving.json) against the serving model. */
struct ServingValidationRow {
  std::string date, gpu, gpu_id, vendor, model, weights, engine, engine_version;  // vendor: the catalog GPU's
  std::string architecture;  // the catalog GPU's (gpus.json architecture): its error-band widening
  int tp = 1, ep = 1, dpa = 0, mtp = 0;
  double isl = 0, osl = 0, concurrency = 0;
  bool newest = false;  // the newest row of its configuration and concurrency (scored)
  // Measured (0 = the row has none) and predicted.
  double measured_interactivity = 0, measured_throughput_per_gpu = 0, measured_ttft_s = 0;
  double predicted_interactivity = 0, predicted_throughput_per_gpu = 0, predicted_ttft_s = 0;
  double predicted_tpot_s = 0;
  // TTFT is scored on the median where the row has one (a run's warm-up stalls move its mean,
  // not its median), else on the mean (the Llama rows).
  bool ttft_median = false;
  double measured_mean_ttft_s = 0;  // verbatim from the CSV
  // Throughput is scored as the row would read with its median TTFT in place of its mean
  // (steady_throughput in core/src/validation/validation.cpp): a run's throughput is its
  // users x tokens over (mean TTFT + output x mean TPOT), so a warm-up stall that moves the
  // mean TTFT moves it too. measured_throughput_per_gpu is that figure (0 = none); the
  // verbatim one is here.
  double measured_run_throughput_per_gpu = 0;
  double predicted_run_throughput_per_gpu = 0;  // the figure the calculator shows for the row
  double measured_mean_tpot_s = 0;  // verbatim from the CSV (0 = none)
  std::string scenario;  // the calculator's scenario string for the row
  std::vector<std::string> set_constants;  // the "calibration" entries whose rows include it
  // Per fold kind, the prediction of the fold that held this row out (0 = not held out).
  std::array<FoldFigures, kFoldKinds> out_of_sample{};
};

/** Mean absolute percentage error of one metric over a group of rows. */
struct Mape {
  std::string group;  // GPU id, "all", or a named group
  double interactivity = 0, throughput = 0, ttft = 0;  // fractions
  int n_interactivity = 0, n_throughput = 0, n_ttft = 0;
};

/** One fold kind's out-of-sample error: every held-out row predicted by its own fold. */
struct FoldReport {
  std::string kind;
  std::vector<Mape> per_gpu;
  Mape all;
};

/** A constant set against the serving table: its value in data/, the value the procedure
 *  gives on every newest row, and the range of values the folds gave it. */
struct RefitConstant {
  std::string name;
  double data_value = 0, all_rows = 0, fold_min = 0, fold_max = 0;
};

struct ServingValidationReport {
  std::vector<ServingValidationRow> rows;
  std::vector<Mape> per_gpu;  // newest rows, one per GPU (in sample)
  Mape all;                   // newest rows (in sample)
  Mape drift;                 // the older rows
  // Newest rows, throughput only: the calculator's figure against the run's verbatim figure
  // (no median-TTFT footing on either side), printed beside the scored one.
  Mape verbatim_throughput;
  std::vector<Mape> groups;   // newest rows by model, engine, vendor and precision
  bool has_folds = false;
  std::vector<FoldReport> folds;  // kFoldKinds, in kFoldKindNames order
  std::vector<RefitConstant> constants;
  // validation-serving.json "same_architecture": measured model -> catalog ids of its architecture.
  std::vector<std::pair<std::string, std::vector<std::string>>> same_architecture;
  std::string note;
};

/**
 * Runs every row of `serving_json` (data/validation-serving.json, "gpucalc-validation-serving/1")
 * through the serving model: input = 0.9 x isl, output = 0.9 x osl, concurrency per instance,
 * tp / ep / dp_attention / engine / engine_version / MTP from the row, on the GPU's 8-GPU
 * offering. With `folds`, also leave-one-group-out per fold kind: the constants of the table's
 * "calibration" list re-set without the group by the procedure in validation.cpp
 * (reset_constants), the group predicted.
 */
Result<ServingValidationReport> run_serving_validation(const Catalog& catalog,
                                                       std::string_view serving_json,
                                                       bool folds = false);
std::string serving_report_to_text(const ServingValidationReport& report);

/** Error band of a prediction: per metric, the out-of-sample errors (request-shape folds) of the
 *  newest measured rows nearest to it: same vendor, weight format and users-per-instance regime
 *  (1-8, 9-32, 33+), widened to vendor + weights, then vendor, then all rows when a group has
 *  fewer than 3 points; mape, p50 and p80 of their |relative error|. Needs the report's folds.
 *  Precomputed per regime into data/error-bands.json (error_bands.hpp): evaluations read that. */
std::vector<ErrorBand> error_band_for(const ServingValidationReport& report,
                                      const std::string& vendor, const std::string& weights,
                                      double users_per_instance);
std::string serving_report_to_json(const ServingValidationReport& report);

/** Per extrapolation flag (BandFlag order), how much the folds that extrapolated that way
 *  (model, users, engine, GPU) erred beyond the band a prediction at each held-out row reads
 *  (error_band_for: its cell's request-shape p80), per metric: the 80th percentile over those
 *  rows of |error| / band, at least 1, so that 80 % of them lie inside the widened band; and the
 *  same over the rows of each GPU architecture that has kArchitectureWideningRows of them
 *  (BandWidening::architectures). Needs the report's folds. */
std::vector<BandWidening> band_widening(const ServingValidationReport& report);

/** The models (with `same_architecture`), engine@vendor pairs, GPUs and users per instance
 *  the report's newest rows measured. */
MeasuredSet measured_set(const ServingValidationReport& report);

/** Per fold kind and metric, the share of held-out rows whose out-of-sample error lies inside
 *  the p80 of their own band (the cell of their vendor, weights and users, widened by the
 *  flag of the fold's kind, on their GPU's architecture): what the bands promise, checked on
 *  the folds. With `architecture`, over the rows of GPUs of that architecture only (a kind
 *  without such a row reads -1). */
std::array<FoldFigures, kFoldKinds> band_coverage(const ServingValidationReport& report,
                                                  const ErrorBandTable& table,
                                                  std::string_view architecture = {});
/** band_coverage per fold kind and metric with its mean over the kinds, and the median
 *  interactivity p80 over the table's cells, as --validate prints them. */
std::string band_coverage_to_text(const ServingValidationReport& report, const ErrorBandTable& table);
/** The same shares as JSON: {"per_fold_kind": {kind: {metric: share}}, "per_architecture":
 *  {architecture: {kind: {metric: share}}}} (--validate --format json, key band_coverage). */
std::string band_coverage_to_json(const ServingValidationReport& report, const ErrorBandTable& table);

}  // namespace gpucalc
