// The module's exports for the web page: plain C functions (no embind), each taking UTF-8 text
// the caller wrote into the module's memory (pointer, length) and returning its reply there. Thin
// on purpose: the replies are JSON text (or numbers for evaluateFields); web/gpucalc.js wraps
// them into the JS API (the method names below, GpucalcError, parsed objects).
//
// Reply: each call returns a pointer to its reply and gpucalc_reply_size() its length in bytes;
// the reply stays valid until the next call. A list argument (evaluateFields, calibrateServing)
// is an array of `count` (pointer, length) pairs of 32-bit words.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

#ifdef GPUCALC_WASM_PAGE
}  // namespace
// The page's first module writes no formula traces (only the formula dialog and the export ask
// for them, and they load the whole module first): linked as one optimised unit, the trace code
// is then left out of it (about 10 KB gzip).
bool gpucalc::traces_linked() { return false; }
namespace {

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

// The last call's reply: text (JSON) or, for evaluateFields, numbers.
std::string reply_text;
std::vector<double> reply_numbers;
std::size_t reply_size = 0;

const char* reply(std::string text) {
  reply_text = std::move(text);
  reply_size = reply_text.size();
  return reply_text.data();
}

const char* error_reply(const gpucalc::Error& error) { return reply(gpucalc::error_to_json(error)); }

std::string arg(const char* text, std::size_t size) { return std::string(text, size); }

/** The `count` strings of a list argument ((pointer, length) pairs). */
std::vector<std::string> list_arg(const std::uint32_t* pairs, std::size_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(static_cast<std::uintptr_t>(pairs[2 * i])), pairs[2 * i + 1]);
  }
  return out;
}

using Field = const gpucalc::ResultField*;

}  // namespace

