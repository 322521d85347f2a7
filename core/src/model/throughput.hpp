#pragma once
/**
 * What the inference and training models share: the math precision a weight format runs at,
 * the achieved rates per GPU and precision (calibration record, else data/gpus.json
 * "achieved", else datasheet peak, times the global fractions of data/performance.json), the
 * parameter split of a model, and the run and token prices. Inference is the serving step
 * model (model/serving.hpp); training is model/training.hpp.
 */
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/model_constants.hpp"
#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"
#include "model/scale_out.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

/** Activations travel between layers in BF16. */
constexpr double kActivationBytes = 2.0;


/** Math precision of inference: FP4/FP6 run natively where the GPU has the path, else the
 *  weights are dequantised to FP8 (or BF16); INT4 is weight-only with BF16 math. */
Precision inference_math_precision(const Gpu& gpu, WeightFormat weights);
/** Math precision of training: FP8 when the weights are FP8 (or narrower) and the GPU runs FP8
 *  natively, else BF16. QLoRA computes in BF16. */
Precision training_math_precision(const Gpu& gpu, WeightFormat weights, Workload workload);

/** The catalog field (e.g. "peak_tflops.bf16") a scenario's math needs on `gpu` that the GPU
 *  leaves unset (only a projected part may), or empty: the math can be computed. Nothing is
 *  ever put in its place. */
std::string missing_gpu_figure(const Gpu& gpu, const Model& model, const Scenario& scenario);

/** Kernel-level rates of one GPU for one math precision, with their provenance. */
struct Rates {
  Precision math = Precision::kBf16;
  double matmul_flops_per_s = 0.0;         // achieved, before matmul_fraction
  double hbm_bytes_per_s = 0.0;            // achieved, before hbm_fraction
  double allreduce_bus_bytes_per_s = 0.0;  // large-message bus bandwidth
  double matmul_fraction_of_peak = 0.0;
  double hbm_fraction_of_peak = 0.0;
  bool calibrated = false;
  bool measured = false;  // public measurement used (else datasheet peak)
  bool estimate = false;  // some figure is a flagged estimate
  bool overridden = false;
  std::string label;  // rates_label (empty when resolved with with_label false)
};

/** Resolves the rates: scenario override (fraction of peak) > calibration record > gpus.json
 *  achieved > another precision's achieved fraction of peak (estimate) > datasheet peak.
 *  `with_label` false leaves `label` empty (the serving context words it only for a trace:
 *  rates_label). */
Rates resolve_rates(const Catalog& catalog, const Gpu& gpu, Precision math,
                    const Scenario& scenario, bool with_label = true);
/** The words of `rates.label` for rates resolved on `gpu` ("public measurements", "calibrated
 *  on <device>, <date>", ...). */
std::string rates_label(const Rates& rates, const Catalog& catalog, const Gpu& gpu);

/** Parameter split of a model for the roofline (counts, not bytes). */
struct ParamSplit {
  double dense_active = 0.0;    // attention, dense FFN, shared experts, embeddings
  double expert_total = 0.0;    // all routed experts, all MoE layers
  double expert_active = 0.0;   // routed experts one token uses
  double per_expert = 0.0;      // one routed expert over all MoE layers
  double attention_flops_per_layer_ctx_token = 0.0;  // per query token per context token
};
ParamSplit split_params(const Model& model);

/** Cost inputs of seed 000's formula, besides compute. */
struct RunCostInputs {
  double recovery_fraction = 0.0;
  double storage_usd = 0.0, network_usd = 0.0, software_usd = 0.0, engineering_usd = 0.0;
  double porting_usd = 0.0;  // counted only when `porting_applies`
  bool porting_applies = false;
  // A plan billed by the month (no per-hour rate listed): the run pays every month it
  // occupies, ceil(hours x (1 + recovery) / 730) months; 0 = billed by the hour.
  bool billed_monthly = false;
};
/**
 * Seed 000: total = billable compute + storage + networking + software + recovery +
 * attributable engineering; compute = hours x US$ per hour, recovery = compute x fraction.
 * Billed monthly: compute + recovery = ceil(hours x (1 + recovery) / 730) x 730 x US$ per hour.
 */
double run_cost_usd(double hours, double usd_per_hour, const RunCostInputs& inputs);

/** Months a monthly plan bills for a run of `hours` with `recovery_fraction` extra. */
double billed_months(double hours, double recovery_fraction);

/** US$ per million output tokens: price per month / (tokens/s x 3600 x 730 x util) x 1e6. */
double usd_per_million_tokens(double price_usd_per_month, double tokens_per_s,
                              double utilization);

}  // namespace gpucalc
