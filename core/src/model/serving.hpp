#pragma once
/**
 * The serving step model: a decode or prefill step of an engine instance costs, per
 * layer, GEMMs (fixed kernel latency + weights streamed + FLOPs), attention reading the KV at
 * its achieved rate, MoE expert GEMMs over the experts a step touches, the tensor-parallel
 * all-reduce or expert-parallel all-to-all, and small-kernel floors; plus the engine's per-step
 * overhead. Continuous batching at a concurrency (closed loop, as a benchmark client keeps
 * `users` requests in flight) turns step times into what a client sees: mean TTFT, mean TPOT,
 * tokens/s per user and tokens/s per GPU.
 *
 * One file per operation under core/src/model/: gemm.cpp, attention.cpp, moe.cpp,
 * communication.cpp, serving.cpp (the step and the closed loop). Constants: data/performance.json.
 * The engine profiles and kernel tables the step reads are catalog data (catalog/engines.hpp,
 * catalog/kernels.hpp).
 */
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/result.hpp"
#include "gpucalc/scenario.hpp"
#include "catalog/engines.hpp"
#include "catalog/kernels.hpp"
#include "model/throughput.hpp"

namespace gpucalc {

// ---------------------------------------------------------------- operations

/** One GEMM group on one GPU: kernels x fixed latency + max(weights / stream rate, FLOPs /
 *  matmul rate) (gemm.cpp). The latency is the intercept of engines.md section 2's small-M
 *  tables; the max is the roofline, which the same tables follow within about 20 % up to
 *  M = 256. */
struct GemmCost {
  double latency_s = 0.0, memory_s = 0.0, compute_s = 0.0, total_s = 0.0;
};
/** Matrix rate of a GEMM with `tokens` rows: achieved x matmul_fraction up to small_m_tokens,
 *  achieved x large_m_matmul_fraction from large_m_tokens, log-linear between. */
double matmul_rate_at(double tokens, double achieved_flops_per_s, const ModelConstants& k);
/** log(large_m_tokens / small_m_tokens) as matmul_rate_at uses it, for the overload below. */
double matmul_log_span(const ModelConstants& k);
/** matmul_rate_at with log_span = matmul_log_span(k) computed once (the same figure). */
double matmul_rate_at(double tokens, double achieved_flops_per_s, const ModelConstants& k,
                      double log_span);
GemmCost gemm_cost(double kernels, double weight_bytes, double flops, double latency_s,
                   double stream_bytes_per_s, double flops_per_s);

/** Attention of one step on one GPU over all layers (attention.cpp). */
struct AttentionRates {
  double latency_s = 0.0;       // one attention kernel
  double kv_bytes_per_s = 0.0;  // achieved KV read rate
  double flops_per_s = 0.0;
};
struct AttentionCost {
  double latency_s = 0.0, memory_s = 0.0, compute_s = 0.0, total_s = 0.0;
  double kv_bytes = 0.0;  // read (decode) or written (prefill), this GPU
  double flops = 0.0;
};
/**
 * `sequences` sequences on this GPU, each with `query_tokens` new tokens over `context_tokens`
 * of context (prefill: causal, the mean query sees half the prompt). `head_fraction` = share
 * of the attention heads on this GPU (1 / tp, or 1 with data-parallel attention). GQA: this
 * GPU reads its KV heads (at least one); MLA: the latent + rotary key of every token (it is
 * not split by heads). Sliding-window layers read at most the window. Cost = layers x latency +
 * max(KV bytes / rate, FLOPs / rate).
 */
AttentionCost attention_cost(const Model& model, KvFormat kv, double head_fraction,
                             double sequences, double query_tokens, double context_tokens,
                             bool decode, const AttentionRates& rates);
/** The terms of attention_cost that depend only on the model and the KV format, computed once
 *  per serving context instead of at every step: attention_layer_bytes(model, kv, 1) and the
 *  linear-attention FLOPs of one query token (attention_step(model, kv, 0).linear_flops). */
struct AttentionModelTerms {
  AttentionLayerBytes per_layer;
  double linear_flops_per_token = 0.0;
};
AttentionModelTerms attention_model_terms(const Model& model, KvFormat kv);
/** attention_cost with the model's terms precomputed (the same figures, bit for bit). */
AttentionCost attention_cost(const Model& model, const AttentionModelTerms& terms, KvFormat kv,
                             double head_fraction, double sequences, double query_tokens,
                             double context_tokens, bool decode, const AttentionRates& rates);

/** Expected distinct experts a step of `tokens` tokens touches in one MoE layer (moe.cpp):
 *  E x (1 - (1 - k / E)^tokens). 256 experts, top-8, 4 tokens: 31.0. */
double experts_touched(double experts, double active, double tokens);
/** Touched experts on the most loaded of `ep` GPUs (the step waits for it): mean + sqrt(2 x
 *  mean x ln ep) (balls into bins), at most experts / ep; ep = 1: all touched. */
double experts_on_busiest_gpu(double experts, double touched, int ep);

/** The scale-up fabric an instance communicates over (communication.cpp). The prices engineer
 *  adds an inter-node term here; every communication cost goes through these functions. */
struct Fabric {
  const Curve* allreduce = nullptr;  // measured curve of the engine's implementation
  int allreduce_gpus = 0;            // GPUs the curve was measured over
  double bus_bytes_per_s = 0.0;      // large-message all-reduce bus bandwidth
  double latency_s = 0.0;            // small-message all-reduce latency when no curve
  double alltoall_latency_s = 0.0;   // small-message all-to-all latency when no curves (0: latency_s)
  const Curve* dispatch = nullptr;   // MoE all-to-all, tokens per GPU -> seconds
  const Curve* combine = nullptr;
};
/** One all-reduce of `bytes` per GPU over `gpus` GPUs: the curve measured over n GPUs read as
 *  a ring, t_n(n bytes / g) x (g - 1) / (n - 1) for g = min(gpus, n) (never below its first
 *  point; past its last point the extra bytes move at the large-message bus bandwidth where
 *  that is faster), else latency + 2 (g - 1) / g x bytes / bus bandwidth. 0 for one GPU. */
double allreduce_s(const Fabric& f, double bytes, int gpus);
/** MoE dispatch + combine of `tokens_per_gpu` tokens over `ep` GPUs (per layer): the curves,
 *  else two all-reduce-like transfers of tokens x hidden x 2 bytes. 0 for ep = 1. */
double alltoall_s(const Fabric& f, double tokens_per_gpu, double hidden, int ep);

// ---------------------------------------------------------------- the step (serving.cpp)

/** Parallel layout of one engine instance. */
struct Parallel {
  int tp = 1;        // GPUs of the instance in one server (tensor parallel for attention unless dpa)
  int ep = 1;        // expert-parallel degree inside one server (1 = experts split by TP)
  bool dpa = false;  // data-parallel attention over the instance's GPUs
  // Servers one instance spans over the scale-out network (1 = one server). A MoE model puts
  // its experts over all servers' GPUs (expert parallel across servers, attention data parallel
  // across them); a dense model pipelines its layers over the servers.
  int servers = 1;
  // Wide expert parallelism across servers (servers > 1, dpa): each MoE layer's dispatch and
  // combine is one all-to-all over NVLink and RDMA peers timed from the network's DeepEP /
  // MORI-EP figures (rdma_wide_ep). Set only by the aggregated search (legal_layouts); a
  // disaggregated pool across servers keeps the plain expert all-to-all.
  bool rdma = false;
  int gpus() const { return tp * servers; }
};

/** Per-layer parameter counts of a model (counts, not bytes), derived from the model's
 *  architecture fields and its active parameter count. */
struct LayerShape {
  double attention_params = 0.0;   // per layer: projections (whatever the attention kind)
  double dense_ffn_params = 0.0;   // per dense layer
  double expert_params = 0.0;      // one routed expert of one MoE layer
  double shared_params = 0.0;      // shared experts of one MoE layer
  double router_params = 0.0;      // gate of one MoE layer
  double lm_head_params = 0.0;     // vocab x hidden
  int layers = 0, moe_layers = 0, dense_layers = 0;
};
LayerShape layer_shape(const Model& model);

/** Everything a step needs, resolved once per (scenario, offering, engine). */
struct ServingContext {
  const Model* model = nullptr;
  const Gpu* gpu = nullptr;
  const EngineProfile* engine = nullptr;
  // The GPU's kernel tables: the catalog's own (no copy, they are some 2 KB), or
  // owned_kernels where a calibration record replaces some of them (resolve_kernels).
  const GpuKernels* kernels = nullptr;
  std::shared_ptr<const GpuKernels> owned_kernels;
  double gemm_latency_s = 0.0;  // kernels->gemm_latency_s, or the small-kernel constant if none
  int allreduce_index = -1;    // into kernels.allreduce: the engine's implementation, or -1
  std::string allreduce_impl;  // its name, or "bus_bandwidth"
  double allreduce_bus_bytes_per_s = 0.0;
  double allreduce_latency_s = 0.0;
  double alltoall_latency_s = 0.0;  // 0: allreduce_latency_s
  LayerShape shape;
  const ModelConstants* constants = nullptr;  // default_model_constants()
  Rates rates;
  double weight_bytes_per_param = 1.0;
  double kv_bytes_per_token_layer = 0.0;  // whole model's heads
  AttentionModelTerms attention_terms;    // attention_model_terms(model, kv)
  double matmul_log_span = 0.0;           // matmul_log_span(constants)
  double dense_stream_bytes_per_s = 0.0;  // achieved HBM x hbm_fraction
  double moe_stream_bytes_per_s = 0.0;    // achieved HBM x moe_stream_fraction
  // FP4 routed experts through the GPU's measured fused MoE kernel (kernels.json fp4_fused_moe):
  // one kernel of this fixed cost, absorbing that many small kernels. 0: the grouped GEMM's.
  double moe_fused_latency_s = 0.0;
  double moe_fused_small_kernels = 0.0;
  double attention_bytes_per_s = 0.0;     // achieved HBM x attention_fraction
  double matmul_flops_per_s = 0.0;        // achieved x matmul_fraction (decode-sized M)
  double attention_math_flops_per_s = 0.0;  // achieved matrix rate of the KV cache's format
  double small_kernel_s = 0.0;
  double extra_layer_latency_s = 0.0;     // engine profile, by arch target and version
  bool mixes_prefill = false;             // engine profile, by version
  double request_overhead_s = 0.0;        // engine profile, by vendor
  // How the engine takes new requests in (engine profile, steps by the scenario's `gate`).
  RequestGate gate = RequestGate::kNone;
  double gate_steps = 0.0;
  double chunk_tokens = 8192;
  double input_tokens = 0.0, output_tokens = 0.0;
  double capacity_bytes_per_gpu = 0.0;
  double weight_bytes = 0.0;  // whole model
  KvFormat kv = KvFormat::kBf16;
  int mtp_draft_tokens = 0;
  double mtp_tokens_per_step = 1.0;  // mean accepted tokens per decode step (1 = no MTP)
  bool kernels_estimated = false;    // the GPU has no kernels.json entry: latency = small kernel
  ScaleOutLink scale_out;  // the offering's scale-out network (servers > 1 instances cross it)
  // The catalog's serving calibration of this GPU and engine, already applied (or null).
  std::shared_ptr<const ServingCalibration> serving_calibration;
};

/** The fabric of the context's GPU (pointers into c.kernels). */
Fabric fabric_of(const ServingContext& c);

/** Builds the context; `engine_version` empty = the profile's version. */
ServingContext make_serving_context(const Catalog& catalog, const Scenario& scenario,
                                    const Model& model, const Gpu& gpu,
                                    const EngineProfile& engine, std::string_view engine_version);
/** The same with weight_bytes(model, scenario.weights, gpu) already computed (the memory
 *  fit's weights_bytes), so it is not summed again. */
ServingContext make_serving_context(const Catalog& catalog, const Scenario& scenario,
                                    const Model& model, const Gpu& gpu,
                                    const EngineProfile& engine, std::string_view engine_version,
                                    double weight_bytes);

/** Named cost of one step on the most loaded GPU of an instance, seconds. */
struct StepBreakdown {
  double gemm_latency_s = 0.0;    // fixed cost of every GEMM kernel
  double weights_s = 0.0;         // dense + attention weights streamed
  double experts_s = 0.0;         // routed expert weights streamed
  double compute_s = 0.0;         // GEMM FLOPs at the matmul rate
  double attention_s = 0.0;       // attention kernels (latency + KV read or FLOPs)
  double small_kernels_s = 0.0;   // norms, rope, quantisation, routing, activations
  double allreduce_s = 0.0;
  double alltoall_s = 0.0;
  double scale_out_s = 0.0;       // across servers: expert all-to-all or pipeline boundaries
  double engine_s = 0.0;          // per-step + per-sequence overhead of the engine
  double lm_head_s = 0.0;         // the LM head GEMM (part of weights_s / compute_s above)
  double mtp_draft_s = 0.0;       // speculative decoding: the draft passes of the MTP layers
  double total_s = 0.0;
  double weight_bytes_per_gpu = 0.0;
  double kv_bytes_per_gpu = 0.0;
  double flops_per_gpu = 0.0;
  double experts_touched_per_layer = 0.0;  // whole instance
};

/** One step of an instance: `sequences` sequences with `query_tokens` new tokens each over
 *  `context_tokens` of context (decode: 1 + draft tokens, the mean context; prefill: the
 *  prompt, causal). */
StepBreakdown step_cost(const ServingContext& c, const Parallel& p, double sequences,
                        double query_tokens, double context_tokens, bool decode,
                        double mixed_prefill_rows = 0.0);

/** Speculative decoding through an engine whose overlap scheduler it turns off: the per-request
 *  CPU work paid on every decode step (engines.json spec_sequence_overhead_s) by the scheduler
 *  that holds an instance's `sequences` (without DP attention; a DP-attention rank's is in
 *  dpa_sequence_overhead_s); 0 without MTP. */
double speculative_cpu_s(const ServingContext& c, double sequences);
/** The time each token a data-parallel-attention decode rank verifies adds per step beyond the
 *  step's kernels (step_cost charges it to every decode step with DP attention, aggregated or in
 *  a disaggregated decode pool): the engine's own (data/engines.json
 *  disagg.dpa_sequence_overhead_s) where it states one, else data/performance.json's pooled
 *  dpa_sequence_overhead_s. Both are set against validation-disagg.json. */
double dpa_sequence_overhead_s(const ServingContext& c);

/** Speculative decoding: the k draft passes of the MTP layers before a verify step, at
 *  `sequences` sequences over `context_tokens` (0 without MTP draft tokens). */
double mtp_draft_s(const ServingContext& c, const Parallel& p, double sequences,
                   double context_tokens);

/** Largest number of sequences one instance holds under the engine's KV rule (0 = none). */
double max_sequences(const ServingContext& c, const Parallel& p);

/** What a client sees at `users_per_instance` requests in flight on one instance. */
struct ServingPoint {
  Parallel par;
  int replicas = 0;
  double users_per_instance = 0.0;
  double running_per_instance = 0.0;  // min(users, max_sequences)
  double tpot_s = 0.0;                // mean, first token excluded
  double ttft_s = 0.0;                // mean, queueing included
  double ttft_median_s = 0.0;         // median: a steady-state request (the first wave is
                                      // first_wave_fraction of a run, under half), queueing included
  double e2e_s = 0.0;
  double intake_wait_s = 0.0;         // wait for the engine to take a request in (request_intake)
  double prefill_s = 0.0;             // prefill of the prompts one prefill step takes
  double prefill_batch = 0.0;         // prompts per prefill step
  double queue_s = 0.0;               // waiting for admission to the KV pool (users > max_sequences)
  double preempted_s = 0.0;           // waiting preempted after the first token (in tpot_s)
  // tpot_s, term by term (they sum to it): the decode step per token it yields, the prefill
  // steps that pause decode, the preempted prompts recomputed, the preempted wait per token.
  double tpot_step_s = 0.0;
  double tpot_prefill_pause_s = 0.0;
  double tpot_recompute_s = 0.0;
  double tpot_preempted_s = 0.0;
  double tokens_per_s_per_user = 0.0;  // 1 / tpot
  double output_tokens_per_s_per_gpu = 0.0;
  double total_tokens_per_s_per_gpu = 0.0;
  double output_tokens_per_s = 0.0;   // whole offering (replicas)
  double max_sequences = 0.0;
  StepBreakdown decode;
  bool fits = false;
};

/** Prefill time of one layout as a function of the prompts a prefill step takes:
 *  ceil(prompts x input / chunk) x fixed_s + prompts x per_prompt_s, from the step of one
 *  prompt: fixed = kernel latencies + weight streaming + small kernels + engine overhead,
 *  per prompt = FLOPs + attention + communication. An engine that mixes prefill into decode
 *  steps pays no fixed part (the decode step it rides on reads the weights). */
struct PrefillFit {
  double fixed_s = 0.0;       // per prefill step (chunk)
  double per_prompt_s = 0.0;  // per prompt
};
PrefillFit prefill_fit(const ServingContext& c, const Parallel& p);
double prefill_time_s(const ServingContext& c, const PrefillFit& fit, double prompts);

/** Closed-loop continuous batching on `replicas` instances of layout `p`. */
ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance);
/** The same with the layout's prefill fit computed once (curves and searches). */
ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit);
/** The same with the layout's max_sequences(c, p) computed once too. */
ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit, double max_sequences);
/** The same with the decode step given: for an engine that does not mix prefill into decode
 *  steps, step_cost(c, p, min(users, max_sequences), 1 + draft tokens, input + output / 2,
 *  true), which a caller comparing layouts has already computed. */
ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit, double max_sequences,
                   const StepBreakdown& decode);

