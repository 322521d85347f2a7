// The serving step model and continuous batching at a concurrency. The operations
// live beside it (gemm.cpp, attention.cpp, moe.cpp, communication.cpp); this file adds them up
// per layer and runs the closed loop a benchmark client drives.
#include "model/serving.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/memory.hpp"
#include "gpucalc/serving_calibration.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

/** Activations and the router / LM head are BF16. */
constexpr double kBf16Bytes = 2.0;
constexpr double kMiB = 1024.0 * 1024.0;
/** Concurrency grid of the curve: powers of two up to this many sequences per instance. */
constexpr double kCurveMaxUsers = 2048;

bool contains_version(std::string_view text, std::string_view version) {
  return !version.empty() && text.find(version) != std::string_view::npos;
}

/** serve() with the decode step computed here (decode null) or given. */
ServingPoint serve_with(const ServingContext& c, const Parallel& p, int replicas,
                        double users_per_instance, const PrefillFit& fit, double max_seqs,
                        const StepBreakdown* decode);

}  // namespace

LayerShape layer_shape(const Model& m) {
  LayerShape s;
  s.layers = std::max(0, m.layers);
  const double h = m.hidden_size;
  if (m.is_moe() && m.moe_intermediate_size > 0 && m.experts_active > 0) {
    const int interval = std::max(1, m.moe_layer_interval);
    s.moe_layers = std::max(0, (m.layers - m.dense_layers + interval - 1) / interval);
    s.expert_params = 3.0 * m.expert_io_width() * m.moe_intermediate_size;  // SwiGLU: gate, up, down
    // Shared experts work at full width, also beside a latent MoE (Kimi K3).
    s.shared_params = m.experts_shared * (m.moe_latent_size > 0 ? 3.0 * h * m.moe_intermediate_size : s.expert_params);
    s.router_params = h * m.experts_routed;
  }
  s.dense_layers = s.layers - s.moe_layers;
  s.dense_ffn_params = 3.0 * h * m.intermediate_size;
  s.lm_head_params = static_cast<double>(m.vocab_size) * h;
  // Attention projections: what the active count leaves after embeddings, LM head and FFNs.
  const double rest = m.params_active - 2.0 * s.lm_head_params -
                      s.moe_layers * (m.experts_active * s.expert_params + s.shared_params +
                                      s.router_params) -
                      s.dense_layers * s.dense_ffn_params;
  const double gqa = h * (m.heads + 2.0 * m.kv_heads) * m.head_dim + m.heads * m.head_dim * h;
  s.attention_params = s.layers > 0 && rest > 0.0 ? rest / s.layers : gqa;
  return s;
}

Fabric fabric_of(const ServingContext& c) {
  Fabric f;
  const GpuKernels& kernels = *c.kernels;
  if (c.allreduce_index >= 0 && c.allreduce_index < kernels.allreduce_count) {
    const NamedCurve& measured = kernels.allreduce[static_cast<std::size_t>(c.allreduce_index)];
    f.allreduce = &measured.curve;
    f.allreduce_gpus = measured.gpus;
  }
  f.bus_bytes_per_s = c.allreduce_bus_bytes_per_s;
  f.latency_s = c.allreduce_latency_s;
  f.alltoall_latency_s = c.alltoall_latency_s;
  if (!kernels.alltoall_dispatch.empty()) {
    f.dispatch = &kernels.alltoall_dispatch;
    f.combine = &kernels.alltoall_combine;
  }
  return f;
}

ServingContext make_serving_context(const Catalog& catalog, const Scenario& scenario,
                                    const Model& model, const Gpu& gpu,
                                    const EngineProfile& engine, std::string_view engine_version) {
  return make_serving_context(catalog, scenario, model, gpu, engine, engine_version,
                              weight_bytes(model, scenario.weights, gpu));
}

