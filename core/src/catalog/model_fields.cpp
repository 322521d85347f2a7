// Catalog "models" entries: architecture, layer kinds, checkpoint precision per weight group.
#include "catalog/model_fields.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "gpucalc/units.hpp"

namespace gpucalc::detail {

namespace {

using L = ModelLimits;

std::optional<WeightGroup> parse_group(const std::string& name) {
  for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
    if (name == weight_group_name(static_cast<WeightGroup>(i))) return static_cast<WeightGroup>(i);
  }
  return std::nullopt;
}

/** "checkpoint": {"formats": {"int4_g32": {"value_bits": 4, "scale_bits": 16,
 *  "values_per_scale": 32}}, "groups": {"routed_experts": "int4_g32"}, "note": "..."};
 *  groups not listed are BF16. */
void read_checkpoint(Fields& f, Model& m) {
  auto cp = f.object("checkpoint");
  if (!cp) return;
  std::vector<StorageFormat> formats;
  if (auto fs = cp->object("formats")) {
    const Json* obj = cp->get("formats");
    if (obj->size() > 16) fs->fail("", "holds more than 16 formats");
    for (auto it = obj->begin(); it != obj->end() && fs->ok(); ++it) {
      auto one = fs->object(it.key().c_str());
      if (!one) break;
      StorageFormat sf;
      sf.id = it.key();
      one->num("value_bits", sf.value_bits, true, 1.0, 32.0);
      one->num("scale_bits", sf.scale_bits, false, 0.0, 32.0);
      one->num("values_per_scale", sf.values_per_scale, false, 1.0, 1e6);
      fs->adopt(*one);
      formats.push_back(sf);
    }
    cp->adopt(*fs);
  }
  if (auto gs = cp->object("groups")) {
    const Json* obj = cp->get("groups");
    for (auto it = obj->begin(); it != obj->end() && gs->ok(); ++it) {
      const auto group = parse_group(it.key());
      if (!group) {
        gs->fail(it.key(), "is not a weight group (embedding, lm_head, attention, dense_ffn, "
                           "shared_experts, routed_experts, router, norms)");
        break;
      }
      std::string id;
      gs->str(it.key().c_str(), id, true);
      if (!gs->ok()) break;
      const StorageFormat* found = nullptr;
      for (const auto& sf : formats) {
        if (sf.id == id) found = &sf;
      }
      if (id == "bf16") {
        m.checkpoint[static_cast<std::size_t>(*group)] = StorageFormat{};
      } else if (found == nullptr) {
        gs->fail(it.key(), "names format \"" + id + "\", which checkpoint.formats does not define");
      } else {
        m.checkpoint[static_cast<std::size_t>(*group)] = *found;
        m.checkpoint_quantized = true;
      }
    }
    cp->adopt(*gs);
  }
  cp->str("note", m.checkpoint_note, false);
  f.adopt(*cp);
}

void read_model_fields(Fields& f, Model& m) {
  f.integer("layers", m.layers, true, 1, L::kLayers);
  f.integer("dense_layers", m.dense_layers, false, 0, L::kLayers);
  f.integer("hidden_size", m.hidden_size, true, 1, L::kHidden);
  f.integer("intermediate_size", m.intermediate_size, true, 1, L::kIntermediate);
  f.integer("moe_intermediate_size", m.moe_intermediate_size, false, 0, L::kIntermediate);
  f.integer("shared_expert_intermediate_size", m.shared_expert_intermediate_size, false, 0, L::kIntermediate);
  f.integer("heads", m.heads, true, 1, L::kHeads);
  m.kv_heads = m.heads;
  f.integer("kv_heads", m.kv_heads, false, 1, L::kHeads);
  f.integer("head_dim", m.head_dim, false, 1, L::kHeadDim);
  if (m.head_dim == 0 && m.heads > 0) {
    m.head_dim = m.hidden_size / m.heads;  // may be 0: check_model refuses it where it matters
  }
  f.integer("vocab_size", m.vocab_size, true, 1, L::kVocab);
  f.boolean("tied_embeddings", m.tied_embeddings);
  f.integer("experts_routed", m.experts_routed, false, 0, L::kExperts);
  f.integer("experts_active", m.experts_active, false, 0, L::kExperts);
  f.integer("experts_shared", m.experts_shared, false, 0, L::kExperts);
  f.integer("moe_layer_interval", m.moe_layer_interval, false, 1, 1000);
  std::string attention = "gqa";
  f.str("attention", attention, false);
  if (attention == "mla") m.attention = AttentionKind::kMla;
  else if (attention == "compressed") m.attention = AttentionKind::kCompressed;
  else if (attention != "gqa" && attention != "mha") {
    f.fail("attention", "must be \"gqa\", \"mha\", \"mla\" or \"compressed\"");
  }
  f.boolean("attention_output_gate", m.attention_output_gate);
  f.integer("kv_lora_rank", m.kv_lora_rank, false, 0, L::kLoraRank);
  f.integer("qk_rope_head_dim", m.qk_rope_head_dim, false, 0, L::kHeadDim);
  f.integer("q_lora_rank", m.q_lora_rank, false, 0, L::kLoraRank);
  f.integer("qk_nope_head_dim", m.qk_nope_head_dim, false, 0, L::kHeadDim);
  f.integer("v_head_dim", m.v_head_dim, false, 0, L::kHeadDim);
  f.integer("index_heads", m.index_heads, false, 0, L::kHeads);
  f.integer("index_head_dim", m.index_head_dim, false, 0, L::kHeadDim);
  f.integer("index_topk", m.index_topk, false, 0, L::kTokens);
  f.integer("index_layers", m.index_layers, false, 0, L::kLayers);
  f.integer("sparse_layers", m.sparse_layers, false, 0, L::kLayers);
  f.integer("csa_layers", m.csa_layers, false, 0, L::kLayers);
  f.integer("csa_ratio", m.csa_ratio, false, 0, L::kTokens);
  f.integer("hca_layers", m.hca_layers, false, 0, L::kLayers);
  f.integer("hca_ratio", m.hca_ratio, false, 0, L::kTokens);
  f.integer("o_groups", m.o_groups, false, 0, L::kHeads);
  f.integer("o_lora_rank", m.o_lora_rank, false, 0, L::kLoraRank);
  f.integer("sliding_window_tokens", m.sliding_window_tokens, false, 0, L::kTokens);
  f.integer("sliding_window_layers", m.sliding_window_layers, false, 0, L::kLayers);
  f.integer("linear_attention_layers", m.linear_attention_layers, false, 0, L::kLayers);
  f.integer("linear_key_heads", m.linear_key_heads, false, 0, L::kHeads);
  f.integer("linear_value_heads", m.linear_value_heads, false, 0, L::kHeads);
  f.integer("linear_key_head_dim", m.linear_key_head_dim, false, 0, L::kHeadDim);
  f.integer("linear_value_head_dim", m.linear_value_head_dim, false, 0, L::kHeadDim);
  f.integer("linear_conv_kernel", m.linear_conv_kernel, false, 0, L::kConvKernel);
  std::string linear_kind = "gated_deltanet";
  f.str("linear_attention_kind", linear_kind, false);
  if (linear_kind == "kda") m.linear_kind = LinearAttentionKind::kKda;
  else if (linear_kind != "gated_deltanet") f.fail("linear_attention_kind", "must be \"gated_deltanet\" or \"kda\"");
  f.integer("moe_latent_size", m.moe_latent_size, false, 0, L::kHidden);
  f.num("linear_state_bytes_per_value", m.linear_state_bytes_per_value, false, 0.5, 8.0);
  f.num("linear_conv_bytes_per_value", m.linear_conv_bytes_per_value, false, 0.5, 8.0);
  f.integer("mtp_layers", m.mtp_layers, false, 0, 64);
  f.integer("max_context_tokens", m.max_context_tokens, false, 0, L::kTokens);
  f.str("native_weights", m.native_weights, false);
  read_checkpoint(f, m);
  if (!f.ok()) return;
  if (m.experts_routed > 0 && m.moe_intermediate_size == 0) m.moe_intermediate_size = m.intermediate_size;
  const auto [field, message] = check_model(m);
  if (!field.empty()) f.fail(field, message);
}

}  // namespace

