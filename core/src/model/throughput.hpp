#pragma once
/**
 * The throughput and training model behind estimate_performance(), exposed for the
 * validation table, the tests and the benchmark.
 *
 * Inference is a per-step roofline: a step takes max(FLOPs / matmul rate, bytes / HBM rate)
 * plus tensor-parallel all-reduce time and a fixed per-step overhead. Training is a sum of
 * compute and memory-traffic time per token (GEMMs and element-wise kernels do not overlap)
 * plus communication. Rates: achieved figures per GPU and precision (calibration record, else
 * data/gpus.json "achieved", else datasheet peak) times the global fractions of
 * data/performance.json.
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

/** Cost of one step on one GPU of an instance. */
struct StepCost {
  double flops_per_gpu = 0.0;
  double bytes_per_gpu = 0.0;
  double compute_s = 0.0;
  double memory_s = 0.0;
  double comm_s = 0.0;        // all-reduce inside the server + scale_out_s
  double scale_out_s = 0.0;   // of comm_s: across servers (core/src/model/scale_out.cpp)
  double overhead_s = 0.0;
  double total_s = 0.0;  // max(compute, memory) + comm + overhead
};

/** Everything a step needs, computed once per (scenario, offering). */
struct InferenceContext {
  const Model* model = nullptr;
  const Gpu* gpu = nullptr;
  KvFormat kv = KvFormat::kFp8;
  double weight_bytes = 0.0;  // whole model
  double capacity_bytes_per_gpu = 0.0;
  double reserve_bytes_per_gpu = 0.0;
  double input_tokens = 0.0;
  double output_tokens = 0.0;
  ParamSplit split;
  Rates rates;
  ModelConstants constants;
  double matmul_flops_per_s = 0.0;  // rates x matmul_fraction
  double hbm_bytes_per_s = 0.0;     // rates x hbm_fraction
  ScaleOutLink scale_out;           // servers > 1: instances wider than one server cross it
  double max_batch_sequences = 0.0;  // the engine's admission limit (max_running_requests)
};

InferenceContext make_inference_context(const Catalog& catalog, const Scenario& scenario,
                                        const Model& model, const Gpu& gpu,
                                        const ModelConstants& constants);

/** One decode step for `batch` sequences at `context_tokens` each on an instance `d`. */
StepCost decode_step(const InferenceContext& c, const Deployment& d, double batch,
                     double context_tokens);
/** Prefill of `batch` prompts of `input_tokens` each on an instance `d`. */
StepCost prefill_step(const InferenceContext& c, const Deployment& d, double batch,
                      double input_tokens);

/** Latency limits for the batch search (MLPerf Server: TTFT 2 s, TPOT 200 ms). */
struct LatencyLimits {
  double ttft_s = 0.0;  // 0 = none
  double tpot_s = 0.0;
};

/** An operating point of the offering: replicas x instance, batch per instance. */
struct InferencePoint {
  Deployment deployment;
  int replicas = 0;
  long long batch = 0;             // sequences per instance
  double tokens_per_s = 0.0;       // output tokens, whole offering
  double tpot_s = 0.0;             // decode step at this batch
  double ttft_s = 0.0;             // prefill of one prompt plus one decode step
  double prefill_s = 0.0;          // prefill of the whole batch
};

/** Output tokens/s of `replicas` instances each running `batch` sequences: batch x output /
 *  (prefill(batch) + output x decode step at context input + output / 2). */
InferencePoint operating_point(const InferenceContext& c, const Deployment& d, int replicas,
                               long long batch);

/** Largest batch per instance that holds weights + reserve + KV for input + output tokens,
 *  capped by the engine's admission limit (max_batch_sequences: its profile's
 *  max_running_requests). 0 when nothing fits. */
long long max_batch_for(const InferenceContext& c, const Deployment& d);

/**
 * Maximum throughput of an offering of `gpu_count` GPUs: best split into replicas x instance
 * size (`fixed_gpus_per_instance` > 0 forces one), each at the largest batch that fits (and
 * meets `limits`). Empty when no split fits.
 */
std::optional<InferencePoint> max_throughput(const InferenceContext& c, int gpu_count,
                                             int fixed_gpus_per_instance,
                                             const LatencyLimits& limits);

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
