// Parameter counts per weight group, from the architecture fields of a Model.
#include <algorithm>

#include "gpucalc/catalog.hpp"

namespace gpucalc {

namespace {

constexpr const char* kGroupNames[kWeightGroupCount] = {
    "embedding", "lm_head", "attention", "dense_ffn", "shared_experts", "routed_experts", "router", "norms"};

void add(GroupParams& g, WeightGroup group, double params) {
  g[static_cast<std::size_t>(group)] += params;
}

double sum(const GroupParams& g) {
  double s = 0.0;
  for (double x : g) s += x;
  return s;
}

/** Softmax-attention projections of one layer (MLA or GQA), DSA indexer included. */
double softmax_attention_params(const Model& m, double& norms) {
  const double h = m.hidden_size;
  const double heads = m.heads;
  if (m.attention == AttentionKind::kMla) {
    const double qk = static_cast<double>(m.qk_nope_head_dim) + m.qk_rope_head_dim;
    const double v = m.v_head_dim > 0 ? m.v_head_dim : m.head_dim;
    const double ql = m.q_lora_rank;
    const double kvl = m.kv_lora_rank;
    const double q = ql > 0 ? h * ql + ql * heads * qk : h * heads * qk;
    const double kv = h * (kvl + m.qk_rope_head_dim) + kvl * heads * (m.qk_nope_head_dim + v);
    norms += ql + kvl;  // q_a and kv_a layernorms
    double indexer = 0.0;
    if (m.index_topk > 0) {
      const double ih = m.index_heads;
      const double id = m.index_head_dim;
      indexer = (ql > 0 ? ql : h) * ih * id + h * id + h * ih;  // wq_b, wk, weights_proj
      norms += 2.0 * id;                                         // k_norm weight and bias
    }
    const double gate = m.attention_output_gate ? h * heads * v : 0.0;  // Kimi K3's gated MLA
    return q + kv + heads * v * h + indexer + gate;
  }
  const double hd = m.head_dim;
  if (m.attention == AttentionKind::kCompressed) {
    // wq_a, wq_b; one K=V projection per KV head; grouped low-rank output (wo_a, wo_b).
    const double ql = m.q_lora_rank;
    const double ol = m.o_lora_rank;
    norms += ql + hd + heads;  // q and kv norms, one attention sink per head
    return h * ql + ql * heads * hd + h * m.kv_heads * hd + heads * hd * ol + m.o_groups * ol * h;
  }
  const double q = h * heads * hd * (m.attention_output_gate ? 2.0 : 1.0);
  return q + 2.0 * h * m.kv_heads * hd + heads * hd * h;
}

/** Gated DeltaNet (or Kimi Delta Attention) projections of one linear-attention layer. */
double linear_attention_params(const Model& m, double& norms) {
  const double h = m.hidden_size;
  const double key_dim = static_cast<double>(m.linear_key_heads) * m.linear_key_head_dim;
  const double value_dim = static_cast<double>(m.linear_value_heads) * m.linear_value_head_dim;
  if (m.linear_kind == LinearAttentionKind::kKda) {
    // Kimi Linear's KimiDeltaAttention: q, k, v projections and their short convolutions,
    // low-rank forget gate (f_a: hidden -> head_dim, f_b: head_dim -> value_dim), beta (b_proj),
    // low-rank output gate (g_a, g_b), o_proj; A_log per head, dt_bias per channel, gated norm.
    const double dk = m.linear_key_head_dim;
    const double dv = m.linear_value_head_dim;
    norms += m.linear_value_heads + value_dim + dv;
    return h * (2.0 * key_dim + value_dim) + (2.0 * key_dim + value_dim) * m.linear_conv_kernel +
           h * dk + dk * value_dim + h * m.linear_value_heads + h * dv + dv * value_dim + value_dim * h;
  }
  const double in_proj = h * (2.0 * key_dim + 2.0 * value_dim) + h * 2.0 * m.linear_value_heads;  // qkvz, ba
  const double conv = (2.0 * key_dim + value_dim) * m.linear_conv_kernel;
  norms += m.linear_value_head_dim + 2.0 * m.linear_value_heads;  // gated norm, dt_bias, A_log
  return in_proj + conv + value_dim * h;
}

/** Compressed attention beyond the per-layer projections: each CSA / HCA layer's compressor
 *  (kv and gate projections of coff x width, one learned position per ratio slot, a norm; CSA
 *  windows overlap, coff 2) and, on CSA layers, the indexer (query up-projection, per-head
 *  weights, its own compressor at index_head_dim). Only the indexer's query projection is an
 *  FP8 linear layer in the release; the rest is BF16, counted with the norms. */
void add_compressors(const Model& m, GroupParams& g) {
  const double h = m.hidden_size;
  auto compressor = [h](double ratio, double width, double coff) {
    return 2.0 * h * coff * width + ratio * coff * width + width;
  };
  const double id = m.index_head_dim;
  const double csa = compressor(m.csa_ratio, m.head_dim, 2.0) + h * m.index_heads + compressor(m.csa_ratio, id, 2.0);
  const double hca = compressor(m.hca_ratio, m.head_dim, 1.0);
  add(g, WeightGroup::kAttention, m.csa_layers * static_cast<double>(m.q_lora_rank) * m.index_heads * id);
  add(g, WeightGroup::kNorms, m.csa_layers * csa + m.hca_layers * hca);
}

struct FfnParams {
  double routed_total = 0.0, routed_active = 0.0, shared = 0.0, router = 0.0;
};

FfnParams moe_ffn_params(const Model& m) {
  const double h = m.hidden_size;
  const double expert = 3.0 * m.expert_io_width() * m.moe_intermediate_size;  // gate, up, down
  FfnParams f;
  f.routed_total = expert * m.experts_routed;
  f.routed_active = expert * m.experts_active;
  if (m.experts_shared > 0) {
    const double width = m.shared_expert_intermediate_size > 0
                             ? m.shared_expert_intermediate_size
                             : static_cast<double>(m.experts_shared) * m.moe_intermediate_size;
    f.shared = 3.0 * h * width;
  }
  f.router = h * m.experts_routed;
  // Latent MoE: the down and up projections to the experts' width (and the latent norm), run for
  // every token: counted with the shared experts.
  if (m.moe_latent_size > 0) f.shared += 2.0 * h * m.moe_latent_size + m.moe_latent_size;
  return f;
}

}  // namespace

const char* weight_group_name(WeightGroup g) { return kGroupNames[static_cast<std::size_t>(g)]; }

ParamCount count_params(const Model& m, bool tied_embeddings) {
  const double h = m.hidden_size;
  ParamCount out;
  GroupParams& g = out.groups;
  add(g, WeightGroup::kEmbedding, static_cast<double>(m.vocab_size) * h);
  add(g, WeightGroup::kLmHead, tied_embeddings ? 0.0 : static_cast<double>(m.vocab_size) * h);
  double norms = 0.0;
  const double softmax = softmax_attention_params(m, norms);
  const int softmax_layers = std::max(0, m.layers - m.linear_attention_layers);
  double norms_per_softmax = norms;
  norms = 0.0;
  const double linear = m.linear_attention_layers > 0 ? linear_attention_params(m, norms) : 0.0;
  add(g, WeightGroup::kAttention, softmax_layers * softmax + m.linear_attention_layers * linear);
  add(g, WeightGroup::kNorms, softmax_layers * norms_per_softmax + m.linear_attention_layers * norms +
                                  m.layers * 2.0 * h + h);
  if (m.attention == AttentionKind::kCompressed) add_compressors(m, g);
  // MoE layers: every moe_layer_interval-th layer after the leading dense ones.
  const int moe_layers = m.moe_layer_count();
  const int dense_layers = m.layers - moe_layers;
  const double dense_ffn = 3.0 * h * m.intermediate_size;  // gated MLP: gate, up, down
  add(g, WeightGroup::kDenseFfn, dense_layers * dense_ffn);
  const FfnParams f = m.is_moe() ? moe_ffn_params(m) : FfnParams{};
  add(g, WeightGroup::kRoutedExperts, moe_layers * f.routed_total);
  add(g, WeightGroup::kSharedExperts, moe_layers * f.shared);
  add(g, WeightGroup::kRouter, moe_layers * f.router);
  out.total = sum(g);
  out.active = out.total - moe_layers * (f.routed_total - f.routed_active);
  // MTP: one decoder layer each (softmax attention, the model's FFN), the projection of
  // [embedding; hidden] (2h x h) and three norms; the embedding and head are shared.
  if (m.mtp_layers > 0) {
    GroupParams& t = out.mtp_groups;
    add(t, WeightGroup::kAttention, m.mtp_layers * softmax);
    if (m.is_moe()) {
      add(t, WeightGroup::kRoutedExperts, m.mtp_layers * f.routed_total);
      add(t, WeightGroup::kSharedExperts, m.mtp_layers * f.shared);
      add(t, WeightGroup::kRouter, m.mtp_layers * f.router);
    } else {
      add(t, WeightGroup::kDenseFfn, m.mtp_layers * dense_ffn);
    }
    add(t, WeightGroup::kNorms, m.mtp_layers * (norms_per_softmax + 2.0 * h + 2.0 * h * h + 3.0 * h));
    out.mtp = sum(t);
  }
  return out;
}

void fill_param_counts(Model& m, std::optional<double> total, std::optional<double> active) {
  const ParamCount counted = count_params(m, m.tied_embeddings);
  m.params_total = total ? *total : counted.total;
  m.params_active = active ? *active : (total && !m.is_moe() ? m.params_total : counted.active);
  m.params_mtp = counted.mtp;
  // A catalog total overrides the count: the groups keep their shares of it.
  const double scale = counted.total > 0.0 ? m.params_total / counted.total : 0.0;
  for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
    m.param_groups[i] = counted.groups[i] * scale + counted.mtp_groups[i];
  }
}

}  // namespace gpucalc
