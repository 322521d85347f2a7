// The model constants document (model_constants.hpp): one row per constant.
#include "catalog/json_value.hpp"
#include <string>
#include <utility>
#include <vector>

#include "catalog/bounds.hpp"
#include "catalog/json_strict.hpp"
#include "gpucalc/catalog.hpp"
#include "gpucalc/model_constants.hpp"

namespace gpucalc {

namespace {

using Json = detail::JsonValue;

using detail::Bound;

struct ConstantRow {
  const char* name;
  double ModelConstants::*member;
  const Bound& bound;  // the physical range of this kind of figure (bounds.hpp)
};

// Fractions are of an achieved rate; latencies are of one kernel, hop or step; the counts are
// kernels per layer, the token figures GEMM sizes and batch limits.
const ConstantRow kConstants[] = {
    {"matmul_fraction", &ModelConstants::matmul_fraction, detail::kFraction},
    {"hbm_fraction", &ModelConstants::hbm_fraction, detail::kFraction},
    {"moe_expert_gemm_fraction", &ModelConstants::moe_expert_gemm_fraction, detail::kFraction},
    {"step_overhead_s", &ModelConstants::step_overhead_s, detail::kPositiveLatencyS},
    {"allreduce_latency_s", &ModelConstants::allreduce_latency_s, detail::kPositiveLatencyS},
    {"activation_traffic_factor", &ModelConstants::activation_traffic_factor, detail::kPerLayerCount},
    {"large_m_matmul_fraction", &ModelConstants::large_m_matmul_fraction, detail::kFraction},
    {"large_m_tokens", &ModelConstants::large_m_tokens, detail::kTokens},
    {"small_m_tokens", &ModelConstants::small_m_tokens, detail::kTokens},
    {"moe_stream_fraction", &ModelConstants::moe_stream_fraction, detail::kFraction},
    {"attention_fraction", &ModelConstants::attention_fraction, detail::kFraction},
    {"small_kernel_latency_s", &ModelConstants::small_kernel_latency_s, detail::kPositiveLatencyS},
    {"small_kernels_attention_gqa", &ModelConstants::small_kernels_attention_gqa, detail::kPerLayerCount},
    {"small_kernels_attention_mla", &ModelConstants::small_kernels_attention_mla, detail::kPerLayerCount},
    {"small_kernels_ffn_dense", &ModelConstants::small_kernels_ffn_dense, detail::kPerLayerCount},
    {"small_kernels_ffn_moe", &ModelConstants::small_kernels_ffn_moe, detail::kPerLayerCount},
    {"gemm_kernels_attention_gqa", &ModelConstants::gemm_kernels_attention_gqa, detail::kPerLayerCount},
    {"gemm_kernels_attention_mla", &ModelConstants::gemm_kernels_attention_mla, detail::kPerLayerCount},
    {"first_wave_fraction", &ModelConstants::first_wave_fraction, detail::kFraction},
    {"arrival_spread_fraction", &ModelConstants::arrival_spread_fraction, detail::kFraction},
    {"kv_transfer_fraction", &ModelConstants::kv_transfer_fraction, detail::kFraction},
    {"prefill_worker_fraction", &ModelConstants::prefill_worker_fraction, detail::kFraction},
    {"dpa_sequence_overhead_s", &ModelConstants::dpa_sequence_overhead_s, detail::kLatencyS},
};

/** The document's own keys beside the constants. */
constexpr std::string_view kOtherKeys[] = {"schema", "note", "sources", "mtp_acceptance_length"};

/** The first key of the document that is neither a constant nor one of kOtherKeys. */
std::optional<std::string> unknown_constant(const Json& j) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const ConstantRow& row : kConstants) known = known || it.key() == row.name;
    for (std::string_view k : kOtherKeys) known = known || it.key() == k;
    if (!known) return it.key();
  }
  return std::nullopt;
}

Error invalid(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "performance." + field, message);
}

}  // namespace

