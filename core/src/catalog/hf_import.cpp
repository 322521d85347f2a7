// Hugging Face config.json -> Model. Strict types: a field that is present must have the
// documented JSON type and lie within ModelLimits; a missing field takes transformers' default
// (data/models.json "hf_config_defaults") or a derived value, never a silent substitute.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "catalog/json_fields.hpp"
#include "catalog/model_fields.hpp"
#include "catalog/json_strict.hpp"

namespace gpucalc {

using detail::Json;
using L = detail::ModelLimits;

namespace {

/** transformers' class defaults for fields a config.json may omit, by model_type. */
const Json& hf_defaults() {
  static const Json defaults = [] {
    for (const auto& f : embedded_data_files()) {
      if (std::string_view(f.name) != "models.json") continue;
      const detail::JsonParse parsed = detail::read_json(f.text);
      const Json& doc = parsed.value;
      if (doc.is_object() && doc.contains("hf_config_defaults") && doc["hf_config_defaults"].is_object()) {
        return doc["hf_config_defaults"];
      }
    }
    return Json::object();
  }();
  return defaults;
}

/** The model_type values whose config fields this importer reads; any other is refused rather
 *  than read as a plain transformer (a config without model_type is read as one). */
constexpr const char* kKnownModelTypes[] = {
    "llama",      "llama4",        "llama4_text",   "mistral",          "mixtral",     "qwen2",
    "qwen2_moe",  "qwen3",         "qwen3_moe",     "qwen3_next",       "qwen3_5_moe", "qwen3_5_moe_text",
    "deepseek_v3", "deepseek_v32", "deepseek_v4",   "kimi_k2",          "kimi_k25",    "glm_moe_dsa",
    "minimax_m2", "minimax_m3",    "gpt_oss",       "gemma3",           "gemma3_text", "kimi_linear"};

/** Keys that change how a model caches or computes and that gpucalc cannot size: a config
 *  carrying one is refused naming it (DeepSeek-V4.1's Engram memory and shared compressors). */
constexpr const char* kUnreadArchitectureKeys[] = {"kv_source_layer_ids", "index_source_layer_ids", "engram_layer_ids"};

class ConfigReader {
 public:
  ConfigReader(const Json& config, const Json& defaults) : c_(config), d_(defaults) {}
  bool ok() const { return !error_; }
  const Error& error() const { return *error_; }

  void fail(const std::string& key, const std::string& message) {
    if (!error_) error_ = make_error(ErrorCode::kInvalidCatalog, "config.json: " + key, message);
  }

  /** The first of `keys` present and not null, in the config or else in the defaults. */
  const Json* find(std::initializer_list<const char*> keys, const char** found) const {
    for (const Json* src : {&c_, &d_}) {
      for (const char* k : keys) {
        auto it = src->find(k);
        if (it != src->end() && !it->is_null()) {
          *found = k;
          return &*it;
        }
      }
    }
    return nullptr;
  }

  int integer(std::initializer_list<const char*> keys, long long fallback, long long min, long long max) {
    const char* key = *keys.begin();
    const Json* v = find(keys, &key);
    if (v == nullptr) {
      if (fallback < min || fallback > max) {
        fail(key, "is missing, and the value derived in its place (" + std::to_string(fallback) +
                      ") is outside " + std::to_string(min) + " to " + std::to_string(max));
        return 0;
      }
      return static_cast<int>(fallback);
    }
    if (!v->is_number_integer()) {
      fail(key, v->is_string() ? "must be an integer, not a string"
                : v->is_number() ? "must be an integer, got " + v->dump()
                                 : "must be an integer");
      return 0;
    }
    const bool too_big = v->is_number_unsigned() && v->get<unsigned long long>() > static_cast<unsigned long long>(max);
    const long long x = too_big ? max + 1 : v->get<long long>();
    if (too_big || x < min || x > max) {
      fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + v->dump());
      return 0;
    }
    return static_cast<int>(x);
  }

  bool boolean(const char* key, bool fallback) {
    const char* k = key;
    const Json* v = find({key}, &k);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) {
      fail(key, "must be true or false");
      return fallback;
    }
    return v->get<bool>();
  }

  std::string string(const char* key) {
    const char* k = key;
    const Json* v = find({key}, &k);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      fail(key, "must be a string");
      return "";
    }
    return v->get<std::string>();
  }

  const Json* array(const char* key) {
    const char* k = key;
    const Json* v = find({key}, &k);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      fail(key, "must be an array");
      return nullptr;
    }
    if (v->size() > static_cast<std::size_t>(L::kLayers)) {
      fail(key, "holds more than " + std::to_string(L::kLayers) + " entries");
      return nullptr;
    }
    return v;
  }

 private:
  const Json& c_;
  const Json& d_;
  std::optional<Error> error_;
};

/** Layer kinds from layer_types, full_attention_interval, sliding_window_pattern or
 *  attn_type_list. */
