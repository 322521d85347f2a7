// Per-token attention reads and FLOPs by layer kind (full, sliding, linear, MLA, MLA + DSA).
#include <algorithm>

#include "gpucalc/attention.hpp"
#include "gpucalc/memory.hpp"

namespace gpucalc {

namespace {

/** Softmax FLOPs of one query token per attended token and layer. */
double softmax_flops_per_token(const Model& m) {
  if (m.attention == AttentionKind::kMla) {
    return 2.0 * m.heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
  }
  return 4.0 * m.heads * static_cast<double>(m.head_dim);
}

}  // namespace

AttentionStep attention_step(const Model& m, KvFormat kv, double context_tokens) {
  const double context = std::max(0.0, context_tokens);
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, 1);
  const double attended = m.index_topk > 0 ? std::min(context, static_cast<double>(m.index_topk)) : context;
  const double window = std::min(context, static_cast<double>(m.sliding_window_tokens));
  const double full = m.full_attention_layers();
  const double sliding = m.sliding_window_layers;
  const double linear = m.linear_attention_layers;
  AttentionStep s;
  s.kv_bytes_read = full * (l.softmax_per_token * attended + l.indexer_per_token * context) +
                    sliding * l.softmax_per_token * window + linear * l.linear_state;
  const double per_token = softmax_flops_per_token(m);
  s.softmax_flops = per_token * (full * attended + sliding * window);
  if (m.index_topk > 0) {
    s.indexer_flops = full * 2.0 * m.index_heads * static_cast<double>(m.index_head_dim) * context;
  }
  s.linear_flops = linear * 6.0 * m.linear_value_heads * static_cast<double>(m.linear_key_head_dim) *
                   m.linear_value_head_dim;
  return s;
}

std::vector<LayerGroup> layer_groups(const Model& m, KvFormat kv) {
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, 1);
  std::vector<LayerGroup> out;
  if (m.full_attention_layers() > 0) {
    const char* kind = m.attention == AttentionKind::kGqa ? "full_gqa"
                       : m.index_topk > 0                 ? "full_mla_dsa"
                                                          : "full_mla";
    out.push_back({kind, m.full_attention_layers(), l.softmax_per_token + l.indexer_per_token, 0.0, 0.0});
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
