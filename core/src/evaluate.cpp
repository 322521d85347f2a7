#include "gpucalc/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "gpucalc/energy.hpp"
#include "gpucalc/performance.hpp"
#include "gpucalc/pricing.hpp"
#include "gpucalc/serving.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

using Json = nlohmann::ordered_json;

namespace {

void trace(OfferingResult& r, std::string field, std::string formula,
           std::vector<std::pair<std::string, double>> inputs, std::string note = {}) {
  r.trace.push_back(TraceEntry{std::move(field), std::move(formula), std::move(inputs),
                               std::move(note)});
}

void add_fit_trace(OfferingResult& r, const Model& m, const Gpu& gpu, const Scenario& s) {
  const MemoryFit& f = r.fit;
  if (s.capacity == CapacityBasis::kMarketed) {
    trace(r, "capacity_bytes_per_gpu", "marketed capacity in decimal GB x 10^9 (as sold)",
          {{"hbm_marketed_gb", gpu.hbm_marketed_bytes / kBytesPerGB}});
  } else if (gpu.hbm_device_bytes) {
    trace(r, "capacity_bytes_per_gpu", "device-reported MiB x 2^20",
          {{"hbm_device_mib", *gpu.hbm_device_bytes / kBytesPerMiB}});
  } else {
    trace(r, "capacity_bytes_per_gpu", "marketed figure read as GiB x 2^30 (no device figure recorded)",
          {{"hbm_marketed_gb", gpu.hbm_marketed_bytes / kBytesPerGB}}, "assumption");
  }
  trace(r, "reserve_bytes_per_gpu", "reserve_gb x 10^9 (runtime, communication buffers, activations)",
        {{"reserve_gb", s.reserve_gb_per_gpu}});
  trace(r, "weights_bytes_per_gpu", "weights_bytes / instance_gpus",
        {{"weights_bytes", f.weights_bytes}, {"instance_gpus", f.deployment.gpus}});
  trace(r, "kv_bytes_per_context", "kv_bytes_per_token x context (sliding-window layers hold at most the window)",
        {{"kv_bytes_per_token", f.kv_bytes_per_token}, {"context_tokens", static_cast<double>(s.context_tokens)},
         {"sliding_window_tokens", m.sliding_window_tokens}});
  trace(r, "kv_used_bytes_per_gpu", "ceil(users / replicas) x kv_bytes_per_sequence_per_gpu(instance)",
        {{"users", static_cast<double>(s.users)}, {"replicas", f.replicas},
         {"tensor_parallel", f.deployment.tensor_parallel}, {"pipeline_parallel", f.deployment.pipeline_parallel}});
  trace(r, "headroom_bytes_per_gpu", "kv_free_bytes_per_gpu - kv_used_bytes_per_gpu",
        {{"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}, {"kv_used_bytes_per_gpu", f.kv_used_bytes_per_gpu}});
  trace(r, "full_contexts_per_instance", "floor(kv_free_bytes_per_gpu / kv_bytes_per_sequence_per_gpu(instance))",
        {{"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}, {"context_tokens", static_cast<double>(s.context_tokens)},
         {"tensor_parallel", f.deployment.tensor_parallel}});
  trace(r, "max_context_tokens", "largest context c with users_per_instance x kv_bytes_per_sequence_per_gpu(c) <= kv_free_bytes_per_gpu",
        {{"users", static_cast<double>(s.users)}, {"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}});
  trace(r, "weights_bytes", "params_total x bytes_per_param(weights format, block scales included)",
        {{"params_total", m.params_total}, {"bytes_per_param", f.weights_bytes / m.params_total}});
  if (m.attention == AttentionKind::kMla) {
    trace(r, "kv_bytes_per_token", "layers x (kv_lora_rank + qk_rope_head_dim) x kv_bytes (MLA)",
          {{"layers", m.layers}, {"kv_lora_rank", m.kv_lora_rank},
           {"qk_rope_head_dim", m.qk_rope_head_dim}, {"kv_bytes", kv_bytes_per_value(s.kv)}});
  } else {
    trace(r, "kv_bytes_per_token", "2 (K and V) x layers x kv_heads x head_dim x kv_bytes",
          {{"layers", m.layers}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim},
           {"kv_bytes", kv_bytes_per_value(s.kv)}},
          m.sliding_window_layers > 0 ? "sliding-window layers hold at most the window" : "");
  }
  trace(r, "gpus_needed_weights_only", "ceil(weights_bytes / capacity_bytes_per_gpu)",
        {{"weights_bytes", f.weights_bytes}, {"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}});
  trace(r, "gpus_needed",
        "smallest legal instance n with weights_bytes / n + reserve + users x kv_per_sequence_per_gpu(n) <= capacity",
        {{"weights_bytes", f.weights_bytes}, {"reserve_bytes_per_gpu", f.reserve_bytes_per_gpu},
         {"users", static_cast<double>(s.users)}, {"context_tokens", static_cast<double>(s.context_tokens)},
         {"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}});
  trace(r, "kv_free_bytes_per_gpu", "capacity_bytes_per_gpu - reserve_bytes_per_gpu - weights_bytes / instance_gpus",
        {{"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu},
         {"reserve_bytes_per_gpu", f.reserve_bytes_per_gpu}, {"weights_bytes", f.weights_bytes},
         {"instance_gpus", f.deployment.gpus}});
  trace(r, "kv_free_bytes", "replicas x instance_gpus x kv_free_bytes_per_gpu",
        {{"replicas", f.replicas}, {"instance_gpus", f.deployment.gpus},
         {"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}});
  trace(r, "full_contexts", "replicas x floor(kv_free_bytes_per_gpu / kv_bytes_per_sequence_per_gpu)",
        {{"replicas", f.replicas}, {"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu},
         {"kv_bytes_per_context", f.kv_bytes_per_context}});
  trace(r, "servers_needed", "ceil(gpus_needed / gpu_count): units of the offering one instance needs",
        {{"gpus_needed", f.gpus_needed}, {"gpu_count", r.gpu_count}},
        r.stackable ? "" : "no scale-out network: units hold separate copies (not_stackable)");
  if (r.price_usd_per_month) {
    trace(r, "price_month_usd", "unit price (catalog, or the price you entered) x servers",
          {{"unit_price_month_usd", r.unit_price_usd_per_month.value_or(0.0)}, {"servers", r.servers}});
    trace(r, "price_gpu_hour_usd", "price_month_usd / deployed_gpus / 730 h",
          {{"price_month_usd", *r.price_usd_per_month}, {"deployed_gpus", r.deployed_gpus}});
    trace(r, "price_gb_month_usd", "price_month_usd / (deployed_gpus x capacity_gb)",
          {{"price_month_usd", *r.price_usd_per_month}, {"deployed_gpus", r.deployed_gpus},
           {"capacity_gb", f.capacity_bytes_per_gpu / kBytesPerGB}});
  }
}

}  // namespace

Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& scenario, bool with_trace) {
  EvaluateOptions options;
  options.with_trace = with_trace;
  return evaluate(catalog, scenario, options);
}

Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& scenario,
                            const EvaluateOptions& options) {
  const bool with_trace = options.with_trace;
  const Model* model = catalog.find_model(scenario.model);
  if (model == nullptr) {
    return make_error(ErrorCode::kUnknownId, "model",
                      "\"" + scenario.model + "\" is not in the catalog (gpucalc --list models)");
  }
  if (scenario.compare.empty()) {
    return make_error(ErrorCode::kOutOfRange, "compare", "must list 1 to 4 offerings");
  }
  if (scenario.tp > 0 && !deployment_is_valid(*model, scenario.tp, kScaleUpGpus)) {
    return make_error(ErrorCode::kBadValue, "tp",
                      "must split " + model->name + "'s " + std::to_string(model->heads) +
                          " attention heads evenly (e.g. 1, 2, 4, 8), got " + std::to_string(scenario.tp));
  }
  if (scenario.ep > 1 && !model->is_moe()) {
    return make_error(ErrorCode::kBadValue, "ep", model->name + " has no experts: ep must be 0 or 1");
  }
  if (scenario.ep > 1 && model->experts_routed % scenario.ep != 0) {
    return make_error(ErrorCode::kBadValue, "ep",
                      "must divide " + model->name + "'s " + std::to_string(model->experts_routed) +
                          " experts, got " + std::to_string(scenario.ep));
  }
  if (scenario.ep > 1 && scenario.tp > 0 && (scenario.ep > scenario.tp || scenario.tp % scenario.ep != 0)) {
    return make_error(ErrorCode::kBadValue, "ep",
                      "must divide tp (experts are spread over the instance's GPUs), got ep=" +
                          std::to_string(scenario.ep) + " with tp=" + std::to_string(scenario.tp));
  }
  if (scenario.dpa && !model->is_moe()) {
    return make_error(ErrorCode::kBadValue, "dpa", "data-parallel attention is modelled for MoE models only");
  }
  if (scenario.mtp > 0) {
    bool known = false;
    for (const auto& [id, lengths] : default_model_constants().mtp_acceptance_length) known = known || id == model->id;
    if (!known) {
      return make_error(ErrorCode::kBadValue, "mtp",
                        model->name + " has no MTP acceptance data (data/performance.json mtp_acceptance_length)");
    }
  }
  Evaluation ev;
  ev.scenario = scenario;
  ev.canonical = encode_scenario(scenario);
  ev.model = *model;
  ev.results.reserve(scenario.compare.size());
  for (std::size_t i = 0; i < scenario.compare.size(); ++i) {
    const Offering* off = catalog.find_offering(scenario.compare[i]);
    if (off == nullptr) {
      return make_error(ErrorCode::kUnknownId, "compare",
                        "\"" + scenario.compare[i] + "\" is not an offering in the catalog (gpucalc --list offerings)");
    }
    const Gpu* gpu = catalog.find_gpu(off->gpu_id);
    if (gpu == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, "offerings(" + off->id + ").gpu", "names an unknown GPU");
    }
    if (scenario.workload == Workload::kInference) {
      auto engine = select_engine(default_engines(), serving_engine_name(scenario.engine), *gpu, *model);
      if (!engine) return engine.error();
    }
    OfferingResult r;
    r.offering_id = off->id;
    r.offering_name = off->name;
    r.gpu_id = gpu->id;
    r.gpu_name = gpu->name;
    r.gpu_count = off->gpu_count;
    r.gpu_vendor = gpu->vendor;
    r.fp4_native = gpu->fp4_native.has_value();
    r.capacity_assumed = capacity_is_assumed(*gpu, scenario.capacity);
    // Servers: the scenario's count, or (0) as many as the fit needs.
    const Network* network = catalog.scale_out_of(*off);
    r.stackable = network != nullptr;
    if (network != nullptr) r.scale_out_network = network->id;
    const int requested = i < scenario.servers.size() ? scenario.servers[i] : 1;
    ServerSpan span{std::max(1, requested), r.stackable};
    r.fit = fit_memory(*model, *gpu, *off, scenario, span);
    if (requested == 0 && r.fit.servers_needed > 1) {
      span.servers = r.fit.servers_needed;
      r.fit = fit_memory(*model, *gpu, *off, scenario, span);
    }
    r.servers = r.fit.servers;
    r.deployed_gpus = r.gpu_count * r.servers;
    r.unit_price_usd_per_month = off->price_usd_per_month;
    if (i < scenario.price_usd_per_month.size() && scenario.price_usd_per_month[i] >= 0) {
      r.unit_price_usd_per_month = scenario.price_usd_per_month[i];
    }
    if (r.unit_price_usd_per_month) {
      r.price_usd_per_month = *r.unit_price_usd_per_month * r.servers;
      r.price_usd_per_gpu_hour = price_usd_per_gpu_hour(*r.price_usd_per_month, r.deployed_gpus);
      r.price_usd_per_gb_month =
          price_usd_per_gb_month(*r.price_usd_per_month, r.deployed_gpus, r.fit.capacity_bytes_per_gpu);
      if (!ev.results.empty() && ev.results.front().price_usd_per_month) {
        r.price_delta_usd_per_month = *r.price_usd_per_month - *ev.results.front().price_usd_per_month;
        if (with_trace) {
          trace(r, "price_delta_month_usd", "price_month_usd - price_month_usd of the first compared offering",
                {{"price_month_usd", *r.price_usd_per_month},
                 {"first_price_month_usd", *ev.results.front().price_usd_per_month}});
        }
      }
    }
    if (model->max_context_tokens > 0 && scenario.context_tokens > model->max_context_tokens) {
      r.warnings.emplace_back("context_exceeds_model");
    }
    if (r.capacity_assumed) r.warnings.emplace_back("capacity_assumed_gib");
    if (!r.stackable && r.fit.servers_needed > 1) r.warnings.emplace_back("not_stackable");
    if (with_trace) add_fit_trace(r, *model, *gpu, scenario);
    Offering deployed = *off;
    deployed.gpu_count = r.deployed_gpus;
    estimate_performance(catalog, scenario, *model, *gpu, deployed, with_trace, options.with_curve, r);
    estimate_energy(*gpu, scenario, with_trace, r);
    ev.results.push_back(std::move(r));
  }
  if (!ev.results.empty() && ev.results.front().price_usd_per_month) {
    ev.results.front().price_delta_usd_per_month = 0.0;
  }
  build_verdict(ev);
  return ev;
}

Result<Evaluation> evaluate_text(const Catalog& catalog, std::string_view scenario_text,
                                 bool with_trace) {
  auto s = decode_scenario(scenario_text);
  if (!s) return s.error();
  return evaluate(catalog, s.value(), with_trace);
}

std::string error_to_json(const Error& error) {
  Json j;
  j["error"] = {{"code", error_code_name(error.code)}, {"field", error.field}, {"message", error.message}};
  return j.dump();
}

}  // namespace gpucalc