void read_layer_kinds(ConfigReader& r, Model& m, int window) {
  if (const Json* types = r.array("layer_types")) {
    if (static_cast<int>(types->size()) != m.layers) {
      return r.fail("layer_types", "must list num_hidden_layers (" + std::to_string(m.layers) +
                                       ") entries, got " + std::to_string(types->size()));
    }
    for (const auto& t : *types) {
      const std::string kind = t.is_string() ? t.get<std::string>() : "";
      if (kind == "sliding_attention") ++m.sliding_window_layers;
      else if (kind == "linear_attention") ++m.linear_attention_layers;
      else if (kind != "full_attention") {
        return r.fail("layer_types", "holds " + t.dump() +
                                         "; gpucalc sizes full_attention, sliding_attention and linear_attention");
      }
    }
    return;
  }
  if (const Json* types = r.array("attn_type_list")) {  // MiniMax: 1 softmax, 0 lightning
    for (const auto& t : *types) {
      if (!t.is_number_integer() || t.get<long long>() != 1) {
        return r.fail("attn_type_list", "holds " + t.dump() +
                                            "; gpucalc sizes softmax attention layers (1) only");
      }
    }
    return;
  }
  const int interval = r.integer({"full_attention_interval"}, 0, 0, L::kLayers);
  if (interval > 0) {  // Qwen3-Next: every interval-th layer is full, the rest Gated DeltaNet
    m.linear_attention_layers = m.layers - m.layers / interval;
    return;
  }
  const int pattern = r.integer({"sliding_window_pattern"}, 0, 0, L::kLayers);
  if (pattern > 0 && window > 0) {  // Gemma 3: every pattern-th layer is global
    m.sliding_window_layers = m.layers - m.layers / pattern;
    return;
  }
  if (window > 0 && r.boolean("use_sliding_window", false)) m.sliding_window_layers = m.layers;
}

/** Of `layers` entries of `key`, how many equal `on`; any value other than `on` / `off` is an
 *  error naming the key. */
int count_layers(ConfigReader& r, const char* key, const Json& list, int layers, const Json& on, const Json& off) {
  if (static_cast<int>(list.size()) != layers) {
    r.fail(key, "must list num_hidden_layers (" + std::to_string(layers) + ") entries, got " + std::to_string(list.size()));
    return 0;
  }
  int n = 0;
  for (const auto& e : list) {
    if (e == on) ++n;
    else if (e != off) {
      r.fail(key, "holds " + e.dump() + "; gpucalc reads " + on.dump() + " and " + off.dump());
      return 0;
    }
  }
  return n;
}

/** DeepSeek-V4 compressed attention: compress_ratios per layer (the main layers first, then the
 *  MTP layers): 0 a raw window only, 4 CSA (DeepSeek's overlapping compressor with the Lightning
 *  Indexer), any other ratio HCA (one ratio for all of them). */
void read_compressed(ConfigReader& r, Model& m) {
  m.attention = AttentionKind::kCompressed;
  const Json* ratios = r.array("compress_ratios");
  if (ratios == nullptr) return r.fail("compress_ratios", "is required for compressed attention (deepseek_v4)");
  if (static_cast<int>(ratios->size()) < m.layers) {
    return r.fail("compress_ratios", "must list at least num_hidden_layers (" + std::to_string(m.layers) + ") entries");
  }
  constexpr int kCsaRatio = 4;
  for (int i = 0; i < m.layers; ++i) {
    const Json& e = (*ratios)[static_cast<std::size_t>(i)];
    const long long ratio = e.is_number_integer() ? e.get<long long>() : -1;
    if (ratio < 0 || ratio > L::kTokens) return r.fail("compress_ratios", "holds " + e.dump() + "; ratios are integers 0 and up");
    if (ratio == 0) {
      ++m.sliding_window_layers;
    } else if (ratio == kCsaRatio) {
      ++m.csa_layers;
      m.csa_ratio = kCsaRatio;
    } else if (m.hca_ratio != 0 && m.hca_ratio != ratio) {
      return r.fail("compress_ratios", "holds two HCA ratios (" + std::to_string(m.hca_ratio) + " and " +
                                           std::to_string(ratio) + "); gpucalc sizes one");
    } else {
      ++m.hca_layers;
      m.hca_ratio = static_cast<int>(ratio);
    }
  }
  m.sliding_window_tokens = r.integer({"sliding_window"}, 0, 1, L::kTokens);
  m.q_lora_rank = r.integer({"q_lora_rank"}, 0, 1, L::kLoraRank);
  m.o_groups = r.integer({"o_groups"}, 0, 1, L::kHeads);
  m.o_lora_rank = r.integer({"o_lora_rank"}, 0, 1, L::kLoraRank);
  m.qk_rope_head_dim = r.integer({"qk_rope_head_dim"}, 0, 0, L::kHeadDim);
  if (m.csa_layers > 0) {
    m.index_topk = r.integer({"index_topk"}, 0, 1, L::kTokens);
    m.index_heads = r.integer({"index_n_heads"}, 0, 1, L::kHeads);
    m.index_head_dim = r.integer({"index_head_dim"}, 0, 1, L::kHeadDim);
  }
}

