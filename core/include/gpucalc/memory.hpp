#pragma once
/**
 * Memory fit for inference: weight bytes, KV-cache bytes, GPUs needed, free memory, contexts.
 * Weights are counted in decimal bytes; capacities per the chosen basis (see capacity_bytes).
 */
#include "gpucalc/catalog.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

struct EngineProfile;  // serving.hpp: the engine whose KV pool rule an inference fit uses

/**
 * Usable HBM per GPU in bytes. kMarketed: the sold figure in decimal GB (seed 002 divides
 * decimal weights by it). kDevice: what the device reports, or the marketed figure read as GiB
 * where no device figure is recorded (an assumption the output flags).
 */
double capacity_bytes(const Gpu& gpu, CapacityBasis basis);
/** True when kDevice falls back to marketed GiB for this GPU. */
bool capacity_is_assumed(const Gpu& gpu, CapacityBasis basis);

/** FP4 encoding used on `gpu`: its native one, else MXFP4 stored weight-only. */
Fp4Encoding fp4_encoding_for(const Gpu& gpu);

/** The weights a scenario gets when it names none: the release's own (kNative) for a model
 *  whose checkpoint is quantized, else FP8. */
WeightFormat default_weight_format(const Model& model);

/** The format the matrix units see: kNative becomes the format of the model's main FFN weights
 *  (routed experts for MoE: Kimi K2.5 kInt4, gpt-oss kFp4, DeepSeek kFp8); others unchanged. */
WeightFormat math_weight_format(const Model& model, WeightFormat format);

/**
 * Resident weight bytes per weight group (main model + MTP layers), block scales included.
 * kNative: each group at the release's storage (Model::checkpoint). BF16, FP8, FP6: every
 * weight at the format. FP4 and INT4 on an MoE model: the routed experts at the format, the
 * attention, router, shared experts, dense layers, embedding and head in BF16 (as Kimi K2.5 and
 * gpt-oss ship); on a dense model every weight at the format.
 */
GroupParams weight_bytes_by_group(const Model& model, WeightFormat format, const Gpu& gpu);

/** Sum of weight_bytes_by_group (MoE: every expert is resident). */
double weight_bytes(const Model& model, WeightFormat format, const Gpu& gpu);

/** Per-layer cache sizes of each attention kind on one GPU under tensor parallelism `tp`. */
struct AttentionLayerBytes {
  double softmax_per_token = 0.0;  // GQA: 2 x ceil(kv_heads / tp) x head_dim x kv_bytes;
                                   // MLA: (kv_lora_rank + qk_rope_head_dim) x kv_bytes, replicated;
                                   // compressed: ceil(kv_heads / tp) x head_dim x kv_bytes (K = V)
  double indexer_per_token = 0.0;  // DSA: index_head_dim x kv_bytes (one key per token), replicated
  double linear_state = 0.0;       // Gated DeltaNet, per sequence: ceil(value_heads / tp) x
                                   // key_dim x value_dim x state bytes + conv (kernel - 1) inputs
};
AttentionLayerBytes attention_layer_bytes(const Model& model, KvFormat kv, int tp);

/** Layers of each kind on the most loaded of `pp` pipeline stages (ceil per kind). */
struct StageLayers {
  int full = 0;     // full softmax attention (GQA or MLA, DSA included): per-token KV
  int sliding = 0;  // sliding-window softmax: at most the window
  int linear = 0;   // linear attention: a fixed state per sequence
  int indexed = 0;  // full layers keeping index keys (Model::index_key_layers)
  int csa = 0;      // compressed attention: raw window + one row (and index key) per csa_ratio tokens
  int hca = 0;      // compressed attention: raw window + one row per hca_ratio tokens
};
StageLayers stage_layers(const Model& model, int pp);

/** How one sequence's cache grows on a stage, in bytes per context token: `per_token` without
 *  a cap (full layers x per-token bytes + index-key layers x index bytes + CSA layers x (row +
 *  index key) / csa_ratio + HCA layers x row / hca_ratio), `per_window_token` up to the window
 *  (sliding layers and the raw window of CSA and HCA layers x per-token bytes). */
struct CacheRates {
  double per_token = 0.0;
  double per_window_token = 0.0;
};
CacheRates cache_rates(const Model& model, const AttentionLayerBytes& l, const StageLayers& s);

/**
 * KV bytes per token for the whole model, counting only the layers that keep per-token KV:
 * full-attention layers x (GQA 2 x kv_heads x head_dim, or MLA kv_lora_rank + qk_rope_head_dim)
 * x kv_bytes, plus index_head_dim x kv_bytes on the layers keeping index keys, plus the
 * compressed rows of CSA / HCA layers (cache_rates' per_token at TP 1, PP 1). Sliding layers hold at most the window and linear layers
 * a fixed state: neither grows with the context (see kv_bytes_per_sequence_per_gpu).
 */
double kv_bytes_per_token(const Model& model, KvFormat kv);

/** Fixed bytes one sequence holds in the linear-attention layers, whole model:
 *  linear layers x (value_heads x key_dim x value_dim x state bytes
 *  + (2 x key_heads x key_dim + value_heads x value_dim) x (conv_kernel - 1) x conv bytes). */
double state_bytes_per_sequence(const Model& model);

/** A model instance spread over `gpus` GPUs: tensor parallel inside the scale-up domain,
 *  pipeline stages beyond it. */
struct Deployment {
  int gpus = 1;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
};

/** Splits n GPUs into TP x PP: TP = n up to `scale_up_gpus`, and TP must divide the heads. */
Deployment make_deployment(const Model& model, int gpus, int scale_up_gpus);

