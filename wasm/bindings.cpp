// Embind bindings of gpucalc::core for the web page. Thin on purpose: every function takes and
// returns plain values (strings holding JSON, arrays of plain objects); the friendlier API
// (GpucalcError, parsed objects) lives in web/gpucalc.js.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/bench_results.hpp"
#include "gpucalc/catalog.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/result.hpp"
#include "gpucalc/result_fields.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/serving_calibration.hpp"

namespace {

using emscripten::val;

#ifdef GPUCALC_WASM_PAGE
// The page's first module cannot extend its catalog (no loadCatalog or importHfConfig): it reads
// the compiled-in default itself, without the copy the whole module's working catalog starts as
// (a deep copy of every document, on the page's way to its first live result).
const gpucalc::Catalog& working_catalog() { return gpucalc::default_catalog(); }
#else
// The working catalog: the compiled-in default, extended by loadCatalog / importHfConfig.
gpucalc::Catalog& working_catalog() {
  static gpucalc::Catalog catalog = gpucalc::default_catalog();
  return catalog;
}
#endif

/** JSON text as a JS string, decoded by TextDecoder straight from the module's memory. Returning
 *  std::string makes embind copy the text into a new buffer and scan it byte by byte in JS for
 *  NUL before decoding (a tenth of the page call, node --cpu-prof). */
val to_js(const std::string& json) {
  static const val decoder = val::global("TextDecoder").new_(std::string("utf-8"));
  return decoder.call<val>("decode", val(emscripten::typed_memory_view(
                                         json.size(), reinterpret_cast<const unsigned char*>(json.data()))));
}

val error_json(const gpucalc::Error& error) { return to_js(gpucalc::error_to_json(error)); }

/** Evaluation JSON (the CLI's public output) or {"error": {...}}. */
val evaluate(const std::string& scenario_text, bool with_trace) {
  auto result = gpucalc::evaluate_text(working_catalog(), scenario_text, with_trace);
  if (!result) return error_json(result.error());
  return to_js(gpucalc::evaluation_to_json(result.value(), with_trace));
}

/** The "what fits" table for the scenario, or {"error": {...}}. */
val fit_table(const std::string& scenario_text) {
  auto scenario = gpucalc::decode_scenario(scenario_text);
  if (!scenario) return error_json(scenario.error());
  auto table = gpucalc::fit_table_json(working_catalog(), scenario.value());
  if (!table) return error_json(table.error());
  return to_js(table.value());
}

/** {"gpus": [...]} | {"models": [...]} | {"offerings": [...]}, or {"error": {...}}. */
val catalog_json(const std::string& what) {
  auto listing = gpucalc::catalog_to_json(working_catalog(), what);
  if (!listing) return error_json(listing.error());
  return to_js(listing.value());
}

#ifndef GPUCALC_WASM_PAGE
/** Extends the working catalog by a JSON document. `trust`: "user" (the user's own file: may
 *  replace anything, named as supplied), "serving_calibration" (an embedding host's serving
 *  calibration: that document only, named as supplied) or "price_list" (a link's or an
 *  embedding host's list: offerings, prices and names only), as gpucalc::CatalogTrust. */
val load_catalog(const std::string& json_text, const std::string& source_name,
                 const std::string& trust) {
  const auto level = trust == "user"                  ? gpucalc::CatalogTrust::kUser
                     : trust == "serving_calibration" ? gpucalc::CatalogTrust::kServingCalibration
                                                      : gpucalc::CatalogTrust::kPriceList;
  auto extended = gpucalc::extend_catalog(working_catalog(), json_text, source_name, level);
  if (!extended) return error_json(extended.error());
  working_catalog() = std::move(extended).value();
  return to_js("{\"ok\":true}");
}
#endif  // GPUCALC_WASM_PAGE

#ifdef GPUCALC_WASM_PAGE
void reset_catalog() {}  // always the default
#else
void reset_catalog() { working_catalog() = gpucalc::default_catalog(); }
#endif

#ifndef GPUCALC_WASM_PAGE
/** Imports a Hugging Face config.json as model `id` (replacing one with the same id) and
 *  returns its catalog listing {"models": [model]}, or {"error": {...}}. */
val import_hf_config(const std::string& config_json, const std::string& id) {
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
  return to_js(listing.value());
}
#endif  // GPUCALC_WASM_PAGE

/** [{key, defaultText, description}] in schema order (kept for the page until it reads
 *  scenarioSchema). */
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

/** The schema of the scenario keys as JSON text: [{key, kind, min, max, min_exclusive,
 *  choices, default, default_text, description, fit_key}] (scenario.hpp). */
val scenario_schema() { return to_js(gpucalc::scenario_schema_json()); }

/** Lenient decode for the page's fragment: {scenario, inputs, errors: [{code, field, message,
 *  params}]}; a bad key is reported and the others are kept. */
val decode_scenario(const std::string& text) { return to_js(gpucalc::scenario_decode_json(text)); }

/** The result-field registry as JSON text: [{name, unit, scope}]. */
val result_fields() { return to_js(gpucalc::result_fields_json()); }

/** The validation summary for the page's accuracy panel, precomputed from the validation tables
 *  into data/error-bands.json (make error-bands), so nothing runs the tables in the page: the
 *  subset of `gpucalc --validate --format json` the panel reads ({mlperf: {rows, median_abs_error,
 *  ...}, serving: {mape_per_gpu, mape_all}}, error_bands.hpp), or {"error": {...}}. */
val validation_json() { return to_js(gpucalc::validation_summary_json(working_catalog())); }

#ifndef GPUCALC_WASM_PAGE
/** A serving calibration document fitted to benchmark result files (names[i], texts[i]: read in
 *  the page, never uploaded) for the scenario's offering and engine, or {"error": {...}}. The
 *  page loads it with loadCatalog and keeps it. */
val calibrate_serving(const std::string& scenario, const val& names, const val& texts,
                      const std::string& date) {
  const auto name_list = emscripten::vecFromJSArray<std::string>(names);
  const auto text_list = emscripten::vecFromJSArray<std::string>(texts);
  std::vector<gpucalc::BenchRun> runs;
  for (std::size_t i = 0; i < name_list.size() && i < text_list.size(); ++i) {
    auto file = gpucalc::parse_bench_results(text_list[i], name_list[i]);
    if (!file) return error_json(file.error());
    for (auto& run : file.value()) runs.push_back(std::move(run));
  }
  auto cal = gpucalc::calibrate_serving(working_catalog(), scenario, runs, date);
  if (!cal) return error_json(cal.error());
  return to_js(gpucalc::serving_calibration_to_json(cal.value()));
}
#endif  // GPUCALC_WASM_PAGE

using Field = const gpucalc::ResultField*;

/** For the page's sweeps, without JSON: evaluates every scenario text without the curve search
 *  and returns [scenario][offering][field] numbers (null: empty field or unknown name, and the
 *  fields the curve search fills), or null for a scenario that fails. */
val evaluate_fields(const val& texts, const val& field_names) {
  std::vector<Field> getters;
  for (const auto& name : emscripten::vecFromJSArray<std::string>(field_names)) {
    getters.push_back(gpucalc::find_result_field(name));
  }
  val out = val::array();
  for (const auto& text : emscripten::vecFromJSArray<std::string>(texts)) {
    // A sweep reads the figures at the scenario's users: the curve search is skipped.
    auto scenario = gpucalc::decode_scenario(text);
    auto evaluation = scenario ? gpucalc::evaluate(working_catalog(), scenario.value(),
                                                   gpucalc::EvaluateOptions{false, false})
                               : gpucalc::Result<gpucalc::Evaluation>(scenario.error());
    if (!evaluation) {
      out.call<void>("push", val::null());
      continue;
    }
    val per_offering = val::array();
    for (const auto& result : evaluation.value().results) {
      val row = val::array();
      for (Field get : getters) {
        const auto v = get ? get->get(result).as_number() : std::nullopt;
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
  emscripten::function("resetCatalog", &reset_catalog);
  emscripten::function("scenarioKeys", &scenario_keys);
  emscripten::function("scenarioVersion", &scenario_version);
  emscripten::function("scenarioSchema", &scenario_schema);
  emscripten::function("decodeScenario", &decode_scenario);
  emscripten::function("resultFields", &result_fields);
  emscripten::function("validationJson", &validation_json);
#ifndef GPUCALC_WASM_PAGE
  // Not in the page's first module (wasm/CMakeLists.txt): web/gpucalc.js loads the whole one.
  emscripten::function("loadCatalog", &load_catalog);
  emscripten::function("importHfConfig", &import_hf_config);
  emscripten::function("calibrateServing", &calibrate_serving);
#endif
}