/** Kimi Linear (Kimi K3): linear_attn_config lists the 1-based full (MLA) and KDA layers, which
 *  must split 1..num_hidden_layers between them; the KDA layers' heads, head_dim and short
 *  convolution; the state is kept in float32 (the engines' choice, SGLang). */
void read_kda(ConfigReader& r, const Json& cfg, Model& m) {
  if (!cfg.is_object()) return r.fail("linear_attn_config", "must be an object");
  ConfigReader k(cfg, Json::object());
  const Json* full = k.array("full_attn_layers");
  const Json* kda = k.array("kda_layers");
  const int heads = k.integer({"num_heads"}, 0, 1, L::kHeads);
  const int dim = k.integer({"head_dim"}, 0, 1, L::kHeadDim);
  const int conv = k.integer({"short_conv_kernel_size"}, 0, 1, L::kConvKernel);
  if (k.ok() && (full == nullptr || kda == nullptr)) k.fail("kda_layers", "and full_attn_layers are required");
  if (k.ok()) {
    std::vector<int> seen(static_cast<std::size_t>(m.layers) + 1, 0);
    for (const Json* list : {full, kda}) {
      for (const auto& e : *list) {
        const long long i = e.is_number_integer() ? e.get<long long>() : 0;
        if (i < 1 || i > m.layers || seen[static_cast<std::size_t>(i)]++ > 0) {
          k.fail(list == full ? "full_attn_layers" : "kda_layers",
                 "holds " + e.dump() + "; the two lists split layers 1 to " + std::to_string(m.layers) + " between them");
          break;
        }
      }
    }
    if (k.ok() && static_cast<int>(full->size() + kda->size()) != m.layers) {
      k.fail("kda_layers", "and full_attn_layers must cover all " + std::to_string(m.layers) + " layers");
    }
  }
  if (!k.ok()) return r.fail("linear_attn_config." + k.error().field.substr(std::string("config.json: ").size()), k.error().message);
  m.linear_kind = LinearAttentionKind::kKda;
  m.linear_attention_layers = static_cast<int>(kda->size());
  m.linear_key_heads = m.linear_value_heads = heads;
  m.linear_key_head_dim = m.linear_value_head_dim = dim;
  m.linear_conv_kernel = conv;
  m.linear_state_bytes_per_value = 4.0;
}

/** MiniMax-M3's block-sparse attention (sparse_attention_config): the layers flagged in
 *  sparse_attention_freq keep one index key of sparse_index_dim per token and attend the top
 *  sparse_topk_blocks blocks of sparse_block_size tokens. */
void read_block_sparse(ConfigReader& r, const Json& cfg, Model& m) {
  if (!cfg.is_object()) return r.fail("sparse_attention_config", "must be an object");
  ConfigReader s(cfg, Json::object());
  if (!s.boolean("use_sparse_attention", false)) return;
  const Json* freq = s.array("sparse_attention_freq");
  const int block = s.integer({"sparse_block_size"}, 0, 1, L::kTokens);
  const int blocks = s.integer({"sparse_topk_blocks"}, 0, 1, L::kTokens);
  m.index_heads = s.integer({"sparse_num_index_heads"}, 0, 1, L::kHeads);
  m.index_head_dim = s.integer({"sparse_index_dim"}, 0, 1, L::kHeadDim);
  if (freq == nullptr) s.fail("sparse_attention_freq", "is required (one 0 or 1 per layer)");
  if (s.ok()) m.sparse_layers = count_layers(s, "sparse_attention_freq", *freq, m.layers, Json(1), Json(0));
  if (s.ok() && static_cast<long long>(block) * blocks > L::kTokens) s.fail("sparse_topk_blocks", "times sparse_block_size is too large");
  if (!s.ok()) return r.fail("sparse_attention_config." + s.error().field.substr(std::string("config.json: ").size()), s.error().message);
  m.index_topk = block * blocks;
  m.index_layers = m.sparse_layers;
}

StorageFormat fp8_format(const Json& q) {
  StorageFormat f{"fp8", 8.0, 0.0, 1.0};
  auto it = q.find("weight_block_size");
  if (it != q.end() && it->is_array() && it->size() == 2 && (*it)[0].is_number_integer() &&
      (*it)[1].is_number_integer()) {
    const double a = (*it)[0].get<double>(), b = (*it)[1].get<double>();
    if (a >= 1 && b >= 1 && a <= 65536 && b <= 65536) {
      f = StorageFormat{"fp8_block" + std::to_string(static_cast<int>(a)), 8.0, 32.0, a * b};  // FP32 scale
    }
  }
  return f;
}

/** obj[key] as an integer in [min, max], `fallback` when absent or null. Anything else is an
 *  error naming quantization_config.<path>: a cast would read 4294967300 bits as 4. */