/** Legal layouts of the model on `gpu_count` GPUs: instance sizes that divide the offering
 *  and hold the weights, ep in {1, tp} for MoE, dpa for MoE models with tp > 1; for MoE also
 *  wide expert-parallel instances (ep = n, dpa) inside the scale-up domain wider than the
 *  widest power-of-two instance dividing the offering, n dividing the routed experts, leftover
 *  GPUs idle; and wide expert-parallel instances across servers (16, 32, 64 GPUs, ep = n,
 *  dpa) where the scale-out network gives RDMA all-to-all figures for that EP size
 *  (rdma_wide_ep); restricted by the scenario's tp / ep / dpa when set. */
std::vector<Parallel> legal_layouts(const ServingContext& c, int gpu_count, int tp, int ep,
                                    int dpa);

/** Whether `p` is a wide expert-parallel instance across servers (rdma, dpa, servers > 1, MoE)
 *  whose all-to-all the network's RDMA figures time (model/scale_out.hpp rdma_all_to_all_s). */
bool rdma_wide_ep(const ServingContext& c, const Parallel& p);

/** A point's per-GPU figures over all `gpu_count` GPUs of the offering: an instance size that
 *  does not divide it (wide expert parallelism on a 72-GPU domain) leaves GPUs idle, and they
 *  are paid for, as the disaggregated pools count them (evaluate/disagg_result.cpp). The
 *  point's replicas and instance GPUs still say how many serve. */
