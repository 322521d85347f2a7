// Serving-engine profiles (data/engines.json): per-step overhead, KV rule, prefill mixing,
// all-reduce implementation, with sources.
#include "catalog/json_value.hpp"

#include "catalog/bounds.hpp"
#include "catalog/ids.hpp"
#include "catalog/json_strict.hpp"
#include "catalog/engines.hpp"

namespace gpucalc {

namespace {

using detail::Bound;
using Json = detail::JsonValue;

Error engines_error(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "engines.json." + field, message);
}

/** `key` held as `x` or {"value": x, "source": ...} (`keys`: the object's known keys), within
 *  `bound`; absent leaves `out`. */
std::optional<Error> read_figure(const Json& j, const char* key, const std::string& path,
                                 const Bound& bound, double& out,
                                 std::initializer_list<std::string_view> keys = {"value", "source", "note"}) {
  if (!j.contains(key)) return std::nullopt;
  const std::string where = path + "." + key;
  const Json* v = &j.at(key);
  if (v->is_object()) {
    if (auto e = detail::unknown_key(*v, "engines.json." + where, keys)) return e;
    if (!v->contains("value")) return engines_error(where + ".value", "is required (a number)");
    v = &v->at("value");
  }
  if (!v->is_number()) return engines_error(where, "must be a number");
  if (auto e = detail::out_of_bound("engines.json." + where, v->get<double>(), bound)) return e;
  out = v->get<double>();
  return std::nullopt;
}

/** `key` as a string, absent leaving `out`. */
std::optional<Error> read_text(const Json& j, const char* key, const std::string& path,
                               std::string& out) {
  if (!j.contains(key)) return std::nullopt;
  if (!j.at(key).is_string()) return engines_error(path + "." + key, "must be a string");
  out = j.at(key).get<std::string>();
  return std::nullopt;
}

/** `key` as true/false or {"value": bool, "source": ...}; absent leaves `out`. */
std::optional<Error> read_flag(const Json& j, const char* key, const std::string& path, bool& out) {
  if (!j.contains(key)) return std::nullopt;
  const Json* v = &j.at(key);
  if (v->is_object()) {
    if (auto e = detail::unknown_key(*v, "engines.json." + path + "." + key, {"value", "source", "note"})) return e;
    if (!v->contains("value")) return engines_error(path + "." + key, "must be true or false");
    v = &v->at("value");
  }
  if (!v->is_boolean()) return engines_error(path + "." + key, "must be true or false");
  out = v->get<bool>();
  return std::nullopt;
}

/** Strings of an array `key`; absent leaves `out` empty. */
std::optional<Error> read_strings(const Json& j, const char* key, const std::string& path,
                                  std::vector<std::string>& out) {
  if (!j.contains(key)) return std::nullopt;
  if (!j.at(key).is_array()) return engines_error(path + "." + key, "must be an array of strings");
  for (const auto& v : j.at(key)) {
    if (!v.is_string()) return engines_error(path + "." + key, "must hold only strings");
    out.push_back(v.get<std::string>());
  }
  return std::nullopt;
}

std::optional<Error> read_kv_rule(const Json& k, const std::string& path, EngineProfile& p) {
  if (!k.is_object()) return engines_error(path, "must be {\"kind\": utilization | reserved | free_fraction, ...}");
  if (auto e = detail::unknown_key(k, "engines.json." + path,
                                   {"kind", "value", "base_mb", "per_chunk_token_mb", "per_tp_mb",
                                    "per_graph_bs_mb", "floor_mb", "source", "note"})) {
    return e;
  }
  std::string kind;
  if (auto e = read_text(k, "kind", path, kind)) return e;
  if (kind == "utilization" || kind == "free_fraction") {
    p.kv_rule = kind == "utilization" ? KvRule::kUtilization : KvRule::kFreeFraction;
    if (!k.contains("value")) return engines_error(path + ".value", "is required (the fraction)");
    return read_figure(k, "value", path, detail::kFraction, p.kv_fraction);
  }
  if (kind != "reserved") return engines_error(path + ".kind", "must be utilization, reserved or free_fraction");
  p.kv_rule = KvRule::kReserved;
  struct Term {
    const char* key;
    double EngineProfile::*member;
  };
  static constexpr Term kTerms[] = {{"base_mb", &EngineProfile::reserved_base_mb},
                                    {"per_chunk_token_mb", &EngineProfile::reserved_per_chunk_token_mb},
                                    {"per_tp_mb", &EngineProfile::reserved_per_tp_mb},
                                    {"per_graph_bs_mb", &EngineProfile::reserved_per_graph_bs_mb},
                                    {"floor_mb", &EngineProfile::reserved_floor_mb}};
  for (const Term& t : kTerms) {
    if (!k.contains(t.key)) return engines_error(path + "." + t.key, "is required (MB)");
    if (auto e = read_figure(k, t.key, path, detail::kReserveMb, p.*t.member)) return e;
  }
  return std::nullopt;
}

/** "admission": {"kind": full_reservation | on_demand | estimated_reservation,
 *  "output_fraction" (estimated_reservation only), "source"}. */
std::optional<Error> read_admission(const Json& a, const std::string& path, EngineProfile& p) {
  if (!a.is_object()) {
    return engines_error(path, "must be {\"kind\": full_reservation | on_demand | estimated_reservation, ...}");
  }
  if (auto e = detail::unknown_key(a, "engines.json." + path, {"kind", "output_fraction", "source", "note"})) {
    return e;
  }
  std::string kind;
  if (auto e = read_text(a, "kind", path, kind)) return e;
  if (kind == "full_reservation" || kind == "on_demand") {
    if (a.contains("output_fraction")) {
      return engines_error(path + ".output_fraction", "applies only to kind estimated_reservation");
    }
    p.admission_output_fraction = kind == "full_reservation" ? 1.0 : 0.0;
    p.preempts = kind == "on_demand";
    return std::nullopt;
  }
  if (kind != "estimated_reservation") {
    return engines_error(path + ".kind", "must be full_reservation, on_demand or estimated_reservation");
  }
  if (!a.contains("output_fraction")) return engines_error(path + ".output_fraction", "is required (a fraction)");
  p.preempts = true;
  return read_figure(a, "output_fraction", path, detail::kFraction, p.admission_output_fraction);
}

std::optional<Error> read_older_version(const Json& o, const std::string& path, EngineProfile& p) {
  if (!o.is_object()) return engines_error(path, "must be an object");
  if (auto e = detail::unknown_key(o, "engines.json." + path,
                                   {"version", "arch_targets", "extra_layer_latency_s",
                                    "mixes_prefill", "source", "note"})) {
    return e;
  }
  EngineVersionDelta d;
  if (auto e = read_text(o, "version", path, d.version)) return e;
  if (d.version.empty()) return engines_error(path + ".version", "is required (a string)");
  if (auto e = read_figure(o, "extra_layer_latency_s", path, detail::kLatencyS, d.extra_layer_latency_s)) {
    return e;
  }
  if (o.contains("mixes_prefill")) {
    bool mixes = false;
    if (auto e = read_flag(o, "mixes_prefill", path, mixes)) return e;
    d.mixes_prefill = mixes ? 1 : 0;
  }
  if (auto e = read_strings(o, "arch_targets", path, d.arch_targets)) return e;
  p.older_versions.push_back(std::move(d));
  return std::nullopt;
}

/** "disagg": {prefill_worker_fraction, dpa_sequence_overhead_s}, each optional (an engine
 *  that states none takes data/performance.json's pooled values). */
std::optional<Error> read_disagg(const Json& d, const std::string& path, EngineProfile& p) {
  if (!d.is_object()) return engines_error(path, "must be {prefill_worker_fraction, dpa_sequence_overhead_s}");
  if (auto e = detail::unknown_key(d, "engines.json." + path,
                                   {"prefill_worker_fraction", "dpa_sequence_overhead_s", "source", "note"})) {
    return e;
  }
  if (auto e = read_figure(d, "prefill_worker_fraction", path, detail::kFraction, p.disagg_prefill_fraction)) return e;
  return read_figure(d, "dpa_sequence_overhead_s", path, detail::kLatencyS, p.disagg_dpa_sequence_overhead_s);
}

/** "new_request_gate": {kind: none | recv_interval | attention_dp_balance, steps}, if the
 *  profile states it (the required-keys check below says when it does not). */
std::optional<Error> read_gate(const Json& profile, const std::string& path, EngineProfile& p) {
  if (!profile.contains("new_request_gate")) return std::nullopt;
  const Json& g = profile.at("new_request_gate");
  if (!g.is_object()) return engines_error(path, "must be {kind, steps}");
  if (auto e = detail::unknown_key(g, "engines.json." + path, {"kind", "steps", "source", "note"})) return e;
  std::string kind;
  if (auto e = read_text(g, "kind", path, kind)) return e;
  if (kind == "none") p.gate = RequestGate::kNone;
  else if (kind == "recv_interval") p.gate = RequestGate::kRecvInterval;
  else if (kind == "attention_dp_balance") p.gate = RequestGate::kAttentionDpBalance;
  else return engines_error(path + ".kind", "must be none, recv_interval or attention_dp_balance");
  if (!g.contains("steps")) return engines_error(path + ".steps", "is required (decode steps; 0 = none)");
  return read_figure(g, "steps", path, detail::kGateSteps, p.gate_steps);
}

Result<EngineProfile> parse_profile(const Json& e, const std::string& path) {
  EngineProfile p;
  if (!e.is_object() || !e.contains("id") || !e.at("id").is_string()) {
    return engines_error(path + ".id", "is required");
  }
  if (auto err = detail::unknown_key(
          e, "engines.json." + path,
          {"id", "name", "version", "vendors", "allreduce", "mixes_prefill", "max_running_requests",
           "graph_max_batch", "step_overhead_s", "per_sequence_overhead_s", "spec_sequence_overhead_s",
           "chunk_tokens", "kv_rule", "admission", "kv_cache_dtype", "request_overhead_s",
           "extra_layer_latency_s", "older_versions", "disagg", "new_request_gate", "sources", "source",
           "note"})) {
    return *err;
  }
  p.id = e.at("id").get<std::string>();
  p.name = p.id;
  if (auto err = read_text(e, "name", path, p.name)) return *err;
  if (auto err = read_text(e, "version", path, p.version)) return *err;
  std::vector<std::string> vendors;
  if (auto err = read_strings(e, "vendors", path, vendors)) return *err;
  for (const auto& v : vendors) {
    if (v == "nvidia") p.on_nvidia = true;
    else if (v == "amd") p.on_amd = true;
    else return engines_error(path + ".vendors", "must list nvidia and/or amd, got \"" + v + "\"");
  }
  if (!p.on_nvidia && !p.on_amd) return engines_error(path + ".vendors", "must list nvidia and/or amd");
  if (auto err = read_strings(e, "allreduce", path, p.allreduce_impls)) return *err;
  if (auto err = read_flag(e, "mixes_prefill", path, p.mixes_prefill)) return *err;
  // One row per figure: its key, where it goes, its physical bound.
  struct Figure {
    const char* key;
    double EngineProfile::*member;
    const Bound& bound;
  };
  const Figure figures[] = {{"max_running_requests", &EngineProfile::max_running_requests, detail::kRequests},
                            {"graph_max_batch", &EngineProfile::graph_max_batch, detail::kRequests},
                            {"step_overhead_s", &EngineProfile::step_overhead_s, detail::kLatencyS},
                            {"per_sequence_overhead_s", &EngineProfile::per_sequence_overhead_s, detail::kLatencyS},
                            {"spec_sequence_overhead_s", &EngineProfile::spec_sequence_overhead_s, detail::kLatencyS}};
  for (const Figure& f : figures) {
    if (auto err = read_figure(e, f.key, path, f.bound, p.*f.member)) return *err;
  }
  if (e.contains("chunk_tokens")) {
    const std::initializer_list<std::string_view> keys = {"value", "large_gpu_value", "large_gpu_gb",
                                                          "source", "note"};
    if (auto err = read_figure(e, "chunk_tokens", path, detail::kTokens, p.chunk_tokens, keys)) return *err;
    p.chunk_tokens_large_gpu = p.chunk_tokens;
    const Json& c = e.at("chunk_tokens");
    if (c.is_object()) {
      const std::string cpath = path + ".chunk_tokens";
      if (auto err = read_figure(c, "large_gpu_value", cpath, detail::kTokens, p.chunk_tokens_large_gpu)) {
        return *err;
      }
      if (c.contains("large_gpu_value") && !c.contains("large_gpu_gb")) {
        return engines_error(cpath + ".large_gpu_gb", "is required with large_gpu_value");
      }
      if (auto err = read_figure(c, "large_gpu_gb", cpath, detail::kGpuGb, p.large_gpu_gb)) return *err;
    }
  }
  if (e.contains("kv_rule")) {
    if (auto err = read_kv_rule(e.at("kv_rule"), path + ".kv_rule", p)) return *err;
  }
  if (e.contains("admission")) {
    if (auto err = read_admission(e.at("admission"), path + ".admission", p)) return *err;
  }
  if (e.contains("kv_cache_dtype")) {
    const Json& k = e.at("kv_cache_dtype");
    if (auto err = detail::unknown_key(k, "engines.json." + path + ".kv_cache_dtype", {"value", "source", "note"})) return *err;
    const Json* v = k.is_object() && k.contains("value") ? &k.at("value") : &k;
    const auto f = v->is_string() ? parse_kv_format(v->get<std::string>()) : std::nullopt;
    if (!f) return engines_error(path + ".kv_cache_dtype", "must be bf16 or fp8");
    p.kv_cache = *f;
  }
  if (e.contains("request_overhead_s")) {
    const Json& r = e.at("request_overhead_s");
    const std::string rpath = path + ".request_overhead_s";
    if (!r.is_object()) return engines_error(rpath, "must be {nvidia, amd}");
    if (auto err = detail::unknown_key(r, "engines.json." + rpath, {"nvidia", "amd", "source", "note"})) {
      return *err;
    }
    for (const char* vendor : {"nvidia", "amd"}) {
      if (!r.contains(vendor)) return engines_error(rpath + "." + vendor, "is required (seconds)");
    }
    if (auto err = read_figure(r, "nvidia", rpath, detail::kLatencyS, p.request_overhead_nvidia_s)) return *err;
    if (auto err = read_figure(r, "amd", rpath, detail::kLatencyS, p.request_overhead_amd_s)) return *err;
  }
  if (e.contains("extra_layer_latency_s")) {
    const Json& x = e.at("extra_layer_latency_s");
    const std::string xpath = path + ".extra_layer_latency_s";
    if (!x.is_object()) return engines_error(xpath, "must be {arch target: seconds}");
    // Keys are arch targets (gfx942, sm_90...): data, not a fixed list.
    for (const auto& [arch, v] : x.items()) {
      if (arch == "source" || arch == "note") continue;
      double s = 0.0;
      if (auto err = read_figure(x, arch.c_str(), xpath, detail::kLatencyS, s)) return *err;
      p.extra_layer_latency_s.emplace_back(arch, s);
    }
  }
  if (auto err = read_gate(e, path + ".new_request_gate", p)) return *err;
  if (e.contains("disagg")) {
    if (auto err = read_disagg(e.at("disagg"), path + ".disagg", p)) return *err;
  }
  if (e.contains("older_versions")) {
    const Json& o = e.at("older_versions");
    if (!o.is_array()) return engines_error(path + ".older_versions", "must be an array");
    for (std::size_t i = 0; i < o.size(); ++i) {
      if (auto err = read_older_version(o.at(i), path + ".older_versions[" + std::to_string(i) + "]", p)) {
        return *err;
      }
    }
  }
  // Every figure the step model reads is stated in the document: no C++ default stands in.
  for (const char* key : {"name", "version", "vendors", "allreduce", "mixes_prefill", "max_running_requests",
                          "graph_max_batch", "step_overhead_s", "per_sequence_overhead_s",
                          "spec_sequence_overhead_s", "chunk_tokens", "kv_rule", "admission", "kv_cache_dtype",
                          "request_overhead_s", "new_request_gate", "sources"}) {
    if (!e.contains(key)) return engines_error(path + "." + key, "is required");
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
  if (field == "spec_sequence_overhead_s") return &e->spec_sequence_overhead_s;
  if (field == "disagg.prefill_worker_fraction") return &e->disagg_prefill_fraction;
  if (field == "disagg.dpa_sequence_overhead_s") return &e->disagg_dpa_sequence_overhead_s;
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

double* catalog_constant(ModelConstants& constants, EngineCatalog& engines, std::string_view name) {
  constexpr std::string_view kPerf = "performance.", kEngines = "engines.";
  if (name.substr(0, kPerf.size()) == kPerf) return model_constant(constants, name.substr(kPerf.size()));
  if (name.substr(0, kEngines.size()) == kEngines) return engine_constant(engines, name.substr(kEngines.size()));
  return nullptr;
}

Result<EngineCatalog> parse_engines(std::string_view json_text) {
  auto parsed = detail::parse_json_strict(json_text, "engines.json");
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  if (!j.is_object()) return make_error(ErrorCode::kInvalidJson, "engines.json", "is not a JSON object");
  if (auto e = detail::unknown_key(j, "engines.json", {"schema", "engines", "auto", "note", "sources"})) return *e;
  if (!j.contains("engines") || !j.at("engines").is_array() || j.at("engines").empty()) {
    return engines_error("engines", "must be a non-empty array");
  }
  EngineCatalog cat;
  std::size_t i = 0;
  for (const auto& e : j.at("engines")) {
    auto p = parse_profile(e, "engines[" + std::to_string(i++) + "]");
    if (!p) return p.error();
    if (cat.find(p.value().id) != nullptr) return engines_error("engines", "duplicate id " + p.value().id);
    cat.engines.push_back(std::move(p).value());
  }
  if (!j.contains("auto")) return engines_error("auto", "is required ({\"moe\": engine, \"dense\": engine})");
  {
    const Json& a = j.at("auto");
    if (!a.is_object()) return engines_error("auto", "must be {\"moe\": engine, \"dense\": engine}");
    if (auto e = detail::unknown_key(a, "engines.json.auto", {"moe", "dense", "source", "note"})) return *e;
    if (auto e = read_text(a, "moe", "auto", cat.auto_moe)) return *e;
    if (auto e = read_text(a, "dense", "auto", cat.auto_dense)) return *e;
  }
  if (cat.find(cat.auto_moe) == nullptr || cat.find(cat.auto_dense) == nullptr) {
    return engines_error("auto", "must name engines of the list");
  }
  return cat;
}

const EngineCatalog& default_engines() {
  static const EngineCatalog engines = 
      detail::parse_embedded("engines.json", [](std::string_view text) { return parse_engines(text); });
  return engines;
}

const EngineCatalog& catalog_engines(const Catalog& catalog) {
  return catalog.engines ? *catalog.engines : default_engines();
}

namespace {
/** " (NVIDIA only)" / " (AMD only)" for an engine of one vendor, else "". */
std::string vendor_only(const EngineProfile& e) {
  if (e.on_nvidia && !e.on_amd) return " (NVIDIA only)";
  if (e.on_amd && !e.on_nvidia) return " (AMD only)";
  return "";
}
}  // namespace

std::vector<std::string> engine_choices(const EngineCatalog& engines) {
  std::vector<std::string> out{"auto"};
  for (const EngineProfile& e : engines.engines) out.push_back(e.id);
  return out;
}

std::string engine_key_description(const EngineCatalog& engines) {
  std::vector<std::string> named{"auto"};
  for (const EngineProfile& e : engines.engines) named.push_back(e.id + vendor_only(e));
  return "serving engine: " + detail::or_list(named);
}

Result<const EngineProfile*> select_engine(const EngineCatalog& engines, std::string_view name,
                                           const Gpu& gpu, const Model& model) {
  const bool amd = std::string_view(gpu.vendor) == "amd";
  std::string_view id = name;
  if (name.empty() || name == "auto") id = model.is_moe() ? engines.auto_moe : engines.auto_dense;
  const EngineProfile* e = engines.find(id);
  if (e == nullptr) {
    return make_error(ErrorCode::kBadValue, "engine",
                      "must be " + detail::or_list(engine_choices(engines)) + ", got \"" + std::string(name) + "\"");
  }
  if ((amd && !e->on_amd) || (!amd && !e->on_nvidia)) {
    std::string only = vendor_only(*e);  // " (NVIDIA only)"
    if (!only.empty()) only = " (" + e->id + " is " + only.substr(2);
    return make_error(ErrorCode::kBadValue, "engine", e->name + " does not run on " + gpu.name + only);
  }
  return e;
}

}  // namespace gpucalc
