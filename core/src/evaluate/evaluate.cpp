#include "gpucalc/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "model/attention.hpp"
#include "evaluate/energy.hpp"
#include "evaluate/invariants.hpp"
#include "evaluate/performance.hpp"
#include "model/pricing.hpp"
#include "output/json_writer.hpp"
#include "evaluate/provenance.hpp"
#include "evaluate/trace_codes.hpp"
#include "scenario/scenario_inputs.hpp"
#include "model/throughput.hpp"
#include "model/training.hpp"
#include "model/serving.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

void trace(OfferingResult& r, std::string field, std::string formula,
           std::vector<std::pair<std::string, double>> inputs, std::string note = {}) {
  r.trace.push_back(TraceEntry{std::move(field), std::move(formula), std::move(inputs),
                               std::move(note)});
}

void add_weights_trace(OfferingResult& r, const Model& m, const Gpu& gpu, const Scenario& s) {
  const GroupParams bytes = weight_bytes_by_group(m, s.weights, gpu);
  std::vector<std::pair<std::string, double>> inputs;
  for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
    if (m.param_groups[i] <= 0) continue;
    const std::string name = weight_group_name(static_cast<WeightGroup>(i));
    inputs.emplace_back(name + "_params", m.param_groups[i]);
    inputs.emplace_back(name + "_bytes_per_param", bytes[i] / m.param_groups[i]);
  }
  std::string note;
  if (s.weights == WeightFormat::kNative) note = m.checkpoint_note;
  else if ((s.weights == WeightFormat::kFp4 || s.weights == WeightFormat::kInt4) && m.is_moe()) {
    note = "4-bit applies to the routed experts; attention, router, shared experts, dense layers, embedding and head stay BF16";
  }
  if (m.params_mtp > 0) {
    inputs.emplace_back("mtp_layers", m.mtp_layers);
    note += std::string(note.empty() ? "" : "; ") + "includes " + std::to_string(m.mtp_layers) +
            " multi-token-prediction layer(s)";
  }
  trace(r, "weights_bytes", "params_total x bytes_per_param per weight group, summed (block scales included; MTP layers added)",
        std::move(inputs), note);
}