std::pair<std::string, std::string> check_model(const Model& m) {
  if (m.head_dim < 1 && (m.attention == AttentionKind::kGqa || m.v_head_dim == 0)) {
    // GQA sizes its KV and attention by head_dim (MLA by its own widths): a derived 0 is no model.
    return {"head_dim", "is required when hidden_size / heads is below 1"};
  }
  if (m.attention == AttentionKind::kGqa && m.heads % m.kv_heads != 0) {
    return {"kv_heads", "must divide heads (" + std::to_string(m.heads) + ")"};
  }
  if (m.attention == AttentionKind::kMla && m.kv_lora_rank == 0) {
    return {"kv_lora_rank", "is required for MLA attention"};
  }
  if (m.dense_layers > m.layers) return {"dense_layers", "must not exceed layers"};
  if (m.sliding_window_layers + m.linear_attention_layers + m.csa_layers + m.hca_layers > m.layers) {
    return {"sliding_window_layers", "plus linear_attention_layers, csa_layers and hca_layers must not exceed layers"};
  }
  const bool compressed = m.attention == AttentionKind::kCompressed;
  if (compressed != (m.csa_layers + m.hca_layers > 0)) {
    return {"csa_layers", "csa_layers or hca_layers go with attention \"compressed\", and it needs one of them"};
  }
  if ((m.csa_layers > 0 && m.csa_ratio < 1) || (m.hca_layers > 0 && m.hca_ratio < 1)) {
    return {m.csa_layers > 0 && m.csa_ratio < 1 ? "csa_ratio" : "hca_ratio", "is required (>= 1) with its layers"};
  }
  if (compressed && (m.sliding_window_tokens < 1 || m.q_lora_rank < 1 || m.o_groups < 1 || m.o_lora_rank < 1 ||
                     m.heads % m.o_groups != 0)) {
    return {"sliding_window_tokens", "compressed attention needs sliding_window_tokens (the raw window), "
                                     "q_lora_rank, o_lora_rank and o_groups (dividing heads)"};
  }
  if (m.csa_layers > 0 && m.index_topk < 1) return {"index_topk", "is required on CSA layers (the indexer's top-k rows)"};
  if (m.index_layers > m.full_attention_layers() || m.sparse_layers > m.full_attention_layers()) {
    return {m.index_layers > m.full_attention_layers() ? "index_layers" : "sparse_layers",
            "must not exceed the full-attention layers (" + std::to_string(m.full_attention_layers()) + ")"};
  }
  if (m.sliding_window_layers > 0 && m.sliding_window_tokens == 0) {
    return {"sliding_window_tokens", "is required when sliding_window_layers is set"};
  }
  if (m.linear_attention_layers > 0 &&
      (m.linear_key_heads < 1 || m.linear_value_heads < 1 || m.linear_key_head_dim < 1 ||
       m.linear_value_head_dim < 1 || m.linear_conv_kernel < 1)) {
    return {"linear_key_heads", "linear attention needs linear_key_heads, linear_value_heads, "
                                "linear_key_head_dim, linear_value_head_dim and linear_conv_kernel (>= 1)"};
  }
  if (m.index_topk > 0 && (m.index_head_dim < 1 || m.index_heads < 1)) {
    return {"index_topk", "sparse attention needs index_heads and index_head_dim"};
  }
  if (m.experts_routed > 0 && (m.experts_active < 1 || m.experts_active > m.experts_routed)) {
    return {"experts_active", "must be between 1 and experts_routed"};
  }
  return {"", ""};
}

