#pragma once
/**
 * GEMM shapes of the serving-model tests, derived from the catalog's models (data/models.json):
 * per layer, N x K of the weight a decode step multiplies by M tokens, at tensor parallelism 1.
 *   attention (GQA): qkv N = (heads + 2 kv_heads) head_dim, K = hidden; o N = hidden, K = heads head_dim
 *   attention (MLA): o only (its low-rank projections' ranks are not in the catalog)
 *   dense FFN (dense models, and the leading dense layers of MoE models): gate_up N = 2 intermediate,
 *   K = hidden; down N = hidden, K = intermediate
 *   MoE expert: gate_up N = 2 moe_intermediate, K = hidden; down N = hidden, K = moe_intermediate
 */
#include <string>
#include <vector>

#include "catalog.hpp"

namespace gpucalc::bench {

struct LayerShape {
  int n = 0, k = 0;
  std::string layers;  // "llama-3.1-70b o_proj, qwen2.5-72b o_proj"
};

/** Distinct dense-layer shapes (attention and dense FFN) of `models` (all when empty). */
std::vector<LayerShape> dense_layer_shapes(const std::vector<std::string>& models);

/** Distinct MoE expert shapes of `models` (all when empty), with the most experts any has. */
std::vector<LayerShape> expert_shapes(const std::vector<std::string>& models, std::vector<int>* experts_routed);

/** The model ids in `models` that the catalog lacks. */
std::vector<std::string> unknown_models(const std::vector<std::string>& models);

}  // namespace gpucalc::bench
