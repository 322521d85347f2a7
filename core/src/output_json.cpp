// The public JSON output (README: "JSON output"), the what-fits table and catalog listings.
#include <cmath>
#include <nlohmann/json.hpp>

#include "gpucalc/evaluate.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using Json = nlohmann::ordered_json;

namespace {

Json num(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }
Json num(const std::optional<double>& x) { return x ? num(*x) : Json(nullptr); }

Json pairs_to_json(const std::vector<std::pair<std::string, double>>& pairs) {
  Json j = Json::object();
  for (const auto& [k, v] : pairs) j[k] = num(v);
  return j;
}

Json result_to_json(const OfferingResult& r, bool with_trace) {
  const MemoryFit& f = r.fit;
  Json j;
  j["offering"] = r.offering_id;
  j["offering_name"] = r.offering_name;
  j["gpu"] = r.gpu_id;
  j["gpu_name"] = r.gpu_name;
  j["gpu_count"] = r.gpu_count;
  j["capacity_bytes_per_gpu"] = num(f.capacity_bytes_per_gpu);
  j["capacity_assumed"] = r.capacity_assumed;
  j["reserve_bytes_per_gpu"] = num(f.reserve_bytes_per_gpu);
  j["weights_bytes"] = num(f.weights_bytes);
  j["kv_bytes_per_token"] = num(f.kv_bytes_per_token);
  j["kv_bytes_per_context"] = num(f.kv_bytes_per_context);
  j["gpus_needed_weights_only"] = f.gpus_needed_weights_only;
  j["gpus_needed"] = f.gpus_needed > 0 ? Json(f.gpus_needed) : Json(nullptr);
  j["fits"] = f.fits;
  j["fit_reason"] = f.reason;
  j["instance_gpus"] = f.deployment.gpus;
  j["tensor_parallel"] = f.deployment.tensor_parallel;
  j["pipeline_parallel"] = f.deployment.pipeline_parallel;
  j["replicas"] = f.replicas;
  j["kv_free_bytes_per_gpu"] = num(f.kv_free_bytes_per_gpu);
  j["kv_free_bytes"] = num(f.kv_free_bytes);
  j["full_contexts_per_instance"] = f.full_contexts_per_instance;
  j["full_contexts"] = f.full_contexts;
  j["max_context_tokens"] = f.max_context_tokens;
  j["price_month_usd"] = num(r.price_usd_per_month);
  j["price_gpu_hour_usd"] = num(r.price_usd_per_gpu_hour);
  j["price_gb_month_usd"] = num(r.price_usd_per_gb_month);
  j["price_delta_month_usd"] = num(r.price_delta_usd_per_month);
  j["max_throughput_tokens_per_s"] = num(r.max_throughput_tokens_per_s);
  j["decode_tokens_per_s_per_user"] = num(r.decode_tokens_per_s_per_user);
  j["ttft_s"] = num(r.ttft_s);
  j["tpot_s"] = num(r.tpot_s);
  j["usd_per_million_tokens"] = num(r.usd_per_million_tokens);
  j["train_tokens_per_s"] = num(r.train_tokens_per_s);
  j["train_hours"] = num(r.train_hours);
  j["gpu_hours"] = num(r.gpu_hours);
  j["run_cost_usd"] = num(r.run_cost_usd);
  j["train_memory_bytes_per_gpu"] = num(r.train_memory_bytes_per_gpu);
  j["rates_label"] = r.rates_label;
  j["warnings"] = r.warnings;
  if (with_trace) {
    Json t = Json::object();
    for (const auto& e : r.trace) {
      t[e.field] = {{"formula", e.formula}, {"inputs", pairs_to_json(e.inputs)}, {"note", e.note}};
    }
    j["trace"] = std::move(t);
  }
  return j;
}

Json sourced(const std::optional<SourcedFigure>& f, double scale) {
  if (!f) return nullptr;
  return {{"value", num(f->value / scale)}, {"estimate", f->estimate}, {"source", f->source}};
}

Json gpu_to_json(const Gpu& g) {
  Json peaks = Json::object(), achieved = Json::object();
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    const char* name = precision_name(static_cast<Precision>(i));
    peaks[name] = g.peak_flops_per_s[i] ? num(*g.peak_flops_per_s[i]) : Json(nullptr);
    if (g.achieved_matmul_flops_per_s[i]) {
      achieved[name] = sourced(g.achieved_matmul_flops_per_s[i], 1.0);
    }
  }
  const char* fp4 = !g.fp4_native ? nullptr : *g.fp4_native == Fp4Encoding::kNvfp4 ? "nvfp4" : "mxfp4";
  return {{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"architecture", g.architecture},
          {"arch_target", g.arch_target}, {"memory_type", g.memory_type},
          {"hbm_marketed_bytes", num(g.hbm_marketed_bytes)},
          {"hbm_device_bytes", g.hbm_device_bytes ? num(*g.hbm_device_bytes) : Json(nullptr)},
          {"memory_bandwidth_bytes_per_s", num(g.memory_bandwidth_bytes_per_s)},
          {"peak_flops_per_s", peaks}, {"fp8_format", g.fp8_format},
          {"fp4_format", fp4 ? Json(fp4) : Json(nullptr)}, {"tdp_w", num(g.tdp_w)},
          {"form_factor", g.form_factor}, {"cooling", g.cooling},
          {"interconnect",
           {{"kind", g.interconnect.kind},
            {"topology", g.interconnect.topology == Topology::kSwitch ? "switch" : "full_mesh"},
            {"links", g.interconnect.links},
            {"link_bandwidth_bytes_per_s", num(g.interconnect.link_bandwidth_bytes_per_s)},
            {"per_gpu_bandwidth_bytes_per_s", num(g.interconnect.per_gpu_bandwidth_bytes_per_s)}}},
          {"achieved_matmul_flops_per_s", achieved},
          {"achieved_hbm_bytes_per_s", sourced(g.achieved_hbm_bytes_per_s, 1.0)},
          {"achieved_allreduce_bus_bytes_per_s", sourced(g.achieved_allreduce_bus_bytes_per_s, 1.0)},
          {"sources", g.sources}, {"note", g.note}};
}

