#pragma once
/**
 * The disaggregated serving table (data/validation-disagg.json, from
 * shared/reference/serving-disagg-measured.csv): each measured prefill/decode deployment
 * against the disaggregated model (disagg.hpp), in sample and leave one group out.
 */
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/validation.hpp"

namespace gpucalc {

/** One measured disaggregated point against the model. */
struct DisaggValidationRow {
  std::string date, gpu, model, weights, engine, layout;  // layout: disagg_layout_code
  int mtp = 0;
  double isl = 0, osl = 0, concurrency = 0;  // concurrency over the whole deployment
  int total_gpus = 0;
  bool newest = false;  // newest row of its configuration and concurrency (scored)
  double measured_interactivity = 0, measured_throughput_per_gpu = 0;
  double predicted_interactivity = 0, predicted_throughput_per_gpu = 0;  // 0: does not fit
  // Per fold kind (kDisaggFoldNames), the prediction of the fold that held this row out.
  std::vector<FoldFigures> out_of_sample;
};

/** The fold kinds: a whole GPU, a whole engine, a whole layout held out. */
constexpr std::size_t kDisaggFoldKinds = 3;
extern const char* const kDisaggFoldNames[kDisaggFoldKinds];  // "gpu", "engine", "layout"

struct DisaggValidationReport {
  std::vector<DisaggValidationRow> rows;
  std::vector<Mape> per_gpu;       // newest rows, in sample
  Mape all;                        // newest rows, in sample
  std::vector<FoldReport> folds;   // kDisaggFoldKinds, in kDisaggFoldNames order
  std::vector<RefitConstant> constants;  // the table's "calibration" constants
  std::string note;
};

/**
 * Runs every row of `disagg_json` ("gpucalc-validation-disagg/1"): input = 0.9 x isl, output =
 * 0.9 x osl, the row's pools on its GPU's offering (offerings: gpu -> id), its engine, weights
 * and MTP, at its concurrency. With `folds`, the constants the table's "calibration" list names
 * are re-set (a grid over their range, least mean |relative error| on the training rows)
 * without each group of every fold kind, and the group predicted.
 */
Result<DisaggValidationReport> run_disagg_validation(const Catalog& catalog,
                                                     std::string_view disagg_json, bool folds);
std::string disagg_report_to_text(const DisaggValidationReport& report);
std::string disagg_report_to_json(const DisaggValidationReport& report);

}  // namespace gpucalc
