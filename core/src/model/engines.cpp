// Serving-engine profiles (data/engines.json): per-step overhead, KV rule, prefill mixing,
// all-reduce implementation, with sources.
#include <nlohmann/json.hpp>

#include "gpucalc/serving.hpp"

namespace gpucalc {

namespace {

using Json = nlohmann::json;

Error bad(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "engines.json." + field, message);
}

/** A number held as `x` or {"value": x, ...}; false when present but not a finite number >= 0. */
bool read_number(const Json& j, const char* key, double& out) {
  if (!j.contains(key)) return true;
  const Json* v = &j.at(key);
  if (v->is_object()) {
    if (!v->contains("value")) return false;
    v = &v->at("value");
  }
  if (!v->is_number()) return false;
  const double x = v->get<double>();
  if (!(x >= 0.0 && x < 1e9)) return false;
  out = x;
  return true;
}

Result<EngineProfile> parse_profile(const Json& e, const std::string& path) {
  EngineProfile p;
  if (!e.is_object() || !e.contains("id") || !e.at("id").is_string()) {
    return bad(path + ".id", "is required");
  }
  p.id = e.at("id").get<std::string>();
  p.name = e.value("name", p.id);
  p.version = e.value("version", "");
  if (e.contains("vendors") && e.at("vendors").is_array()) {
    for (const auto& v : e.at("vendors")) {
      if (v == "nvidia") p.on_nvidia = true;
      if (v == "amd") p.on_amd = true;
    }
  }
  if (!p.on_nvidia && !p.on_amd) return bad(path + ".vendors", "must list nvidia and/or amd");
  if (e.contains("allreduce") && e.at("allreduce").is_array()) {
    for (const auto& v : e.at("allreduce")) {
      if (v.is_string()) p.allreduce_impls.push_back(v.get<std::string>());
    }
  }
  if (e.contains("mixes_prefill")) {
    const Json& m = e.at("mixes_prefill");
    const Json& v = m.is_object() ? m.value("value", Json()) : m;
    if (!v.is_boolean()) return bad(path + ".mixes_prefill", "must be true or false");
    p.mixes_prefill = v.get<bool>();
  }
  struct Num {
    const char* key;
    double* out;
  };
  const Num nums[] = {{"max_running_requests", &p.max_running_requests},
                      {"graph_max_batch", &p.graph_max_batch},
                      {"step_overhead_s", &p.step_overhead_s},
                      {"per_sequence_overhead_s", &p.per_sequence_overhead_s}};
  for (const auto& n : nums) {
    if (!read_number(e, n.key, *n.out)) return bad(path + "." + n.key, "must be a number >= 0");
  }
  if (e.contains("chunk_tokens") && e.at("chunk_tokens").is_object()) {
    const Json& c = e.at("chunk_tokens");
    if (!read_number(e, "chunk_tokens", p.chunk_tokens) || p.chunk_tokens < 1.0) {
      return bad(path + ".chunk_tokens", "must be a positive number");
    }
    p.chunk_tokens_large_gpu = c.value("large_gpu_value", p.chunk_tokens);
    p.large_gpu_gb = c.value("large_gpu_gb", 160.0);
    if (!(p.chunk_tokens_large_gpu >= 1.0)) return bad(path + ".chunk_tokens", "large_gpu_value must be positive");
  }
  if (e.contains("kv_rule")) {
    const Json& k = e.at("kv_rule");
    const std::string kind = k.is_object() ? k.value("kind", "") : "";
    if (kind == "utilization" || kind == "free_fraction") {
      p.kv_rule = kind == "utilization" ? KvRule::kUtilization : KvRule::kFreeFraction;
      p.kv_fraction = k.value("value", 0.9);
      if (!(p.kv_fraction > 0.0 && p.kv_fraction <= 1.0)) {
        return bad(path + ".kv_rule.value", "must lie in (0, 1]");
      }
    } else if (kind == "reserved") {
      p.kv_rule = KvRule::kReserved;
      p.reserved_base_mb = k.value("base_mb", p.reserved_base_mb);
      p.reserved_per_chunk_token_mb = k.value("per_chunk_token_mb", p.reserved_per_chunk_token_mb);
      p.reserved_per_tp_mb = k.value("per_tp_mb", p.reserved_per_tp_mb);
      p.reserved_per_graph_bs_mb = k.value("per_graph_bs_mb", p.reserved_per_graph_bs_mb);
      p.reserved_floor_mb = k.value("floor_mb", p.reserved_floor_mb);
    } else {
      return bad(path + ".kv_rule.kind", "must be utilization, reserved or free_fraction");
    }
  }
  if (e.contains("kv_cache_dtype")) {
    const Json& k = e.at("kv_cache_dtype");
    const Json& v = k.is_object() ? k.value("value", Json()) : k;
    const auto f = v.is_string() ? parse_kv_format(v.get<std::string>()) : std::nullopt;
    if (!f) return bad(path + ".kv_cache_dtype", "must be bf16 or fp8");
    p.kv_cache = *f;
  }
  if (e.contains("request_overhead_s")) {
    const Json& r = e.at("request_overhead_s");
    if (!r.is_object()) return bad(path + ".request_overhead_s", "must be {nvidia, amd}");
    p.request_overhead_nvidia_s = r.value("nvidia", 0.0);
    p.request_overhead_amd_s = r.value("amd", 0.0);
    if (p.request_overhead_nvidia_s < 0.0 || p.request_overhead_amd_s < 0.0) {
      return bad(path + ".request_overhead_s", "must not be negative");
    }
  }
  if (e.contains("extra_layer_latency_s") && e.at("extra_layer_latency_s").is_object()) {
    for (const auto& [arch, v] : e.at("extra_layer_latency_s").items()) {
      if (arch == "source" || arch == "note") continue;
      if (!v.is_number() || v.get<double>() < 0.0) {
        return bad(path + ".extra_layer_latency_s." + arch, "must be a number >= 0");
      }
      p.extra_layer_latency_s.emplace_back(arch, v.get<double>());
    }
  }
  if (e.contains("older_versions") && e.at("older_versions").is_array()) {
    for (const auto& o : e.at("older_versions")) {
      EngineVersionDelta d;
      d.version = o.value("version", "");
      d.extra_layer_latency_s = o.value("extra_layer_latency_s", 0.0);
      if (o.contains("mixes_prefill")) {
        if (!o.at("mixes_prefill").is_boolean()) {
          return bad(path + ".older_versions.mixes_prefill", "must be true or false");
        }
        d.mixes_prefill = o.at("mixes_prefill").get<bool>() ? 1 : 0;
      }
      if (o.contains("arch_targets") && o.at("arch_targets").is_array()) {
        for (const auto& a : o.at("arch_targets")) {
          if (a.is_string()) d.arch_targets.push_back(a.get<std::string>());
        }
      }
      if (d.version.empty() || d.extra_layer_latency_s < 0.0) {
        return bad(path + ".older_versions", "needs a version and a latency >= 0");
      }
      p.older_versions.push_back(std::move(d));
    }
  }
  return p;
}

}  // namespace

