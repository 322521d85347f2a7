#pragma once
/** Evaluates a scenario against a catalog: one result per compared offering, and JSON out. */
#include <array>
#include <cassert>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/error_band.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

/** How a figure was produced: formula and inputs, for --explain and the page. */
struct TraceEntry {
  std::string field;
  std::string formula;
  std::vector<std::pair<std::string, double>> inputs;
  std::string note;
  // Codes the page words in its own language (the prose above is the CLI's English): which
  // formula this is ("" until set: trace_codes() gives the field's own name), and the ids of the
  // note's parts joined by '+' ("" when there is no note).
  std::string formula_id = {};
  std::string note_id = {};
};

/** Which rates the throughput figures used, as a code: a scenario override of the achieved
 *  fraction of peak, a calibration record from bench/, public measurements (gpus.json), or the
 *  datasheet peak. The CLI and the page word it; the core does not. */
enum class RatesSource { kPeak, kMeasured, kCalibrated, kOverride, kSupplied, kCalibratedServing };
/** "peak" | "measured" | "calibrated" | "override" | "supplied" (a loaded document replaced
 *  figures the result is built on: `supplied_by` names it) | "calibrated_serving" (a serving
 *  calibration document corrects the serving figures: calibration_device holds its id) */
const char* rates_source_name(RatesSource source);

/** One pool of a disaggregated layout: `workers` engine workers of `tp` GPUs each, experts
 *  split `ep` ways over them (1: by TP), with or without data-parallel attention. */
struct PoolShape {
  int workers = 0, tp = 0, ep = 0;
  bool dpa = false;
};

/** One point of the serving curve: a layout at a concurrency. */
struct ServingCurveEntry {
  double tokens_per_s_per_user = 0.0;
  double total_tokens_per_s_per_gpu = 0.0;
  double output_tokens_per_s_per_gpu = 0.0;
  double ttft_s = 0.0;         // mean over the run's requests (the closed loop's first wave included)
  double ttft_median_s = 0.0;  // median: a steady-state request (the TTFT error band's statistic)
  double tpot_s = 0.0;
  double usd_per_million_tokens = 0.0;  // 0 when unpriced
  int tp = 0, ep = 0;
  bool dpa = false;
  double users = 0.0;  // over the offering (users per instance x replicas)
  // The point's layout. Aggregated: `replicas` instances of tp GPUs (tp, ep, dpa above), layout
  // "<replicas>x(tp<g>,ep<e>[,dpa])". Disaggregated (key pd): layout is disagg_layout_code's
  // "<P>x(...)+<D>x(...)", prefill and decode its pools, tp, ep, dpa above the decode worker's,
  // replicas 0. `gpus`: the GPUs the layout's instances or pools occupy (replicas x instance
  // GPUs; prefill + decode GPUs). The per-GPU figures divide by every deployed GPU of the
  // offering, not by `gpus`: GPUs a layout leaves idle are paid for (count_deployed_gpus).
  int replicas = 0;
  int gpus = 0;
  bool disaggregated = false;
  std::string layout;
  PoolShape prefill, decode;  // workers 0 when aggregated
  // The validation band for this point's users per instance: an index into the result's
  // curve_error_bands (-1: none), so a point at 128 users does not borrow the band of 4.
  int error_band_index = -1;
};

/** A measured run drawn beside the serving curve (x: tokens/s per user, y: total tokens/s per
 *  GPU): one of the serving calibration's runs, or a newest row of gpucalc's serving table,
 *  of the result's model, GPU, engine, weights, MTP and request shape. */
struct MeasuredMarker {
  std::string source;    // "calibration" (the calibration in use) | "validation" (the table)
  std::string document;  // the calibration's id, or "validation-serving.json"
  std::string run;       // the run's provenance: a calibration point's file:line; "" for the table
  std::string date, engine_version;
  int tp = 0, ep = 0;
  bool dpa = false;
  double users = 0.0;  // requests in flight per instance when it was measured
  double tokens_per_s_per_user = 0.0, total_tokens_per_s_per_gpu = 0.0;
  double ttft_s = 0.0;  // 0: not measured
};