void count_deployed_gpus(ServingPoint& pt, int gpu_count);

/** KV pool bytes per GPU as the engine sizes it (engines.md section 1): kUtilization
 *  capacity x fraction - weights; kFreeFraction fraction x (capacity - weights); kReserved
 *  capacity - reserved(chunk, tp, graphs) - weights. May be <= 0 (nothing left for KV). The
 *  serving model's max_sequences and the memory fit (fit_memory) both size KV by it. */
double kv_pool_bytes_per_gpu(const EngineProfile& engine, double capacity_bytes_per_gpu,
                             double weights_bytes_per_gpu, int tp, double chunk_tokens);

/** Prefill tokens per step the engine uses on `gpu` (its large-GPU setting above large_gpu_gb). */
double engine_chunk_tokens(const EngineProfile& engine, const Gpu& gpu);

/** What a layout's points share: its KV pool (max_sequences) and its prefill fit, computed
 *  once per layout for the curve and the searches. */
struct LayoutTerms {
  double max_sequences = 0.0;
  PrefillFit fit;
};
std::vector<LayoutTerms> layout_terms(const ServingContext& c,
                                      const std::vector<Parallel>& layouts);

/** Latency targets (0 = none). */
struct ServingTargets {
  double ttft_max_s = 0.0;
  double tpot_max_s = 0.0;
  double interactivity = 0.0;  // tokens/s per user
};

