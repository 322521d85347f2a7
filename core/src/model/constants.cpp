// The model constants document (model_constants.hpp): one row per constant.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/model_constants.hpp"

namespace gpucalc {

namespace {

using Json = nlohmann::json;

struct ConstantRow {
  const char* name;
  double ModelConstants::*member;
  double max;  // every constant is more than 0 and at most this
};

// Fractions are of an achieved rate, so at most 1; the others are bounded only against typos.
const ConstantRow kConstants[] = {
    {"matmul_fraction", &ModelConstants::matmul_fraction, 1.0},
    {"hbm_fraction", &ModelConstants::hbm_fraction, 1.0},
    {"moe_expert_gemm_fraction", &ModelConstants::moe_expert_gemm_fraction, 1.0},
    {"step_overhead_s", &ModelConstants::step_overhead_s, 1.0},
    {"allreduce_latency_s", &ModelConstants::allreduce_latency_s, 1.0},
    {"max_batch_sequences", &ModelConstants::max_batch_sequences, 1e6},
    {"activation_traffic_factor", &ModelConstants::activation_traffic_factor, 100.0},
    {"large_m_matmul_fraction", &ModelConstants::large_m_matmul_fraction, 1.0},
    {"large_m_tokens", &ModelConstants::large_m_tokens, 1e6},
    {"small_m_tokens", &ModelConstants::small_m_tokens, 1e6},
    {"moe_stream_fraction", &ModelConstants::moe_stream_fraction, 1.0},
    {"attention_fraction", &ModelConstants::attention_fraction, 1.0},
    {"small_kernel_latency_s", &ModelConstants::small_kernel_latency_s, 1.0},
    {"small_kernels_attention_gqa", &ModelConstants::small_kernels_attention_gqa, 1000.0},
    {"small_kernels_attention_mla", &ModelConstants::small_kernels_attention_mla, 1000.0},
    {"small_kernels_ffn_dense", &ModelConstants::small_kernels_ffn_dense, 1000.0},
    {"small_kernels_ffn_moe", &ModelConstants::small_kernels_ffn_moe, 1000.0},
    {"gemm_kernels_attention_gqa", &ModelConstants::gemm_kernels_attention_gqa, 1000.0},
    {"gemm_kernels_attention_mla", &ModelConstants::gemm_kernels_attention_mla, 1000.0},
    {"first_wave_fraction", &ModelConstants::first_wave_fraction, 1.0},
    {"arrival_spread_fraction", &ModelConstants::arrival_spread_fraction, 1.0},
};

Error invalid(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "performance." + field, message);
}

}  // namespace

Result<ModelConstants> parse_model_constants(std::string_view json_text) {
  if (json_text.size() > kMaxJsonTextBytes) {
    return make_error(ErrorCode::kTooLarge, "performance", "is larger than 16 MiB");
  }
  const Json j = Json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(ErrorCode::kInvalidJson, "performance", "is not a JSON object");
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
      if (!v.contains("value")) return invalid(std::string(row.name) + ".value", "is required");
      num = &v.at("value");
    }
    if (!num->is_number()) return invalid(row.name, "must be a number");
    const double x = num->get<double>();
    if (!(x > 0.0 && x <= row.max)) {
      Error e = make_error(
          ErrorCode::kOutOfRange, "performance." + std::string(row.name),
          "must be more than 0 and at most " + Json(row.max).dump() + ", got " + Json(x).dump());
      e.params = {{"max", row.max}, {"value", x}};
      return e;
    }
    c.*row.member = x;
  }
  if (j.contains("mtp_acceptance_length")) {
    const Json& t = j.at("mtp_acceptance_length");
    if (!t.is_object() || !t.contains("models") || !t.at("models").is_object()) {
      return invalid("mtp_acceptance_length",
                     "must be {\"models\": {model: [tokens per step at 1, 2, ... drafts]}}");
    }
    for (const auto& [model, v] : t.at("models").items()) {
      std::vector<double> lengths;
      bool ok = v.is_array() && !v.empty() && v.size() <= 64;
      for (std::size_t i = 0; ok && i < v.size(); ++i) {
        ok = v.at(i).is_number() && v.at(i).get<double>() >= 1.0 && v.at(i).get<double>() <= 64.0;
        if (ok) lengths.push_back(v.at(i).get<double>());
      }
      if (!ok) {
        return invalid("mtp_acceptance_length.models." + model,
                       "must be a non-empty array of numbers between 1 and 64");
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
  static const ModelConstants none;  // only when the built-in catalog is invalid (a test fails)
  const Catalog& catalog = default_catalog();
  return catalog.constants ? *catalog.constants : none;
}

}  // namespace gpucalc