struct OfferingResult {
  std::string offering_id, offering_name, gpu_id, gpu_name, gpu_vendor;
  int gpu_count = 0;
  bool fp4_native = false;        // the GPU's matrix units run FP4
  // The GPU's highest dense peak over its precisions, FLOP/s: no token rate per GPU can pass
  // peak / (2 x active parameters) (the output invariants' ceiling; not printed).
  double gpu_peak_flops_per_s = 0.0;
  bool capacity_assumed = false;  // device basis fell back to marketed GiB
  bool projected = false;         // the GPU is a projected part: vendor claims, never measured
  // Disaggregated prefill/decode (key pd): the serving figures at the users were computed on
  // this layout (disagg_layout_code; empty: aggregated), KV moved over kv_transfer_fabric
  // ("scale_up" | "scale_out").
  std::string pd_layout, kv_transfer_fabric;
  int prefill_gpus = 0, decode_gpus = 0;
  // The disaggregated layout's pools as numbers the page words (0: aggregated): workers, GPUs
  // per worker, expert-parallel degree over them, data-parallel attention.
  int prefill_workers = 0, prefill_tp = 0, prefill_ep = 0;
  int decode_workers = 0, decode_tp = 0, decode_ep = 0;
  bool prefill_dpa = false, decode_dpa = false;
  // Aggregated: the instances of serving_tensor_parallel GPUs that serve the users (0: none
  // served, or a disaggregated layout did).
  int serving_replicas = 0;
  std::optional<double> kv_transfer_s, prefill_utilization;
  double offering_hbm_marketed_bytes = 0.0;  // deployed GPUs x marketed HBM per GPU (as sold)
  MemoryFit fit;
  // --- servers: fit.servers units of the offering deployed ---
  int servers = 1;            // = fit.servers
  int deployed_gpus = 0;      // gpu_count x servers
  bool stackable = false;     // the offering has a scale-out network
  std::string scale_out_network;                 // its id, "" when none
  std::optional<double> scale_out_s;             // inter-node time of one decode step (users)
  std::string scale_out_strategy;  // "expert_parallel" | "pipeline" when an instance spans servers
  std::optional<double> unit_price_usd_per_month;  // one unit of the offering
  std::optional<double> price_usd_per_month;     // the deployment: unit price x servers
  std::optional<double> price_usd_per_gpu_hour;
  std::optional<double> price_usd_per_gb_month;
  std::optional<double> price_delta_usd_per_month;  // this minus the first compared offering
  // --- performance (core/src/evaluate/performance.cpp) ---
  std::optional<double> max_throughput_tokens_per_s;  // whole offering, output tokens
  std::optional<double> decode_tokens_per_s_per_user;
  std::optional<double> ttft_s;         // mean, the closed-loop client's first wave included
  std::optional<double> ttft_median_s;  // median (<= the mean); error_band's ttft is measured on it
  std::optional<double> tpot_s;
  std::optional<double> usd_per_million_tokens;        // per million output tokens
  std::optional<double> usd_per_million_total_tokens;  // per million input + output tokens, same point
  // --- serving: what a client sees at the scenario's users ---
  std::optional<double> total_tokens_per_s_per_gpu;   // input + output
  std::optional<double> output_tokens_per_s_per_gpu;
  std::optional<double> e2e_latency_s;
  std::string engine, engine_version;  // the engine profile used
  int serving_tensor_parallel = 0;     // GPUs per instance of the serving point
  int expert_parallel = 0;             // 0 = not a MoE model or no serving point
  bool data_parallel_attention = false;
  std::vector<ServingCurveEntry> curve;                // Pareto front
  std::optional<ServingCurveEntry> interactivity_point;  // at the scenario's interactivity
  std::optional<ServingCurveEntry> max_throughput_point;  // within ttft_max / tpot_max
  ErrorBandList error_band;
  // The distinct bands the curve's points and the two named points use (error_band_index).
  std::vector<ErrorBandList> curve_error_bands;
  // Measured runs of this configuration for the chart (with the curve only).
  std::vector<MeasuredMarker> measured_points;
  std::optional<double> train_tokens_per_s;
  std::optional<double> train_hours;
  // Optimizer steps of the run: ceil(train_tokens / (seq x micro-batch x data parallel)).
  std::optional<double> train_steps;
  std::optional<double> gpu_hours;
  std::optional<double> run_cost_usd;
  std::optional<double> train_memory_bytes_per_gpu;
  std::optional<TrainingMemoryParts> train_memory_parts;  // train_memory_bytes_per_gpu by part
  std::optional<double> billed_months;  // a monthly plan: the months a run pays for
  // --- energy (core/src/model/energy.cpp), at max throughput or over the training run ---
  std::optional<double> all_in_power_w_per_gpu;
  std::optional<double> energy_joules_per_output_token;
  std::optional<double> output_tokens_per_s_per_mw;
  std::optional<double> energy_usd_per_million_tokens;
  std::optional<double> energy_kwh_per_run;
  std::optional<double> energy_usd_per_run;
  RatesSource rates_source = RatesSource::kPeak;
  bool rates_estimate = false;     // some rate is a flagged estimate
  std::string calibration_device;  // when rates_source is calibrated: the record's device name
  std::string calibration_date;    // ... and its ISO 8601 date
  // The documents (file names, ", "-separated) that gave figures this result is built on in
  // place of gpucalc's data/: its GPU, model, network, model constants, engine or kernel data.
  std::string supplied_by;
  std::string error_bands_supplied_by;  // the document that replaced gpucalc's error bands
  // Codes, e.g. "context_exceeds_model": the core's own static literals, held as views.
  std::vector<std::string_view> warnings;
  std::vector<TraceEntry> trace;
};

