// Hugging Face config.json -> Model.
#include <cmath>

#include "gpucalc/catalog.hpp"
#include "json_fields.hpp"
#include "json_strict.hpp"

namespace gpucalc {

using detail::Json;

namespace {

int int_field(const Json& c, std::initializer_list<const char*> keys, int fallback) {
  for (const char* k : keys) {
    auto it = c.find(k);
    if (it != c.end() && it->is_number_integer()) {
      const auto v = it->get<long long>();
      if (v >= 0 && v <= (1LL << 30)) return static_cast<int>(v);
    }
  }
  return fallback;
}

}  // namespace

Result<Model> import_hf_config(std::string_view config_json, std::string_view id) {
  const std::string source = "config.json";
  if (config_json.size() > (1u << 20)) {
    return make_error(ErrorCode::kTooLarge, source, "is larger than 1 MiB");
  }
  auto parsed = detail::parse_json_strict(config_json, source);  // duplicate keys are errors
  if (!parsed) return parsed.error();
  const Json& doc = parsed.value();
  if (!doc.is_object()) return make_error(ErrorCode::kInvalidCatalog, source, "must be a JSON object");
  // Multimodal configs (Llama 4) keep the language model under text_config.
  const Json& c = doc.contains("text_config") && doc["text_config"].is_object() ? doc["text_config"] : doc;

  Model m;
  m.id = std::string(id);
  if (!detail::is_valid_id(m.id)) {
    return make_error(ErrorCode::kBadValue, "id", "must be 1-64 characters of a-z 0-9 . _ -");
  }
  m.name = m.id;
  if (doc.contains("_name_or_path") && doc["_name_or_path"].is_string()) {
    m.name = doc["_name_or_path"].get<std::string>();
  }
  m.sources = {"Hugging Face config.json supplied by the user"};
  m.layers = int_field(c, {"num_hidden_layers", "n_layer", "num_layers"}, 0);
  m.hidden_size = int_field(c, {"hidden_size", "n_embd", "d_model"}, 0);
  m.heads = int_field(c, {"num_attention_heads", "n_head"}, 0);
  m.vocab_size = int_field(c, {"vocab_size"}, 0);
  const char* missing = m.layers == 0        ? "num_hidden_layers"
                        : m.hidden_size == 0 ? "hidden_size"
                        : m.heads == 0       ? "num_attention_heads"
                        : m.vocab_size == 0  ? "vocab_size"
                                             : nullptr;
  if (missing != nullptr) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": " + missing,
                      "is required (a positive integer)");
  }
  m.kv_heads = int_field(c, {"num_key_value_heads", "num_kv_heads"}, m.heads);
  if (m.kv_heads == 0 || m.heads % m.kv_heads != 0) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": num_key_value_heads",
                      "must divide num_attention_heads");
  }
  m.head_dim = int_field(c, {"head_dim"}, m.hidden_size / m.heads);
  const int mlp = int_field(c, {"intermediate_size_mlp"}, 0);  // Llama 4: dense layers
  m.intermediate_size = int_field(c, {"intermediate_size", "ffn_dim", "n_inner"}, 4 * m.hidden_size);
  m.experts_routed = int_field(c, {"num_local_experts", "n_routed_experts", "num_experts"}, 0);
  m.experts_active = int_field(c, {"num_experts_per_tok", "experts_per_token", "num_experts_per_token"},
                               m.experts_routed > 0 ? 1 : 0);
  m.experts_shared = int_field(c, {"n_shared_experts", "num_shared_experts"}, 0);
  if (m.experts_routed > 0) {
    m.moe_intermediate_size = int_field(c, {"moe_intermediate_size"}, m.intermediate_size);
    if (mlp > 0) {  // Llama 4 names the expert width intermediate_size, the dense one _mlp
      m.moe_intermediate_size = m.intermediate_size;
      m.intermediate_size = mlp;
      if (m.experts_shared == 0) m.experts_shared = 1;  // Llama 4 always has one shared expert
    }
    m.dense_layers = int_field(c, {"first_k_dense_replace"}, 0);
    m.moe_layer_interval = std::max(1, int_field(c, {"interleave_moe_layer_step", "moe_layer_freq"}, 1));
    if (m.experts_active > m.experts_routed) m.experts_active = m.experts_routed;
  }
  m.kv_lora_rank = int_field(c, {"kv_lora_rank"}, 0);
  if (m.kv_lora_rank > 0) {
    m.attention = AttentionKind::kMla;
    m.qk_rope_head_dim = int_field(c, {"qk_rope_head_dim"}, 64);
    m.q_lora_rank = int_field(c, {"q_lora_rank"}, 0);
    m.qk_nope_head_dim = int_field(c, {"qk_nope_head_dim"}, 128);
    m.v_head_dim = int_field(c, {"v_head_dim"}, 128);
    m.kv_heads = m.heads;
  }
  const int window = int_field(c, {"sliding_window"}, 0);
  if (window > 0 && c.contains("layer_types") && c["layer_types"].is_array()) {
    int sliding = 0;
    for (const auto& t : c["layer_types"]) {
      if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
    }
    m.sliding_window_layers = std::min(sliding, m.layers);
  } else if (window > 0 && c.contains("use_sliding_window") && c["use_sliding_window"].is_boolean() &&
             c["use_sliding_window"].get<bool>()) {
    m.sliding_window_layers = m.layers;
  }
  if (m.sliding_window_layers > 0) m.sliding_window_tokens = window;
  m.max_context_tokens = int_field(c, {"max_position_embeddings", "n_positions"}, 0);
  const bool tied = c.contains("tie_word_embeddings") && c["tie_word_embeddings"].is_boolean() &&
                    c["tie_word_embeddings"].get<bool>();
  const ParamCount p = count_params(m, tied);
  m.params_total = p.total;
  m.params_active = p.active;
  m.native_weights = "bf16";
  if (c.contains("quantization_config") && c["quantization_config"].is_object()) {
    const Json& q = c["quantization_config"];
    const std::string method = q.contains("quant_method") && q["quant_method"].is_string()
                                   ? q["quant_method"].get<std::string>() : "";
    if (method == "fp8") m.native_weights = "fp8";
    if (method == "mxfp4") m.native_weights = "fp4";
  }
  m.note = "Imported from config.json; parameter counts computed from the architecture.";
  return m;
}

}  // namespace gpucalc
