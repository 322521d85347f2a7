// The public JSON output (README: "JSON output"), the what-fits table and catalog listings.
#include <cmath>
#include <nlohmann/json.hpp>

#include "gpucalc/evaluate.hpp"
#include "gpucalc/units.hpp"
#include "json_writer.hpp"

namespace gpucalc {

using Json = nlohmann::ordered_json;
using detail::JsonWriter;

namespace {

Json num(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

void write_pairs(JsonWriter& w, const std::vector<std::pair<std::string, double>>& pairs) {
  w.begin_object();
  for (const auto& [k, v] : pairs) w.field(k, v);
  w.end_object();
}

void write_result(JsonWriter& w, const OfferingResult& r, bool with_trace) {
  const MemoryFit& f = r.fit;
  w.begin_object();
  w.field("offering", r.offering_id);
  w.field("offering_name", r.offering_name);
  w.field("gpu", r.gpu_id);
  w.field("gpu_name", r.gpu_name);
  w.field("gpu_count", r.gpu_count);
  w.field("capacity_bytes_per_gpu", f.capacity_bytes_per_gpu);
  w.field("capacity_assumed", r.capacity_assumed);
  w.field("reserve_bytes_per_gpu", f.reserve_bytes_per_gpu);
  w.field("weights_bytes", f.weights_bytes);
  w.field("weights_bytes_per_gpu", f.weights_bytes_per_gpu);
  w.field("kv_bytes_per_token", f.kv_bytes_per_token);
  w.field("kv_bytes_per_context", f.kv_bytes_per_context);
  w.field("gpus_needed_weights_only", f.gpus_needed_weights_only);
  w.key("gpus_needed");
  if (f.gpus_needed > 0) w.value(f.gpus_needed);
  else w.null();
  w.field("fits", f.fits);
  w.field("fit_reason", f.reason);
  w.field("instance_gpus", f.deployment.gpus);
  w.field("tensor_parallel", f.deployment.tensor_parallel);
  w.field("pipeline_parallel", f.deployment.pipeline_parallel);
  w.field("replicas", f.replicas);
  w.field("kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu);
  w.field("kv_used_bytes_per_gpu", f.kv_used_bytes_per_gpu);
  w.field("headroom_bytes_per_gpu", f.headroom_bytes_per_gpu);
  w.field("kv_free_bytes", f.kv_free_bytes);
  w.field("full_contexts_per_instance", f.full_contexts_per_instance);
  w.field("full_contexts", f.full_contexts);
  w.field("max_context_tokens", f.max_context_tokens);
  w.field("price_month_usd", r.price_usd_per_month);
  w.field("price_gpu_hour_usd", r.price_usd_per_gpu_hour);
  w.field("price_gb_month_usd", r.price_usd_per_gb_month);
  w.field("price_delta_month_usd", r.price_delta_usd_per_month);
  w.field("max_throughput_tokens_per_s", r.max_throughput_tokens_per_s);
  w.field("decode_tokens_per_s_per_user", r.decode_tokens_per_s_per_user);
  w.field("ttft_s", r.ttft_s);
  w.field("tpot_s", r.tpot_s);
  w.field("usd_per_million_tokens", r.usd_per_million_tokens);
  w.field("train_tokens_per_s", r.train_tokens_per_s);
  w.field("train_hours", r.train_hours);
  w.field("gpu_hours", r.gpu_hours);
  w.field("run_cost_usd", r.run_cost_usd);
  w.field("train_memory_bytes_per_gpu", r.train_memory_bytes_per_gpu);
  w.field("rates_label", r.rates_label);
  w.key("warnings").begin_array();
  for (const auto& warning : r.warnings) w.value(warning);
  w.end_array();
  if (with_trace) {
    w.key("trace").begin_object();
    for (const auto& e : r.trace) {
      w.key(e.field).begin_object();
      w.field("formula", e.formula);
      w.key("inputs");
      write_pairs(w, e.inputs);
      w.field("note", e.note);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
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
  JsonWriter w;
  w.str().reserve(with_trace ? 16384 : 4096);
  w.begin_object();
  w.field("schema", "gpucalc-result/1");
  w.field("scenario", ev.canonical);
  w.field("capacity_basis", capacity_basis_name(ev.scenario.capacity));
  w.field("workload", workload_name(ev.scenario.workload));
  w.key("model").begin_object();
  w.field("id", ev.model.id);
  w.field("name", ev.model.name);
  w.field("params_total", ev.model.params_total);
  w.field("params_active", ev.model.params_active);
  w.field("attention", ev.model.attention == AttentionKind::kMla ? "mla" : "gqa");
  w.field("max_context_tokens", ev.model.max_context_tokens);
  w.end_object();
  w.key("results").begin_array();
  for (const auto& r : ev.results) write_result(w, r, with_trace);
  w.end_array();
  w.key("verdict").begin_array();
  for (const auto& v : ev.verdict) {
    w.begin_object();
    w.field("offering", v.offering_id);
    w.field("code", v.code);
    w.field("kind", v.kind);
    w.key("params");
    write_pairs(w, v.params);
    w.end_object();
  }
  w.end_array();
  w.key("recommended");
  if (ev.recommended_offering_id.empty()) w.null();
  else w.value(ev.recommended_offering_id);
  w.field("recommendation_basis", ev.recommendation_basis);
  w.end_object();
  return std::move(w.str());
}

Result<std::string> fit_table_json(const Catalog& catalog, const Scenario& scenario) {
  std::vector<const Offering*> offerings;
  std::vector<const Gpu*> gpus;
  for (const auto& id : scenario.compare) {
    const Offering* o = catalog.find_offering(id);
    if (o == nullptr) {
      return make_error(ErrorCode::kUnknownId, "compare", "\"" + id + "\" is not an offering in the catalog");
    }
    offerings.push_back(o);
    gpus.push_back(catalog.find_gpu(o->gpu_id));
  }
  static const WeightFormat formats[] = {WeightFormat::kBf16, WeightFormat::kFp8, WeightFormat::kFp6,
                                         WeightFormat::kFp4, WeightFormat::kInt4};
  JsonWriter w;
  w.str().reserve(32768);
  w.begin_object();
  w.field("capacity_basis", capacity_basis_name(scenario.capacity));
  w.key("offerings").begin_array();
  for (const Offering* o : offerings) w.value(o->id);
  w.end_array();
  w.key("gpus").begin_array();
  for (const Gpu* g : gpus) w.value(g->id);
  w.end_array();
  w.key("rows").begin_array();
  Scenario s = scenario;
  s.tp = 0;
  for (const auto& model : catalog.models) {
    s.model = model.id;
    for (WeightFormat wf : formats) {
      s.weights = wf;
      w.begin_object();
      w.field("model", model.id);
      w.field("model_name", model.name);
      w.field("weights", weight_format_name(wf));
      w.key("cells").begin_array();
      for (std::size_t i = 0; i < offerings.size(); ++i) {
        const Gpu& gpu = *gpus[i];
        const MemoryFit f = fit_memory(model, gpu, *offerings[i], s);
        const auto native = [&gpu](Precision p) { return gpu.peak_flops_per_s[index_of(p)].has_value(); };
        const bool native_math = wf == WeightFormat::kInt4  ? false
                                 : wf == WeightFormat::kFp4 ? native(Precision::kFp4)
                                 : wf == WeightFormat::kFp6 ? native(Precision::kFp6)
                                 : wf == WeightFormat::kFp8 ? native(Precision::kFp8)
                                                            : true;
        w.begin_object();
        w.field("offering", offerings[i]->id);
        w.field("gpu", gpu.id);
        w.field("weights_bytes", f.weights_bytes);
        w.field("gpus_needed_weights_only", f.gpus_needed_weights_only);
        w.key("gpus_needed");
        if (f.gpus_needed > 0) w.value(f.gpus_needed);
        else w.null();
        w.field("fits_offering", f.fits);
        w.field("native_math", native_math);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
  }
  w.end_array();
  w.end_object();
  return std::move(w.str());
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