ServingContext make_serving_context(const Catalog& catalog, const Scenario& scenario,
                                    const Model& model, const Gpu& gpu,
                                    const EngineProfile& engine, std::string_view engine_version,
                                    double model_weight_bytes) {
  ServingContext c;
  c.model = &model;
  c.gpu = &gpu;
  c.engine = &engine;
  c.constants = catalog.constants ? &*catalog.constants : &default_model_constants();
  const ModelConstants& k = *c.constants;
  c.rates = resolve_rates(catalog, gpu, inference_math_precision(gpu, scenario.weights), scenario,
                          false);  // words only for a trace (rates_label)
  static const GpuKernels kNoKernels;
  const KernelCatalog& tables = catalog_kernels(catalog);
  if (catalog.find_calibration(gpu.id) != nullptr) {
    c.owned_kernels = std::make_shared<const GpuKernels>(resolve_kernels(catalog, tables, gpu));
    c.kernels = c.owned_kernels.get();
  } else {  // what resolve_kernels returns without a calibration record
    const GpuKernels* own = tables.find(gpu.id);
    c.kernels = own != nullptr ? own : &kNoKernels;
  }
  c.gemm_latency_s = c.kernels->gemm_latency_s;
  if (!(c.gemm_latency_s > 0.0)) {
    c.gemm_latency_s = k.small_kernel_latency_s;
    c.kernels_estimated = true;
  }
  for (const std::string& impl : engine.allreduce_impls) {
    for (int i = 0; i < c.kernels->allreduce_count && c.allreduce_index < 0; ++i) {
      const std::string_view id = c.kernels->allreduce[static_cast<std::size_t>(i)].id();
      if (id == "calibrated" || id == impl) {
        c.allreduce_index = i;
        c.allreduce_impl = std::string(id);
      }
    }
  }
  if (c.allreduce_index < 0) c.allreduce_impl = "bus_bandwidth";
  c.allreduce_bus_bytes_per_s = c.rates.allreduce_bus_bytes_per_s;
  // The fabric's own small-message latencies where the catalog gives them.
  const Interconnect& fabric = gpu.interconnect;
  c.allreduce_latency_s =
      fabric.allreduce_latency_s ? fabric.allreduce_latency_s->value : k.allreduce_latency_s;
  c.alltoall_latency_s = fabric.alltoall_latency_s ? fabric.alltoall_latency_s->value : 0.0;
  c.shape = layer_shape(model);
  c.weight_bytes = model_weight_bytes;
  c.weight_bytes_per_param = model.params_total > 0.0 ? c.weight_bytes / model.params_total : 1.0;
  c.dense_stream_bytes_per_s = c.rates.hbm_bytes_per_s * k.hbm_fraction;
  c.moe_stream_bytes_per_s = c.rates.hbm_bytes_per_s * k.moe_stream_fraction;
  // FP4 experts where the GPU has a measured fused FP4 MoE kernel (B200: FlashInfer's NVFP4
  // fused MoE, engines.md 4): routing, both expert GEMMs and the weighted sum are one kernel.
  // Its weights stream at moe_stream_fraction like any grouped GEMM's (kernels.json says why).
  if (scenario.weights == WeightFormat::kFp4 && c.kernels->fp4_moe_latency_s > 0.0) {
    c.moe_fused_latency_s = c.kernels->fp4_moe_latency_s;
    c.moe_fused_small_kernels = c.kernels->fp4_moe_fused_small_kernels;
  }
  c.attention_bytes_per_s = c.rates.hbm_bytes_per_s * k.attention_fraction;
  c.matmul_flops_per_s = c.rates.matmul_flops_per_s * k.matmul_fraction;
  // Attention's own matrix products (scores, values) run in the KV cache's format, not the
  // weights': BF16 for a BF16 cache (FlashMLA decode: BF16 KV, 660 TFLOPS compute-bound on
  // H800, engines.md 3), FP8 where the cache is FP8 and the GPU has an FP8 rate. FP8 or FP4
  // weights never make attention faster than that.
  {
    const Precision kv_math = scenario.kv == KvFormat::kFp8 && gpu.peak_flops_per_s[index_of(Precision::kFp8)].value_or(0.0) > 0.0
                                  ? Precision::kFp8
                                  : Precision::kBf16;
    const double rate = resolve_rates(catalog, gpu, kv_math, scenario, false).matmul_flops_per_s;
    c.attention_math_flops_per_s =
        rate > 0.0 ? std::min(rate, c.rates.matmul_flops_per_s) : c.rates.matmul_flops_per_s;
  }
  c.small_kernel_s = std::max(k.small_kernel_latency_s, c.kernels->small_kernel_latency_s);
  for (const auto& [arch, s] : engine.extra_layer_latency_s) {
    if (arch == gpu.arch_target) c.extra_layer_latency_s += s;
  }
  c.mixes_prefill = engine.mixes_prefill;
  const std::string_view version = engine_version.empty() ? std::string_view(engine.version)
                                                          : engine_version;
  for (const auto& old : engine.older_versions) {
    if (!contains_version(version, old.version)) continue;
    if (old.mixes_prefill >= 0) c.mixes_prefill = old.mixes_prefill == 1;
    for (const auto& arch : old.arch_targets) {
      if (arch == gpu.arch_target) c.extra_layer_latency_s += old.extra_layer_latency_s;
    }
  }
  c.request_overhead_s =
      std::string_view(gpu.vendor) == "amd" ? engine.request_overhead_amd_s : engine.request_overhead_nvidia_s;
  c.gate = engine.gate;
  c.gate_steps = scenario.gate_steps > 0 ? static_cast<double>(scenario.gate_steps) : engine.gate_steps;
  c.capacity_bytes_per_gpu = capacity_bytes(gpu, scenario.capacity);
  c.chunk_tokens = engine_chunk_tokens(engine, gpu);
  c.input_tokens = static_cast<double>(scenario.input_tokens);
  c.output_tokens = static_cast<double>(scenario.output_tokens);
  c.kv = scenario.kv;
  c.attention_terms = attention_model_terms(model, c.kv);
  c.matmul_log_span = matmul_log_span(k);
  c.mtp_draft_tokens = std::max(0, scenario.mtp);
  if (c.mtp_draft_tokens > 0) {
    if (const std::vector<double>* lengths = mtp_acceptance(k, model.id)) {
      const std::size_t i = std::min(lengths->size(), static_cast<std::size_t>(c.mtp_draft_tokens));
      c.mtp_tokens_per_step = (*lengths)[i - 1];
    }
  }
  c.serving_calibration = find_serving_calibration(catalog, gpu.id, engine.id);
  if (c.serving_calibration) apply_serving_corrections(c.serving_calibration->corrections, c);
  return c;
}

