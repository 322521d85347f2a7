// Per-token attention reads and FLOPs by layer kind (full, sliding, linear, MLA, MLA + DSA).
#include <algorithm>

#include "model/attention.hpp"
#include "gpucalc/memory.hpp"

namespace gpucalc {

namespace {

/** Softmax FLOPs of one query token per attended token and layer. */
double softmax_flops_per_token(const Model& m) {
  if (m.attention == AttentionKind::kMla) {
    return 2.0 * m.heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
  }
  // GQA: QK^T and PV over head_dim; compressed attention the same over its shared K=V row.
  return 4.0 * m.heads * static_cast<double>(m.head_dim);
}

}  // namespace

const char* attention_kind_name(AttentionKind kind) {
  return kind == AttentionKind::kMla ? "mla" : kind == AttentionKind::kCompressed ? "compressed" : "gqa";
}

AttentionStep attention_step(const Model& m, KvFormat kv, double context_tokens) {
  const double context = std::max(0.0, context_tokens);
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, 1);
  const double topk = m.index_topk;
  const double attended = m.index_topk > 0 ? std::min(context, topk) : context;
  const double window = std::min(context, static_cast<double>(m.sliding_window_tokens));
  const double full = m.full_attention_layers();
  const double sparse = m.sparse_attention_layers();  // of the full layers, DSA / block-sparse
  const double indexed = m.index_key_layers();
  const double sliding = m.sliding_window_layers;
  const double linear = m.linear_attention_layers;
  // Compressed layers: the raw window, then CSA the indexer's top-k of context / csa_ratio rows
  // (scoring every one), HCA all context / hca_ratio rows.
  const double csa_rows = m.csa_layers > 0 ? context / m.csa_ratio : 0.0;
  const double hca_rows = m.hca_layers > 0 ? context / m.hca_ratio : 0.0;
  const double compressed_attended = (m.csa_layers + m.hca_layers) * window +
                                     m.csa_layers * std::min(csa_rows, topk) + m.hca_layers * hca_rows;
  const double full_attended = sparse * attended + (full - sparse) * context;
  AttentionStep s;
  s.kv_bytes_read = l.softmax_per_token * full_attended + indexed * l.indexer_per_token * context +
                    sliding * l.softmax_per_token * window + linear * l.linear_state +
                    l.softmax_per_token * compressed_attended + m.csa_layers * l.indexer_per_token * csa_rows;
  const double per_token = softmax_flops_per_token(m);
  s.softmax_flops = per_token * (full_attended + sliding * window + compressed_attended);
  if (m.index_topk > 0) {
    s.indexer_flops = 2.0 * m.index_heads * static_cast<double>(m.index_head_dim) *
                      (indexed * context + m.csa_layers * csa_rows);
  }
  s.linear_flops = linear * 6.0 * m.linear_value_heads * static_cast<double>(m.linear_key_head_dim) *
                   m.linear_value_head_dim;
  return s;
}

std::vector<LayerGroup> layer_groups(const Model& m, KvFormat kv) {
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, 1);
  std::vector<LayerGroup> out;
  const int full = m.full_attention_layers();
  if (full > 0) {
    const bool gqa = m.attention == AttentionKind::kGqa;
    const char* kind = m.index_topk == 0 ? (gqa ? "full_gqa" : "full_mla") : (gqa ? "full_gqa_sparse" : "full_mla_dsa");
    // Index keys on part of the layers (GLM-5.2's IndexCache): averaged over the group.
    const double index_share = static_cast<double>(m.index_key_layers()) / full;
    out.push_back({kind, full, l.softmax_per_token + l.indexer_per_token * index_share, 0.0, 0.0});
  }
  // Compressed layers, per token: the row (and CSA's index key) once per ratio tokens, beside the raw window.
  if (m.csa_layers > 0) {
    out.push_back({"compressed_csa", m.csa_layers, (l.softmax_per_token + l.indexer_per_token) / m.csa_ratio,
                   static_cast<double>(m.sliding_window_tokens), 0.0});
  }
  if (m.hca_layers > 0) {
    out.push_back({"compressed_hca", m.hca_layers, l.softmax_per_token / m.hca_ratio,
                   static_cast<double>(m.sliding_window_tokens), 0.0});
  }
  if (m.sliding_window_layers > 0) {
    out.push_back({"sliding", m.sliding_window_layers, l.softmax_per_token,
                   static_cast<double>(m.sliding_window_tokens), 0.0});
  }
  if (m.linear_attention_layers > 0) {
    out.push_back({"linear", m.linear_attention_layers, 0.0, 0.0, l.linear_state});
  }
  return out;
}

}  // namespace gpucalc