void add_kv_trace(OfferingResult& r, const Model& m, const Scenario& s) {
  const AttentionLayerBytes l = attention_layer_bytes(m, s.kv, 1);
  std::string formula;
  std::vector<std::pair<std::string, double>> inputs = {{"full_attention_layers", m.full_attention_layers()}};
  if (m.attention == AttentionKind::kMla) {
    formula = m.index_topk > 0
                  ? "full layers x (kv_lora_rank + qk_rope_head_dim + index_head_dim) x kv_bytes (MLA + DSA indexer keys)"
                  : "full layers x (kv_lora_rank + qk_rope_head_dim) x kv_bytes (MLA)";
    inputs.insert(inputs.end(), {{"kv_lora_rank", m.kv_lora_rank}, {"qk_rope_head_dim", m.qk_rope_head_dim}});
    if (m.index_topk > 0) inputs.emplace_back("index_head_dim", m.index_head_dim);
  } else if (m.attention == AttentionKind::kCompressed) {
    formula = "(CSA layers x (head_dim + index_head_dim) / csa_ratio + HCA layers x head_dim / hca_ratio) x kv_bytes "
              "(compressed rows, one K=V vector each); every layer's raw window is capped";
    inputs.insert(inputs.end(), {{"csa_layers", m.csa_layers}, {"csa_ratio", m.csa_ratio}, {"hca_layers", m.hca_layers},
                                 {"hca_ratio", m.hca_ratio}, {"head_dim", m.head_dim}, {"index_head_dim", m.index_head_dim}});
  } else {
    formula = m.index_topk > 0 ? "full layers x 2 (K and V) x kv_heads x head_dim x kv_bytes + index-key layers x "
                                 "index_head_dim x kv_bytes (block-sparse attention)"
                               : "full layers x 2 (K and V) x kv_heads x head_dim x kv_bytes";
    inputs.insert(inputs.end(), {{"kv_heads", m.kv_heads}, {"head_dim", m.head_dim}});
  }
  if (m.index_topk > 0 && m.attention == AttentionKind::kGqa) {
    inputs.insert(inputs.end(), {{"index_key_layers", m.index_key_layers()}, {"index_head_dim", m.index_head_dim}});
  }
  inputs.emplace_back("kv_bytes", kv_bytes_per_value(s.kv));
  inputs.emplace_back("bytes_per_full_layer_token", l.softmax_per_token + l.indexer_per_token);
  std::string note;
  if (m.sliding_window_layers > 0) {
    inputs.emplace_back("sliding_window_layers", m.sliding_window_layers);
    inputs.emplace_back("sliding_window_tokens", m.sliding_window_tokens);
    note = std::to_string(m.sliding_window_layers) + " sliding-window layers hold at most " +
           std::to_string(m.sliding_window_tokens) + " tokens each";
  }
  if (m.linear_attention_layers > 0) {
    inputs.emplace_back("linear_attention_layers", m.linear_attention_layers);
    note += std::string(note.empty() ? "" : "; ") + std::to_string(m.linear_attention_layers) +
            " linear-attention layers keep a fixed state instead (state_bytes_per_sequence)";
  }
  trace(r, "kv_bytes_per_token", formula, std::move(inputs), note);
  // One entry per group of layers of the same attention kind.
  for (const LayerGroup& g : layer_groups(m, s.kv)) {
    if (g.kind == "linear") {
      trace(r, "layer_group_linear", "layers x fixed state per layer (Gated DeltaNet, per sequence)",
            {{"layers", g.layers}, {"state_bytes_per_layer", g.state_bytes_per_layer}});
    } else if (g.kind == "sliding") {
      trace(r, "layer_group_sliding", "layers x kv_bytes_per_layer_token x min(context, window)",
            {{"layers", g.layers}, {"kv_bytes_per_layer_token", g.kv_bytes_per_token_per_layer},
             {"window_tokens", g.tokens_cap}});
    } else {
      std::vector<std::pair<std::string, double>> group_inputs = {
          {"layers", g.layers}, {"kv_bytes_per_layer_token", g.kv_bytes_per_token_per_layer}};
      if (g.tokens_cap > 0) group_inputs.emplace_back("raw_window_tokens", g.tokens_cap);
      trace(r, "layer_group_" + g.kind, "layers x kv_bytes_per_layer_token x context", std::move(group_inputs),
            g.kind == "full_mla_dsa" || g.kind == "full_gqa_sparse"
                ? "attention reads the index_topk tokens the indexer picks"
            : g.tokens_cap > 0 ? "beside a raw window of " + std::to_string(static_cast<long long>(g.tokens_cap)) +
                                     " tokens per layer (kv_bytes_per_context)"
                               : "");
    }
  }
  if (m.linear_attention_layers > 0) {
    trace(r, "state_bytes_per_sequence",
          "linear layers x (value_heads x key_head_dim x value_head_dim x state_bytes + "
          "(2 x key_heads x key_head_dim + value_heads x value_head_dim) x (conv_kernel - 1) x conv_bytes)",
          {{"linear_attention_layers", m.linear_attention_layers}, {"key_heads", m.linear_key_heads},
           {"value_heads", m.linear_value_heads}, {"key_head_dim", m.linear_key_head_dim},
           {"value_head_dim", m.linear_value_head_dim}, {"conv_kernel", m.linear_conv_kernel},
           {"state_bytes", m.linear_state_bytes_per_value}, {"conv_bytes", m.linear_conv_bytes_per_value}});
  } else {
    trace(r, "state_bytes_per_sequence", "0: no linear-attention layers", {});
  }
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
  trace(r, "offering_hbm_marketed_bytes", "deployed_gpus x marketed HBM per GPU (decimal GB x 10^9, as sold)",
        {{"deployed_gpus", r.deployed_gpus}, {"hbm_marketed_gb", gpu.hbm_marketed_bytes / kBytesPerGB}});
  if (f.engine_pool) {
    trace(r, "reserve_bytes_per_gpu",
          "capacity_bytes_per_gpu - weights_bytes_per_gpu - kv_free_bytes_per_gpu: what the engine keeps "
          "outside its KV pool (activations, graphs, buffers), at least reserve_gb",
          {{"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}, {"weights_bytes_per_gpu", f.weights_bytes_per_gpu},
           {"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}});
  } else {
    trace(r, "reserve_bytes_per_gpu", "reserve_gb x 10^9 (runtime, communication buffers, activations)",
          {{"reserve_gb", s.reserve_gb_per_gpu}});
  }
  trace(r, "weights_bytes_per_gpu", "weights_bytes / instance_gpus",
        {{"weights_bytes", f.weights_bytes}, {"instance_gpus", f.deployment.gpus}});
  trace(r, "kv_bytes_per_context",
        "kv_bytes_per_token x context + sliding layers x min(context, window) + state_bytes_per_sequence",
        {{"kv_bytes_per_token", f.kv_bytes_per_token}, {"context_tokens", static_cast<double>(s.context_tokens)},
         {"sliding_window_layers", m.sliding_window_layers}, {"sliding_window_tokens", m.sliding_window_tokens},
         {"state_bytes_per_sequence", f.state_bytes_per_sequence}});
  if (f.engine_pool) {
    trace(r, "kv_used_bytes_per_gpu",
          "(ceil(users / replicas) - 1) x kv_bytes_per_sequence_per_gpu(request_tokens) + "
          "kv_bytes_per_sequence_per_gpu(context): the users' requests as the engine holds them, one "
          "at the full context (attention data parallel: ceil(users per instance / instance GPUs) per GPU)",
          {{"users", static_cast<double>(s.users)}, {"replicas", f.replicas},
           {"request_tokens", static_cast<double>(f.request_tokens)},
           {"context_tokens", static_cast<double>(s.context_tokens)},
           {"tensor_parallel", f.deployment.tensor_parallel}, {"pipeline_parallel", f.deployment.pipeline_parallel},
           {"data_parallel_attention", s.dpa ? 1.0 : 0.0}});
  } else {
    trace(r, "kv_used_bytes_per_gpu", "ceil(users / replicas) x kv_bytes_per_sequence_per_gpu(instance)",
          {{"users", static_cast<double>(s.users)}, {"replicas", f.replicas},
           {"tensor_parallel", f.deployment.tensor_parallel}, {"pipeline_parallel", f.deployment.pipeline_parallel}});
  }
  trace(r, "headroom_bytes_per_gpu", "kv_free_bytes_per_gpu - kv_used_bytes_per_gpu",
        {{"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}, {"kv_used_bytes_per_gpu", f.kv_used_bytes_per_gpu}});
  trace(r, "full_contexts_per_instance", "floor(kv_free_bytes_per_gpu / kv_bytes_per_sequence_per_gpu(instance))",
        {{"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu}, {"context_tokens", static_cast<double>(s.context_tokens)},
         {"tensor_parallel", f.deployment.tensor_parallel}});
  trace(r, "max_context_tokens",
        "largest context c with users_per_instance x kv_bytes_per_sequence_per_gpu(c) <= kv_free_bytes_per_gpu, "
        "at most the model's max_context_tokens",
        {{"users", static_cast<double>(s.users)}, {"kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu},
         {"model_max_context_tokens", static_cast<double>(m.max_context_tokens)}});
  add_weights_trace(r, m, gpu, s);
  add_kv_trace(r, m, s);
  trace(r, "gpus_needed_weights_only", "ceil(weights_bytes / capacity_bytes_per_gpu)",
        {{"weights_bytes", f.weights_bytes}, {"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}});
  if (f.engine_pool) {
    trace(r, "gpus_needed",
          "smallest legal instance n whose engine KV pool (capacity, weights_bytes / n) holds (users - 1) x "
          "kv_per_sequence_per_gpu(n, request_tokens) + kv_per_sequence_per_gpu(n, context)",
          {{"weights_bytes", f.weights_bytes}, {"users", static_cast<double>(s.users)},
           {"request_tokens", static_cast<double>(f.request_tokens)},
           {"context_tokens", static_cast<double>(s.context_tokens)},
           {"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}});
    trace(r, "gpus_needed_full_context",
          "smallest legal instance n whose engine KV pool holds users x kv_per_sequence_per_gpu(n, context): "
          "every user at the full context",
          {{"users", static_cast<double>(s.users)}, {"context_tokens", static_cast<double>(s.context_tokens)}});
    trace(r, "kv_free_bytes_per_gpu",
          "the engine's KV pool per GPU (vLLM, ATOM: capacity x fraction - weights; TensorRT-LLM: fraction x "
          "(capacity - weights); SGLang: capacity - reserved - weights), weights = weights_bytes / instance_gpus",
          {{"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}, {"weights_bytes", f.weights_bytes},
           {"instance_gpus", f.deployment.gpus}});
  } else {
    trace(r, "gpus_needed",
          "smallest legal instance n with weights_bytes / n + reserve + users x kv_per_sequence_per_gpu(n) <= capacity",
          {{"weights_bytes", f.weights_bytes}, {"reserve_bytes_per_gpu", f.reserve_bytes_per_gpu},
           {"users", static_cast<double>(s.users)}, {"context_tokens", static_cast<double>(s.context_tokens)},
           {"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu}});
    trace(r, "kv_free_bytes_per_gpu", "capacity_bytes_per_gpu - reserve_bytes_per_gpu - weights_bytes / instance_gpus",
          {{"capacity_bytes_per_gpu", f.capacity_bytes_per_gpu},
           {"reserve_bytes_per_gpu", f.reserve_bytes_per_gpu}, {"weights_bytes", f.weights_bytes},
           {"instance_gpus", f.deployment.gpus}});
  }
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

/**
 * Training and fine-tuning fit on the training memory (weights, gradients and optimizer state
 * as sharded, activations, reserve: estimate_training), not on the inference KV fit. A run that
 * does not fit says so (fit_reason training_does_not_fit), has no time nor cost, and the
 * verdict never recommends it.
 */
void apply_training_fit(const Catalog& catalog, const Scenario& s, const Model& m, const Gpu& gpu,
                        int gpus, bool with_trace, OfferingResult& r) {
  const TrainingEstimate t =
      estimate_training(catalog, s, m, gpu, gpus, r.fit.capacity_bytes_per_gpu, *catalog.constants);
  r.train_memory_bytes_per_gpu = t.memory_bytes_per_gpu;
  r.train_memory_parts = t.parts;
  r.fit.fits = t.fits;
  r.fit.reason = t.fits ? "ok" : "training_does_not_fit";
  if (!t.fits) {
    r.train_tokens_per_s.reset();
    r.train_hours.reset();
    r.train_steps.reset();
    r.gpu_hours.reset();
    r.run_cost_usd.reset();
    if (std::find(r.warnings.begin(), r.warnings.end(), "training_does_not_fit") == r.warnings.end()) {
      r.warnings.emplace_back("training_does_not_fit");
    }
  }
  if (with_trace) {
    trace(r, "fits", "train_memory_bytes_per_gpu <= capacity_bytes_per_gpu (training memory, not the inference KV fit)",
          {{"train_memory_bytes_per_gpu", t.memory_bytes_per_gpu},
           {"capacity_bytes_per_gpu", r.fit.capacity_bytes_per_gpu}});
  }
}

}  // namespace

Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& as_given, bool with_trace) {
  EvaluateOptions options;
  options.with_trace = with_trace;
  return evaluate(catalog, as_given, options);
}

namespace {

/** The smallest scale-up domain among the compared offerings' GPUs: `tp` must be legal on
 *  each of them. 1 when none is found (the unknown offering is reported where it is read). */
int smallest_scale_up(const Catalog& catalog, const Scenario& scenario) {
  int smallest = 0;
  for (const std::string& id : scenario.compare) {
    const Offering* off = catalog.find_offering(id);
    const Gpu* gpu = off != nullptr ? catalog.find_gpu(off->gpu_id) : nullptr;
    if (gpu != nullptr && (smallest == 0 || gpu->scale_up_gpus() < smallest)) {
      smallest = gpu->scale_up_gpus();
    }
  }
  return std::max(1, smallest);
}

/** The checks of a scenario before anything is computed; sets `model`. */
std::optional<Error> check_scenario(const Catalog& catalog, const Scenario& as_given,
                                    const Model*& model) {
  if (!catalog.constants) {
    return make_error(ErrorCode::kInvalidCatalog, "performance",
                      "the catalog holds no model constants (a gpucalc-performance/1 document)");
  }
  model = catalog.find_model(as_given.model);
  if (model == nullptr) {
    return make_error(ErrorCode::kUnknownId, "model",
                      "\"" + as_given.model + "\" is not in the catalog (gpucalc --list models)");
  }
  if (as_given.compare.empty()) {
    return make_error(ErrorCode::kOutOfRange, "compare",
                      "must list 1 to " + std::to_string(kMaxCompared) + " offerings");
  }
  // The cross-key rules carry the numbers they name (heads, experts, tp), so that a page words
  // the rule the value breaks, not the key's range, which the value meets.
  const auto cross_key = [](const char* key, std::string message,
                            std::vector<std::pair<std::string, double>> params) {
    Error e = make_error(ErrorCode::kBadValue, key, std::move(message));
    e.params = std::move(params);
    return e;
  };
  if (as_given.tp > 0 &&
      !deployment_is_valid(*model, as_given.tp, smallest_scale_up(catalog, as_given))) {
    return cross_key("tp",
                     "must split " + model->name + "'s " + std::to_string(model->heads) +
                         " attention heads evenly (e.g. 1, 2, 4, 8), got " + std::to_string(as_given.tp),
                     {{"heads", model->heads}, {"value", as_given.tp}});
  }
  if (as_given.ep > 1 && !model->is_moe()) {
    return cross_key("ep", model->name + " has no experts: ep must be 0 or 1",
                     {{"experts", 0}, {"value", as_given.ep}});
  }
  if (as_given.ep > 1 && model->experts_routed % as_given.ep != 0) {
    return cross_key("ep",
                     "must divide " + model->name + "'s " + std::to_string(model->experts_routed) +
                         " experts, got " + std::to_string(as_given.ep),
                     {{"experts", model->experts_routed}, {"value", as_given.ep}});
  }
  if (as_given.ep > 1 && as_given.tp > 0 && (as_given.ep > as_given.tp || as_given.tp % as_given.ep != 0)) {
    return cross_key("ep",
                     "must divide tp (experts are spread over the instance's GPUs), got ep=" +
                         std::to_string(as_given.ep) + " with tp=" + std::to_string(as_given.tp),
                     {{"tp", as_given.tp}, {"value", as_given.ep}});
  }
  if (as_given.dpa && !model->is_moe()) {
    return make_error(ErrorCode::kBadValue, "dpa", "data-parallel attention is modelled for MoE models only");
  }
  if (as_given.mtp > 0) {
    if (mtp_acceptance(*catalog.constants, model->id) == nullptr) {
      return make_error(ErrorCode::kBadValue, "mtp",
                        model->name + " has no MTP acceptance data (data/performance.json mtp_acceptance_length)");
    }
  }
  return std::nullopt;
}

/** Which offering and GPU a result is for, and the GPU's facts the page shows beside it. */
void set_identity(const Offering& off, const Gpu& gpu, const Scenario& scenario, OfferingResult& r) {
  r.offering_id = off.id;
  r.offering_name = off.name;
  r.gpu_id = gpu.id;
  r.gpu_name = gpu.name;
  r.gpu_count = off.gpu_count;
  r.gpu_vendor = gpu.vendor;
  r.fp4_native = gpu.fp4_native.has_value();
  r.projected = gpu.projected;
  for (const auto& peak : gpu.peak_flops_per_s) {
    if (peak) r.gpu_peak_flops_per_s = std::max(r.gpu_peak_flops_per_s, *peak);
  }
  r.capacity_assumed = capacity_is_assumed(gpu, scenario.capacity);
}

/** The deployed offering's price: the catalog's or the scenario's (`price`), times the servers;
 *  per GPU-hour, per GB-month, and its difference from the `first` compared offering's. */
void set_prices(const Offering& off, const Scenario& scenario, std::size_t i,
                const OfferingResult* first, bool with_trace, OfferingResult& r) {
  r.unit_price_usd_per_month = off.price_usd_per_month;
  if (i < scenario.price_usd_per_month.size() && scenario.price_usd_per_month[i] >= 0) {
    r.unit_price_usd_per_month = scenario.price_usd_per_month[i];
  }
  if (r.unit_price_usd_per_month) {
    r.price_usd_per_month = *r.unit_price_usd_per_month * r.servers;
    r.price_usd_per_gpu_hour = price_usd_per_gpu_hour(*r.price_usd_per_month, r.deployed_gpus);
    r.price_usd_per_gb_month =
        price_usd_per_gb_month(*r.price_usd_per_month, r.deployed_gpus, r.fit.capacity_bytes_per_gpu);
    if (first != nullptr && first->price_usd_per_month) {
      r.price_delta_usd_per_month = *r.price_usd_per_month - *first->price_usd_per_month;
      if (with_trace) {
        trace(r, "price_delta_month_usd", "price_month_usd - price_month_usd of the first compared offering",
              {{"price_month_usd", *r.price_usd_per_month},
               {"first_price_month_usd", *first->price_usd_per_month}});
      }
    }
  }
}

/** US$ per million tokens counted in and out, at the same operating point as the cost per
 *  million output tokens. */
void set_total_token_cost(const Scenario& scenario, bool with_trace, OfferingResult& r) {
  if (r.usd_per_million_tokens) {
    const auto input = static_cast<double>(scenario.input_tokens);
    const auto output = static_cast<double>(scenario.output_tokens);
    r.usd_per_million_total_tokens = usd_per_million_total_tokens(*r.usd_per_million_tokens, input, output);
    if (with_trace) {
      trace(r, "usd_per_million_total_tokens",
            "usd_per_million_tokens x output / (input + output): the same operating point, every "
            "request's input and output tokens counted",
            {{"usd_per_million_tokens", *r.usd_per_million_tokens}, {"input_tokens", input},
             {"output_tokens", output}});
    }
  }
}

/** The model reads no further than its maximum context, however much KV room is left. */
void cap_fit_context(const Model& model, OfferingResult& r) {
  if (model.max_context_tokens > 0 && r.fit.max_context_tokens > model.max_context_tokens) {
    r.fit.max_context_tokens = model.max_context_tokens;
    if (std::find(r.warnings.begin(), r.warnings.end(), "context_capped_at_model_max") == r.warnings.end()) {
      r.warnings.emplace_back("context_capped_at_model_max");
    }
  }
}

/** One deployment on the card: without the scenario's tp, the serving figures at the users run
 *  on the instance the serving search picked (performance.cpp), and the fit is re-read for that
 *  instance (its size and data-parallel attention) so that "GPUs per instance", the replicas
 *  and the KV per GPU are said of it (a fit that held the users on no single instance, MLA's
 *  latent on every rank, holds them on the served one with attention data parallel). Kept as
 *  it was when a disaggregated layout serves the users or the fit's memory rule does not hold
 *  the users on the served instance. True when the fit changed. */
bool fit_served_instance(const Model& model, const Gpu& gpu, const Offering& off, const Scenario& scenario,
                         const ServerSpan& span, const EngineProfile* engine, OfferingResult& r) {
  if (scenario.workload != Workload::kInference || scenario.tp > 0 || !r.pd_layout.empty()) return false;
  const int served = r.serving_tensor_parallel;
  if (served <= 0) return false;
  const bool dpa = r.data_parallel_attention;
  if (r.fit.fits && served == r.fit.deployment.gpus && dpa == scenario.dpa) return false;
  Scenario as_served = scenario;
  as_served.tp = served;
  as_served.dpa = dpa;
  MemoryFit f = fit_memory(model, gpu, off, as_served, span, engine);
  if (!f.fits || f.servers != r.fit.servers) return false;
  r.fit = f;
  cap_fit_context(model, r);
  return true;
}

/** Fills `ev` (built in the caller's result from the checked scenario and its model: no copy
 *  or move of the large evaluation); an error leaves `ev` to be discarded. */
std::optional<Error> evaluate_into(const Catalog& catalog, const Model& catalog_model,
                                   const EvaluateOptions& options, Evaluation& ev) {
  // traces_linked() is a constant where the program defines it (the page's first module): the
  // trace code is then unreachable and left out of it.
  const bool with_trace = options.with_trace && traces_linked();
  const Model* model = &catalog_model;
  // A scenario that names no weights takes the model's default (its release's own when that is
  // quantized); the canonical string then names it, so the link keeps its meaning.
  ev.scenario.model = model->id;  // an alias resolves to the canonical id, echoed in inputs
  if (ev.scenario.weights_from_model) ev.scenario.weights = default_weight_format(*model);
  ev.scenario.weights_from_model = false;
  const Scenario& scenario = ev.scenario;
  ev.canonical = encode_scenario(scenario);
  ev.results.reserve(scenario.compare.size());
  for (std::size_t i = 0; i < scenario.compare.size(); ++i) {
    const Offering* off = catalog.find_offering(scenario.compare[i]);
    if (off == nullptr) {
      // The entry's index in the field: the page drops that one id and keeps the rest.
      return make_error(ErrorCode::kUnknownId, "compare[" + std::to_string(i) + "]",
                        "\"" + scenario.compare[i] + "\" is not an offering in the catalog (gpucalc --list offerings)");
    }
    const Gpu* gpu = catalog.find_gpu(off->gpu_id);
    if (gpu == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, "offerings(" + off->id + ").gpu", "names an unknown GPU");
    }
    if (gpu->projected) {
      // A projected part's unset figure is never replaced by a guess: the computation stops
      // and names the field (the page drops this id and keeps the others).
      const std::string missing = missing_gpu_figure(*gpu, *model, scenario);
      if (!missing.empty()) {
        return make_error(ErrorCode::kBadValue, "compare[" + std::to_string(i) + "]",
                          "\"" + off->id + "\" runs on " + gpu->id + ", a projected part whose " + missing +
                              " no source gives (unset): this workload needs it; try other weights (gpucalc --list gpus)");
      }
    }
    const EngineProfile* engine = nullptr;
    if (scenario.workload == Workload::kInference) {
      auto selected = select_engine(catalog_engines(catalog), scenario.engine, *gpu, *model);
      if (!selected) return selected.error();
      engine = selected.value();
    }
    // Built in place: the results so far (the first one's price) stay where they are.
    OfferingResult& r = ev.results.emplace_back();
    const OfferingResult* first = i > 0 ? &ev.results.front() : nullptr;
    set_identity(*off, *gpu, scenario, r);
    // Servers: the scenario's count, or (0) as many as the fit needs.
    const Network* network = catalog.scale_out_of(*off);
    r.stackable = network != nullptr;
    if (network != nullptr) r.scale_out_network = network->id;
    const int requested = i < scenario.servers.size() ? scenario.servers[i] : 1;
    ServerSpan span{std::max(1, requested), r.stackable};
    // Inference: the fit answers the serving question, KV sized by the engine's pool rule.
    r.fit = fit_memory(*model, *gpu, *off, scenario, span, engine);
    if (requested == 0 && r.fit.servers_needed > 1) {
      span.servers = r.fit.servers_needed;
      r.fit = fit_memory(*model, *gpu, *off, scenario, span, engine);
    }
    cap_fit_context(*model, r);
    r.servers = r.fit.servers;
    r.deployed_gpus = r.gpu_count * r.servers;
    r.offering_hbm_marketed_bytes = gpu->hbm_marketed_bytes * r.deployed_gpus;
    set_prices(*off, scenario, i, first, with_trace, r);
    if (model->max_context_tokens > 0 && scenario.context_tokens > model->max_context_tokens) {
      r.warnings.emplace_back("context_exceeds_model");
    }
    if (r.capacity_assumed) r.warnings.emplace_back("capacity_assumed_gib");
    if (r.projected) r.warnings.emplace_back("projected_part");
    if (!r.stackable && r.fit.servers_needed > 1) r.warnings.emplace_back("not_stackable");
    const std::size_t fit_trace_at = r.trace.size();
    if (with_trace) add_fit_trace(r, *model, *gpu, scenario);
    const std::size_t fit_trace_end = r.trace.size();
    estimate_performance(catalog, scenario, *model, *gpu, *off, r.deployed_gpus, with_trace,
                         options.with_curve, engine, r);
    if (fit_served_instance(*model, *gpu, *off, scenario, span, engine, r) && with_trace) {
      // The fit's trace describes the deployment it now shows, in its place.
      OfferingResult refit;
      refit.fit = r.fit;
      add_fit_trace(refit, *model, *gpu, scenario);
      r.trace.erase(r.trace.begin() + static_cast<std::ptrdiff_t>(fit_trace_at),
                    r.trace.begin() + static_cast<std::ptrdiff_t>(fit_trace_end));
      r.trace.insert(r.trace.begin() + static_cast<std::ptrdiff_t>(fit_trace_at),
                     refit.trace.begin(), refit.trace.end());
    }
    detail::set_supplied_provenance(r, catalog, *model, *gpu, network);
    if (scenario.workload != Workload::kInference) {
      apply_training_fit(catalog, scenario, *model, *gpu, r.deployed_gpus, with_trace, r);
    }
    estimate_energy(*gpu, scenario, with_trace, r);
    set_total_token_cost(scenario, with_trace, r);
    if (with_trace) set_trace_codes(*model, *gpu, scenario, r);
  }
  if (!ev.results.empty() && ev.results.front().price_usd_per_month) {
    ev.results.front().price_delta_usd_per_month = 0.0;
  }
  auto invariants = enforce_output_invariants(ev);
  if (!invariants) return invariants.error();
  build_verdict(ev);
  return std::nullopt;
}

}  // namespace

// Weak: a program may define its own (wasm/bindings.cpp, the page's first module).
__attribute__((weak)) bool traces_linked() { return true; }

Result<Evaluation> evaluate(const Catalog& catalog, const Scenario& as_given,
                            const EvaluateOptions& options) {
  // One result object, the evaluation built in it and returned by name (no copy or move).
  const Model* model = nullptr;
  std::optional<Error> error = check_scenario(catalog, as_given, model);
  if (!error && options.with_trace && !traces_linked()) {
    error = make_error(ErrorCode::kNotAllowed, "trace",
                       "this build writes no formula traces (the page's first module: the whole module writes them)");
  }
  Result<Evaluation> out = error ? Result<Evaluation>(std::move(*error))
                                 : Result<Evaluation>(std::in_place, as_given, *model);
  if (out.ok()) {
    if (auto failed = evaluate_into(catalog, *model, options, out.value())) {
      out = Result<Evaluation>(std::move(*failed));
    }
  }
  return out;
}

Result<Evaluation> evaluate_text(const Catalog& catalog, std::string_view scenario_text,
                                 bool with_trace) {
  auto s = decode_scenario(scenario_text);
  if (!s) return s.error();
  return evaluate(catalog, s.value(), with_trace);
}

std::string error_to_json(const Error& error) {
  // The one streaming writer: bytes that are not UTF-8 (a message may quote the input) are
  // written as U+FFFD, never an abort.
  detail::JsonWriter w;
  w.begin_object().key("error");
  detail::write_error(w, error);
  w.end_object();
  return std::move(w.str());
}

}  // namespace gpucalc