namespace {

/** What the parts of one step share: its rows and rates (step_cost). */
struct StepRows {
  double tpd, span, instance_tokens, sequences, tokens;
  double a, bpp, rate, expert_rate;  // GEMM latency, bytes per weight, dense and expert rates
};

/** Adds one GEMM (or a layer stack of them) to the step: the roofline's larger side is what
 *  the step pays. */
void add_gemm(StepBreakdown& b, const GemmCost& g, double bytes, double flops, bool expert) {
  b.gemm_latency_s += g.latency_s;
  if (g.memory_s >= g.compute_s) {
    (expert ? b.experts_s : b.weights_s) += g.memory_s;
  } else {
    b.compute_s += g.compute_s;
  }
  b.weight_bytes_per_gpu += bytes;
  b.flops_per_gpu += flops;
}

/** One layer's GEMM cost repeated over `n` layers. */
GemmCost times(const GemmCost& g, double n) {
  return {g.latency_s * n, g.memory_s * n, g.compute_s * n, g.total_s * n};
}

/** MoE layers: routed experts (grouped GEMM over the experts touched), shared experts, router. */
void add_moe_layers(const ServingContext& c, const Parallel& p, const StepRows& t, StepBreakdown& b) {
  const Model& m = *c.model;
  const LayerShape& s = c.shape;
  const double tpd = t.tpd, span = t.span, instance_tokens = t.instance_tokens, tokens = t.tokens;
  const double a = t.a, bpp = t.bpp, rate = t.rate, expert_rate = t.expert_rate;
  const double n = s.moe_layers;
  const double e = m.experts_routed;
  const double touched = experts_touched(e, m.experts_active, instance_tokens);
  b.experts_touched_per_layer = touched;
  const int ep = std::max(1, p.ep) * std::max(1, p.servers);
  const double expert_bytes = ep > 1 ? experts_on_busiest_gpu(e, touched, ep) * s.expert_params * bpp
                                     : touched * s.expert_params / tpd * bpp;
  const double expert_flops = 2.0 * s.expert_params * instance_tokens * m.experts_active /
                              std::max(tpd * span, static_cast<double>(ep));
  // Grouped expert GEMMs (plus routing and token permutation) run below the dense rate, at
  // the rows one expert sees.
  // A fused FP4 MoE kernel (kernels.json) is one launch at its measured fixed cost.
  const bool fused = c.moe_fused_latency_s > 0.0;
  const GemmCost g = gemm_cost(fused ? 1 : 2, expert_bytes, expert_flops, fused ? c.moe_fused_latency_s : a,
                               c.moe_stream_bytes_per_s, expert_rate);
  add_gemm(b, times(g, n), expert_bytes * n, expert_flops * n, true);
  if (s.shared_params > 0.0) {
    const double params = s.shared_params / tpd;
    const GemmCost sg = gemm_cost(2, params * bpp, 2.0 * params * tokens, a,
                                  c.dense_stream_bytes_per_s, rate);
    add_gemm(b, times(sg, n), params * bpp * n, 2.0 * params * tokens * n, false);
  }
  const GemmCost rg = gemm_cost(1, s.router_params * kBf16Bytes, 2.0 * s.router_params * tokens,
                                a, c.dense_stream_bytes_per_s, rate);
  add_gemm(b, times(rg, n), s.router_params * kBf16Bytes * n, 2.0 * s.router_params * tokens * n, false);
}

/** Communication: two all-reduces per layer (attention out, FFN out) over TP, or with
 *  data-parallel attention the MoE layers' dispatch and combine; across servers
 *  (model/scale_out.cpp) the experts' all-to-all or the pipeline boundaries. */
void add_communication(const ServingContext& c, const Parallel& p, const StepRows& t, StepBreakdown& b) {
  const Model& m = *c.model;
  const LayerShape& s = c.shape;
  const int tp = std::max(1, p.tp);
  const double tpd = t.tpd, instance_tokens = t.instance_tokens, tokens = t.tokens;
  const double layers = s.layers;
  // Wide expert parallelism across servers (data-parallel attention over every server's GPUs):
  // each MoE layer's dispatch and combine is one all-to-all over NVLink and RDMA peers, timed
  // from the network's measured figures (model/scale_out.cpp).
  if (rdma_wide_ep(c, p)) {
    const int n = p.gpus();
    b.allreduce_s = 2.0 * s.dense_layers * allreduce_s(fabric_of(c), tokens * m.hidden_size * kActivationBytes, tp);
    b.alltoall_s = s.moe_layers * rdma_all_to_all_s(c.scale_out, n, instance_tokens / n, m.experts_active,
                                                    m.hidden_size);
    return;
  }
  // Communication: two all-reduces per layer (attention out, FFN out) over TP; with
  // data-parallel attention the MoE layers dispatch and combine tokens instead.
  {
    const Fabric f = fabric_of(c);
    const double bytes = tokens * m.hidden_size * kActivationBytes;
    if (!p.dpa) {
      b.allreduce_s = 2.0 * layers * allreduce_s(f, bytes, tp);
    } else {
      b.allreduce_s = 2.0 * s.dense_layers * allreduce_s(f, bytes, tp);
      b.alltoall_s = s.moe_layers * alltoall_s(f, tokens / tpd, m.hidden_size, tp);
    }
  }
  // Across servers (core/src/model/scale_out.cpp): the experts' dispatch and combine, or the
  // pipeline boundaries the step's activations cross.
  if (p.servers > 1) {
    ScaleOutLink link = c.scale_out;
    link.servers = p.servers;
    if (m.is_moe() && s.moe_layers > 0) {
      b.scale_out_s = expert_all_to_all_s(link, s.moe_layers, instance_tokens, m.experts_active,
                                          m.hidden_size, kActivationBytes);
    } else {
      b.scale_out_s = pipeline_boundaries_s(link, p.servers - 1,
                                            instance_tokens * m.hidden_size * kActivationBytes, tp);
    }
  }
}

}  // namespace

