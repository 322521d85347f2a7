#pragma once
/**
 * The validation table: the model's prediction against public end-to-end results
 * (data/validation.json, from shared/reference/measured.md), with the error of each.
 */
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/evaluate.hpp"
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

/** One measured serving point (data/validation-serving.json) against the serving model. */
struct ServingValidationRow {
  std::string date, gpu, gpu_id, model, weights, engine, engine_version;
  int tp = 1, ep = 1, dpa = 0;
  double isl = 0, osl = 0, concurrency = 0;
  bool newest = false;  // the newest row of its configuration and concurrency (scored)
  // Measured (0 = the row has none) and predicted.
  double measured_interactivity = 0, measured_throughput_per_gpu = 0, measured_ttft_s = 0;
  double predicted_interactivity = 0, predicted_throughput_per_gpu = 0, predicted_ttft_s = 0;
  double predicted_tpot_s = 0;
  std::string scenario;  // the calculator's scenario string for the row
  // The constants set against this row (validation-serving.json "calibration"), and per metric
  // (interactivity, throughput per GPU, TTFT) whether any constant was set on it.
  std::vector<std::string> set_constants;
  bool used_for_interactivity = false, used_for_throughput = false, used_for_ttft = false;
  // The same, counting only constants of one engine or GPU family (scope "local").
  bool local_for_interactivity = false, local_for_throughput = false, local_for_ttft = false;
};

/** Mean absolute percentage error of one metric over a group of rows. */
struct Mape {
  std::string group;  // GPU id, "all", or a named group
  double interactivity = 0, throughput = 0, ttft = 0;  // fractions
  int n_interactivity = 0, n_throughput = 0, n_ttft = 0;
};

struct ServingValidationReport {
  std::vector<ServingValidationRow> rows;
  std::vector<Mape> per_gpu;  // newest rows, one per GPU, then "all"
  Mape all;                   // newest rows
  Mape drift;                 // the older rows
  // Per metric, only the rows no constant was set on (validation-serving.json "calibration"):
  // the model's error out of sample, on the newest runs and on the older runs.
  Mape held_out;
  Mape held_out_drift;
  // Newest rows no engine or GPU-family constant was set on (global constants may be).
  Mape held_out_local;
  std::vector<Mape> groups;   // newest rows by model, engine, vendor and precision
  std::string note;
};

/**
 * Runs every row of `serving_json` (data/validation-serving.json, "gpucalc-validation-serving/1")
 * through the serving model: input = 0.9 x isl, output = 0.9 x osl, concurrency per instance,
 * tp / ep / dp_attention / engine / engine_version from the row, on the GPU's 8-GPU offering.
 */
Result<ServingValidationReport> run_serving_validation(const Catalog& catalog,
                                                       std::string_view serving_json);
std::string serving_report_to_text(const ServingValidationReport& report);

/** Error band of a prediction: per metric, the MAPE of the newest measured rows nearest to it:
 *  same vendor, weight format and users-per-instance regime (1-8, 9-32, 33+), widened to
 *  vendor + weights, then vendor, then all rows when a group has fewer than 3 points.
 *  Precomputed per regime into data/error-bands.json (error_bands.hpp): evaluations read that. */
std::vector<ErrorBand> error_band_for(const ServingValidationReport& report,
                                      const std::string& vendor, const std::string& weights,
                                      double users_per_instance);
std::string serving_report_to_json(const ServingValidationReport& report);

}  // namespace gpucalc
