#pragma once
// Serving-engine profiles (data/engines.json): what the engines do, as data: KV pool rule,
// admission limits, prefill mixing, all-reduce preference, overheads, with sources.
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/result.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {


/** How an engine sizes its KV pool (engines.md section 1). */
enum class KvRule {
  kUtilization,  // vLLM, ATOM: capacity x fraction - weights - activations
  kReserved,     // SGLang: capacity - reserved(chunk, tp, graphs) - weights
  kFreeFraction  // TensorRT-LLM: fraction x (capacity - weights - buffers)
};

/** How an engine takes new requests into its running batch (data/engines.json
 *  new_request_gate): at every step, every `steps` decode steps (SGLang's
 *  --scheduler-recv-interval), or, with attention DP and TensorRT-LLM's attention_dp_config
 *  enable_balance, when every rank holds a new request or `steps` steps have passed. */
enum class RequestGate { kNone, kRecvInterval, kAttentionDpBalance };

/** An older engine version that ran measurably slower on some GPU families. */
struct EngineVersionDelta {
  std::string version;
  std::vector<std::string> arch_targets;  // "gfx942"
  double extra_layer_latency_s = 0.0;
  int mixes_prefill = -1;  // -1 = as the profile; 0 / 1 = this version's scheduling
};

/** One engine as data/engines.json states it: every figure is required there (parse_engines
 *  refuses a profile that leaves one out), so the zeros below never stand in for a figure. */
struct EngineProfile {
  std::string id, name, version;
  bool on_nvidia = false, on_amd = false;
  std::vector<std::string> allreduce_impls;  // preference order in data/kernels.json
  bool mixes_prefill = false;                // prefill chunks join decode steps
  double chunk_tokens = 0.0;                 // prefill tokens per step
  double chunk_tokens_large_gpu = 0.0;       // on GPUs with >= large_gpu_gb of HBM
  double large_gpu_gb = 0.0;
  double max_running_requests = 0.0;
  double graph_max_batch = 0.0;
  KvRule kv_rule = KvRule::kUtilization;
  double kv_fraction = 0.0;              // kUtilization / kFreeFraction
  double reserved_base_mb = 0.0;         // kReserved: SGLang's reserved_mem terms
  double reserved_per_chunk_token_mb = 0.0;
  double reserved_per_tp_mb = 0.0;
  double reserved_per_graph_bs_mb = 0.0;
  double reserved_floor_mb = 0.0;        // when capacity > 60 GB
  KvFormat kv_cache = KvFormat::kBf16;   // kv_cache_dtype "auto" on the served checkpoints
  // Admission (data/engines.json "admission"): the share of a request's remaining output
  // tokens whose KV the engine holds back while the request runs (1: all of it, the request
  // is never evicted; 0: blocks on demand), and whether it preempts a running request
  // (recomputed later) when the pool runs out.
  double admission_output_fraction = 1.0;
  bool preempts = false;
  double step_overhead_s = 0.0;
  double per_sequence_overhead_s = 0.0;
  // Per decode step, per sequence a scheduler holds, with speculative decoding only: the CPU
  // work the engine's overlap scheduler hides without it but not with it (SGLang turns its
  // overlap scheduler off for speculative decoding).
  double spec_sequence_overhead_s = 0.0;
  RequestGate gate = RequestGate::kNone;  // new_request_gate.kind
  double gate_steps = 0.0;                 // its default steps (1 or 0: no wait beyond a step)
  double request_overhead_nvidia_s = 0.0;  // client-seen TTFT floor (HTTP, tokenizer, scheduling)
  double request_overhead_amd_s = 0.0;
  std::vector<std::pair<std::string, double>> extra_layer_latency_s;  // by arch target
  std::vector<EngineVersionDelta> older_versions;
  // Disaggregated serving (data/engines.json "disagg", optional): this engine's own share of
  // the step model's prefill on a dedicated prefill worker and its per-token cost on a
  // DP-attention decode rank. Negative: not stated, the pooled values of data/performance.json
  // (prefill_worker_fraction, dpa_sequence_overhead_s) apply.
  double disagg_prefill_fraction = -1.0;
  double disagg_dpa_sequence_overhead_s = -1.0;
};

struct EngineCatalog {
  std::vector<EngineProfile> engines;
  std::string auto_moe, auto_dense;  // the document's "auto" (required)
  const EngineProfile* find(std::string_view id) const;
};

/** Parses data/engines.json ("gpucalc-engines/1"). */
constexpr std::string_view kEnginesSchema = "gpucalc-engines/1";
Result<EngineCatalog> parse_engines(std::string_view json_text);
/** An engine constant by path "<engine id>.<field>": request_overhead_s.nvidia / .amd,
 *  step_overhead_s, per_sequence_overhead_s, spec_sequence_overhead_s,
 *  extra_layer_latency_s.<arch target>, disagg.prefill_worker_fraction,
 *  disagg.dpa_sequence_overhead_s,
 *  older_versions.<version> (its extra layer latency); nullptr when the path names none. For
 *  the validation's re-setting of the constants set against the serving table. */
double* engine_constant(EngineCatalog& engines, std::string_view path);
/** A constant by the name the validation tables give it: "performance.<key>" (model_constant)
 *  or "engines.<path>" (engine_constant); nullptr when the name names none. */
double* catalog_constant(ModelConstants& constants, EngineCatalog& engines, std::string_view name);

/** The catalog's engine profiles (a --catalog engines document replaces the built-in ones). */
const EngineCatalog& catalog_engines(const Catalog& catalog);
/** The engines compiled in from data/engines.json (the build aborts at first use if it is missing or invalid). */
const EngineCatalog& default_engines();

/** The values of the key `engine`: "auto", then the engines' ids in document order. */
std::vector<std::string> engine_choices(const EngineCatalog& engines);
/** The key's description: "serving engine: auto, vllm, ..., trtllm (NVIDIA only) or atom (AMD only)". */
std::string engine_key_description(const EngineCatalog& engines);

/** The engine for `name` ("auto" or an engine id of `engines`) on `gpu`: auto picks the
 *  catalog's choice for MoE or dense models; an id the catalog lacks, or an engine that does
 *  not run on the GPU's vendor, is an error naming the key `engine`. */
Result<const EngineProfile*> select_engine(const EngineCatalog& engines, std::string_view name,
                                           const Gpu& gpu, const Model& model);

}  // namespace gpucalc