StepBreakdown step_cost(const ServingContext& c, const Parallel& p, double sequences,
                        double query_tokens, double context_tokens, bool decode,
                        double mixed_prefill_rows) {
  StepBreakdown b;
  const Model& m = *c.model;
  const LayerShape& s = c.shape;
  const ModelConstants& k = *c.constants;
  const int tp = std::max(1, p.tp);
  const double tpd = tp;
  // Across servers every server works on its share of the sequences: attention data parallel
  // (MoE) or one of `servers` pipeline micro-batches through all the layers (dense: a token
  // passes every stage, so the step is the whole model's at sequences / servers). Experts see
  // the tokens of every server.
  const double span = std::max(1, p.servers);
  const double instance_sequences = sequences;
  const double instance_tokens = sequences * query_tokens;
  sequences /= span;
  const double tokens = sequences * query_tokens;
  const double a = c.gemm_latency_s;
  const double bpp = c.weight_bytes_per_param;
  // DeepSeek-V4's compressed attention launches MLA's low-rank projections (q_a, q_b, kv, o_a, o_b).
  const bool mla = m.attention != AttentionKind::kGqa;
  const double layers = s.layers;
  // GEMM rows: the step's tokens (per GPU with data-parallel attention for the projections).
  // A mixing engine's decode tokens share each GEMM with the prompt rows of the same step, so
  // they run at the rate of all the step's rows.
  const double rows = tokens + std::max(0.0, mixed_prefill_rows);
  const double achieved = c.rates.matmul_flops_per_s;
  const double span_m = c.matmul_log_span;
  const double rate = matmul_rate_at(rows, achieved, k, span_m);
  const double attn_rate = p.dpa ? matmul_rate_at(rows / tpd, achieved, k, span_m) : rate;
  const double attn_core_rate =
      matmul_rate_at(p.dpa ? rows / tpd : rows, c.attention_math_flops_per_s, k, span_m);
  const double expert_rate =
      matmul_rate_at(
          tokens * m.experts_active / std::max(1.0, static_cast<double>(m.experts_routed)),
          achieved, k, span_m) *
      k.moe_expert_gemm_fraction;
  const StepRows shared{tpd, span, instance_tokens, sequences, tokens, a, bpp, rate, expert_rate};

  // Attention projections: split by TP, or replicated with data-parallel attention (each GPU
  // then projects only its own sequences' tokens).
  {
    const double params = p.dpa ? s.attention_params : s.attention_params / tpd;
    const double t = p.dpa ? tokens / tpd : tokens;
    const double kernels = mla ? k.gemm_kernels_attention_mla : k.gemm_kernels_attention_gqa;
    const double bytes = params * bpp;
    const double flops = 2.0 * params * t;
    const GemmCost g = gemm_cost(kernels, bytes, flops, a, c.dense_stream_bytes_per_s, attn_rate);
    add_gemm(b, times(g, layers), bytes * layers, flops * layers, false);
  }
  // Attention itself.
  {
    AttentionRates r{a, c.attention_bytes_per_s, attn_core_rate};
    const double seqs = p.dpa ? sequences / tpd : sequences;
    const AttentionCost at = attention_cost(m, c.attention_terms, c.kv, p.dpa ? 1.0 : 1.0 / tpd,
                                            seqs, query_tokens, context_tokens, decode, r);
    b.attention_s = at.total_s;
    b.kv_bytes_per_gpu = at.kv_bytes;
    b.flops_per_gpu += at.flops;
  }
  // Dense FFN layers.
  if (s.dense_layers > 0) {
    const double params = s.dense_ffn_params / tpd;
    const double bytes = params * bpp;
    const double flops = 2.0 * params * tokens;
    const GemmCost g = gemm_cost(2, bytes, flops, a, c.dense_stream_bytes_per_s, rate);
    const double n = s.dense_layers;
    add_gemm(b, times(g, n), bytes * n, flops * n, false);
  }
  if (s.moe_layers > 0) add_moe_layers(c, p, shared, b);
  // LM head: BF16, split by TP; logits for every decode token, one per prompt in prefill.
  {
    const double params = s.lm_head_params / tpd;
    const double t = decode ? tokens : sequences;
    const GemmCost g =
        gemm_cost(1, params * kBf16Bytes, 2.0 * params * t, a, c.dense_stream_bytes_per_s,
                  matmul_rate_at(t, achieved, k, span_m));
    add_gemm(b, g, params * kBf16Bytes, 2.0 * params * t, false);
    b.lm_head_s = g.total_s;
  }
  // Small kernels and the engine's per-layer latency on this GPU family.
  {
    const double att = mla ? k.small_kernels_attention_mla : k.small_kernels_attention_gqa;
    const double kernels = layers * att + s.dense_layers * k.small_kernels_ffn_dense +
                           s.moe_layers * std::max(0.0, k.small_kernels_ffn_moe - c.moe_fused_small_kernels);
    b.small_kernels_s = kernels * c.small_kernel_s + layers * c.extra_layer_latency_s;
  }
  add_communication(c, p, shared, b);
  b.engine_s = c.engine->step_overhead_s +
               (decode ? c.engine->per_sequence_overhead_s * sequences * span : 0.0);
  // With data-parallel attention, each rank's work per token it verifies that the kernels above
  // do not count (dpa_sequence_overhead_s, set against the disaggregated runs, where a decode
  // worker's batch is known; the same rank work in an aggregated instance). With speculative
  // decoding the verify step carries 1 + draft tokens per sequence through every layer, gathered,
  // dispatched and sampled like any other token, so each pays it; the draft passes' own share is
  // left out (one MTP layer of the 61). It holds the rank's speculative per-request work, which
  // is then not charged again. Without DP attention, that speculative work alone, for the
  // scheduler that holds every sequence of the instance.
  if (decode && p.dpa) {
    b.engine_s += dpa_sequence_overhead_s(c) * sequences / tpd * std::max(1.0, query_tokens);
  } else if (decode) {
    b.engine_s += speculative_cpu_s(c, instance_sequences);
  }
  // Speculative decoding: the verify step above carries 1 + k tokens per sequence; before it
  // the k draft tokens come from k passes of the MTP layers, one after another.
  if (decode && c.mtp_draft_tokens > 0 && query_tokens > 1.0) {
    b.mtp_draft_s = mtp_draft_s(c, p, sequences * span, context_tokens);
  }
  b.total_s = b.gemm_latency_s + b.weights_s + b.experts_s + b.compute_s + b.attention_s +
              b.small_kernels_s + b.allreduce_s + b.alltoall_s + b.scale_out_s + b.engine_s +
              b.mtp_draft_s;
  return b;
}

double dpa_sequence_overhead_s(const ServingContext& c) {
  const double own = c.engine != nullptr ? c.engine->disagg_dpa_sequence_overhead_s : -1.0;
  return own >= 0.0 ? own : c.constants->dpa_sequence_overhead_s;
}

double speculative_cpu_s(const ServingContext& c, double sequences) {
  return c.mtp_draft_tokens > 0 ? c.engine->spec_sequence_overhead_s * sequences : 0.0;
}

double mtp_draft_s(const ServingContext& c, const Parallel& p, double sequences,
                   double context_tokens) {
  // A draft pass runs the model's MTP module on one token per sequence: its decoder layer(s)
  // (the same attention and MoE as a main layer, over the same context) and the output head
  // it shares with the main model (DeepSeek-V3 MTP; TensorRT-LLM runs the MTP layers
  // autoregressively, one pass per draft token: engines.md T-b1, T-b2). Costed as the main
  // model's own one-token step: the mean layer's share times the MTP layers, plus the LM head.
  // The engine's per-step overhead is not paid again: the passes run inside the step's graph.
  const double layers = c.shape.layers;
  if (!(layers > 0.0) || c.mtp_draft_tokens <= 0) return 0.0;
  const StepBreakdown one = step_cost(c, p, sequences, 1.0, context_tokens, true);
  const double per_layer = (one.total_s - one.engine_s - one.lm_head_s) / layers;
  const double mtp_layers = std::max(1, c.model->mtp_layers);  // an EAGLE head is one layer
  return c.mtp_draft_tokens * (mtp_layers * per_layer + one.lm_head_s);
}

double kv_pool_bytes_per_gpu(const EngineProfile& e, double capacity_bytes_per_gpu,
                             double weights_bytes_per_gpu, int tp, double chunk_tokens) {
  const double cap = capacity_bytes_per_gpu;
  const double weights = weights_bytes_per_gpu;
  switch (e.kv_rule) {
    case KvRule::kUtilization:
      return cap * e.kv_fraction - weights;
    case KvRule::kFreeFraction:
      return e.kv_fraction * (cap - weights);
    case KvRule::kReserved: {
      double mb = e.reserved_base_mb + e.reserved_per_chunk_token_mb * std::max(chunk_tokens, 2048.0) +
                  e.reserved_per_tp_mb * tp + e.reserved_per_graph_bs_mb * e.graph_max_batch;
      if (cap > 60e9) mb = std::max(mb, e.reserved_floor_mb);
      return cap - mb * kMiB - weights;
    }
  }
  return 0.0;
}