/** True when `gpus` is a legal instance size for the model (TP divides the attention heads and
 *  the KV heads or is a multiple of them; beyond the scale-up domain, whole domains). */
bool deployment_is_valid(const Model& model, int gpus, int scale_up_gpus);

/**
 * Cache bytes one sequence of `context_tokens` occupies on the most loaded GPU of the deployment:
 * full layers x per-token bytes x context + sliding layers x per-token bytes x min(context,
 * window) + linear layers x fixed state. GQA heads split over TP (replicated when TP > kv_heads);
 * MLA latent and DSA keys replicated on every TP rank; linear heads split over TP; layers split
 * over PP stages (ceil per kind).
 */
double kv_bytes_per_sequence_per_gpu(const Model& model, KvFormat kv, const Deployment& d,
                                     double context_tokens);

struct MemoryFit {
  double capacity_bytes_per_gpu = 0.0;
  double reserve_bytes_per_gpu = 0.0;
  double weights_bytes = 0.0;           // whole model
  double kv_bytes_per_token = 0.0;      // whole model, layers that keep per-token KV
  double state_bytes_per_sequence = 0.0;  // whole model, linear-attention state per sequence
  double kv_bytes_per_context = 0.0;    // one full-length sequence, whole model (TP 1), state included
  long long request_tokens = 0;         // tokens one user's request holds: min(input + output, context)
  bool engine_pool = false;             // KV sized by the engine's pool rule (inference), not reserve
  int gpus_needed_full_context = 0;     // smallest legal instance holding every user at the full context
  int gpus_needed_weights_only = 0;     // ceil(weights / capacity)
  int gpus_needed = 0;                  // smallest legal instance holding weights+reserve+KV
  bool fits = false;                    // the offering can host at least one instance
  const char* reason = "ok";            // "ok", "needs_more_gpus", "no_legal_split", "does_not_fit", "not_stackable"
  int servers = 1;                      // servers (units of the offering) deployed
  int servers_needed = 0;               // ceil(gpus_needed / GPUs per server); 0: no legal split
  Deployment deployment;                // the instance size used below
  int replicas = 0;                     // instances in the offering: floor(G / instance)
  double weights_bytes_per_gpu = 0.0;   // weights / instance GPUs
  double kv_free_bytes_per_gpu = 0.0;   // the engine's KV pool, else capacity - reserve - weights, per GPU (may be < 0)
  double kv_used_bytes_per_gpu = 0.0;   // KV the scenario's users hold (see fit_memory), spread over replicas
  double headroom_bytes_per_gpu = 0.0;  // kv_free - kv_used: memory left once the users are in
  double kv_free_bytes = 0.0;           // whole offering: replicas x instance GPUs x per GPU
  long long full_contexts_per_instance = 0;
  long long full_contexts = 0;          // whole offering
  long long max_context_tokens = 0;     // longest context for `users` sequences per instance
};

/** Training memory per GPU by part (bytes), as estimate_training (throughput.hpp) counts it.
 *  LoRA / QLoRA: `weights` is the frozen base, the adapters' own weights, gradients and
 *  optimizer state are `adapters`. */
struct TrainingMemoryParts {
  double weights = 0.0, gradients = 0.0, optimizer = 0.0, adapters = 0.0;
  double activations = 0.0, reserve = 0.0;
};

/** Largest instance size searched (GPUs). */
constexpr int kMaxInstanceGpus = 1024;

/** A deployment of `servers` units of one offering. `stackable`: the units share a scale-out
 *  network, so one model instance may span them; otherwise each holds its own copies. */
struct ServerSpan {
  int servers = 1;
  bool stackable = true;
};

/**
 * Fit of `model` on `span.servers` units of `offering`. gpus_needed is the smallest legal
 * instance holding the weights and the KV the scenario asks for:
 * - with `engine` (inference: the serving question): the KV of the users' requests as the
 *   engine holds them, (users - 1) x KV(min(input + output, context)) + one request at the full
 *   context, in the engine's KV pool (kv_pool_bytes_per_gpu, the serving model's rule), at most
 *   capacity - reserve - weights (reserve_gb a floor under what the engine keeps back;
 *   reserve_gb = 0 is the seeds' weights-only arithmetic: no engine rule). MLA's latent is replicated on every tensor-parallel rank unless
 *   attention is data parallel (dpa=1): then each rank holds ceil(users / instance) sequences
 *   at TP 1. gpus_needed_full_context is the worst case, every user at the full context.
 * - without (the what-fits table, training): users x KV(context) in capacity - reserve.
 * The instance used for the free-memory figures
 * is the scenario's `tp` when set (replicas = floor(G / tp)), else the largest legal instance
 * within the offering (one copy of the weights, the most room for KV).
 * With several servers an automatic instance spans the fewest servers that hold it (replicas
 * fill the rest); an instance larger than one unit of a non-stackable offering is "not_stackable".
 */
MemoryFit fit_memory(const Model& model, const Gpu& gpu, const Offering& offering,
                     const Scenario& scenario, const ServerSpan& span = {},
                     const EngineProfile* engine = nullptr);

/** Longest context (tokens) for which `users` sequences fit in `free_bytes` on the most
 *  loaded GPU of deployment `d`; sliding windows handled exactly, linear-attention state
 *  taken off the budget first (0 when the state alone does not fit). */
long long max_context_for(const Model& model, KvFormat kv, const Deployment& d,
                          double free_bytes_per_gpu, long long users);

}  // namespace gpucalc