int quant_int(ConfigReader& r, const Json& obj, const char* key, const std::string& path, int fallback,
              int min, int max) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  const std::string field = "quantization_config." + path + key;
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  if (!it->is_number_integer()) {
    r.fail(field, "must be an integer from " + range + ", got " + it->dump());
    return fallback;
  }
  const bool in_range = it->is_number_unsigned()
                            ? it->get<unsigned long long>() <= static_cast<unsigned long long>(max) &&
                                  it->get<unsigned long long>() >= static_cast<unsigned long long>(std::max(0, min))
                            : it->get<long long>() >= min && it->get<long long>() <= max;
  if (!in_range) {
    r.fail(field, "must be an integer from " + range + ", got " + it->dump());
    return fallback;
  }
  return static_cast<int>(it->get<long long>());
}

bool ignores(const Json& q, const char* list, const char* needle) {
  auto it = q.find(list);
  if (it == q.end() || !it->is_array()) return false;
  for (const auto& e : *it) {
    if (e.is_string() && e.get<std::string>().find(needle) != std::string::npos) return true;
  }
  return false;
}

/** How many of layers first .. last - 1 the ignore list keeps `module` of in BF16: all of them
 *  for an entry naming no layer index ("re:.*self_attn.*", "model.layers.*.self_attn"), else
 *  those named one by one ("model.layers.7.self_attn*", or the whole layer "model.layers.0*"). */
int ignored_layers(const Json& q, const char* list, const std::string& module, int first, int last) {
  auto it = q.find(list);
  if (it == q.end() || !it->is_array() || last <= first) return 0;
  std::vector<bool> kept(static_cast<std::size_t>(last), false);
  const std::string layers_dot = "layers.";
  for (const auto& e : *it) {
    if (!e.is_string()) continue;
    const std::string s = e.get<std::string>();
    if (s.find("vision") != std::string::npos) continue;  // a vision tower's layers are not the model's
    const std::size_t at = s.find(layers_dot);
    std::size_t end = at == std::string::npos ? at : at + layers_dot.size();
    while (end != std::string::npos && end < s.size() && end - at < layers_dot.size() + 6 &&
           s[end] >= '0' && s[end] <= '9') {
      ++end;
    }
    if (end == std::string::npos || end == at + layers_dot.size()) {  // no layer index
      if (s.find(module) != std::string::npos) return last - first;
      continue;
    }
    const long long layer = std::stoll(s.substr(at + layers_dot.size(), end - at - layers_dot.size()));
    const std::string rest = s.substr(end);
    if (layer >= first && layer < last && (rest.empty() || rest == "*" || rest.find(module) != std::string::npos)) {
      kept[static_cast<std::size_t>(layer)] = true;
    }
  }
  return static_cast<int>(std::count(kept.begin(), kept.end(), true));
}

void set(Model& m, WeightGroup g, const StorageFormat& f) {
  m.checkpoint[static_cast<std::size_t>(g)] = f;
  m.checkpoint_quantized = true;
}