double engine_chunk_tokens(const EngineProfile& e, const Gpu& gpu) {
  return gpu.hbm_marketed_bytes / kBytesPerGB >= e.large_gpu_gb ? e.chunk_tokens_large_gpu
                                                                : e.chunk_tokens;
}

double max_sequences(const ServingContext& c, const Parallel& p) {
  const EngineProfile& e = *c.engine;
  const int tp = std::max(1, p.tp);
  const int span = std::max(1, p.servers);
  double weights = c.weight_bytes / tp;
  if (span > 1) {
    // Experts (MoE) or layers (dense) spread over every server's GPUs.
    const double experts = c.shape.moe_layers * c.model->experts_routed * c.shape.expert_params *
                           c.weight_bytes_per_param;
    weights = c.model->is_moe() ? (c.weight_bytes - experts) / tp + experts / (tp * span)
                                : c.weight_bytes / (tp * span);
  }
  if (p.dpa) weights += c.shape.attention_params * c.shape.layers * c.weight_bytes_per_param * (tp - 1.0) / tp;
  const double kv_budget = kv_pool_bytes_per_gpu(e, c.capacity_bytes_per_gpu, weights, tp, c.chunk_tokens);
  if (kv_budget <= 0.0) return 0.0;
  Deployment d;
  d.gpus = tp;
  d.tensor_parallel = p.dpa ? 1 : tp;
  d.pipeline_parallel = 1;
  if (span > 1 && !c.model->is_moe()) {  // each stage holds its layers' KV
    d.gpus = tp * span;
    d.pipeline_parallel = span;
  }
  // A running request holds its context (input + output / 2 on average over its life) and the
  // engine holds back admission_output_fraction of its remaining output (output / 2 on
  // average): TensorRT-LLM's no-evict rule reserves the whole output, vLLM none.
  const double held_tokens =
      c.input_tokens + c.output_tokens / 2.0 * (1.0 + e.admission_output_fraction);
  const double per_seq = kv_bytes_per_sequence_per_gpu(*c.model, c.kv, d, held_tokens);
  if (!(per_seq > 0.0)) return e.max_running_requests;
  // Every server (MoE, attention data parallel) or every pipeline stage's micro-batch holds
  // its share of the instance's sequences.
  const double n = std::floor(kv_budget / per_seq) * (p.dpa ? tp : 1) * span;
  return std::min(n, e.max_running_requests);
}

PrefillFit prefill_fit(const ServingContext& c, const Parallel& p) {
  // One prompt's step, split into what a step pays once (kernel latencies, weight streaming,
  // engine overhead) and what grows with the prompts (FLOPs, attention, communication).
  // Taken at a full chunk of prompts: the rate prefill GEMMs run at under load.
  const double q = std::max(1.0, std::floor(c.chunk_tokens / std::max(1.0, c.input_tokens)));
  const StepBreakdown b = step_cost(c, p, q, c.input_tokens, c.input_tokens, false);
  const double attention_latency = std::min(b.attention_s, c.shape.layers * c.gemm_latency_s);
  PrefillFit f;
  f.per_prompt_s =
      (b.compute_s + (b.attention_s - attention_latency) + b.allreduce_s + b.alltoall_s) / q;
  // A mixing engine's decode step already pays the fixed part.
  f.fixed_s = c.mixes_prefill ? 0.0
                                      : b.gemm_latency_s + b.weights_s + b.experts_s +
                                            attention_latency + b.small_kernels_s + b.engine_s;
  return f;
}

double prefill_time_s(const ServingContext& c, const PrefillFit& f, double prompts) {
  const double chunks = std::max(1.0, std::ceil(prompts * c.input_tokens / c.chunk_tokens));
  return chunks * f.fixed_s + prompts * f.per_prompt_s;
}

ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance) {
  return serve(c, p, replicas, users_per_instance, prefill_fit(c, p));
}

ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit) {
  return serve(c, p, replicas, users_per_instance, fit, max_sequences(c, p));
}

ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit, double max_seqs) {
  return serve_with(c, p, replicas, users_per_instance, fit, max_seqs, nullptr);
}

ServingPoint serve(const ServingContext& c, const Parallel& p, int replicas,
                   double users_per_instance, const PrefillFit& fit, double max_seqs,
                   const StepBreakdown& decode) {
  return serve_with(c, p, replicas, users_per_instance, fit, max_seqs, &decode);
}

