#pragma once
/**
 * Error bands precomputed from the validation tables: data/error-bands.json, written by
 * `make error-bands` (gpucalc --validate --write-error-bands FILE) and loaded through the catalog
 * (schema "gpucalc-error-bands/1"), so an evaluation reads its band instead of running the
 * serving validation on first use. The same file holds the per-GPU validation summary that the
 * page's "How accurate is this?" panel lists. tests/validation/test_error_bands.cpp recomputes both from
 * data/validation.json and data/validation-serving.json and fails when the file is stale.
 */
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/error_band.hpp"
#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr std::string_view kErrorBandsSchema = "gpucalc-error-bands/1";

/** Mean absolute percentage error (fraction) over `points` measured points. */
struct MetricError {
  double mape = 0.0;
  int points = 0;
};

/** One GPU's error on the MLPerf table (every row of that GPU, data/validation.json). */
struct MlperfGpuError {
  std::string gpu;  // GPU id
  MetricError error;
};

/** One row of the MLPerf table: prediction against the published result. */
struct MlperfRowError {
  std::string id, workload, gpu, unit;  // unit "tokens_per_s" | "minutes"
  double predicted = 0.0, measured = 0.0;
  double error = 0.0;  // predicted / measured - 1
};

/** One GPU's (or "all") error on the serving table's newest rows, per metric. */
struct ServingGpuError {
  std::string gpu;  // GPU id, or "all"
  MetricError interactivity, throughput_per_gpu, ttft;
};

/** The validation summary: what the page's accuracy panel lists, in the key names of
 *  `gpucalc --validate --format json` (a subset of it, plus mlperf.per_gpu). */
struct ValidationSummary {
  std::vector<MlperfRowError> mlperf_rows;
  std::vector<MlperfGpuError> mlperf_per_gpu;
  double mlperf_median_abs_error = 0.0, mlperf_max_abs_error = 0.0;
  bool mlperf_ranks_match = false, mlperf_ranks_match_beyond_ties = false;
  std::vector<ServingGpuError> serving_per_gpu;
  ServingGpuError serving_all;
};

constexpr std::size_t kErrorBandVendors = 2;  // amd, nvidia
constexpr std::size_t kErrorBandFormats = 6;  // WeightFormat bf16 .. native
constexpr std::size_t kErrorBandRegimes = 3;  // users per instance 1-8, 9-32, 33+

/** Extrapolation flags of a band, as bits: combinations index ErrorBandTable::widened. */
enum BandFlag : unsigned {
  kBandModelUnmeasured = 1,
  kBandUsersBeyondMeasured = 2,
  kBandEngineUnmeasured = 4,
  kBandGpuUnmeasured = 8,
  kBandDisaggregated = 16,  // a disaggregated layout's figure (validation-disagg.json's folds)
};
constexpr std::size_t kBandFlags = 5;
constexpr std::size_t kBandFlagCombos = 32;

/** A flag's widening on the rows of one GPU architecture (gpus.json `architecture`). */
struct ArchitectureWidening {
  std::string architecture, vendor;
  double interactivity = 1.0, throughput_per_gpu = 1.0, ttft = 1.0;
  int points = 0;  // the fold's rows of this architecture (interactivity)
};

/** How much a flag widens a band, per metric: over the rows of the fold kind that held out the
 *  same kind of group, the 80th percentile of each row's out-of-sample |relative error| over its
 *  own band (at least 1). `architectures`: the same over the rows of each GPU architecture with
 *  at least kArchitectureWideningRows of them, which a prediction on a GPU of that architecture
 *  takes in place of the factor over all rows. */
struct BandWidening {
  std::string flag, fold;
  double interactivity = 1.0, throughput_per_gpu = 1.0, ttft = 1.0;
  std::vector<ArchitectureWidening> architectures;
};

/** The fewest held-out rows of one architecture that set its own widening (per metric; below
 *  it the factor over all rows applies). */
constexpr int kArchitectureWideningRows = 10;

/** One held-out point's |error| over the p80 of the band a prediction there reads, for one
 *  metric (0 interactivity, 1 throughput per GPU, 2 TTFT), with its GPU's architecture and
 *  vendor: what a flag's widening is set from. */
struct WideningSample {
  std::string architecture, vendor;
  std::size_t metric = 0;
  double ratio = 0.0;
};

/** Sets `w`'s factors from `samples`: per metric the 80th percentile of the ratios, at least 1
 *  (left as it is where the metric has none), and `w.architectures`: the same over the samples
 *  of each architecture with kArchitectureWideningRows interactivity samples, each metric with
 *  fewer than that keeping the factor over all samples. */
void set_widening_factors(const std::vector<WideningSample>& samples, BandWidening& w);

/** One newest run of the serving table, kept for the measured markers beside the serving
 *  curve (measured_markers): its configuration and what it measured. */
struct MeasuredRun {
  std::string model, gpu_id, engine, weights, date, engine_version;
  int tp = 1, ep = 1, dp_attention = 0, mtp = 0;
  double input_tokens = 0.0, output_tokens = 0.0;  // mean per request (0.9 x nominal)
  double concurrency = 0.0;                        // requests in flight per instance
  double tokens_per_s_per_user = 0.0, total_tokens_per_s_per_gpu = 0.0;
  double ttft_s = 0.0;  // mean; 0 when the row has none
};

