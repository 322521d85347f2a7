// The result-field registry (result_fields.hpp) and the CSV writer that iterates it.
#include <algorithm>
#include <iterator>
#include "gpucalc/result_fields.hpp"
#include "gpucalc/text.hpp"

#include "output/json_writer.hpp"

namespace gpucalc {

namespace {

using R = OfferingResult;
using U = UnitKind;
using S = FieldScope;

FieldValue v(double x) {
  FieldValue f;
  f.type = FieldValue::Type::kNumber;
  f.number = x;
  return f;
}
FieldValue v(const std::optional<double>& x) { return x ? v(*x) : FieldValue{}; }
FieldValue v(long long x) {
  FieldValue f;
  f.type = FieldValue::Type::kInteger;
  f.integer = x;
  return f;
}
FieldValue v(int x) { return v(static_cast<long long>(x)); }
FieldValue v(bool x) {
  FieldValue f;
  f.type = FieldValue::Type::kFlag;
  f.flag = x;
  return f;
}
FieldValue v(std::string_view x) {
  FieldValue f;
  f.type = FieldValue::Type::kText;
  f.text = x;
  return f;
}
FieldValue v(const std::string& x) { return v(std::string_view(x)); }
FieldValue v(const char* x) { return v(std::string_view(x)); }
FieldValue text_or_null(const std::string& x) { return x.empty() ? FieldValue{} : v(x); }
FieldValue count_or_null(int x) { return x > 0 ? v(x) : FieldValue{}; }

}  // namespace

std::optional<double> FieldValue::as_number() const {
  switch (type) {
    case Type::kNumber:
      return number;
    case Type::kInteger:
      return static_cast<double>(integer);
    case Type::kFlag:
      return flag ? 1.0 : 0.0;
    case Type::kNull:
    case Type::kText:
      return std::nullopt;
  }
  return std::nullopt;
}

const char* unit_kind_name(UnitKind unit) {
  switch (unit) {
    case U::kText:
      return "text";
    case U::kFlag:
      return "flag";
    case U::kCount:
      return "count";
    case U::kBytes:
      return "bytes";
    case U::kTokens:
      return "tokens";
    case U::kTokensPerS:
      return "tokens_per_s";
    case U::kSeconds:
      return "seconds";
    case U::kHours:
      return "hours";
    case U::kUsd:
      return "usd";
    case U::kRatio:
      return "ratio";
    case U::kWatts:
      return "watts";
    case U::kJoules:
      return "joules";
    case U::kKwh:
      return "kwh";
  }
  return "text";
}

namespace {

/** Which offering and GPU, and the memory fit (fit_memory). */
std::vector<ResultField> fit_fields() {
  return {
    {"offering", U::kText, S::kAll, [](const R& r) { return v(r.offering_id); }},
    {"offering_name", U::kText, S::kAll, [](const R& r) { return v(r.offering_name); }},
    {"gpu", U::kText, S::kAll, [](const R& r) { return v(r.gpu_id); }},
    {"gpu_name", U::kText, S::kAll, [](const R& r) { return v(r.gpu_name); }},
    {"gpu_count", U::kCount, S::kAll, [](const R& r) { return v(r.gpu_count); }},
    {"capacity_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.capacity_bytes_per_gpu); }},
    {"capacity_assumed", U::kFlag, S::kAll, [](const R& r) { return v(r.capacity_assumed); }},
    {"projected", U::kFlag, S::kAll, [](const R& r) { return v(r.projected); }},
    {"offering_hbm_marketed_bytes", U::kBytes, S::kAll,
     [](const R& r) { return v(r.offering_hbm_marketed_bytes); }},
    {"reserve_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.reserve_bytes_per_gpu); }},
    {"weights_bytes", U::kBytes, S::kAll, [](const R& r) { return v(r.fit.weights_bytes); }},
    {"weights_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.weights_bytes_per_gpu); }},
    {"kv_bytes_per_token", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.kv_bytes_per_token); }},
    {"state_bytes_per_sequence", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.state_bytes_per_sequence); }},
    {"kv_bytes_per_context", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.kv_bytes_per_context); }},
    {"gpus_needed_weights_only", U::kCount, S::kAll,
     [](const R& r) { return v(r.fit.gpus_needed_weights_only); }},
    {"gpus_needed", U::kCount, S::kAll,
     [](const R& r) { return r.fit.gpus_needed > 0 ? v(r.fit.gpus_needed) : FieldValue{}; }},
    {"fits", U::kFlag, S::kAll, [](const R& r) { return v(r.fit.fits); }},
    {"fit_reason", U::kText, S::kAll, [](const R& r) { return v(r.fit.reason); }},
    {"gpus_needed_full_context", U::kCount, S::kInference,
     [](const R& r) { return r.fit.gpus_needed_full_context > 0 ? v(r.fit.gpus_needed_full_context) : FieldValue{}; }},
    {"request_tokens", U::kTokens, S::kInference, [](const R& r) { return v(r.fit.request_tokens); }},
    {"servers_needed", U::kCount, S::kAll,
     [](const R& r) {
       return r.fit.servers_needed > 0 ? v(r.fit.servers_needed) : FieldValue{};
     }},
    {"servers", U::kCount, S::kAll, [](const R& r) { return v(r.servers); }},
    {"deployed_gpus", U::kCount, S::kAll, [](const R& r) { return v(r.deployed_gpus); }},
    {"stackable", U::kFlag, S::kAll, [](const R& r) { return v(r.stackable); }},
    {"scale_out_network", U::kText, S::kAll, [](const R& r) { return v(r.scale_out_network); }},
    {"instance_gpus", U::kCount, S::kAll, [](const R& r) { return v(r.fit.deployment.gpus); }},
    {"tensor_parallel", U::kCount, S::kAll,
     [](const R& r) { return v(r.fit.deployment.tensor_parallel); }},
    {"pipeline_parallel", U::kCount, S::kAll,
     [](const R& r) { return v(r.fit.deployment.pipeline_parallel); }},
    {"replicas", U::kCount, S::kAll, [](const R& r) { return v(r.fit.replicas); }},
    {"kv_free_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.kv_free_bytes_per_gpu); }},
    {"kv_used_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.kv_used_bytes_per_gpu); }},
    {"headroom_bytes_per_gpu", U::kBytes, S::kAll,
     [](const R& r) { return v(r.fit.headroom_bytes_per_gpu); }},
    {"kv_free_bytes", U::kBytes, S::kAll, [](const R& r) { return v(r.fit.kv_free_bytes); }},
    {"full_contexts_per_instance", U::kCount, S::kAll,
     [](const R& r) { return v(r.fit.full_contexts_per_instance); }},
    {"full_contexts", U::kCount, S::kAll, [](const R& r) { return v(r.fit.full_contexts); }},
    {"max_context_tokens", U::kTokens, S::kAll,
     [](const R& r) { return v(r.fit.max_context_tokens); }},
  };
}

/** Prices, the disaggregated layout and the serving figures. */
std::vector<ResultField> price_and_serving_fields() {
  return {
    {"unit_price_month_usd", U::kUsd, S::kAll,
     [](const R& r) { return v(r.unit_price_usd_per_month); }},
    {"price_month_usd", U::kUsd, S::kAll, [](const R& r) { return v(r.price_usd_per_month); }},
    {"price_gpu_hour_usd", U::kUsd, S::kAll,
     [](const R& r) { return v(r.price_usd_per_gpu_hour); }},
    {"price_gb_month_usd", U::kUsd, S::kAll,
     [](const R& r) { return v(r.price_usd_per_gb_month); }},
    {"price_delta_month_usd", U::kUsd, S::kAll,
     [](const R& r) { return v(r.price_delta_usd_per_month); }},
    {"max_throughput_tokens_per_s", U::kTokensPerS, S::kInference,
     [](const R& r) { return v(r.max_throughput_tokens_per_s); }},
    {"decode_tokens_per_s_per_user", U::kTokensPerS, S::kInference,
     [](const R& r) { return v(r.decode_tokens_per_s_per_user); }},
    {"pd_layout", U::kText, S::kInference, [](const R& r) { return text_or_null(r.pd_layout); }},
    {"prefill_gpus", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.prefill_gpus); }},
    {"decode_gpus", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.decode_gpus); }},
    {"prefill_workers", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.prefill_workers); }},
    {"prefill_tp", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.prefill_tp); }},
    {"prefill_ep", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.prefill_ep); }},
    {"prefill_dpa", U::kFlag, S::kInference,
     [](const R& r) { return r.prefill_workers > 0 ? v(r.prefill_dpa) : FieldValue{}; }},
    {"decode_workers", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.decode_workers); }},
    {"decode_tp", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.decode_tp); }},
    {"decode_ep", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.decode_ep); }},
    {"decode_dpa", U::kFlag, S::kInference,
     [](const R& r) { return r.decode_workers > 0 ? v(r.decode_dpa) : FieldValue{}; }},
    {"kv_transfer_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.kv_transfer_s); }},
    {"kv_transfer_fabric", U::kText, S::kInference,
     [](const R& r) { return text_or_null(r.kv_transfer_fabric); }},
    {"prefill_utilization", U::kRatio, S::kInference, [](const R& r) { return v(r.prefill_utilization); }},
    {"ttft_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.ttft_s); }},
    {"ttft_median_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.ttft_median_s); }},
    {"tpot_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.tpot_s); }},
    {"usd_per_million_tokens", U::kUsd, S::kInference,
     [](const R& r) { return v(r.usd_per_million_tokens); }},
    {"usd_per_million_total_tokens", U::kUsd, S::kInference,
     [](const R& r) { return v(r.usd_per_million_total_tokens); }},
    {"total_tokens_per_s_per_gpu", U::kTokensPerS, S::kInference,
     [](const R& r) { return v(r.total_tokens_per_s_per_gpu); }},
    // The operating point chosen for the interactivity target (interactivity_point): its layout,
    // its throughput per GPU and per deployment (a rack, for an NVL72 offering) and its cost.
    {"at_speed_layout", U::kText, S::kInference,
     [](const R& r) { return r.interactivity_point ? text_or_null(r.interactivity_point->layout) : FieldValue{}; }},
    {"at_speed_tokens_per_s_per_user", U::kTokensPerS, S::kInference,
     [](const R& r) { return r.interactivity_point ? v(r.interactivity_point->tokens_per_s_per_user) : FieldValue{}; }},
    {"at_speed_total_tokens_per_s_per_gpu", U::kTokensPerS, S::kInference,
     [](const R& r) { return r.interactivity_point ? v(r.interactivity_point->total_tokens_per_s_per_gpu) : FieldValue{}; }},
    {"at_speed_output_tokens_per_s", U::kTokensPerS, S::kInference,
     [](const R& r) {
       return r.interactivity_point ? v(r.interactivity_point->output_tokens_per_s_per_gpu * r.deployed_gpus)
                                    : FieldValue{};
     }},
    {"at_speed_usd_per_million_tokens", U::kUsd, S::kInference,
     [](const R& r) {
       return r.interactivity_point && r.interactivity_point->usd_per_million_tokens > 0.0
                  ? v(r.interactivity_point->usd_per_million_tokens)
                  : FieldValue{};
     }},
    {"output_tokens_per_s_per_gpu", U::kTokensPerS, S::kInference,
     [](const R& r) { return v(r.output_tokens_per_s_per_gpu); }},
    {"e2e_latency_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.e2e_latency_s); }},
    {"engine", U::kText, S::kInference, [](const R& r) { return v(r.engine); }},
    {"engine_version", U::kText, S::kInference, [](const R& r) { return v(r.engine_version); }},
    {"serving_tensor_parallel", U::kCount, S::kInference,
     [](const R& r) {
       return r.serving_tensor_parallel > 0 ? v(r.serving_tensor_parallel) : FieldValue{};
     }},
    {"serving_replicas", U::kCount, S::kInference, [](const R& r) { return count_or_null(r.serving_replicas); }},
    {"expert_parallel", U::kCount, S::kInference,
     [](const R& r) { return r.expert_parallel > 0 ? v(r.expert_parallel) : FieldValue{}; }},
    {"data_parallel_attention", U::kFlag, S::kInference,
     [](const R& r) { return v(r.data_parallel_attention); }},
    {"scale_out_s", U::kSeconds, S::kInference, [](const R& r) { return v(r.scale_out_s); }},
    {"scale_out_strategy", U::kText, S::kInference,
     [](const R& r) { return v(r.scale_out_strategy); }},
  };
}

/** Energy, training and where the figures come from. */
std::vector<ResultField> energy_and_training_fields() {
  return {
    {"all_in_power_w_per_gpu", U::kWatts, S::kAll,
     [](const R& r) { return v(r.all_in_power_w_per_gpu); }},
    {"energy_joules_per_output_token", U::kJoules, S::kInference,
     [](const R& r) { return v(r.energy_joules_per_output_token); }},
    {"output_tokens_per_s_per_mw", U::kTokensPerS, S::kInference,
     [](const R& r) { return v(r.output_tokens_per_s_per_mw); }},
    {"energy_usd_per_million_tokens", U::kUsd, S::kInference,
     [](const R& r) { return v(r.energy_usd_per_million_tokens); }},
    {"train_tokens_per_s", U::kTokensPerS, S::kTraining,
     [](const R& r) { return v(r.train_tokens_per_s); }},
    {"train_hours", U::kHours, S::kTraining, [](const R& r) { return v(r.train_hours); }},
    {"train_steps", U::kCount, S::kTraining, [](const R& r) { return v(r.train_steps); }},
    {"gpu_hours", U::kHours, S::kTraining, [](const R& r) { return v(r.gpu_hours); }},
    {"run_cost_usd", U::kUsd, S::kTraining, [](const R& r) { return v(r.run_cost_usd); }},
    {"train_memory_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return v(r.train_memory_bytes_per_gpu); }},
    {"train_weights_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->weights) : FieldValue{}; }},
    {"train_gradient_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->gradients) : FieldValue{}; }},
    {"train_optimizer_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->optimizer) : FieldValue{}; }},
    {"train_adapter_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->adapters) : FieldValue{}; }},
    {"train_activation_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->activations) : FieldValue{}; }},
    {"train_reserve_bytes_per_gpu", U::kBytes, S::kTraining,
     [](const R& r) { return r.train_memory_parts ? v(r.train_memory_parts->reserve) : FieldValue{}; }},
    {"train_free_bytes_per_gpu", U::kBytes, S::kTraining,  // capacity - training memory, 0 when over (fits says so)
     [](const R& r) {
       return r.train_memory_bytes_per_gpu
                  ? v(std::max(0.0, r.fit.capacity_bytes_per_gpu - *r.train_memory_bytes_per_gpu))
                  : FieldValue{};
     }},
    {"billed_months", U::kCount, S::kTraining, [](const R& r) { return v(r.billed_months); }},
    {"energy_kwh_per_run", U::kKwh, S::kTraining, [](const R& r) { return v(r.energy_kwh_per_run); }},
    {"energy_usd_per_run", U::kUsd, S::kTraining, [](const R& r) { return v(r.energy_usd_per_run); }},
    {"rates_source", U::kText, S::kAll, [](const R& r) { return v(rates_source_name(r.rates_source)); }},
    {"rates_estimate", U::kFlag, S::kAll, [](const R& r) { return v(r.rates_estimate); }},
    {"calibration_device", U::kText, S::kAll,
     [](const R& r) { return text_or_null(r.calibration_device); }},
    {"calibration_date", U::kText, S::kAll,
     [](const R& r) { return text_or_null(r.calibration_date); }},
    {"supplied_by", U::kText, S::kAll, [](const R& r) { return text_or_null(r.supplied_by); }},
    {"error_bands_supplied_by", U::kText, S::kAll,
     [](const R& r) { return text_or_null(r.error_bands_supplied_by); }},
  };
}

}  // namespace

const std::vector<ResultField>& result_fields() {
  static const std::vector<ResultField> fields = [] {
    std::vector<ResultField> all = fit_fields();
    for (auto part : {price_and_serving_fields(), energy_and_training_fields()}) {
      all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    return all;
  }();
  return fields;
}

const ResultField* find_result_field(std::string_view name) {
  for (const auto& f : result_fields()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const char* token_kind(std::string_view field) {
  static constexpr std::pair<std::string_view, const char*> kKinds[] = {
      {"usd_per_million_tokens", "output"},         // at the highest-throughput point
      {"usd_per_million_total_tokens", "total"},    // the same point, input + output counted
      {"energy_usd_per_million_tokens", "output"},  // energy per output token
      {"max_throughput_tokens_per_s", "output"},
      {"at_speed_total_tokens_per_s_per_gpu", "total"},
      {"at_speed_output_tokens_per_s", "output"},      // the whole deployment
      {"at_speed_usd_per_million_tokens", "output"},
      {"output_tokens_per_s_per_gpu", "output"},
      {"total_tokens_per_s_per_gpu", "total"},
      {"output_tokens_per_s_per_mw", "output"},
  };
  for (const auto& [name, kind] : kKinds) {
    if (field == name) return kind;
  }
  return nullptr;
}

namespace {

// The fields whose figure carries a formula (the trace an evaluation writes when asked for one),
// by the workload kind they carry it in: the page makes those figures open their formula without
// first evaluating with a trace (its first module writes none: traces_linked()).
// tests/output/test_result_fields.cpp holds these lists to the traces of evaluations of each kind.
constexpr const char* kFormulaAll[] = {
    "capacity_bytes_per_gpu", "full_contexts", "full_contexts_per_instance", "gpus_needed",
    "gpus_needed_weights_only", "headroom_bytes_per_gpu", "kv_bytes_per_context", "kv_bytes_per_token",
    "kv_free_bytes", "kv_free_bytes_per_gpu", "kv_used_bytes_per_gpu", "max_context_tokens",
    "offering_hbm_marketed_bytes", "price_delta_month_usd", "price_gb_month_usd", "price_gpu_hour_usd",
    "price_month_usd", "reserve_bytes_per_gpu", "servers_needed", "state_bytes_per_sequence",
    "weights_bytes", "weights_bytes_per_gpu"};
constexpr const char* kFormulaInference[] = {
    "decode_tokens_per_s_per_user", "energy_joules_per_output_token", "energy_usd_per_million_tokens",
    "gpus_needed_full_context", "max_throughput_tokens_per_s", "output_tokens_per_s_per_mw",
    "total_tokens_per_s_per_gpu", "tpot_s", "ttft_s", "usd_per_million_tokens",
    "usd_per_million_total_tokens"};
constexpr const char* kFormulaTraining[] = {
    "energy_kwh_per_run", "energy_usd_per_run", "fits", "gpu_hours", "run_cost_usd", "train_hours",
    "train_memory_bytes_per_gpu", "train_steps", "train_tokens_per_s"};

template <std::size_t N>
bool listed_in(const char* const (&names)[N], std::string_view field) {
  for (const char* name : names) {
    if (field == name) return true;
  }
  return false;
}

}  // namespace

const char* formula_kinds(std::string_view field) {
  if (listed_in(kFormulaAll, field)) return "all";
  if (listed_in(kFormulaInference, field)) return "inference";
  if (listed_in(kFormulaTraining, field)) return "training";
  return nullptr;
}

std::string result_fields_json() {
  detail::JsonWriter w;
  w.begin_array();
  for (const auto& f : result_fields()) {
    w.begin_object();
    w.field("name", f.name);
    w.field("unit", unit_kind_name(f.unit));
    w.field("scope", f.scope == S::kAll         ? "all"
                     : f.scope == S::kInference ? "inference"
                                                : "training");
    if (const char* kind = token_kind(f.name)) w.field("token_kind", kind);
    if (const char* kinds = formula_kinds(f.name)) w.field("formula", kinds);
    w.end_object();
  }
  w.end_array();
  return std::move(w.str());
}

std::string evaluation_to_csv(const Evaluation& ev) {
  const auto& fields = result_fields();
  std::string out = "scenario";
  for (const auto& f : fields) {
    out += ',';
    append_csv_cell(out, f.name);
  }
  out += "\r\n";
  for (const auto& r : ev.results) {
    append_csv_cell(out, ev.canonical);
    for (const auto& f : fields) {
      out += ',';
      const FieldValue x = f.get(r);
      switch (x.type) {
        case FieldValue::Type::kNull:
          break;
        case FieldValue::Type::kNumber:
          detail::append_number(out, x.number);
          break;
        case FieldValue::Type::kInteger:
          out += std::to_string(x.integer);
          break;
        case FieldValue::Type::kFlag:
          out += x.flag ? "true" : "false";
          break;
        case FieldValue::Type::kText:
          append_csv_cell(out, x.text);
          break;
      }
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace gpucalc
