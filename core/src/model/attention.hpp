#pragma once
/**
 * Per-token attention cost of one decode step, by layer kind, for the serving model:
 * what one new token of one sequence reads from the KV cache / state and computes in attention
 * at a given context. Whole model, tensor parallelism 1 (divide by the ranks that split it).
 */
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/precision.hpp"

namespace gpucalc {

struct AttentionStep {
  /** Bytes read: full GQA layers the K/V of every context token; MLA the latent + rotary key
   *  of every token, DSA only of the min(index_topk, context) tokens the indexer selects plus
   *  the indexer keys of every token; sliding layers at most the window; linear layers their
   *  fixed state (read once; it is written back in place). */
  double kv_bytes_read = 0.0;
  /** Softmax attention FLOPs (QK^T and PV): GQA 4 x heads x head_dim per attended token;
   *  MLA (absorbed) 2 x heads x (2 x kv_lora_rank + qk_rope_head_dim); DSA attends
   *  min(index_topk, context) tokens, so this stops growing past the top-k. */
  double softmax_flops = 0.0;
  /** DSA lightning indexer: 2 x index_heads x index_head_dim per context token (grows with the
   *  context; FP8 in DeepSeek's kernels). */
  double indexer_flops = 0.0;
  /** Gated DeltaNet: about 6 x value_heads x key_head_dim x value_head_dim per token (state
   *  decay-and-delta update, readout); independent of the context. */
  double linear_flops = 0.0;
  double flops() const { return softmax_flops + indexer_flops + linear_flops; }
};

/** One decode token of one sequence at `context_tokens` (already in the cache). */
AttentionStep attention_step(const Model& model, KvFormat kv, double context_tokens);

/** One group of layers of the same attention kind, for traces and the page. */
struct LayerGroup {
  std::string kind;           // "full_gqa", "full_mla", "full_mla_dsa", "sliding", "linear"
  int layers = 0;
  double kv_bytes_per_token_per_layer = 0.0;  // 0 for linear layers
  double tokens_cap = 0.0;                     // sliding: the window; 0: no cap
  double state_bytes_per_layer = 0.0;          // linear: fixed per sequence
};
std::vector<LayerGroup> layer_groups(const Model& model, KvFormat kv);

}  // namespace gpucalc
