#pragma once
/**
 * The validation table: the model's prediction against public end-to-end results
 * (data/validation.json, from shared/reference/measured.md), with the error of each.
 */
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
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

}  // namespace gpucalc
