// Embind bindings of gpucalc::core for the web page. Thin on purpose: every function takes and
// returns plain values (strings holding JSON, arrays of plain objects); the friendlier API
// (GpucalcError, parsed objects) lives in web/gpucalc.js.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/result.hpp"
#include "gpucalc/scenario.hpp"

namespace {

using emscripten::val;

// The working catalog: the compiled-in default, extended by loadCatalog / importHfConfig.
gpucalc::Catalog& working_catalog() {
  static gpucalc::Catalog catalog = gpucalc::default_catalog();
  return catalog;
}

std::string error_json(const gpucalc::Error& error) { return gpucalc::error_to_json(error); }

/** Evaluation JSON (the CLI's public output) or {"error": {...}}. */
std::string evaluate(const std::string& scenario_text, bool with_trace) {
  auto result = gpucalc::evaluate_text(working_catalog(), scenario_text, with_trace);
  if (!result) return error_json(result.error());
  return gpucalc::evaluation_to_json(result.value(), with_trace);
}

/** The "what fits" table for the scenario, or {"error": {...}}. */
std::string fit_table(const std::string& scenario_text) {
  auto scenario = gpucalc::decode_scenario(scenario_text);
  if (!scenario) return error_json(scenario.error());
  auto table = gpucalc::fit_table_json(working_catalog(), scenario.value());
  if (!table) return error_json(table.error());
  return std::move(table).value();
}

/** {"gpus": [...]} | {"models": [...]} | {"offerings": [...]}, or {"error": {...}}. */
std::string catalog_json(const std::string& what) {
  auto listing = gpucalc::catalog_to_json(working_catalog(), what);
  if (!listing) return error_json(listing.error());
  return std::move(listing).value();
}

/** Extends the working catalog by a JSON document (a vendor's price list, extra GPUs). */
std::string load_catalog(const std::string& json_text, const std::string& source_name) {
  auto extended = gpucalc::extend_catalog(working_catalog(), json_text, source_name);
  if (!extended) return error_json(extended.error());
  working_catalog() = std::move(extended).value();
  return "{\"ok\":true}";
}

void reset_catalog() { working_catalog() = gpucalc::default_catalog(); }

/** Imports a Hugging Face config.json as model `id` (replacing one with the same id) and
 *  returns its catalog listing {"models": [model]}, or {"error": {...}}. */
std::string import_hf_config(const std::string& config_json, const std::string& id) {
  auto model = gpucalc::import_hf_config(config_json, id);
  if (!model) return error_json(model.error());
  auto& models = working_catalog().models;
  bool replaced = false;
  for (auto& existing : models) {
    if (existing.id == model.value().id) {
      existing = model.value();
      replaced = true;
    }
  }
  if (!replaced) models.push_back(model.value());
  gpucalc::Catalog single;
  single.models.push_back(std::move(model).value());
  auto listing = gpucalc::catalog_to_json(single, "models");
  if (!listing) return error_json(listing.error());
  return std::move(listing).value();
}

/** [{key, defaultText, description}] in schema order. */
val scenario_keys() {
  val keys = val::array();
  for (const auto& info : gpucalc::scenario_keys()) {
    val row = val::object();
    row.set("key", std::string(info.key));
    row.set("defaultText", std::string(info.default_text));
    row.set("description", std::string(info.description));
    keys.call<void>("push", row);
  }
  return keys;
}

int scenario_version() { return gpucalc::kScenarioVersion; }

// Numeric result fields the page sweeps over, by their JSON names.
using Field = std::optional<double> (*)(const gpucalc::OfferingResult&);
std::optional<double> count(long long n) { return static_cast<double>(n); }
Field field_getter(const std::string& name) {
  using R = gpucalc::OfferingResult;
  static const std::vector<std::pair<std::string, Field>> fields = {
      {"decode_tokens_per_s_per_user", [](const R& r) { return r.decode_tokens_per_s_per_user; }},
      {"max_throughput_tokens_per_s", [](const R& r) { return r.max_throughput_tokens_per_s; }},
      {"usd_per_million_tokens", [](const R& r) { return r.usd_per_million_tokens; }},
      {"ttft_s", [](const R& r) { return r.ttft_s; }},
      {"tpot_s", [](const R& r) { return r.tpot_s; }},
      {"train_tokens_per_s", [](const R& r) { return r.train_tokens_per_s; }},
      {"train_hours", [](const R& r) { return r.train_hours; }},
      {"run_cost_usd", [](const R& r) { return r.run_cost_usd; }},
      {"full_contexts", [](const R& r) { return count(r.fit.full_contexts); }},
      {"max_context_tokens", [](const R& r) { return count(r.fit.max_context_tokens); }},
      {"gpus_needed", [](const R& r) {
         return r.fit.gpus_needed > 0 ? count(r.fit.gpus_needed) : std::nullopt; }},
      {"kv_free_bytes", [](const R& r) -> std::optional<double> { return r.fit.kv_free_bytes; }},
      {"fits", [](const R& r) -> std::optional<double> { return r.fit.fits ? 1.0 : 0.0; }},
  };
  for (const auto& [key, get] : fields) {
    if (key == name) return get;
  }
  return nullptr;
}

/** For the page's sweeps, without JSON: evaluates every scenario text and returns
 *  [scenario][offering][field] numbers (null: empty field or unknown name), or null for a
 *  scenario that fails. */
val evaluate_fields(const val& texts, const val& field_names) {
  std::vector<Field> getters;
  for (const auto& name : emscripten::vecFromJSArray<std::string>(field_names)) {
    getters.push_back(field_getter(name));
  }
  val out = val::array();
  for (const auto& text : emscripten::vecFromJSArray<std::string>(texts)) {
    auto evaluation = gpucalc::evaluate_text(working_catalog(), text, false);
    if (!evaluation) {
      out.call<void>("push", val::null());
      continue;
    }
    val per_offering = val::array();
    for (const auto& result : evaluation.value().results) {
      val row = val::array();
      for (Field get : getters) {
        const auto v = get ? get(result) : std::nullopt;
        row.call<void>("push", v ? val(*v) : val::null());
      }
      per_offering.call<void>("push", row);
    }
    out.call<void>("push", per_offering);
  }
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(gpucalc) {
  emscripten::function("evaluate", &evaluate);
  emscripten::function("evaluateFields", &evaluate_fields);
  emscripten::function("fitTable", &fit_table);
  emscripten::function("catalogJson", &catalog_json);
  emscripten::function("loadCatalog", &load_catalog);
  emscripten::function("resetCatalog", &reset_catalog);
  emscripten::function("importHfConfig", &import_hf_config);
  emscripten::function("scenarioKeys", &scenario_keys);
  emscripten::function("scenarioVersion", &scenario_version);
}