extern "C" {

/** The byte length of the last call's reply (a count of doubles for gpucalc_evaluate_fields). */
EMSCRIPTEN_KEEPALIVE std::size_t gpucalc_reply_size() { return reply_size; }

/** Evaluation JSON (the CLI's public output) or {"error": {...}}. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_evaluate(const char* text, std::size_t size, int with_trace) {
  auto result = gpucalc::evaluate_text(working_catalog(), arg(text, size), with_trace != 0);
  if (!result) return error_reply(result.error());
  return reply(gpucalc::evaluation_to_json(result.value(), with_trace != 0));
}

/** The "what fits" table for the scenario, or {"error": {...}}. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_fit_table(const char* text, std::size_t size) {
  auto scenario = gpucalc::decode_scenario(arg(text, size));
  if (!scenario) return error_reply(scenario.error());
  auto table = gpucalc::fit_table_json(working_catalog(), scenario.value());
  if (!table) return error_reply(table.error());
  return reply(std::move(table).value());
}

/** {"gpus": [...]} | {"models": [...]} | {"offerings": [...]}, or {"error": {...}}. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_catalog_json(const char* what, std::size_t size) {
  auto listing = gpucalc::catalog_to_json(working_catalog(), arg(what, size));
  if (!listing) return error_reply(listing.error());
  return reply(std::move(listing).value());
}

#ifdef GPUCALC_WASM_PAGE
EMSCRIPTEN_KEEPALIVE void gpucalc_reset_catalog() {}  // always the default
#else
EMSCRIPTEN_KEEPALIVE void gpucalc_reset_catalog() { working_catalog() = gpucalc::default_catalog(); }

/** Extends the working catalog by a JSON document. `trust`: "user" (the user's own file: may
 *  replace anything, named as supplied), "serving_calibration" (an embedding host's serving
 *  calibration: that document only, named as supplied) or "price_list" (a link's or an
 *  embedding host's list: offerings, prices and names only), as gpucalc::CatalogTrust. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_load_catalog(const char* json, std::size_t json_size, const char* name,
                                                      std::size_t name_size, const char* trust,
                                                      std::size_t trust_size) {
  const std::string_view t(trust, trust_size);
  const auto level = t == "user"                  ? gpucalc::CatalogTrust::kUser
                     : t == "serving_calibration" ? gpucalc::CatalogTrust::kServingCalibration
                                                  : gpucalc::CatalogTrust::kPriceList;
  auto extended = gpucalc::extend_catalog(working_catalog(), arg(json, json_size), arg(name, name_size), level);
  if (!extended) return error_reply(extended.error());
  working_catalog() = std::move(extended).value();
  return reply("{\"ok\":true}");
}

/** Imports a Hugging Face config.json as model `id` (replacing one with the same id) and
 *  returns its catalog listing {"models": [model]}, or {"error": {...}}. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_import_hf_config(const char* config, std::size_t config_size,
                                                          const char* id, std::size_t id_size) {
  auto model = gpucalc::import_hf_config(arg(config, config_size), arg(id, id_size));
  if (!model) return error_reply(model.error());
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
  if (!listing) return error_reply(listing.error());
  return reply(std::move(listing).value());
}

/** A serving calibration document fitted to benchmark result files (names[i], texts[i]: read in
 *  the page, never uploaded) for the scenario's offering and engine, or {"error": {...}}. The
 *  page loads it with loadCatalog and keeps it. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_calibrate_serving(const char* scenario, std::size_t scenario_size,
                                                           const std::uint32_t* names, const std::uint32_t* texts,
                                                           std::size_t count, const char* date,
                                                           std::size_t date_size) {
  const auto name_list = list_arg(names, count);
  const auto text_list = list_arg(texts, count);
  std::vector<gpucalc::BenchRun> runs;
  for (std::size_t i = 0; i < count; ++i) {
    auto file = gpucalc::parse_bench_results(text_list[i], name_list[i]);
    if (!file) return error_reply(file.error());
    for (auto& run : file.value()) runs.push_back(std::move(run));
  }
  auto cal = gpucalc::calibrate_serving(working_catalog(), arg(scenario, scenario_size), runs, arg(date, date_size));
  if (!cal) return error_reply(cal.error());
  return reply(gpucalc::serving_calibration_to_json(cal.value()));
}
#endif  // GPUCALC_WASM_PAGE

EMSCRIPTEN_KEEPALIVE int gpucalc_scenario_version() { return gpucalc::kScenarioVersion; }

/** The schema of the scenario keys as JSON text: [{key, kind, min, max, min_exclusive,
 *  choices, default, default_text, description, fit_key}] (scenario.hpp). */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_scenario_schema() { return reply(gpucalc::scenario_schema_json()); }

/** Lenient decode for the page's fragment: {scenario, inputs, errors: [{code, field, message,
 *  params}]}; a bad key is reported and the others are kept. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_decode_scenario(const char* text, std::size_t size) {
  return reply(gpucalc::scenario_decode_json(arg(text, size)));
}

/** The result-field registry as JSON text: [{name, unit, scope}]. */
EMSCRIPTEN_KEEPALIVE const char* gpucalc_result_fields() { return reply(gpucalc::result_fields_json()); }

/** The validation summary for the page's accuracy panel, precomputed from the validation tables
 *  into data/error-bands.json (make error-bands), so nothing runs the tables in the page: the
 *  subset of `gpucalc --validate --format json` the panel reads ({mlperf: {rows, median_abs_error,
 *  ...}, serving: {mape_per_gpu, mape_all}}, error_bands.hpp), or {"error": {...}}. */
#ifndef GPUCALC_WASM_PAGE  // the accuracy panel, opened later, loads the whole module
EMSCRIPTEN_KEEPALIVE const char* gpucalc_validation_json() {
  return reply(gpucalc::validation_summary_json(working_catalog()));
}
#endif

/** For the page's sweeps, without JSON: evaluates every scenario text without the curve search.
 *  Reply (doubles; gpucalc_reply_size() counts them): per scenario, its number of offerings n
 *  (-1: the scenario fails), then n rows of one number per field (NaN: empty field or unknown
 *  name, and the fields the curve search fills). */
EMSCRIPTEN_KEEPALIVE const double* gpucalc_evaluate_fields(const std::uint32_t* texts, std::size_t text_count,
                                                           const std::uint32_t* names, std::size_t name_count) {
  std::vector<Field> getters;
  for (const auto& name : list_arg(names, name_count)) getters.push_back(gpucalc::find_result_field(name));
  reply_numbers.clear();
  for (const auto& text : list_arg(texts, text_count)) {
    // A sweep reads the figures at the scenario's users: the curve search is skipped.
    auto scenario = gpucalc::decode_scenario(text);
    auto evaluation = scenario ? gpucalc::evaluate(working_catalog(), scenario.value(),
                                                   gpucalc::EvaluateOptions{false, false})
                               : gpucalc::Result<gpucalc::Evaluation>(scenario.error());
    if (!evaluation) {
      reply_numbers.push_back(-1.0);
      continue;
    }
    reply_numbers.push_back(static_cast<double>(evaluation.value().results.size()));
    for (const auto& result : evaluation.value().results) {
      for (Field get : getters) {
        const auto v = get ? get->get(result).as_number() : std::nullopt;
        reply_numbers.push_back(v ? *v : std::nan(""));
      }
    }
  }
  reply_size = reply_numbers.size();
  return reply_numbers.data();
}

}  // extern "C"