const EngineProfile* EngineCatalog::find(std::string_view id) const {
  for (const auto& e : engines) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

double* engine_constant(EngineCatalog& engines, std::string_view path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string_view::npos) return nullptr;
  EngineProfile* e = nullptr;
  for (auto& p : engines.engines) {
    if (p.id == path.substr(0, dot)) e = &p;
  }
  if (e == nullptr) return nullptr;
  const std::string_view field = path.substr(dot + 1);
  if (field == "request_overhead_s.nvidia") return &e->request_overhead_nvidia_s;
  if (field == "request_overhead_s.amd") return &e->request_overhead_amd_s;
  if (field == "step_overhead_s") return &e->step_overhead_s;
  if (field == "per_sequence_overhead_s") return &e->per_sequence_overhead_s;
  const auto suffix = [&](std::string_view prefix) {
    return field.substr(0, prefix.size()) == prefix ? field.substr(prefix.size()) : std::string_view();
  };
  if (const std::string_view arch = suffix("extra_layer_latency_s."); !arch.empty()) {
    for (auto& [a, s] : e->extra_layer_latency_s) {
      if (a == arch) return &s;
    }
  }
  if (const std::string_view version = suffix("older_versions."); !version.empty()) {
    for (auto& d : e->older_versions) {
      if (d.version == version) return &d.extra_layer_latency_s;
    }
  }
  return nullptr;
}

Result<EngineCatalog> parse_engines(std::string_view json_text) {
  const Json j = Json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(ErrorCode::kInvalidJson, "engines.json", "is not a JSON object");
  }
  if (!j.contains("engines") || !j.at("engines").is_array() || j.at("engines").empty()) {
    return bad("engines", "must be a non-empty array");
  }
  EngineCatalog cat;
  std::size_t i = 0;
  for (const auto& e : j.at("engines")) {
    auto p = parse_profile(e, "engines[" + std::to_string(i++) + "]");
    if (!p) return p.error();
    if (cat.find(p.value().id) != nullptr) return bad("engines", "duplicate id " + p.value().id);
    cat.engines.push_back(std::move(p).value());
  }
  if (j.contains("auto") && j.at("auto").is_object()) {
    cat.auto_moe = j.at("auto").value("moe", cat.auto_moe);
    cat.auto_dense = j.at("auto").value("dense", cat.auto_dense);
  }
  if (cat.find(cat.auto_moe) == nullptr || cat.find(cat.auto_dense) == nullptr) {
    return bad("auto", "must name engines of the list");
  }
  return cat;
}

const EngineCatalog& default_engines() {
  static const EngineCatalog engines = [] {
    for (const auto& f : embedded_data_files()) {
      if (std::string_view(f.name) == "engines.json") {
        auto r = parse_engines(f.text);
        if (r) return r.value();
      }
    }
    return EngineCatalog{};
  }();
  return engines;
}

const EngineCatalog& catalog_engines(const Catalog& catalog) {
  return catalog.engines ? *catalog.engines : default_engines();
}

Result<const EngineProfile*> select_engine(const EngineCatalog& engines, std::string_view name,
                                           const Gpu& gpu, const Model& model) {
  const bool amd = std::string_view(gpu.vendor) == "amd";
  std::string_view id = name;
  if (name.empty() || name == "auto") id = model.is_moe() ? engines.auto_moe : engines.auto_dense;
  const EngineProfile* e = engines.find(id);
  if (e == nullptr) {
    return make_error(ErrorCode::kBadValue, "engine",
                      "must be auto, vllm, sglang, trtllm or atom, got \"" + std::string(name) + "\"");
  }
  if ((amd && !e->on_amd) || (!amd && !e->on_nvidia)) {
    return make_error(ErrorCode::kBadValue, "engine",
                      e->name + " does not run on " + gpu.name + " (" +
                          (amd ? "trtllm is NVIDIA only" : "atom is AMD only") + ")");
  }
  return e;
}

}  // namespace gpucalc