std::string check_param_cap(const Model& m) {
  const ParamCount counted = count_params(m, m.tied_embeddings);
  if (counted.total > 0 && counted.total <= kMaxModelParams) return "";
  char count[32];
  std::snprintf(count, sizeof count, "%.4g", counted.total / kParamsPerBillion);
  return std::string("the dimensions give ") + count +
         " B parameters; at most 1,000,000 B (check layers, hidden_size, heads, experts)";
}

Result<Model> parse_model_entry(const Json& item, const std::string& path) {
  if (!item.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  Fields f(item, path, true);
  Model m;
  f.str("id", m.id, true);
  if (f.ok() && !is_valid_id(m.id)) f.fail("id", "must be 1-64 characters of a-z 0-9 . _ -");
  f.str("name", m.name, true);
  f.strings("sources", m.sources);
  f.strings("source", m.sources);
  if (f.ok() && m.sources.empty()) f.fail("sources", "is required: every figure carries its source");
  f.str("note", m.note, false);
  f.strings("aliases", m.aliases);
  for (const auto& a : m.aliases) {
    if (f.ok() && !is_valid_model_alias(a)) {
      f.fail("aliases", "holds \"" + a + "\": an alias is a catalog id or a Hugging Face repo id (org/name)");
    }
  }
  read_model_fields(f, m);
  std::optional<double> total_b, active_b, card_total_b, card_active_b;
  f.opt_num("card_params_total_b", card_total_b, 0.001, 1e6);
  f.opt_num("card_params_active_b", card_active_b, 0.001, 1e6);
  f.str("card_source", m.card_source, false);
  if (f.ok() && card_total_b && m.card_source.empty()) f.fail("card_source", "is required with card_params_total_b");
  if (card_total_b) m.card_params_total = *card_total_b * kParamsPerBillion;
  if (card_active_b) m.card_params_active = *card_active_b * kParamsPerBillion;
  f.opt_num("params_total_b", total_b, 0.001, 1e6);
  f.opt_num("params_active_b", active_b, 0.001, 1e6);
  f.refuse_unread();
  if (!f.ok()) return f.error();
  const std::string too_many = check_param_cap(m);
  if (!too_many.empty()) {
    f.fail("params_total_b", too_many);
    return f.error();
  }
  fill_param_counts(m, total_b ? std::optional<double>(*total_b * kParamsPerBillion) : std::nullopt,
                    active_b ? std::optional<double>(*active_b * kParamsPerBillion) : std::nullopt);
  if (m.params_active > m.params_total * (1.0 + 1e-9)) {
    f.fail("params_active_b", "must not exceed params_total_b");
    return f.error();
  }
  return m;
}

}  // namespace gpucalc::detail
