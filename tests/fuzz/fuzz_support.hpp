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

// The checks below are the oracle, not code under test: they are built without libFuzzer's
// coverage instrumentation (ASan and UBSan still watch them). Their branches only told libFuzzer
// what the writers' own coverage already does, and the comparison callbacks on every byte they
// read were a third of a printers run.
#if defined(__clang__)
#define GPUCALC_FUZZ_ORACLE __attribute__((no_sanitize("coverage")))
#else
#define GPUCALC_FUZZ_ORACLE
#endif

namespace gpucalc::fuzz {

[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz: invariant violated: %s\n", what.c_str());
  std::abort();
}

/** The keys under which a number may be negative: differences and free or spare room. */
GPUCALC_FUZZ_ORACLE inline bool signed_key(std::string_view key) {
  return key == "kv_free_bytes_per_gpu" || key == "kv_free_bytes" ||
         key == "headroom_bytes_per_gpu" || key == "price_delta_month_usd";
}

/** Every number finite; with `non_negative`, also >= 0 except under the keys of differences. */
GPUCALC_FUZZ_ORACLE inline void check_numbers(const nlohmann::json& j, bool non_negative, const std::string& key = {}) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_numbers(*it, non_negative, it.key());
  } else if (j.is_array()) {
    for (const auto& v : j) check_numbers(v, non_negative, key);
  } else if (j.is_number()) {
    const double x = j.get<double>();
    if (!std::isfinite(x)) violated("non-finite number under \"" + key + "\"");
    if (non_negative && x < 0 && !signed_key(key)) {
      violated("negative number under \"" + key + "\": " + std::to_string(x));
    }
  }
}

/** Output text is one JSON document (the writers never emit NaN, inf or raw control bytes). */
GPUCALC_FUZZ_ORACLE inline nlohmann::json check_json_text(const std::string& text, bool non_negative) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) violated("raw control byte in JSON output");
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) violated("output is not JSON: " + text.substr(0, 200));
  check_numbers(j, non_negative);
  return j;
}

/** The length of the well-formed UTF-8 sequence (RFC 3629: no overlong form, no surrogate) that
 *  starts at text[i]; 0 when none does. */
GPUCALC_FUZZ_ORACLE inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  unsigned char lo = 0x80, hi = 0xbf;
  std::size_t more = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) more = 1;
  else if (lead == 0xe0) more = 2, lo = 0xa0;
  else if (lead == 0xed) more = 2, hi = 0x9f;
  else if (lead >= 0xe1 && lead <= 0xef) more = 2;
  else if (lead == 0xf0) more = 3, lo = 0x90;
  else if (lead == 0xf4) more = 3, hi = 0x8f;
  else if (lead >= 0xf1 && lead <= 0xf3) more = 3;
  else return 0;
  for (std::size_t k = 1; k <= more; ++k, lo = 0x80, hi = 0xbf) {
    if (i + k >= text.size()) return 0;
    const auto c = static_cast<unsigned char>(text[i + k]);
    if (c < lo || c > hi) return 0;
  }
  return more + 1;
}

/**
 * The same checks as check_json_text and check_numbers in one pass over the text, without
 * building a document: strict RFC 8259 grammar (what nlohmann's parser accepts: escapes, \u
 * surrogate pairs, well-formed UTF-8, no trailing text), every number finite, and with
 * `non_negative` the numbers under "results" and under a verdict's "params" >= 0, except the
 * differences. nlohmann's SAX parser did the same at 40-80 ns a byte under the sanitizers (most
 * of a printers run); this reads a byte in a few.
 */
class JsonCheck {
 public:
  /** `everywhere`: the non-negative rule covers every number (listings), not only results. */
  JsonCheck(std::string_view text, bool non_negative, bool everywhere)
      : text_(text), non_negative_(non_negative), everywhere_(everywhere) {}

  /** False when the text is not one JSON document; a bad number aborts (violated). */
  GPUCALC_FUZZ_ORACLE bool run() {
    if (!value()) return false;
    skip_space();
    return pos_ == text_.size();
  }