Result<ModelConstants> parse_model_constants(std::string_view json_text) {
  if (json_text.size() > kMaxJsonTextBytes) {
    return make_error(ErrorCode::kTooLarge, "performance", "is larger than 16 MiB");
  }
  auto parsed = detail::parse_json_strict(json_text, "performance");
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  if (!j.is_object()) return make_error(ErrorCode::kInvalidJson, "performance", "is not a JSON object");
  if (auto key = unknown_constant(j)) {
    return invalid(*key, "is not a model constant (misspelt? every constant is listed in "
                         "core/src/catalog/model_constants.cpp)");
  }
  if (j.contains("schema") && !(j["schema"].is_string() && j["schema"] == kPerformanceSchema)) {
    return invalid("schema", "must be \"" + std::string(kPerformanceSchema) + "\"");
  }
  ModelConstants c;
  for (const ConstantRow& row : kConstants) {
    if (!j.contains(row.name)) {
      return invalid(row.name, "is required (a number, or {\"value\": number, \"source\": ...})");
    }
    const Json& v = j.at(row.name);
    const Json* num = &v;
    if (v.is_object()) {
      if (auto e = detail::unknown_key(v, "performance." + std::string(row.name), {"value", "source", "note"})) {
        return *e;
      }
      if (!v.contains("value")) return invalid(std::string(row.name) + ".value", "is required");
      num = &v.at("value");
    }
    if (!num->is_number()) return invalid(row.name, "must be a number");
    const double x = num->get<double>();
    if (auto e = detail::out_of_bound("performance." + std::string(row.name), x, row.bound)) return *e;
    c.*row.member = x;
  }
  if (j.contains("mtp_acceptance_length")) {
    const Json& t = j.at("mtp_acceptance_length");
    if (!t.is_object() || !t.contains("models") || !t.at("models").is_object()) {
      return invalid("mtp_acceptance_length",
                     "must be {\"models\": {model: [tokens per step at 1, 2, ... drafts]}}");
    }
    if (auto e = detail::unknown_key(t, "performance.mtp_acceptance_length", {"models", "shares_head", "source", "note"})) {
      return *e;
    }
    for (const auto& [model, v] : t.at("models").items()) {
      const std::string path = "mtp_acceptance_length.models." + model;
      if (!v.is_array() || v.empty() || v.size() > 64) {
        return invalid(path, "must be a non-empty array of at most 64 numbers");
      }
      // A step with d draft tokens emits the verified token plus at most d accepted drafts:
      // 1 <= length(d) <= d + 1, and a longer draft never accepts fewer tokens.
      std::vector<double> lengths;
      for (std::size_t i = 0; i < v.size(); ++i) {
        const double drafts = static_cast<double>(i + 1);
        const std::string at = path + "[" + std::to_string(i) + "]";
        if (!v.at(i).is_number()) return invalid(at, "must be a number");
        const double x = v.at(i).get<double>();
        const detail::Bound accepted{lengths.empty() ? 1.0 : lengths.back(), drafts + 1.0,
                                     "tokens per step, at least the previous length and at most drafts + 1"};
        if (auto e = detail::out_of_bound("performance." + at, x, accepted)) return *e;
        lengths.push_back(x);
      }
      c.mtp_acceptance_length.emplace_back(model, std::move(lengths));
    }
    if (t.contains("shares_head")) {
      const Json& h = t.at("shares_head");
      if (!h.is_object()) return invalid("mtp_acceptance_length.shares_head", "must be {model: model}");
      for (const auto& [model, v] : h.items()) {
        if (model == "source" || model == "note") continue;
        if (!v.is_string()) {
          return invalid("mtp_acceptance_length.shares_head." + model, "must name a model of models");
        }
        c.mtp_shares_head.emplace_back(model, v.get<std::string>());
      }
    }
  }
  return c;
}

const std::vector<double>* mtp_acceptance(const ModelConstants& constants, std::string_view model_id) {
  std::string_view id = model_id;
  for (const auto& [model, head] : constants.mtp_shares_head) {
    if (model == model_id) id = head;
  }
  for (const auto& [model, lengths] : constants.mtp_acceptance_length) {
    if (model == id && !lengths.empty()) return &lengths;
  }
  return nullptr;
}

double* model_constant(ModelConstants& constants, std::string_view name) {
  for (const ConstantRow& row : kConstants) {
    if (name == row.name) return &(constants.*row.member);
  }
  return nullptr;
}

const ModelConstants& default_model_constants() {
  return *default_catalog().constants;  // default_catalog() aborted if it had none
}

}  // namespace gpucalc