Json offering_to_json(const Offering& o) {
  return {{"id", o.id}, {"name", o.name}, {"provider", o.provider}, {"gpu", o.gpu_id},
          {"gpu_count", o.gpu_count}, {"kind", o.kind},
          {"price_month_usd", o.price_usd_per_month ? num(*o.price_usd_per_month) : Json(nullptr)},
          {"cpu", o.cpu}, {"ram", o.ram}, {"storage", o.storage}, {"network", o.network},
          {"availability", o.availability}, {"sources", o.sources}, {"note", o.note}};
}

Json model_to_json_object(const Model& m) {
  return {{"id", m.id}, {"name", m.name}, {"layers", m.layers}, {"hidden_size", m.hidden_size},
          {"intermediate_size", m.intermediate_size}, {"moe_intermediate_size", m.moe_intermediate_size},
          {"heads", m.heads}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim},
          {"vocab_size", m.vocab_size}, {"experts_routed", m.experts_routed},
          {"experts_active", m.experts_active}, {"experts_shared", m.experts_shared},
          {"params_total", num(m.params_total)}, {"params_active", num(m.params_active)},
          {"attention", m.attention == AttentionKind::kMla ? "mla" : "gqa"},
          {"sliding_window_tokens", m.sliding_window_tokens},
          {"sliding_window_layers", m.sliding_window_layers},
          {"max_context_tokens", m.max_context_tokens}, {"native_weights", m.native_weights},
          {"sources", m.sources}, {"note", m.note}};
}

}  // namespace

