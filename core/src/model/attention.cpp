// Attention cost of one step on one GPU, by attention kind. The models engineer adds kinds
// (linear / Gated DeltaNet, sliding window, MLA + DSA top-k) here: each is a KV read and a
// FLOP count per layer.
#include <algorithm>

#include "model/attention.hpp"
#include "gpucalc/memory.hpp"
#include "model/serving.hpp"

namespace gpucalc {

AttentionModelTerms attention_model_terms(const Model& m, KvFormat kv) {
  AttentionModelTerms t;
  t.per_layer = attention_layer_bytes(m, kv, 1);
  t.linear_flops_per_token = attention_step(m, kv, 0.0).linear_flops;  // no context term
  return t;
}

AttentionCost attention_cost(const Model& m, KvFormat kv, double head_fraction, double sequences,
                             double query_tokens, double context_tokens, bool decode,
                             const AttentionRates& r) {
  return attention_cost(m, attention_model_terms(m, kv), kv, head_fraction, sequences, query_tokens,
                        context_tokens, decode, r);
}

AttentionCost attention_cost(const Model& m, const AttentionModelTerms& terms, KvFormat kv,
                             double head_fraction, double sequences, double query_tokens,
                             double context_tokens, bool decode, const AttentionRates& r) {
  AttentionCost a;
  if (m.layers <= 0 || sequences <= 0.0) return a;
  const double layers = m.layers;
  const double bpv = kv_bytes_per_value(kv);
  const double heads_here = std::max(1.0, m.heads * head_fraction);
  double kv_bytes_per_token_layer;
  double flops_per_pair_layer;  // one query token against one context token
  if (m.attention == AttentionKind::kMla) {
    kv_bytes_per_token_layer = (m.kv_lora_rank + m.qk_rope_head_dim) * bpv;
    if (decode) {
      // Absorbed: scores over latent + rotary key, values over the latent.
      flops_per_pair_layer = 2.0 * heads_here * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
    } else {
      // Prefill expands the latent to per-head keys (nope + rope) and values.
      const double qk = m.qk_nope_head_dim > 0 ? m.qk_nope_head_dim + m.qk_rope_head_dim
                                               : m.head_dim + m.qk_rope_head_dim;
      const double v = m.v_head_dim > 0 ? m.v_head_dim : m.head_dim;
      flops_per_pair_layer = 2.0 * heads_here * (qk + v);
    }
  } else {
    const double kv_heads_here = std::max(1.0, m.kv_heads * head_fraction);
    // Compressed attention keeps one vector as key and value.
    const double kv_vectors = m.attention == AttentionKind::kCompressed ? 1.0 : 2.0;
    kv_bytes_per_token_layer = kv_vectors * kv_heads_here * m.head_dim * bpv;
    flops_per_pair_layer = 4.0 * heads_here * m.head_dim;
  }
  // Layer kinds (core/src/model/attention_kinds.cpp): full layers attend the context (DSA: only
  // the indexer's top-k of it), sliding layers at most the window, linear (Gated DeltaNet)
  // layers keep a fixed state per sequence instead of per-token KV.
  // Sparse layers (DSA, block-sparse) attend the indexer's top-k, the other full layers the
  // context; compressed layers (CSA / HCA) their raw window plus the top-k of context / csa_ratio
  // rows or all context / hca_ratio rows.
  const int sliding = std::clamp(m.sliding_window_layers, 0, m.layers);
  const int linear = std::clamp(m.linear_attention_layers, 0, m.layers - sliding);
  const double csa = m.csa_layers;
  const double hca = m.hca_layers;
  const double full = m.layers - sliding - linear - csa - hca;
  const double window = m.sliding_window_tokens > 0 ? m.sliding_window_tokens : context_tokens;
  const double topk = m.index_topk > 0 ? static_cast<double>(m.index_topk) : 0.0;
  const double sparse = topk > 0.0 ? m.sparse_attention_layers() : 0.0;
  const double dense_full = full - sparse;
  const double indexed = m.index_key_layers();
  const double csa_ratio = std::max(1, m.csa_ratio);
  const double hca_ratio = std::max(1, m.hca_ratio);
  auto attended = [&](double ctx) {  // layer-tokens one query token attends
    const double on_full = topk > 0.0 ? std::min(ctx, topk) : ctx;
    return sparse * on_full + dense_full * ctx + sliding * std::min(ctx, window) +
           (csa + hca) * std::min(ctx, window) + csa * std::min(ctx / csa_ratio, topk) + hca * ctx / hca_ratio;
  };
  const AttentionLayerBytes& per_layer = terms.per_layer;
  const double indexer_bytes_per_token_layer = per_layer.indexer_per_token;  // replicated per rank
  const double indexer_flops_per_pair_layer = 2.0 * m.index_heads * static_cast<double>(m.index_head_dim);
  // The recurrent state is read and written back once per step, split like the heads.
  const double linear_state_traffic = 2.0 * linear * per_layer.linear_state * head_fraction;
  const double linear_flops_per_token = terms.linear_flops_per_token * head_fraction;
  double pairs;      // query x context token pairs, summed over layers, per sequence
  double kv_tokens;  // layer-tokens of KV read (decode) or written (prefill), per sequence
  double indexer_pairs;  // DSA: the indexer scores every context token on every full layer
  // Index keys scored: every context token on the indexed full layers, every compressed row on CSA.
  const double index_keys = indexed + csa / csa_ratio;  // per context token, summed over layers
  if (decode) {
    pairs = query_tokens * attended(context_tokens);
    kv_tokens = attended(context_tokens);
    indexer_pairs = topk > 0.0 ? query_tokens * index_keys * context_tokens : 0.0;
  } else {
    pairs = query_tokens * attended(context_tokens / 2.0);  // causal
    kv_tokens = (full + sliding + csa + hca) * query_tokens + (csa / csa_ratio + hca / hca_ratio) * query_tokens;
    indexer_pairs = topk > 0.0 ? query_tokens * index_keys * context_tokens / 2.0 : 0.0;
  }
  const double indexer_bytes =
      topk > 0.0 ? (decode ? index_keys * context_tokens : index_keys * query_tokens) * indexer_bytes_per_token_layer
                 : 0.0;
  a.kv_bytes = sequences * (kv_tokens * kv_bytes_per_token_layer + indexer_bytes + linear_state_traffic);
  a.flops = sequences * (pairs * flops_per_pair_layer + indexer_pairs * indexer_flops_per_pair_layer +
                         query_tokens * linear_flops_per_token);
  a.latency_s = layers * r.latency_s;
  a.memory_s = r.kv_bytes_per_s > 0.0 ? a.kv_bytes / r.kv_bytes_per_s : 0.0;
  a.compute_s = r.flops_per_s > 0.0 ? a.flops / r.flops_per_s : 0.0;
  a.total_s = a.latency_s + std::max(a.memory_s, a.compute_s);
  return a;
}

}  // namespace gpucalc