/** The (name, value) parameters of one verdict reason, held inline (no allocation per reason).
 *  The verdict's reasons carry at most eight (core/src/evaluate/verdict.cpp); more than kCapacity is a
 *  programming error, asserted in debug builds (the ASan test build). Reads like a const
 *  std::vector of pairs. */
class VerdictParams {
 public:
  using value_type = std::pair<std::string_view, double>;
  static constexpr std::size_t kCapacity = 8;
  VerdictParams() = default;
  VerdictParams(std::initializer_list<value_type> items) {
    for (const value_type& x : items) push_back(x);
  }
  void push_back(const value_type& x) {
    assert(size_ < kCapacity && "a verdict reason holds at most VerdictParams::kCapacity params");
    if (size_ < kCapacity) items_[size_++] = x;
  }
  void emplace_back(std::string_view name, double value) { push_back(value_type{name, value}); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const value_type* begin() const { return items_.data(); }
  const value_type* end() const { return items_.data() + size_; }
  const value_type& operator[](std::size_t i) const { return items_[i]; }

 private:
  std::array<value_type, kCapacity> items_{};
  std::size_t size_ = 0;
};

/** One reason of the plain-words verdict; the page translates `code` and fills in `params`.
 *  Code, kind, basis and parameter names are the verdict's own static literals
 *  (core/src/evaluate/verdict.cpp), held as views: no string is built per reason. */
struct VerdictItem {
  std::string_view offering_id;  // its text held by `offering_ids` below
  std::string_view code;   // e.g. "more_hbm_per_gpu" (docs/cli-and-json.md lists them)
  std::string_view kind;   // "pro" | "con" | "note"
  std::string_view basis;  // the result field (or, for stack reasons, the scenario key) it rests on
  VerdictParams params;
  // The compared offerings' ids, written once per verdict and shared by its items (no string
  // per reason): offering_id views into it, so an item stays valid wherever it is copied.
  std::shared_ptr<const std::string> offering_ids;
};

struct Evaluation {
  Evaluation() = default;
  /** An evaluation of `s` on `m` about to be filled (evaluate builds it in its result). */
  Evaluation(const Scenario& s, const Model& m) : scenario(s), model(m) {}
  Scenario scenario;
  std::string canonical;
  Model model;
  std::vector<OfferingResult> results;
  std::vector<VerdictItem> verdict;
  std::string recommended_offering_id;  // empty when nothing fits
  // "usd_per_million_tokens" | "run_cost_usd" | ...: the verdict's own static literals, as a view.
  std::string_view recommendation_basis;
};

/** Fills evaluation.verdict and the recommendation from the results and the scenario's stack. */
void build_verdict(Evaluation& evaluation);

/** Whether this program writes formula traces (EvaluateOptions::with_trace): true, unless it
 *  links its own definition returning false, as the page's first WASM module does
 *  (wasm/bindings.cpp): with the module linked as one optimised unit the trace code is then left
 *  out, and an evaluation asked for a trace is refused (kNotAllowed, field "trace"). */
bool traces_linked();

/** What evaluate() computes beyond the fit, price and the serving point at the users. */
struct EvaluateOptions {
  bool with_trace = false;  // fill each result's trace
  bool with_curve = true;   // curve, max_throughput (a search), interactivity point, cost
};

/** Runs the fit, price and performance models. `with_trace` fills each result's trace. */
Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& scenario, bool with_trace);
/** The same with options: with_curve = false evaluates one concurrency only (the scenario's
 *  users), leaving curve, max_throughput_tokens_per_s and usd_per_million_tokens empty. */
Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& scenario,
                            const EvaluateOptions& options);

/** Decodes `scenario_text` then evaluates it. */
Result<Evaluation> evaluate_text(const Catalog& catalog, std::string_view scenario_text,
                                 bool with_trace);

/** The public JSON output (documented in docs/cli-and-json.md). */
std::string evaluation_to_json(const Evaluation& evaluation, bool with_trace);

/** {"error": {"code", "field", "message"}} */
std::string error_to_json(const Error& error);

/**
 * The "what fits" table as JSON text: for every catalog model and every weight format
 * (bf16, fp8, fp6, fp4, int4), per compared offering's GPU: weights_bytes,
 * gpus_needed_weights_only and gpus_needed under the scenario's kv, context, users, capacity
 * and reserve. {"capacity_basis", "gpus": [ids], "rows": [{"model", "weights", "cells": [...]}]}.
 */
Result<std::string> fit_table_json(const Catalog& catalog, const Scenario& scenario);

/** Catalog listing as JSON text ({"gpus": [...]} etc.): what = "gpus" | "models" | "offerings". */
Result<std::string> catalog_to_json(const Catalog& catalog, std::string_view what);

}  // namespace gpucalc