/** quantization_config -> per-group storage. Embedding, head, router and norms stay BF16. */
void read_quantization(ConfigReader& r, const Json& q, Model& m) {
  if (!q.is_object()) return r.fail("quantization_config", "must be an object");
  const std::string method = q.contains("quant_method") && q["quant_method"].is_string()
                                 ? q["quant_method"].get<std::string>() : "";
  const WeightGroup linear[] = {WeightGroup::kAttention, WeightGroup::kDenseFfn,
                                WeightGroup::kSharedExperts, WeightGroup::kRoutedExperts};
  if (method == "fp8") {
    const StorageFormat f = fp8_format(q);
    for (WeightGroup g : linear) set(m, g, f);
    m.native_weights = "fp8";
    m.checkpoint_note = "FP8 e4m3 linear layers (attention, FFN, experts) with one FP32 scale per " +
                        std::to_string(static_cast<long long>(f.values_per_scale)) +
                        " weights; embedding, head, router and norms BF16 (quantization_config)";
    return;
  }
  if (method == "mxfp4") {  // gpt-oss: experts MXFP4, the modules_to_not_convert BF16
    set(m, WeightGroup::kRoutedExperts, StorageFormat{"mxfp4", 4.0, 8.0, 32.0});
    m.native_weights = "fp4";
    m.checkpoint_note = "MXFP4 routed experts (E8M0 scale per 32); attention, router, embedding and head BF16 (quantization_config)";
    return;
  }
  if (method == "compressed-tensors" || method == "modelopt") {
    StorageFormat f;
    const std::string list = "ignore";
    if (method == "modelopt") {
      const std::string algo = q.contains("quant_algo") && q["quant_algo"].is_string() ? q["quant_algo"].get<std::string>() : "";
      if (algo == "NVFP4") f = StorageFormat{"nvfp4", 4.0, 8.0, 16.0};
      else if (algo == "FP8") f = StorageFormat{"fp8", 8.0, 0.0, 1.0};
      else return r.fail("quantization_config.quant_algo", "\"" + algo + "\" is not a format gpucalc sizes (NVFP4, FP8)");
    } else {
      const Json* w = nullptr;
      if (q.contains("config_groups") && q["config_groups"].is_object()) {
        for (const auto& grp : q["config_groups"]) {
          if (grp.is_object() && grp.contains("weights") && grp["weights"].is_object()) w = &grp["weights"];
        }
      }
      if (w == nullptr) return r.fail("quantization_config.config_groups", "holds no weights scheme");
      const int bits = quant_int(r, *w, "num_bits", "config_groups.weights.", 0, 2, 16);
      const int group = quant_int(r, *w, "group_size", "config_groups.weights.", 0, 0, 65536);
      const std::string type = w->contains("type") && (*w)["type"].is_string() ? (*w)["type"].get<std::string>() : "int";
      if (!r.ok()) return;
      if (bits == 0) return r.fail("quantization_config.config_groups.weights.num_bits", "is required (2 to 16)");
      // Compressed-tensors keeps one scale per group in the model dtype (BF16); FP4 an FP8 one.
      const double scale_bits = type == "float" && bits == 4 ? 8.0 : 16.0;
      f = StorageFormat{type + std::to_string(bits) + (group > 0 ? "_g" + std::to_string(group) : ""),
                        static_cast<double>(bits), group > 0 ? scale_bits : 0.0, group > 0 ? group : 1.0};
    }
    // Targets are the Linear layers; the ignore list keeps modules in BF16.
    // One format per weight group: a list keeping a module in BF16 in some layers only
    // (NVIDIA's requants name each layer) is refused rather than read as all or none.
    const struct {
      const char* module;
      WeightGroup group;
      int first;
    } per_layer[] = {{"self_attn", WeightGroup::kAttention, 0},
                     {"shared_expert", WeightGroup::kSharedExperts, m.dense_layers}};
    for (const auto& p : per_layer) {
      const int needed = m.layers - p.first;
      const int kept = ignored_layers(q, list.c_str(), p.module, p.first, m.layers);
      if (kept == 0) {
        set(m, p.group, f);
      } else if (kept < needed) {
        return r.fail("quantization_config." + list,
                      "keeps " + std::string(p.module) + " in BF16 in " + std::to_string(kept) + " of " +
                          std::to_string(needed) + " layers; gpucalc sizes one format per weight group");
      }
    }
    // NVIDIA's requants ignore whole leading layers ("layers.0*"): their dense FFN stays BF16.
    bool dense_ignored = m.dense_layers > 0;
    for (int i = 0; i < m.dense_layers && dense_ignored; ++i) {
      dense_ignored = ignores(q, list.c_str(), ("layers." + std::to_string(i) + "*").c_str()) ||
                      ignores(q, list.c_str(), ("layers." + std::to_string(i) + ".mlp").c_str());
    }
    if (!dense_ignored && !ignores(q, list.c_str(), "mlp\\.(gate|up") && !ignores(q, list.c_str(), "mlp.gate_proj")) {
      set(m, WeightGroup::kDenseFfn, f);
    }
    set(m, WeightGroup::kRoutedExperts, f);
    m.native_weights = f.value_bits <= 4 ? (f.id.rfind("int", 0) == 0 ? "int4" : "fp4") : f.value_bits <= 8 ? "fp8" : "bf16";
    std::string kept;
    for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
      if (m.checkpoint[i].id == "bf16") kept += std::string(kept.empty() ? "" : ", ") + weight_group_name(static_cast<WeightGroup>(i));
    }
    m.checkpoint_note = f.id + " (" + method + ") on the quantized groups; BF16: " + kept + " (quantization_config)";
    return;
  }
  if (method == "awq" || method == "gptq") {
    const int bits = quant_int(r, q, "bits", "", 4, 2, 8);
    const int group = quant_int(r, q, "group_size", "", 128, 1, 65536);
    if (!r.ok()) return;
    // One FP16 scale and one zero point of `bits` per group.
    const StorageFormat f{"int" + std::to_string(bits) + "_g" + std::to_string(group), static_cast<double>(bits),
                          16.0 + bits, static_cast<double>(group)};
    for (WeightGroup g : linear) set(m, g, f);
    m.native_weights = "int4";
    m.checkpoint_note = f.id + " (" + method + ") linear layers; embedding, head, router and norms BF16";
    return;
  }
  r.fail("quantization_config.quant_method",
         "\"" + method + "\" is not a format gpucalc sizes (fp8, mxfp4, compressed-tensors, modelopt, awq, gptq); "
         "remove quantization_config to count BF16 weights");
}

}  // namespace

