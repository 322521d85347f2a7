#pragma once
/**
 * Global constants of the throughput model: a catalog document ("schema":
 * "gpucalc-performance/1", data/performance.json) like the GPUs and prices, replaceable with
 * `--catalog FILE` or the page's price-list loader. There are no defaults in C++: every field
 * comes from the document, and a document missing one is an error naming it.
 */
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr std::string_view kPerformanceSchema = "gpucalc-performance/1";

/** The same for every GPU, model and workload; each value's source is in the document. To add
 *  one: a member here and a row in core/src/catalog/model_constants.cpp. */
struct ModelConstants {
  double matmul_fraction = 0.0;            // of the achieved (microbenchmark) matmul rate
  double hbm_fraction = 0.0;               // of the achieved (BabelStream Dot) HBM rate
  double moe_expert_gemm_fraction = 0.0;   // expert GEMMs relative to dense GEMMs
  double step_overhead_s = 0.0;            // per decode or prefill step
  double allreduce_latency_s = 0.0;        // per small-message all-reduce
  double activation_traffic_factor = 0.0;  // training: activations written then read
  // Serving step model.
  double large_m_matmul_fraction = 0.0;    // GEMMs of >= large_m_tokens rows (prefill)
  double large_m_tokens = 0.0;
  double small_m_tokens = 0.0;             // up to here: matmul_fraction
  double moe_stream_fraction = 0.0;        // routed-expert weights, of the achieved HBM rate
  double attention_fraction = 0.0;         // decode attention KV read, of the achieved HBM rate
  double small_kernel_latency_s = 0.0;     // one norm / rope / quantisation / routing kernel
  double small_kernels_attention_gqa = 0.0;  // per layer
  double small_kernels_attention_mla = 0.0;
  double small_kernels_ffn_dense = 0.0;
  double small_kernels_ffn_moe = 0.0;
  double gemm_kernels_attention_gqa = 0.0;  // qkv, o
  double gemm_kernels_attention_mla = 0.0;  // q_a+kv_a, q_b, k absorb, v absorb, o
  double first_wave_fraction = 0.0;         // requests of a benchmark run that arrive at once
  double arrival_spread_fraction = 0.0;     // closed loop: a wave's arrivals spread over this
                                            // fraction of its end-to-end latency
  double kv_transfer_fraction = 0.0;        // disaggregated serving: KV transfer's share of
                                            // the link's rate (disagg.cpp)
  double prefill_worker_fraction = 0.0;     // disaggregated serving: a dedicated prefill
                                            // worker's rate, of the step model's prefill
  double dpa_sequence_overhead_s = 0.0;     // disaggregated decode with DP attention: per
                                            // sequence on a rank, per step (disagg.cpp)
  /** model id -> mean tokens per step at 1, 2, ... draft tokens (speculative decoding). */
  std::vector<std::pair<std::string, std::vector<double>>> mtp_acceptance_length;
  /** model id -> the model id whose MTP head (and acceptance table) it shares. */
  std::vector<std::pair<std::string, std::string>> mtp_shares_head;
};

/** Mean tokens per step at 1, 2, ... draft tokens for `model_id` (its own table, or that of the
 *  model whose MTP head it shares), or nullptr when the constants have none. */
const std::vector<double>* mtp_acceptance(const ModelConstants& constants, std::string_view model_id);

/** Parses a gpucalc-performance/1 document. Each constant is a number or {"value": number,
 *  "source": "..."}; every constant is required and range-checked; errors name the field. */
Result<ModelConstants> parse_model_constants(std::string_view json_text);

/** The constant named `name` (a key of data/performance.json) in `constants`, for the
 *  validation's re-setting of constants; nullptr for an unknown name. */
double* model_constant(ModelConstants& constants, std::string_view name);

/** The built-in catalog's constants (data/performance.json as compiled in). */
const ModelConstants& default_model_constants();

}  // namespace gpucalc