 private:
  [[nodiscard]] GPUCALC_FUZZ_ORACLE bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] GPUCALC_FUZZ_ORACLE unsigned char peek() const {
    return at_end() ? 0 : static_cast<unsigned char>(text_[pos_]);
  }
  GPUCALC_FUZZ_ORACLE void skip_space() {
    // Tab, newline and carriage return are refused before (no raw control byte).
    while (!at_end() && text_[pos_] == ' ') ++pos_;
  }
  GPUCALC_FUZZ_ORACLE bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  GPUCALC_FUZZ_ORACLE bool value() {
    skip_space();
    switch (peek()) {
      case '{': return object();
      case '[': return array();
      case '"': return string(nullptr);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  GPUCALC_FUZZ_ORACLE bool object() {
    ++pos_;  // '{'
    keys_.emplace_back();
    skip_space();
    if (peek() == '}') {
      ++pos_;
      keys_.pop_back();
      return true;
    }
    for (;;) {
      skip_space();
      if (peek() != '"' || !string(&keys_.back())) return false;
      skip_space();
      if (peek() != ':') return false;
      ++pos_;
      if (!value()) return false;
      skip_space();
      const unsigned char c = peek();
      ++pos_;
      if (c == '}') break;
      if (c != ',') return false;
    }
    keys_.pop_back();
    return true;
  }

  GPUCALC_FUZZ_ORACLE bool array() {
    ++pos_;  // '['
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      if (!value()) return false;
      skip_space();
      const unsigned char c = peek();
      ++pos_;
      if (c == ']') return true;
      if (c != ',') return false;
    }
  }

  /** Four hex digits after "\u"; -1 when they are not. */
  GPUCALC_FUZZ_ORACLE long hex4() {
    if (text_.size() - pos_ < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      v *= 16;
      if (c >= '0' && c <= '9') v += c - '0';
      else if (c >= 'a' && c <= 'f') v += c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v += c - 'A' + 10;
      else return -1;
    }
    return v;
  }

  /** Appends code point `cp` to `out` as UTF-8. */
  GPUCALC_FUZZ_ORACLE static void append_utf8(std::string& out, long cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  /** A string; with `key`, its decoded text is kept there (the keys decide the sign rule). */
  GPUCALC_FUZZ_ORACLE bool string(std::string* key) {
    ++pos_;  // '"'
    if (key != nullptr) key->clear();
    std::size_t run = pos_;  // start of the bytes not yet copied into `key`
    for (;;) {
      if (at_end()) return false;
      const unsigned char c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') break;
      if (c >= 0x80) {
        const std::size_t n = utf8_sequence_length(text_, pos_ - 1);
        if (n == 0) return false;
        pos_ += n - 1;
      } else if (c == '\\') {
        if (key != nullptr) key->append(text_.substr(run, pos_ - 1 - run));
        if (at_end()) return false;
        const char e = text_[pos_++];
        long cp = e;
        if (e == 'u') {
          cp = hex4();
          if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff)) return false;
          if (cp >= 0xd800 && cp <= 0xdbff) {
            if (!literal("\\u")) return false;
            const long low = hex4();
            if (low < 0xdc00 || low > 0xdfff) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          }
        } else {
          const std::string_view escapes = "\"\\/bfnrt", decoded = "\"\\/\b\f\n\r\t";
          const std::size_t k = escapes.find(e);
          if (k == std::string_view::npos) return false;
          cp = decoded[k];
        }
        if (key != nullptr) append_utf8(*key, cp);
        run = pos_;
      }
    }
    if (key != nullptr) key->append(text_.substr(run, pos_ - 1 - run));
    return true;
  }

  GPUCALC_FUZZ_ORACLE bool digits() {
    const std::size_t begin = pos_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    return pos_ > begin;
  }

  GPUCALC_FUZZ_ORACLE bool number() {
    const std::size_t begin = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') ++pos_;
    else if (!digits()) return false;
    if (peek() == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits()) return false;
    }
    const std::string token(text_.substr(begin, pos_ - begin));
    check_number(std::strtod(token.c_str(), nullptr));
    return true;
  }

  GPUCALC_FUZZ_ORACLE void check_number(double x) {
    const std::string& key = keys_.empty() ? kNone : keys_.back();
    if (!std::isfinite(x)) violated("non-finite number under \"" + key + "\"");
    if (!non_negative_ || x >= 0 || signed_key(key)) return;
    if (everywhere_) violated("negative number under \"" + key + "\": " + std::to_string(x));
    if (keys_.size() < 2) return;
    bool in_scope = keys_[0] == "results";
    for (std::size_t i = 1; i < keys_.size() && keys_[0] == "verdict"; ++i) in_scope = in_scope || keys_[i] == "params";
    if (in_scope) violated("negative number under \"" + key + "\": " + std::to_string(x));
  }

  inline static const std::string kNone;
  std::string_view text_;
  std::size_t pos_ = 0;
  bool non_negative_;
  bool everywhere_;
  std::vector<std::string> keys_;  // the current key of each open object
};

/** Output text is one JSON document with finite numbers (and, with `non_negative`, results and
 *  verdict params >= 0), checked as a stream. */
GPUCALC_FUZZ_ORACLE inline void check_json_stream(const std::string& text, bool non_negative, bool everywhere = false) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) violated("raw control byte in JSON output");
  }
  if (!JsonCheck(text, non_negative, everywhere).run()) violated("output is not JSON: " + text.substr(0, 200));
}

/** RFC 4180 records of `csv` (CRLF lines, "" inside quotes); a malformed quote is a violation.
 *  Runs of plain bytes are copied whole (a byte at a time was a tenth of a printers run). */
GPUCALC_FUZZ_ORACLE inline std::vector<std::vector<std::string>> parse_csv(const std::string& csv) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false, was_quoted = false;
  std::size_t i = 0;
  while (i < csv.size()) {
    std::string& cell = records.back().back();
    if (quoted) {
      const std::size_t q = csv.find('"', i);
      if (q == std::string::npos) break;  // unterminated
      cell.append(csv, i, q - i);
      if (q + 1 < csv.size() && csv[q + 1] == '"') {
        cell += '"';
        i = q + 2;
      } else {
        quoted = false;
        i = q + 1;
      }
      continue;
    }
    const char c = csv[i];
    if (c == '"') {
      if (!cell.empty() || was_quoted) violated("CSV: quote inside an unquoted cell");
      quoted = was_quoted = true;
      ++i;
    } else if (c == ',') {
      records.back().emplace_back();
      was_quoted = false;
      ++i;
    } else if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') {
      records.emplace_back(1);
      was_quoted = false;
      i += 2;
    } else {
      if (was_quoted) violated("CSV: text after a closing quote");
      // Up to the next comma, quote or CR; a CR without LF is a plain byte.
      std::size_t end = csv.find_first_of(",\"\r", i + 1);
      if (end == std::string::npos) end = csv.size();
      cell.append(csv, i, end - i);
      i = end;
    }
  }
  if (quoted) violated("CSV: unterminated quote");
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();
  return records;
}

/** The core's CSV: a header and one record per result, all the same width, and no cell a
 *  spreadsheet would run as a formula (numbers may start with '-'). */
GPUCALC_FUZZ_ORACLE inline void check_csv(const Evaluation& ev) {
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
    check_json_stream(error_to_json(ev.error()), false);
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
    check_json_stream(error_to_json(c.error()), false);
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