std::string evaluation_to_json(const Evaluation& ev, bool with_trace) {
  Json j;
  j["schema"] = "gpucalc-result/1";
  j["scenario"] = ev.canonical;
  j["capacity_basis"] = capacity_basis_name(ev.scenario.capacity);
  j["workload"] = workload_name(ev.scenario.workload);
  j["model"] = {{"id", ev.model.id}, {"name", ev.model.name},
                {"params_total", num(ev.model.params_total)},
                {"params_active", num(ev.model.params_active)},
                {"attention", ev.model.attention == AttentionKind::kMla ? "mla" : "gqa"},
                {"max_context_tokens", ev.model.max_context_tokens}};
  Json results = Json::array();
  for (const auto& r : ev.results) results.push_back(result_to_json(r, with_trace));
  j["results"] = std::move(results);
  Json verdict = Json::array();
  for (const auto& v : ev.verdict) {
    verdict.push_back({{"offering", v.offering_id}, {"code", v.code}, {"kind", v.kind},
                       {"params", pairs_to_json(v.params)}});
  }
  j["verdict"] = std::move(verdict);
  j["recommended"] = ev.recommended_offering_id.empty() ? Json(nullptr) : Json(ev.recommended_offering_id);
  j["recommendation_basis"] = ev.recommendation_basis;
  return j.dump();
}

Result<std::string> fit_table_json(const Catalog& catalog, const Scenario& scenario) {
  Json gpus = Json::array();
  std::vector<const Offering*> offerings;
  for (const auto& id : scenario.compare) {
    const Offering* o = catalog.find_offering(id);
    if (o == nullptr) {
      return make_error(ErrorCode::kUnknownId, "compare", "\"" + id + "\" is not an offering in the catalog");
    }
    offerings.push_back(o);
    gpus.push_back(o->gpu_id);
  }
  static const WeightFormat formats[] = {WeightFormat::kBf16, WeightFormat::kFp8, WeightFormat::kFp6,
                                         WeightFormat::kFp4, WeightFormat::kInt4};
  Json rows = Json::array();
  for (const auto& model : catalog.models) {
    for (WeightFormat wf : formats) {
      Scenario s = scenario;
      s.model = model.id;
      s.weights = wf;
      s.tp = 0;
      Json cells = Json::array();
      for (const Offering* o : offerings) {
        const Gpu* gpu = catalog.find_gpu(o->gpu_id);
        const MemoryFit f = fit_memory(model, *gpu, *o, s);
        cells.push_back({{"offering", o->id}, {"gpu", gpu->id},
                         {"weights_bytes", num(f.weights_bytes)},
                         {"gpus_needed_weights_only", f.gpus_needed_weights_only},
                         {"gpus_needed", f.gpus_needed > 0 ? Json(f.gpus_needed) : Json(nullptr)},
                         {"fits_offering", f.fits},
                         {"native_math", wf == WeightFormat::kInt4 ? false
                                         : wf == WeightFormat::kFp4 ? gpu->peak_flops_per_s[index_of(Precision::kFp4)].has_value()
                                         : wf == WeightFormat::kFp6 ? gpu->peak_flops_per_s[index_of(Precision::kFp6)].has_value()
                                         : wf == WeightFormat::kFp8 ? gpu->peak_flops_per_s[index_of(Precision::kFp8)].has_value()
                                         : true}});
      }
      rows.push_back({{"model", model.id}, {"model_name", model.name}, {"weights", weight_format_name(wf)},
                      {"cells", std::move(cells)}});
    }
  }
  Json j;
  j["capacity_basis"] = capacity_basis_name(scenario.capacity);
  j["offerings"] = scenario.compare;
  j["gpus"] = std::move(gpus);
  j["rows"] = std::move(rows);
  return j.dump();
}

Result<std::string> catalog_to_json(const Catalog& catalog, std::string_view what) {
  Json arr = Json::array();
  if (what == "gpus") {
    for (const auto& g : catalog.gpus) arr.push_back(gpu_to_json(g));
  } else if (what == "offerings") {
    for (const auto& o : catalog.offerings) arr.push_back(offering_to_json(o));
  } else if (what == "models") {
    for (const auto& m : catalog.models) arr.push_back(model_to_json_object(m));
  } else {
    return make_error(ErrorCode::kBadValue, "list", "must be gpus, models or offerings, got \"" +
                                                       std::string(what.substr(0, 40)) + "\"");
  }
  Json j;
  j[std::string(what)] = std::move(arr);
  return j.dump();
}

}  // namespace gpucalc
