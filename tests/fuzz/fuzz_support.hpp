#pragma once
// Shared by the libFuzzer targets: every output a target produces is checked against the output
// invariants (gpucalc/invariants.hpp) and must be well-formed JSON with finite numbers. A
// violation aborts, so libFuzzer keeps the input; UBSan is fatal in this build too
// (-fno-sanitize-recover=all).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/evaluate.hpp"
#include "evaluate/invariants.hpp"
#include "gpucalc/result_fields.hpp"
#include "gpucalc/scenario.hpp"

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

/**
 * The same checks as check_json_text and check_numbers, read as a stream (nlohmann's SAX
 * parser): no document is built, which made the check of a traced evaluation most of a run's
 * time (3.5 ms of 4). Non-negative scope: numbers under "results" and under a verdict's
 * "params", except the differences.
 */
class NumberCheck final : public nlohmann::json_sax<nlohmann::json> {
 public:
  /** `everywhere`: the non-negative rule covers every number (listings), not only results. */
  explicit NumberCheck(bool non_negative, bool everywhere = false)
      : non_negative_(non_negative), everywhere_(everywhere) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t x) override { return number(static_cast<double>(x)); }
  bool number_unsigned(number_unsigned_t x) override { return number(static_cast<double>(x)); }
  bool number_float(number_float_t x, const string_t&) override { return number(x); }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    keys_.back() = k;
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    violated("output is not JSON");
  }

 private:
  bool number(double x) {
    const std::string& key = keys_.empty() ? kNone : keys_.back();
    if (!std::isfinite(x)) violated("non-finite number under \"" + key + "\"");
    if (!non_negative_ || x >= 0) return true;
    const bool signed_ok = key == "kv_free_bytes_per_gpu" || key == "kv_free_bytes" ||
                           key == "headroom_bytes_per_gpu" || key == "price_delta_month_usd";
    if (everywhere_ && !signed_ok) violated("negative number under \"" + key + "\": " + std::to_string(x));
    if (keys_.size() < 2) return true;
    bool in_scope = keys_[0] == "results";
    for (std::size_t i = 1; i < keys_.size() && keys_[0] == "verdict"; ++i) in_scope = in_scope || keys_[i] == "params";
    if (in_scope && !signed_ok) violated("negative number under \"" + key + "\": " + std::to_string(x));
    return true;
  }
  inline static const std::string kNone;
  bool non_negative_;
  bool everywhere_;
  std::vector<std::string> keys_;  // the current key of each open object
};

/** Output text is one JSON document with finite numbers (and, with `non_negative`, results and
 *  verdict params >= 0), checked as a stream. */
inline void check_json_stream(const std::string& text, bool non_negative, bool everywhere = false) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) violated("raw control byte in JSON output");
  }
  NumberCheck check(non_negative, everywhere);
  if (!nlohmann::json::sax_parse(text, &check)) violated("output is not JSON: " + text.substr(0, 200));
}

/** RFC 4180 records of `csv` (CRLF lines, "" inside quotes); a malformed quote is a violation. */
inline std::vector<std::vector<std::string>> parse_csv(const std::string& csv) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    std::string& cell = records.back().back();
    if (quoted) {
      if (c != '"') cell += c;
      else if (i + 1 < csv.size() && csv[i + 1] == '"') cell += csv[++i];
      else quoted = false;
    } else if (c == '"') {
      if (!cell.empty() || was_quoted) violated("CSV: quote inside an unquoted cell");
      quoted = was_quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
      was_quoted = false;
    } else if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') {
      ++i;
      records.emplace_back(1);
      was_quoted = false;
    } else {
      if (was_quoted) violated("CSV: text after a closing quote");
      cell += c;
    }
  }
  if (quoted) violated("CSV: unterminated quote");
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();
  return records;
}

/** The core's CSV: a header and one record per result, all the same width, and no cell a
 *  spreadsheet would run as a formula (numbers may start with '-'). */
inline void check_csv(const Evaluation& ev) {
  const auto records = parse_csv(evaluation_to_csv(ev));
  if (records.size() != ev.results.size() + 1) violated("CSV: not one record per result");
  for (const auto& r : records) {
    if (r.size() != records.front().size()) violated("CSV: records of different widths");
    for (const auto& cell : r) {
      if (cell.empty() || std::string_view("=+-@\t\r").find(cell.front()) == std::string_view::npos) continue;
      char* end = nullptr;
      (void)std::strtod(cell.c_str(), &end);
      if (end == nullptr || *end != '\0') violated("CSV: formula cell " + cell.substr(0, 40));
    }
  }
}

/** The invariants on an evaluation, then on its JSON (with and without the trace). */
inline void check_evaluation(const Evaluation& ev, bool with_trace = true) {
  if (auto bad = check_output_invariants(ev)) violated(bad->to_string());
  // Results are sizes, counts, times and prices; the trace may hold any finite input.
  check_json_stream(evaluation_to_json(ev, false), true);
  if (with_trace) check_json_stream(evaluation_to_json(ev, true), false);
  check_csv(ev);
}

/** Evaluates and checks; an error must be a well-formed error object naming a field. */
inline void evaluate_and_check(const Catalog& catalog, const Scenario& scenario,
                               EvaluateOptions options = {true, true}) {
  auto ev = evaluate(catalog, scenario, options);
  if (ev) {
    check_evaluation(ev.value(), options.with_trace);
  } else {
    check_json_text(error_to_json(ev.error()), false);
  }
}

/**
 * A data document of one kind (performance, engines, kernels, error bands) replaces its part of
 * the built-in catalog; a refused one must be a well-formed error naming a field. An accepted
 * one is evaluated on one scenario, picked by the input's length so that each run costs one
 * evaluation (>= 1,000 runs a second): a dense and a MoE model, latency and speed limits, both
 * vendors and a training run, every figure, the curve and both points checked.
 */
inline void extend_and_evaluate(const uint8_t* data, size_t size, const char* source) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = extend_catalog(default_catalog(), text, source);
  if (!c) {
    check_json_text(error_to_json(c.error()), false);
    return;
  }
  static const char* const kScenarios[] = {
      "v=1&model=llama-3.1-8b&compare=fullgpu-8x-h200,fullgpu-8x-mi355x",
      "v=1&model=deepseek-v3&users=64&context=8192&compare=fullgpu-8x-mi355x",
      "v=1&model=llama-3.1-70b&ttft_max=0.5&tpot_max=0.05&interactivity=40&compare=fullgpu-8x-h200,fullgpu-8x-mi355x",
      "v=1&model=deepseek-v3&weights=fp4&users=16&compare=server-8x-b200",
      "v=1&workload=lora&model=llama-3.1-8b&compare=fullgpu-8x-h200"};
  auto s = decode_scenario(kScenarios[size % (sizeof kScenarios / sizeof kScenarios[0])]);
  if (!s) violated("a fuzz scenario does not decode: " + s.error().to_string());
  evaluate_and_check(c.value(), s.value());
}

}  // namespace gpucalc::fuzz