/** A point of the curve with its US$ per million tokens (0 when unpriced). */
struct CurvePoint {
  ServingPoint point;
  double usd_per_million_tokens = 0.0;
};

/** Pareto front over layouts and concurrency: no other point has both more tokens/s per user
 *  and more total tokens/s per GPU. Sorted by tokens/s per user, descending. */
std::vector<CurvePoint> serving_curve(const ServingContext& c, int gpu_count,
                                      const std::vector<Parallel>& layouts,
                                      double price_usd_per_month, double utilization);
/** The same with layout_terms(c, layouts) computed once (the same points). */
std::vector<CurvePoint> serving_curve(const ServingContext& c, int gpu_count,
                                      const std::vector<Parallel>& layouts,
                                      const std::vector<LayoutTerms>& terms,
                                      double price_usd_per_month, double utilization);

/** Best output throughput of the offering whose TTFT and TPOT meet the targets (ttft, tpot). */
std::optional<ServingPoint> best_within(const ServingContext& c, int gpu_count,
                                        const std::vector<Parallel>& layouts,
                                        const ServingTargets& targets);
/** The same with layout_terms(c, layouts) computed once (the same point). */
std::optional<ServingPoint> best_within(const ServingContext& c, int gpu_count,
                                        const std::vector<Parallel>& layouts,
                                        const std::vector<LayoutTerms>& terms,
                                        const ServingTargets& targets);

}  // namespace gpucalc
