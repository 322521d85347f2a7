// The public JSON output (docs/cli-and-json.md), the what-fits table and catalog listings.
#include <cmath>

#include "gpucalc/evaluate.hpp"
#include "evaluate/invariants.hpp"
#include "gpucalc/result_fields.hpp"
#include "gpucalc/units.hpp"
#include "output/json_writer.hpp"
#include "scenario/scenario_inputs.hpp"

namespace gpucalc {

using detail::JsonWriter;

namespace {


template <typename Pairs>  // a vector of (name, value) pairs, or VerdictParams
void write_pairs(JsonWriter& w, const Pairs& pairs) {
  w.begin_object();
  for (const auto& [k, v] : pairs) w.field(k, v);
  w.end_object();
}

void write_curve_entry(JsonWriter& w, const std::optional<ServingCurveEntry>& e) {
  if (!e) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("tokens_per_s_per_user", e->tokens_per_s_per_user);
  w.field("total_tokens_per_s_per_gpu", e->total_tokens_per_s_per_gpu);
  w.field("output_tokens_per_s_per_gpu", e->output_tokens_per_s_per_gpu);
  w.field("ttft_s", e->ttft_s);
  w.field("ttft_median_s", e->ttft_median_s);
  w.field("tpot_s", e->tpot_s);
  w.key("usd_per_million_tokens");  // an unpriced offering has no cost: null, never US$0
  if (e->usd_per_million_tokens > 0.0) {
    w.value(e->usd_per_million_tokens);
  } else {
    w.null();
  }
  w.field("token_kind", kCurveTokenKind);
  w.field("tp", e->tp);
  w.field("ep", e->ep);
  w.field("dpa", e->dpa);
  w.field("users", e->users);
  // The layout: its code in every case, the replicas (aggregated) or the pools (disaggregated).
  w.field("layout", e->layout);
  w.field("disaggregated", e->disaggregated);
  w.field("gpus", e->gpus);
  w.field("replicas", e->replicas);
  for (const auto& [name, pool] : {std::pair{"prefill", &e->prefill}, std::pair{"decode", &e->decode}}) {
    w.key(name);
    if (pool->workers < 1) {
      w.null();
      continue;
    }
    w.begin_object().field("workers", pool->workers).field("tp", pool->tp).field("ep", pool->ep);
    w.field("dpa", pool->dpa).end_object();
  }
  w.key("error_band_index");  // into the result's curve_error_bands; null: no band
  if (e->error_band_index >= 0) {
    w.value(e->error_band_index);
  } else {
    w.null();
  }
  w.end_object();
}

void write_error_band(JsonWriter& w, const std::vector<ErrorBand>& bands) {
  w.begin_object();
  for (const auto& b : bands) {
    w.key(b.metric).begin_object();
    w.field("mape", b.mape);
    w.field("p50", b.p50);
    w.field("p80", b.p80);
    w.field("points", b.points);
    w.field("group", b.group);
    w.field("basis", b.basis);
    if (!b.statistic.empty()) w.field("statistic", b.statistic);  // what the band was measured on
    w.field("model_unmeasured", b.model_unmeasured);
    w.field("users_beyond_measured", b.users_beyond_measured);
    w.field("engine_unmeasured", b.engine_unmeasured);
    w.field("gpu_unmeasured", b.gpu_unmeasured);
    w.field("disaggregated", b.disaggregated);
    w.end_object();
  }
  w.end_object();
}

void write_result(JsonWriter& w, const OfferingResult& r, bool with_trace) {
  w.begin_object();
  for (const ResultField& f : result_fields()) {
    w.key(f.name);
    const FieldValue x = f.get(r);
    switch (x.type) {
      case FieldValue::Type::kNull: w.null(); break;
      case FieldValue::Type::kNumber: w.value(x.number); break;
      case FieldValue::Type::kInteger: w.value(x.integer); break;
      case FieldValue::Type::kFlag: w.value(x.flag); break;
      case FieldValue::Type::kText: w.value(x.text); break;
    }
  }
  w.key("warnings").begin_array();
  for (const auto& warning : r.warnings) w.value(warning);
  w.end_array();
  // Structured serving fields (not scalars: outside the registry).
  w.key("max_throughput_point");
  write_curve_entry(w, r.max_throughput_point);
  w.key("interactivity_point");
  write_curve_entry(w, r.interactivity_point);
  w.key("curve").begin_array();
  for (const auto& e : r.curve) write_curve_entry(w, e);
  w.end_array();
  w.key("error_band");
  write_error_band(w, r.error_band);
  w.key("curve_error_bands").begin_array();
  for (const auto& bands : r.curve_error_bands) write_error_band(w, bands);
  w.end_array();
  w.key("measured_points").begin_array();
  for (const MeasuredMarker& m : r.measured_points) {
    w.begin_object().field("source", m.source).field("document", m.document).field("run", m.run);
    w.field("date", m.date).field("engine_version", m.engine_version);
    w.field("tp", m.tp).field("ep", m.ep).field("dpa", m.dpa).field("users", m.users);
    w.field("tokens_per_s_per_user", m.tokens_per_s_per_user);
    w.field("total_tokens_per_s_per_gpu", m.total_tokens_per_s_per_gpu);
    w.key("ttft_s").value(m.ttft_s > 0.0 ? std::optional<double>(m.ttft_s) : std::nullopt);
    w.end_object();
  }
  w.end_array();
  if (with_trace && traces_linked()) {
    w.key("trace").begin_object();
    for (const auto& e : r.trace) {
      w.key(e.field).begin_object();
      w.field("formula", e.formula);
      w.key("inputs");
      write_pairs(w, e.inputs);
      w.field("note", e.note);
      w.field("formula_id", e.formula_id);
      w.field("note_id", e.note_id);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
}

void write_sourced(JsonWriter& w, const std::optional<SourcedFigure>& f) {
  if (!f) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("value", f->value);
  w.field("estimate", f->estimate);
  w.field("source", f->source);
  w.end_object();
}

void write_strings(JsonWriter& w, const std::vector<std::string>& items) {
  w.begin_array();
  for (const auto& item : items) w.value(item);
  w.end_array();
}

// `<field>_zh` for each translated field and `zh_source` (only when the catalog gives them).
void write_zh(JsonWriter& w, const ZhText& zh) {
  for (const auto& [field, text] : zh.fields) w.field(field + "_zh", text);
  if (!zh.source.empty()) w.field("zh_source", zh.source);
}

void write_gpu(JsonWriter& w, const Gpu& g) {
  w.begin_object();
  w.field("id", g.id);
  w.field("name", g.name);
  w.field("vendor", g.vendor);
  w.field("architecture", g.architecture);
  w.field("projected", g.projected);
  w.field("arch_target", g.arch_target);
  w.field("memory_type", g.memory_type);
  w.field("hbm_marketed_bytes", g.hbm_marketed_bytes);
  w.field("hbm_device_bytes", g.hbm_device_bytes);
  w.field("memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s);
  w.key("peak_flops_per_s").begin_object();
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    w.field(precision_name(static_cast<Precision>(i)), g.peak_flops_per_s[i]);
  }
  w.end_object();
  w.field("fp8_format", g.fp8_format);
  w.key("fp4_format");
  if (!g.fp4_native) w.null();
  else w.value(*g.fp4_native == Fp4Encoding::kNvfp4 ? "nvfp4" : "mxfp4");
  w.field("tdp_w", g.tdp_w);
  w.key("all_in_power_w");
  write_sourced(w, g.all_in_power_w);
  w.field("form_factor", g.form_factor);
  w.field("cooling", g.cooling);
  w.key("interconnect").begin_object();
  w.field("kind", g.interconnect.kind);
  w.field("topology", g.interconnect.topology == Topology::kSwitch ? "switch" : "full_mesh");
  // 0 is unset (a projected part whose link figures no source gives): written null.
  w.key("links");
  if (g.interconnect.links > 0) w.value(g.interconnect.links);
  else w.null();
  w.key("link_bandwidth_bytes_per_s");
  if (g.interconnect.link_bandwidth_bytes_per_s > 0.0) w.value(g.interconnect.link_bandwidth_bytes_per_s);
  else w.null();
  w.field("per_gpu_bandwidth_bytes_per_s", g.interconnect.per_gpu_bandwidth_bytes_per_s);
  w.field("scale_up_gpus", g.interconnect.scale_up_gpus);
  w.field("scale_up_source", g.interconnect.scale_up_source);
  w.key("allreduce_latency_s");
  write_sourced(w, g.interconnect.allreduce_latency_s);
  w.key("alltoall_latency_s");
  write_sourced(w, g.interconnect.alltoall_latency_s);
  w.end_object();
  w.key("achieved_matmul_flops_per_s").begin_object();
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    if (!g.achieved_matmul_flops_per_s[i]) continue;
    w.key(precision_name(static_cast<Precision>(i)));
    write_sourced(w, g.achieved_matmul_flops_per_s[i]);
  }
  w.end_object();
  w.key("achieved_hbm_bytes_per_s");
  write_sourced(w, g.achieved_hbm_bytes_per_s);
  w.key("achieved_allreduce_bus_bytes_per_s");
  write_sourced(w, g.achieved_allreduce_bus_bytes_per_s);
  w.key("sources");
  write_strings(w, g.sources);
  w.field("note", g.note);
  write_zh(w, g.zh);
  w.end_object();
}

void write_offering(JsonWriter& w, const Offering& o, const Gpu* gpu) {
  w.begin_object();
  w.field("id", o.id);
  w.field("name", o.name);
  w.field("provider", o.provider);
  w.field("gpu", o.gpu_id);
  w.field("gpu_count", o.gpu_count);
  w.key("scale_up_gpus");  // the GPU's scale-up domain
  if (gpu == nullptr) w.null();
  else w.value(gpu->scale_up_gpus());
  w.field("projected", gpu != nullptr && gpu->projected);  // the GPU's figures are vendor claims
  w.field("kind", o.kind);
  w.field("price_month_usd", o.price_usd_per_month);
  w.field("listed_usd_per_gpu_hour", o.listed_usd_per_gpu_hour);
  w.field("tier", o.tier);
  w.field("price_source", o.price_source);
  w.field("price_date", o.price_date);
  w.field("price_estimate", o.price_estimate);
  w.key("scale_out");
  if (o.scale_out_id.empty()) w.null();
  else w.value(o.scale_out_id);
  w.field("cpu", o.cpu);
  w.field("ram", o.ram);
  w.field("storage", o.storage);
  w.field("network", o.network);
  w.field("availability", o.availability);
  w.key("sources");
  write_strings(w, o.sources);
  w.field("note", o.note);
  write_zh(w, o.zh);
  w.end_object();
}

void write_network(JsonWriter& w, const Network& n) {
  w.begin_object();
  w.field("id", n.id);
  w.field("name", n.name);
  w.field("kind", n.kind);
  w.field("nics_per_server", n.nics_per_server);
  w.field("nic_line_rate_bytes_per_s", n.nic_line_rate_bytes_per_s);
  w.key("achieved_bytes_per_s_per_nic");
  write_sourced(w, n.achieved_bytes_per_s_per_nic);
  w.key("latency_s");
  write_sourced(w, n.latency_s);
  w.key("ep_all_to_all");
  if (!n.ep_all_to_all) {
    w.null();
  } else {
    const EpAllToAll& a = *n.ep_all_to_all;
    w.begin_object();
    w.field("tokens_per_rank", a.tokens_per_rank).field("hidden", a.hidden).field("top_k", a.top_k);
    for (int i = 0; i < EpAllToAll::kSizes; ++i) {
      const std::string ep = std::to_string(EpAllToAll::kEp[i]);
      w.key("dispatch_s_ep" + ep);
      write_sourced(w, a.dispatch_s[i]);
      w.key("combine_s_ep" + ep);
      write_sourced(w, a.combine_s[i]);
    }
    w.key("rdma_dispatch_bytes_per_s_per_gpu");
    write_sourced(w, a.rdma_dispatch_bytes_per_s);
    w.key("rdma_combine_bytes_per_s_per_gpu");
    write_sourced(w, a.rdma_combine_bytes_per_s);
    w.field("figure_nic_line_rate_bytes_per_s", a.figure_nic_bytes_per_s);
    w.key("sources");
    write_strings(w, a.sources);
    w.end_object();
  }
  w.key("sources");
  write_strings(w, n.sources);
  w.field("note", n.note);
  w.end_object();
}

void write_model(JsonWriter& w, const Model& m) {
  w.begin_object();
  w.field("id", m.id);
  w.field("name", m.name);
  w.field("layers", m.layers);
  w.field("hidden_size", m.hidden_size);
  w.field("intermediate_size", m.intermediate_size);
  w.field("moe_intermediate_size", m.moe_intermediate_size);
  w.field("heads", m.heads);
  w.field("kv_heads", m.kv_heads);
  w.field("head_dim", m.head_dim);
  w.field("vocab_size", m.vocab_size);
  w.field("experts_routed", m.experts_routed);
  w.field("experts_active", m.experts_active);
  w.field("experts_shared", m.experts_shared);
  w.field("params_total", m.params_total);
  w.field("params_active", m.params_active);
  w.field("attention", attention_kind_name(m.attention));
  w.field("sliding_window_tokens", m.sliding_window_tokens);
  w.field("sliding_window_layers", m.sliding_window_layers);
  w.field("full_attention_layers", m.full_attention_layers());
  w.field("linear_attention_layers", m.linear_attention_layers);
  w.field("index_topk", m.index_topk);
  w.field("index_key_layers", m.index_key_layers());
  w.field("sparse_attention_layers", m.sparse_attention_layers());
  w.field("csa_layers", m.csa_layers);
  w.field("hca_layers", m.hca_layers);
  w.field("mtp_layers", m.mtp_layers);
  w.field("params_mtp", m.params_mtp);
  w.field("max_context_tokens", m.max_context_tokens);
  w.field("native_weights", m.native_weights);
  w.field("checkpoint_quantized", m.checkpoint_quantized);
  w.key("checkpoint").begin_object();
  for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
    w.field(weight_group_name(static_cast<WeightGroup>(i)), m.checkpoint[i].id);
  }
  w.end_object();
  w.field("checkpoint_note", m.checkpoint_note);
  w.field("card_params_total", m.card_params_total);
  w.key("aliases");
  write_strings(w, m.aliases);
  w.key("sources");
  write_strings(w, m.sources);
  w.field("note", m.note);
  w.end_object();
}

}  // namespace

std::string evaluation_to_json(const Evaluation& ev, bool with_trace) {
  JsonWriter w;
  // About 7 KB per result without the trace (the default comparison: 17 KB): one allocation,
  // no regrowth (growing copied the text so far each time: a tenth of the native page call).
  w.reserve(4096 + ev.results.size() * (with_trace ? 32768 : 8192));
  w.begin_object();
  w.field("schema", "gpucalc-result/1");
  w.field("scenario", ev.canonical);
  w.key("inputs");
  detail::write_scenario_inputs(w, ev.scenario);
  w.field("capacity_basis", capacity_basis_name(ev.scenario.capacity));
  w.field("workload", workload_name(ev.scenario.workload));
  w.key("model").begin_object();
  w.field("id", ev.model.id);
  w.field("name", ev.model.name);
  w.field("params_total", ev.model.params_total);
  w.field("params_active", ev.model.params_active);
  w.field("attention", attention_kind_name(ev.model.attention));
  w.field("full_attention_layers", ev.model.full_attention_layers());
  w.field("sliding_window_layers", ev.model.sliding_window_layers);
  w.field("linear_attention_layers", ev.model.linear_attention_layers);
  w.field("index_topk", ev.model.index_topk);
  w.field("params_mtp", ev.model.params_mtp);
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
    w.field("basis", v.basis);
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
  w.reserve(32768);
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
        if (auto bad = check_fit_invariants(f, "fit_table(" + model.id + ", " +
                                                   weight_format_name(wf) + ", " + offerings[i]->id + ")")) {
          return *bad;
        }
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
        w.key("servers_needed");
        if (f.servers_needed > 0) w.value(f.servers_needed);
        else w.null();
        w.field("stackable", catalog.scale_out_of(*offerings[i]) != nullptr);
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
  if (what != "gpus" && what != "offerings" && what != "models" && what != "networks") {
    return make_error(ErrorCode::kBadValue, "list", "must be gpus, models, offerings or networks, got \"" +
                                                       std::string(what.substr(0, 40)) + "\"");
  }
  JsonWriter w;
  w.reserve(16384);
  w.begin_object();
  w.key(what).begin_array();
  if (what == "gpus") {
    for (const auto& g : catalog.gpus) write_gpu(w, g);
  } else if (what == "offerings") {
    for (const auto& o : catalog.offerings) write_offering(w, o, catalog.find_gpu(o.gpu_id));
  } else if (what == "networks") {
    for (const auto& n : catalog.networks) write_network(w, n);
  } else {
    for (const auto& m : catalog.models) write_model(w, m);
  }
  w.end_array();
  w.end_object();
  return std::move(w.str());
}

}  // namespace gpucalc