namespace {

/** Where a request waits when the KV pool holds fewer requests than the client keeps open. */
struct PoolWait {
  double admission_s = 0.0;  // before its first token (TTFT)
  double preempted_s = 0.0;  // after it, preempted (TPOT)
  double recompute_s = 0.0;  // prefill redone per request for its preemptions
};

/** The wait (users - running) / running x e2e, split by the engine's admission rule
 *  (data/engines.json "admission"). An engine that reserves the whole output never evicts:
 *  all of it is waiting for admission. One that admits on the prompt plus a share r of the
 *  output and preempts as running requests grow runs short of KV both when it admits (the
 *  prompt and r x output a request holds then) and as requests grow (the rest of the output):
 *  the wait splits in that proportion, (input + r x output) / (input + output) before the
 *  first token [inferred from the rule]. The preempted share of requests, (users - running) /
 *  users of the rest, redo the prefill of the context they held (input + output / 2 on
 *  average), at the prompt rate of the prefill fit. */
PoolWait pool_wait(const ServingContext& c, const PrefillFit& fit, double users, double running,
                   double e2e_s) {
  PoolWait w;
  if (!(users > running)) return w;
  const double total_s = (users - running) / running * e2e_s;
  const EngineProfile& e = *c.engine;
  const double in = c.input_tokens, out = std::max(1.0, c.output_tokens);
  const double at_admission =
      e.preempts ? (in + e.admission_output_fraction * out) / (in + out) : 1.0;
  w.admission_s = total_s * at_admission;
  w.preempted_s = total_s - w.admission_s;
  const double preempted_share = (1.0 - at_admission) * (users - running) / users;
  w.recompute_s = preempted_share * fit.per_prompt_s * (in + out / 2.0) / std::max(1.0, in);
  return w;
}

/** When a new request joins the running batch (engines.json new_request_gate). */
struct Intake {
  double wait_s = 0.0;    // mean wait of an arriving request before its prefill starts
  double gather_s = 0.0;  // time over which the prompts of one prefill arrive
};

/** An engine that takes requests in at every step: an arrival waits for the running step
 *  (half of it on average), and a prefill takes the prompts that arrived while the last one
 *  ran. SGLang with --scheduler-recv-interval R > 1 receives after R decode steps, or at the
 *  next step after a prefill (sglang srt/managers/scheduler_recv_skipper.py: a decode step
 *  weighs 1, any other forward R): a request arriving while the engine decodes waits R / 2
 *  steps on average, one arriving during a prefill half that prefill; `busy` is the share of
 *  time spent prefilling. TensorRT-LLM with attention DP and attention_dp_config enable_balance
 *  (tensorrt_llm/_torch/pyexecutor/py_executor.py _balance_adp_requests) holds context
 *  requests until every rank has one or timeout_iters iterations have passed since the last
 *  release: new requests land on the ranks as they free slots (at random), so all n ranks
 *  hold one after n x H(n) arrivals on average (H the harmonic number), and a request waits
 *  half that cycle. */
Intake request_intake(const ServingContext& c, const Parallel& p, double step_s, double prefill_s,
                      double batch, double arrivals_per_s) {
  Intake in{step_s / 2.0, prefill_s};
  if (c.gate == RequestGate::kRecvInterval && c.gate_steps > 1.0) {
    const double busy = std::min(1.0, arrivals_per_s * prefill_s / std::max(1.0, batch));
    const double window_s = c.gate_steps * step_s;
    in.wait_s = (1.0 - busy) * window_s / 2.0 + busy * prefill_s / 2.0;
    in.gather_s = (1.0 - busy) * window_s + busy * prefill_s;
  } else if (c.gate == RequestGate::kAttentionDpBalance && c.gate_steps > 0.0 && p.dpa &&
             p.tp > 1 && arrivals_per_s > 0.0) {
    double harmonic = 0.0;
    for (int k = 1; k <= p.tp; ++k) harmonic += 1.0 / k;
    const double cycle_s = std::min(c.gate_steps * step_s, p.tp * harmonic / arrivals_per_s);
    in.wait_s = cycle_s / 2.0;
    in.gather_s = std::max(prefill_s, cycle_s);
  }
  return in;
}

ServingPoint serve_with(const ServingContext& c, const Parallel& p, int replicas,
                        double users_per_instance, const PrefillFit& fit, double max_seqs,
                        const StepBreakdown* decode) {
  ServingPoint pt;
  pt.par = p;
  pt.replicas = replicas;
  pt.users_per_instance = users_per_instance;
  pt.max_sequences = max_seqs;
  if (pt.max_sequences < 1.0 || users_per_instance < 1.0 || replicas < 1) return pt;
  const double running = std::min(users_per_instance, pt.max_sequences);
  pt.running_per_instance = running;
  const double in = c.input_tokens, out = std::max(1.0, c.output_tokens);
  const double query = 1.0 + c.mtp_draft_tokens;
  // Mixing engines: in steady state each step carries running x input / output prompt rows.
  const double mixed_rows =
      c.mixes_prefill ? std::min(c.chunk_tokens, running * in / out) : 0.0;
  pt.decode = decode != nullptr && !c.mixes_prefill
                  ? *decode
                  : step_cost(c, p, running, query, in + out / 2.0, true, mixed_rows);
  const double step = pt.decode.total_s;
  const double per_token = step / c.mtp_tokens_per_step;
  // Closed loop: requests arrive as others finish, in waves spread over a fraction of the
  // end-to-end latency; a prefill step takes the prompts that arrived while the previous one
  // ran, and pauses (or, mixed, lengthens) the decode of everyone else.
  double e2e = out * per_token;
  double batch = 1.0;
  double pre = prefill_time_s(c, fit, batch);
  double tpot = per_token, ttft = 0.0, intake_wait = 0.0;
  // A closed loop's next request leaves when the last one completes, and requests start
  // decoding no closer together than their prompts were prefilled one after another, so the
  // running requests arrive over at least running x per-prompt prefill time: the prefill
  // queue never holds more than the engine's own pace lets in.
  const double pace_s = running * fit.per_prompt_s;
  for (int it = 0; it < 3; ++it) {
    const double window_s = std::max(c.constants->arrival_spread_fraction * e2e, pace_s);
    const double arrivals_per_s = running > 1.0 ? running / window_s : 0.0;
    const Intake intake = request_intake(c, p, step, pre, batch, arrivals_per_s);
    batch = std::clamp(1.0 + arrivals_per_s * intake.gather_s, 1.0, running);
    pre = prefill_time_s(c, fit, batch);
    tpot = per_token + (running > 1.0 ? (running / batch) * pre / out : 0.0);
    // Wait for the engine to take the request in (request_intake), then the prefill (a step of
    // its own, or riding on the next decode step when the engine mixes them).
    intake_wait = running > 1.0 ? intake.wait_s : 0.0;
    ttft = c.request_overhead_s + intake_wait + pre + (c.mixes_prefill ? step : 0.0);
    e2e = ttft + (out - 1.0) * tpot;
  }
  // The first wave: a benchmark client opens all its requests at once, so `running` prompts
  // are prefilled together in chunks; a request of that wave waits on average for half of
  // the chunks. It is first_wave_fraction of the requests a run sends.
  const double steady_ttft = ttft;
  if (running > 1.0) {
    const double chunks = std::max(1.0, std::ceil(running * in / c.chunk_tokens));
    const double wave_s = prefill_time_s(c, fit, running);
    const double wave_ttft = c.request_overhead_s + wave_s * (chunks + 1.0) / (2.0 * chunks);
    const double f = c.constants->first_wave_fraction;
    ttft = (1.0 - f) * ttft + f * std::max(ttft, wave_ttft);
  }
  // Requests beyond the KV pool wait for a running one to finish (Little's law over the
  // closed loop); the engine's admission rule says where the wait lands.
  const PoolWait wait = pool_wait(c, fit, users_per_instance, running, e2e);
  const double run_tpot = tpot + running * wait.recompute_s / out;
  pt.queue_s = wait.admission_s;
  pt.preempted_s = wait.preempted_s;
  pt.prefill_batch = batch;
  pt.intake_wait_s = intake_wait;
  pt.prefill_s = pre;
  pt.tpot_step_s = per_token;
  pt.tpot_prefill_pause_s = tpot - per_token;
  pt.tpot_recompute_s = run_tpot - tpot;
  pt.tpot_preempted_s = out > 1.0 ? wait.preempted_s / (out - 1.0) : 0.0;
  pt.tpot_s = run_tpot + pt.tpot_preempted_s;
  pt.ttft_s = ttft + pt.queue_s + (out > 1.0 ? 0.0 : wait.preempted_s);
  pt.ttft_median_s = steady_ttft + pt.queue_s;
  pt.e2e_s = pt.ttft_s + (out - 1.0) * pt.tpot_s;
  pt.tokens_per_s_per_user = 1.0 / pt.tpot_s;
  // Completions of the running requests (the wait adds latency, not throughput; recomputing
  // preempted prompts takes GPU time from them).
  const double completions_per_s = running / (ttft + (out - 1.0) * run_tpot);  // per instance
  pt.output_tokens_per_s_per_gpu = completions_per_s * out / p.gpus();
  pt.total_tokens_per_s_per_gpu = completions_per_s * (in + out) / p.gpus();
  pt.output_tokens_per_s = completions_per_s * out * replicas;
  pt.fits = true;
  return pt;
}

}  // namespace

