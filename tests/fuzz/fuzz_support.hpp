#pragma once
// Shared by the libFuzzer targets: every output a target produces is checked against the output
// invariants (gpucalc/invariants.hpp) and must be well-formed JSON with finite numbers. A
// violation aborts, so libFuzzer keeps the input; UBSan is fatal in this build too
// (-fno-sanitize-recover=all).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gpucalc/evaluate.hpp"
#include "gpucalc/invariants.hpp"

namespace gpucalc::fuzz {

[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz: invariant violated: %s\n", what.c_str());
  std::abort();
}

/** Every number finite; with `non_negative`, also >= 0 except under the keys of differences. */
inline void check_numbers(const nlohmann::json& j, bool non_negative, const std::string& key = {}) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_numbers(*it, non_negative, it.key());
  } else if (j.is_array()) {
    for (const auto& v : j) check_numbers(v, non_negative, key);
  } else if (j.is_number()) {
    const double x = j.get<double>();
    if (!std::isfinite(x)) violated("non-finite number under \"" + key + "\"");
    const bool signed_ok = key == "kv_free_bytes_per_gpu" || key == "kv_free_bytes" ||
                           key == "headroom_bytes_per_gpu" || key == "price_delta_month_usd";
    if (non_negative && x < 0 && !signed_ok) {
      violated("negative number under \"" + key + "\": " + std::to_string(x));
    }
  }
}

/** Output text is one JSON document (the writers never emit NaN, inf or raw control bytes). */
inline nlohmann::json check_json_text(const std::string& text, bool non_negative) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) violated("raw control byte in JSON output");
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) violated("output is not JSON: " + text.substr(0, 200));
  check_numbers(j, non_negative);
  return j;
}

/** The invariants on an evaluation, then on its JSON (with and without the trace). */
inline void check_evaluation(const Evaluation& ev) {
  if (auto bad = check_output_invariants(ev)) violated(bad->to_string());
  // Results are sizes, counts, times and prices; the trace may hold any finite input.
  const auto j = check_json_text(evaluation_to_json(ev, false), false);
  for (const auto& r : j["results"]) check_numbers(r, true);
  for (const auto& v : j["verdict"]) check_numbers(v["params"], true);
  check_json_text(evaluation_to_json(ev, true), false);
}

/** Evaluates and checks; an error must be a well-formed error object naming a field. */
inline void evaluate_and_check(const Catalog& catalog, const Scenario& scenario) {
  auto ev = evaluate(catalog, scenario, true);
  if (ev) {
    check_evaluation(ev.value());
  } else {
    check_json_text(error_to_json(ev.error()), false);
  }
}

}  // namespace gpucalc::fuzz