/** What the serving table measured, for the flags of a prediction and the chart's markers. */
struct MeasuredSet {
  std::vector<std::string> models;   // model ids, and those of the same architecture
  std::vector<std::string> engines;  // "<engine>@<vendor>"
  std::vector<std::string> gpus;     // GPU ids
  double users_max = 0.0;            // largest measured users per instance
  std::vector<MeasuredRun> runs;     // newest rows with both interactivity and throughput
};

/** Bands per (vendor, weight format, users-per-instance regime), plus the summary. */
struct ErrorBandTable {
  using Bands = std::vector<ErrorBand>;
  template <class T>
  using PerCell = std::array<std::array<std::array<T, kErrorBandRegimes>, kErrorBandFormats>, kErrorBandVendors>;
  PerCell<Bands> bands{};  // nothing extrapolated
  std::vector<BandWidening> widening;  // one per flag, in BandFlag order (kBandFlags)
  MeasuredSet measured;
  // Every cell under every combination of flags (bands widened), built from the above: flat,
  // (vendor, format, regime, combo) in that order (table_band() reads it).
  std::vector<Bands> widened;
  // The same for each architecture some flag widens on its own rows: its vendor's cells,
  // (format, regime, combo).
  struct ArchitectureCells {
    std::string architecture;
    std::vector<Bands> cells;
  };
  std::vector<ArchitectureCells> widened_by_architecture;
  ValidationSummary summary;
};

/** The flags (BandFlag bits) of a prediction for `model_id` on `engine_id` and `gpu_id`. */
unsigned band_flags(const ErrorBandTable& table, std::string_view model_id, std::string_view engine_id,
                    std::string_view vendor, std::string_view gpu_id, double users_per_instance);

/** "1-8" | "9-32" | "33+": the users-per-instance regime of the serving error bands. */
const char* users_regime(double users_per_instance);

/** Fills `table.widened` and `table.widened_by_architecture` from its bands and widening
 *  factors (the parser and the generator). */
void widen_bands(ErrorBandTable& table);

/** The table's band of a cell (vendor index: 0 amd, 1 nvidia; weight format; users regime)
 *  under `flags`, on a GPU of `architecture`: that architecture's widened cell where a flag is
 *  set and the table widens it on its own rows, else the vendor's. */
const std::vector<ErrorBand>& table_band(const ErrorBandTable& table, std::size_t vendor, std::size_t format,
                                         std::size_t regime, unsigned flags, std::string_view architecture);

struct DisaggValidationReport;

/** The disaggregated flag's widening: over the held-out points of every fold kind of the
 *  disaggregated table (a whole GPU, engine or layout out), the 80th percentile of each point's
 *  |error| over the p80 of the aggregated band its cell reads (vendor, weights, users per decode
 *  worker), at least 1; per architecture with kArchitectureWideningRows points. No TTFT is
 *  published with those points: its factor is 1. `table` holds the aggregated bands. */
BandWidening disaggregated_widening(const Catalog& catalog, const DisaggValidationReport& report,
                                    const ErrorBandTable& table);

/** Per disaggregated fold kind (gpu, engine, layout) and metric (interactivity, throughput per
 *  GPU), the share of held-out points inside the p80 of the band a disaggregated figure of their
 *  cell and architecture reads. */
std::array<std::array<double, 2>, 3> disagg_band_coverage(const Catalog& catalog, const DisaggValidationReport& report,
                                                          const ErrorBandTable& table);

/** Runs the validation tables on `catalog` and builds the table error_band_for() defines; the
 *  disaggregated table (validation-disagg.json, its folds) sets the disaggregated flag's widening
 *  (disaggregated_widening()). */
Result<ErrorBandTable> compute_error_bands(const Catalog& catalog, std::string_view validation_json,
                                           std::string_view serving_json, std::string_view disagg_json);

/** data/error-bands.json's text for `table` (fractions rounded to 1e-4, figures to 1e-3). */
std::string error_bands_to_json(const ErrorBandTable& table);

/** Parses an error-bands document; an error names the field. */
Result<ErrorBandTable> parse_error_bands(std::string_view json_text);

/** The same into `table` (the catalog parses into the table it keeps, so the page module moves
 *  none); an error names the field. */
std::optional<Error> parse_error_bands_into(std::string_view json_text, ErrorBandTable& table);

/** The catalog's band for a prediction: empty when the catalog has no error-bands document.
 *  A flagged prediction on a GPU of `architecture` takes that architecture's widening where
 *  the document gives one. */
const std::vector<ErrorBand>& catalog_error_band(const Catalog& catalog, const std::string& vendor,
                                                 WeightFormat weights, double users_per_instance,
                                                 unsigned flags = 0, std::string_view architecture = {});

/** The same band as a list shared with the catalog's table (no copy; empty when none). */
ErrorBandList catalog_error_band_list(const Catalog& catalog, const std::string& vendor,
                                      WeightFormat weights, double users_per_instance,
                                      unsigned flags = 0, std::string_view architecture = {});

/** The summary from the catalog's error-bands document as JSON, or {"error": {...}} when it has
 *  none: {"mlperf": {median_abs_error, max_abs_error, ranks_match, ranks_match_beyond_ties,
 *  rows: [{id, workload, gpu, unit, predicted, measured, error}], per_gpu: [{gpu, mape,
 *  points}]}, "serving": {mape_per_gpu: [M], mape_all: M}} with M = {group, interactivity,
 *  n_interactivity, throughput_per_gpu, n_throughput_per_gpu, mean_ttft, n_mean_ttft}
 *  (fractions; the same names as gpucalc --validate --format json). */
std::string validation_summary_json(const Catalog& catalog);

}  // namespace gpucalc