namespace {

/** Wide expert parallelism across servers (MoE): one instance of n GPUs over n / gpus_per_server
 *  servers, experts split n ways, attention data parallel, where the network's RDMA all-to-all
 *  figures cover EP n and n divides the routed experts; floor(gpus / n) replicas, the rest idle
 *  and paid for (count_deployed_gpus). The same instance inside one scale-up domain is add_wide. */
void add_wide_across(const ServingContext& c, int gpu_count, int n, int ep, std::vector<Parallel>& out) {
  const Model& m = *c.model;
  const int per_server = c.scale_out.gpus_per_server;
  if (!m.is_moe() || n > gpu_count || n <= c.gpu->scale_up_gpus() || (ep > 0 && ep != n)) return;
  if (per_server < 1 || n % per_server != 0 || per_server > c.gpu->scale_up_gpus()) return;
  if (m.experts_routed % n != 0 || !deployment_is_valid(m, per_server, c.gpu->scale_up_gpus())) return;
  const Parallel p{per_server, per_server, true, n / per_server, true};
  if (rdma_wide_ep(c, p) && max_sequences(c, p) >= 1.0) out.push_back(p);
}

}  // namespace

std::vector<Parallel> legal_layouts(const ServingContext& c, int gpu_count, int tp, int ep,
                                    int dpa) {
  std::vector<Parallel> out;
  out.reserve(8);
  const Model& m = *c.model;
  // Tensor and expert parallelism inside the GPU's scale-up domain; past it, the scale-out
  // network.
  const int scale_up = c.gpu->scale_up_gpus();
  auto add = [&](int n) {
    if (n < 1 || n > gpu_count || gpu_count % n != 0) return;
    if (!deployment_is_valid(m, n, scale_up) || n > scale_up) return;
    // Expert splits: 1 (experts split by TP) and, for MoE, the asked ep or auto ep = n.
    int eps[2] = {1, n};
    int count = 1;
    if (m.is_moe() && n > 1) {
      if (ep > 0) {
        eps[0] = ep;
        count = ep <= n && n % ep == 0 && m.experts_routed % ep == 0 ? 1 : 0;
      } else if (m.experts_routed % n == 0) {
        count = 2;
      }
    }
    for (int i = 0; i < count; ++i) {
      Parallel p{n, eps[i], dpa == 1 && n > 1 && m.is_moe()};
      if (dpa == 1 && !p.dpa) continue;
      if (max_sequences(c, p) >= 1.0) out.push_back(p);
    }
  };
  // Instances wider than one server span servers over the scale-out network: a server's GPUs
  // each (tensor parallel inside it), experts over all of them (MoE) or one pipeline stage a
  // server (dense). Offered only where no single-server instance fits, or asked for by tp.
  auto add_spanning = [&](int n) {
    if (n <= scale_up || n > gpu_count || gpu_count % n != 0 || n % scale_up != 0) return;
    if (!(c.scale_out.bytes_per_s_per_gpu > 0.0) || dpa == 1) return;
    if (!deployment_is_valid(m, n, scale_up)) return;
    if (m.is_moe() && m.experts_routed % n != 0) return;
    const Parallel p{scale_up, m.is_moe() ? scale_up : 1, false, n / scale_up};
    if (max_sequences(c, p) >= 1.0) out.push_back(p);
  };
  // Wide expert parallelism (MoE): one instance of n GPUs inside the scale-up domain with its
  // experts split n ways and attention data parallel, for the n the power-of-two instances
  // above do not reach (wider than the widest of them, n dividing the routed experts); when n
  // does not divide the offering, floor(gpus / n) replicas run and the rest stay idle, paid
  // for (count_deployed_gpus). Not offered where every instance already divides the domain
  // (8-GPU servers).
  int widest = 1;
  for (int n = 2; n <= std::min(gpu_count, scale_up) && gpu_count % n == 0; n *= 2) widest = n;
  auto add_wide = [&](int n) {
    if (!m.is_moe() || n <= widest || n > scale_up || n > gpu_count) return;
    if (m.experts_routed % n != 0 || (ep > 0 && ep != n)) return;
    if (!deployment_is_valid(m, n, scale_up)) return;
    const Parallel p{n, n, true};
    if (max_sequences(c, p) >= 1.0) out.push_back(p);
  };
  if (tp > 0) {
    add(tp);
    if (out.empty()) add_wide(tp);
    add_spanning(tp);
    if (ep > 0) add_wide_across(c, gpu_count, tp, ep, out);
  } else {
    for (int n = 1; n <= std::min(gpu_count, scale_up); n *= 2) add(n);
    for (int n = widest + 1; n <= std::min(gpu_count, scale_up); ++n) add_wide(n);
    // An asked ep that no server holds is the wide instance across servers where the network
    // times its all-to-all; the search (ep = 0) keeps the spanning instance beside it.
    if (ep > 0) add_wide_across(c, gpu_count, ep, ep, out);
    for (int n = 2 * scale_up; out.empty() && n <= gpu_count; n *= 2) add_spanning(n);
    if (ep == 0) {
      for (const int n : EpAllToAll::kEp) add_wide_across(c, gpu_count, n, 0, out);
    }
  }
  return out;
}