namespace {

/** The routed and shared experts of a MoE model: widths, dense and MoE layers. `mlp` is Llama 4's
 *  dense width (intermediate_size_mlp), 0 when absent. */
void read_experts(ConfigReader& r, const Json& c, int mlp, Model& m) {
  m.moe_intermediate_size = r.integer({"moe_intermediate_size"}, m.intermediate_size, 1, L::kIntermediate);
  if (mlp > 0) {  // Llama 4 names the expert width intermediate_size, the dense one _mlp
    m.moe_intermediate_size = m.intermediate_size;
    m.intermediate_size = mlp;
    if (m.experts_shared == 0) m.experts_shared = 1;  // Llama 4 always has one shared expert
  }
  m.dense_layers = r.integer({"first_k_dense_replace"}, 0, 0, m.layers);
  if (const Json* only = r.array("mlp_only_layers")) {
    m.dense_layers = std::min(m.layers, m.dense_layers + static_cast<int>(only->size()));
  }
  const Json* freq_list = c.contains("moe_layer_freq") && c["moe_layer_freq"].is_array() ? &c["moe_layer_freq"] : nullptr;
  if (freq_list != nullptr) {  // MiniMax-M3: one 0 (dense) or 1 (MoE) per layer, dense ones leading
    const int moe = count_layers(r, "moe_layer_freq", *freq_list, m.layers, Json(1), Json(0));
    for (int i = 0; r.ok() && i < m.layers; ++i) {
      if (((*freq_list)[static_cast<std::size_t>(i)] == Json(1)) != (i >= m.layers - moe)) {
        r.fail("moe_layer_freq", "must hold the dense layers (0) first, then the MoE layers (1)");
      }
    }
    if (r.ok() && m.dense_layers != 0 && m.dense_layers != m.layers - moe) {
      r.fail("moe_layer_freq", "disagrees with first_k_dense_replace");
    }
    m.dense_layers = m.layers - moe;
  } else {
    m.moe_layer_interval = r.integer({"interleave_moe_layer_step", "moe_layer_freq", "decoder_sparse_step"}, 1, 1, 1000);
  }
  // A dense width of its own beside the expert width (MiniMax-M3's dense_intermediate_size).
  m.intermediate_size = r.integer({"dense_intermediate_size"}, m.intermediate_size, 1, L::kIntermediate);
  // No dense layer and no intermediate_size (DeepSeek-V4): the one FFN width is the experts'.
  if (m.dense_layers == 0 && !c.contains("intermediate_size")) m.intermediate_size = m.moe_intermediate_size;
  if (m.experts_active < 1 || m.experts_active > m.experts_routed) {
    r.fail("num_experts_per_tok", "must be between 1 and the number of experts (" + std::to_string(m.experts_routed) + ")");
  }
}

/** Multi-head latent attention (kv_lora_rank > 0) and its sparse indexer. */
void read_mla(ConfigReader& r, Model& m) {
  m.kv_lora_rank = r.integer({"kv_lora_rank"}, 0, 0, L::kLoraRank);
  if (m.kv_lora_rank > 0) {
    m.attention = AttentionKind::kMla;
    m.qk_rope_head_dim = r.integer({"qk_rope_head_dim"}, 64, 0, L::kHeadDim);
    m.q_lora_rank = r.integer({"q_lora_rank"}, 0, 0, L::kLoraRank);
    m.qk_nope_head_dim = r.integer({"qk_nope_head_dim"}, 128, 0, L::kHeadDim);
    m.v_head_dim = r.integer({"v_head_dim"}, 128, 0, L::kHeadDim);
    // MLA sizes by its own widths; a head_dim key means different things there (GLM-5: the
    // rotary width 64, GLM-5.2: 192, same tensors), so head_dim is the value head width, as the
    // catalog's MLA entries have it (used by the LoRA adapter count).
    if (m.v_head_dim > 0) m.head_dim = m.v_head_dim;
    m.kv_heads = m.heads;
    m.index_topk = r.integer({"index_topk"}, 0, 0, L::kTokens);
    if (m.index_topk > 0) {
      m.index_heads = r.integer({"index_n_heads"}, 0, 1, L::kHeads);
      m.index_head_dim = r.integer({"index_head_dim"}, 0, 1, L::kHeadDim);
    }
  }
  if (m.index_topk > 0) {
    if (const Json* types = r.array("indexer_types")) {  // GLM-5.2's IndexCache: "full" layers own keys
      m.index_layers = count_layers(r, "indexer_types", *types, m.layers, Json("full"), Json("shared"));
    }
  }
}

/** Per-layer attention kinds: compressed, block-sparse, linear (KDA, Gated DeltaNet) and
 *  sliding-window layers, the output gate and the latent expert width. */
void read_attention_layers(ConfigReader& r, Model& m) {
  m.attention_output_gate = r.boolean("attn_output_gate", false) || r.boolean("mla_use_output_gate", false);
  m.moe_latent_size = r.integer({"routed_expert_hidden_size"}, 0, 0, L::kHidden);
  const bool kinds_read = m.attention == AttentionKind::kCompressed || m.linear_kind == LinearAttentionKind::kKda;
  const int window = kinds_read ? 0 : r.integer({"sliding_window"}, 0, 0, L::kTokens);
  if (r.ok() && !kinds_read) read_layer_kinds(r, m, window);
  if (m.sliding_window_layers > 0 && m.attention != AttentionKind::kCompressed) {
    if (window == 0) r.fail("sliding_window", "is required (a positive integer) when layers use a sliding window");
    m.sliding_window_tokens = window;
  }
  if (m.linear_attention_layers > 0 && m.linear_kind == LinearAttentionKind::kGatedDeltaNet) {
    m.linear_key_heads = r.integer({"linear_num_key_heads"}, 0, 1, L::kHeads);
    m.linear_value_heads = r.integer({"linear_num_value_heads"}, 0, 1, L::kHeads);
    m.linear_key_head_dim = r.integer({"linear_key_head_dim"}, 0, 1, L::kHeadDim);
    m.linear_value_head_dim = r.integer({"linear_value_head_dim"}, 0, 1, L::kHeadDim);
    m.linear_conv_kernel = r.integer({"linear_conv_kernel_dim"}, 0, 1, L::kConvKernel);
    const std::string dtype = r.string("mamba_ssm_dtype");
    if (dtype == "float32") m.linear_state_bytes_per_value = 4.0;
    else if (!dtype.empty() && dtype != "bfloat16" && dtype != "float16") {
      r.fail("mamba_ssm_dtype", "must be float32, bfloat16 or float16");
    }
  }
}

/** MTP layers, the context length, tied embeddings and the checkpoint's storage formats. */
void read_mtp_context_and_formats(ConfigReader& r, const Json& doc, const Json& c, bool wrapped, Model& m) {
  m.mtp_layers = r.integer({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 0, 0, 64);
  if (r.boolean("use_mtp", false)) {  // MiniMax: modules x layers per module
    const int modules = r.integer({"num_mtp_modules"}, 1, 0, 64);
    const int per_module = r.integer({"mtp_transformer_layers"}, 1, 1, 64);
    if (modules * per_module > 64) r.fail("num_mtp_modules", "times mtp_transformer_layers must not exceed 64");
    else m.mtp_layers = modules * per_module;
  }
  m.max_context_tokens = r.integer({"max_position_embeddings", "n_positions"}, 0, 0, L::kTokens);
  // A wrapper may state tie_word_embeddings beside text_config rather than inside it.
  const bool outer_tie = wrapped && !c.contains("tie_word_embeddings") && doc.contains("tie_word_embeddings");
  if (outer_tie && !doc["tie_word_embeddings"].is_boolean()) r.fail("tie_word_embeddings", "must be true or false");
  m.tied_embeddings = outer_tie && r.ok() ? doc["tie_word_embeddings"].get<bool>() : r.boolean("tie_word_embeddings", false);
  m.native_weights = "bf16";
  const Json* q = nullptr;
  if (c.contains("quantization_config") && !c["quantization_config"].is_null()) q = &c["quantization_config"];
  else if (doc.contains("quantization_config") && !doc["quantization_config"].is_null()) q = &doc["quantization_config"];
  if (q != nullptr && r.ok()) read_quantization(r, *q, m);
  const std::string expert_dtype = r.string("expert_dtype");
  if (expert_dtype == "fp4" && r.ok()) {  // DeepSeek-V4: routed experts FP4 E2M1, a UE8M0 scale per 32
    set(m, WeightGroup::kRoutedExperts, StorageFormat{"fp4_e2m1_g32", 4.0, 8.0, 32.0});
    m.native_weights = "fp4";
    m.checkpoint_note += "; routed experts FP4 E2M1 with one UE8M0 scale per 32 (expert_dtype)";
  } else if (!expert_dtype.empty() && expert_dtype != "bf16" && expert_dtype != "fp8") {
    r.fail("expert_dtype", "\"" + expert_dtype + "\" is not a format gpucalc sizes (fp4, fp8, bf16)");
  }
}

}  // namespace

Result<Model> import_hf_config(std::string_view config_json, std::string_view id) {
  const std::string source = "config.json";
  if (config_json.size() > kMaxHfConfigBytes) {
    return make_error(ErrorCode::kTooLarge, source, "is larger than 1 MiB");
  }
  auto parsed = detail::parse_json_strict(config_json, source);  // duplicate keys are errors
  if (!parsed) return parsed.error();
  const Json& doc = parsed.value();
  if (!doc.is_object()) return make_error(ErrorCode::kInvalidCatalog, source, "must be a JSON object");
  // Multimodal wrappers (Llama 4, Kimi K2.5, Qwen3.5, Gemma 3) keep the language model under text_config.
  if (doc.contains("text_config") && !doc["text_config"].is_null() && !doc["text_config"].is_object()) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": text_config", "must be an object");
  }
  const bool wrapped = doc.contains("text_config") && doc["text_config"].is_object();
  const Json& c = wrapped ? doc["text_config"] : doc;
  std::string model_type = c.contains("model_type") && c["model_type"].is_string() ? c["model_type"].get<std::string>() : "";
  if (model_type.empty() && doc.contains("model_type") && doc["model_type"].is_string()) {
    model_type = doc["model_type"].get<std::string>();
  }
  const Json& all = hf_defaults();
  static const Json kNone = Json::object();
  const Json& defaults = all.contains(model_type) && all[model_type].is_object() ? all[model_type] : kNone;
  ConfigReader r(c, defaults);
  if (!model_type.empty() &&
      std::find(std::begin(kKnownModelTypes), std::end(kKnownModelTypes), model_type) == std::end(kKnownModelTypes)) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": model_type",
                      "\"" + model_type + "\" is an architecture gpucalc does not read; refused rather than "
                      "sized as a plain transformer");
  }
  for (const char* key : kUnreadArchitectureKeys) {
    if (c.contains(key)) {
      return make_error(ErrorCode::kInvalidCatalog, source + ": " + key,
                        "describes layers gpucalc does not size (caches shared between layers, Engram memory); refused rather than misread");
    }
  }

  Model m;
  m.id = std::string(id);
  if (!detail::is_valid_id(m.id)) {
    return make_error(ErrorCode::kBadValue, "id", "must be 1-64 characters of a-z 0-9 . _ -");
  }
  m.name = m.id;
  for (const Json* src : {&doc, &c}) {
    if (src->contains("_name_or_path") && (*src)["_name_or_path"].is_string() &&
        !(*src)["_name_or_path"].get<std::string>().empty()) {
      m.name = (*src)["_name_or_path"].get<std::string>();
    }
  }
  m.sources = {"Hugging Face config.json supplied by the user"};
  const char* missing = nullptr;
  auto required = [&](std::initializer_list<const char*> keys, int max) {
    const char* key = *keys.begin();
    if (r.find(keys, &key) == nullptr) {
      if (missing == nullptr) missing = *keys.begin();
      return 0;
    }
    return r.integer(keys, 0, 1, max);
  };
  m.layers = required({"num_hidden_layers", "n_layer", "num_layers"}, L::kLayers);
  m.hidden_size = required({"hidden_size", "n_embd", "d_model"}, L::kHidden);
  m.heads = required({"num_attention_heads", "n_head"}, L::kHeads);
  m.vocab_size = required({"vocab_size"}, L::kVocab);
  if (!r.ok()) return r.error();
  if (missing != nullptr) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": " + missing, "is required (a positive integer)");
  }
  m.kv_heads = r.integer({"num_key_value_heads", "num_kv_heads"}, m.heads, 1, m.heads);
  if (r.ok() && m.heads % m.kv_heads != 0) {
    r.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) + ")");
  }
  m.head_dim = r.integer({"head_dim"}, std::max(1, m.hidden_size / m.heads), 1, L::kHeadDim);
  m.intermediate_size = r.integer({"intermediate_size", "ffn_dim", "n_inner"}, 4LL * m.hidden_size, 1, L::kIntermediate);
  const int mlp = r.integer({"intermediate_size_mlp"}, 0, 0, L::kIntermediate);  // Llama 4: dense layers
  m.experts_routed = r.integer({"num_local_experts", "n_routed_experts", "num_experts"}, 0, 0, L::kExperts);
  m.experts_active = r.integer({"num_experts_per_tok", "experts_per_token", "num_experts_per_token"},
                               m.experts_routed > 0 ? 1 : 0, 0, L::kExperts);
  m.experts_shared = r.integer({"n_shared_experts", "num_shared_experts"}, 0, 0, L::kExperts);
  m.shared_expert_intermediate_size = r.integer({"shared_expert_intermediate_size", "shared_intermediate_size"}, 0, 0, L::kIntermediate);
  if (m.shared_expert_intermediate_size > 0 && m.experts_shared == 0) m.experts_shared = 1;  // Qwen: one shared expert
  if (m.experts_routed > 0) read_experts(r, c, mlp, m);
  read_mla(r, m);
  if (model_type == "deepseek_v4" || c.contains("compress_ratios")) read_compressed(r, m);
  if (c.contains("sparse_attention_config") && r.ok()) read_block_sparse(r, c["sparse_attention_config"], m);
  if (c.contains("linear_attn_config") && r.ok()) read_kda(r, c["linear_attn_config"], m);
  read_attention_layers(r, m);
  read_mtp_context_and_formats(r, doc, c, wrapped, m);
  if (!r.ok()) return r.error();
  const auto [field, message] = detail::check_model(m);
  if (!field.empty()) return make_error(ErrorCode::kInvalidCatalog, source + ": " + field, message);
  const std::string too_many = detail::check_param_cap(m);
  if (!too_many.empty()) return make_error(ErrorCode::kInvalidCatalog, source + ": parameters", too_many);
  fill_param_counts(m, std::nullopt, std::nullopt);
  m.note = "Imported from config.json; parameter counts computed from the architecture.";
  return m;
}

}  // namespace gpucalc