bool rdma_wide_ep(const ServingContext& c, const Parallel& p) {
  return p.rdma && p.dpa && p.servers > 1 && c.model->is_moe() && c.shape.moe_layers > 0 &&
         rdma_all_to_all_known(c.scale_out, p.gpus());
}

void count_deployed_gpus(ServingPoint& pt, int gpu_count) {
  const int used = pt.par.gpus() * pt.replicas;
  if (used <= 0 || used >= gpu_count) return;
  const double share = static_cast<double>(used) / gpu_count;
  pt.output_tokens_per_s_per_gpu *= share;
  pt.total_tokens_per_s_per_gpu *= share;
}

std::vector<LayoutTerms> layout_terms(const ServingContext& c,
                                      const std::vector<Parallel>& layouts) {
  std::vector<LayoutTerms> out;
  out.reserve(layouts.size());
  for (const Parallel& p : layouts) {
    LayoutTerms t;
    t.max_sequences = max_sequences(c, p);
    if (t.max_sequences >= 1.0) t.fit = prefill_fit(c, p);  // a layout with no slot serves nothing
    out.push_back(t);
  }
  return out;
}

std::vector<CurvePoint> serving_curve(const ServingContext& c, int gpu_count,
                                      const std::vector<Parallel>& layouts,
                                      double price_usd_per_month, double utilization) {
  return serving_curve(c, gpu_count, layouts, layout_terms(c, layouts), price_usd_per_month,
                       utilization);
}

std::vector<CurvePoint> serving_curve(const ServingContext& c, int gpu_count,
                                      const std::vector<Parallel>& layouts,
                                      const std::vector<LayoutTerms>& terms,
                                      double price_usd_per_month, double utilization) {
  std::vector<CurvePoint> all;
  all.reserve(layouts.size() * 12);
  for (std::size_t l = 0; l < layouts.size(); ++l) {
    const Parallel& p = layouts[l];
    const int replicas = gpu_count / p.gpus();
    const double seqs = terms[l].max_sequences;
    const double top = std::min(seqs, kCurveMaxUsers);
    const PrefillFit& fit = terms[l].fit;
    for (double u = 1.0; u <= top; u *= 2.0) {
      CurvePoint cp{serve(c, p, replicas, u, fit, seqs), 0.0};
      if (!cp.point.fits) continue;
      count_deployed_gpus(cp.point, gpu_count);
      all.push_back(cp);
    }
  }
  // Pareto front: drop every point another beats on both axes. The sort moves indices, not
  // the points (a CurvePoint is some 300 bytes); the order is the one sorting the points gives.
  // Ties keep the order the layouts were tried in, so every standard library (the native build's
  // and the WASM module's) keeps the same one of two layouts with identical figures.
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&all](std::size_t x, std::size_t y) {
    const double ux = all[x].point.tokens_per_s_per_user, uy = all[y].point.tokens_per_s_per_user;
    return ux > uy || (ux == uy && x < y);
  });
  // The front's indices first (in `order`'s head), then the points copied once into a vector of
  // that size: growing it point by point copied them again at each growth.
  std::size_t kept = 0;
  double best_tput = -1.0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double tput = all[order[k]].point.total_tokens_per_s_per_gpu;
    if (tput > best_tput) {
      best_tput = tput;
      order[kept++] = order[k];
    }
  }
  std::vector<CurvePoint> front;
  front.reserve(kept);
  for (std::size_t k = 0; k < kept; ++k) front.push_back(all[order[k]]);
  for (auto& cp : front) {
    cp.usd_per_million_tokens =
        price_usd_per_month > 0.0
            ? usd_per_million_tokens(price_usd_per_month, cp.point.output_tokens_per_s, utilization)
            : 0.0;
  }
  return front;
}

std::optional<ServingPoint> best_within(const ServingContext& c, int gpu_count,
                                        const std::vector<Parallel>& layouts,
                                        const ServingTargets& t) {
  return best_within(c, gpu_count, layouts, layout_terms(c, layouts), t);
}

std::optional<ServingPoint> best_within(const ServingContext& c, int gpu_count,
                                        const std::vector<Parallel>& layouts,
                                        const std::vector<LayoutTerms>& terms,
                                        const ServingTargets& t) {
  std::optional<ServingPoint> best;
  auto meets = [&](const ServingPoint& pt) {
    return pt.fits && (t.ttft_max_s <= 0.0 || pt.ttft_s <= t.ttft_max_s) &&
           (t.tpot_max_s <= 0.0 || pt.tpot_s <= t.tpot_max_s) &&
           (t.interactivity <= 0.0 || pt.tokens_per_s_per_user >= t.interactivity);
  };
  auto consider = [&](const ServingPoint& pt) {
    if (meets(pt) && (!best || pt.output_tokens_per_s > best->output_tokens_per_s)) best = pt;
  };
  for (std::size_t l = 0; l < layouts.size(); ++l) {
    const Parallel& p = layouts[l];
    const int replicas = gpu_count / p.gpus();
    const double seqs = terms[l].max_sequences;
    const double top = std::floor(seqs);
    if (top < 1.0) continue;
    const PrefillFit& fit = terms[l].fit;
    // Latency grows with the users: bisect for the most users that still meet the targets,
    // and keep the powers of two below it (throughput can peak before the limit).
    const ServingPoint at_top = serve(c, p, replicas, top, fit, seqs);
    if (meets(at_top)) {
      consider(at_top);
      // Without latency targets the most users that fit is the best point of the layout.
      if (t.ttft_max_s <= 0.0 && t.tpot_max_s <= 0.0 && t.interactivity <= 0.0) continue;
      for (double u = 1.0; u < top; u *= 2.0) consider(serve(c, p, replicas, u, fit, seqs));
      continue;
    }
    double lo = 0.0, hi = top;
    while (hi - lo > 1.0) {
      const double mid = std::floor((lo + hi) / 2.0);
      (meets(serve(c, p, replicas, mid, fit, seqs)) ? lo : hi) = mid;
    }
    if (lo >= 1.0) consider(serve(c, p, replicas, lo, fit, seqs));
    for (double u = 1.0; u < lo; u *= 2.0) consider(serve(c, p, replicas, u, fit, seqs));
  }
  if (best) count_deployed_gpus(*best, gpu_count);
  return best;
}

}  // namespace gpucalc
