// Serving-benchmark result files (bench_results.hpp); formats in
// shared/reference/benchmark-formats.md.
#include "gpucalc/bench_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "catalog/bounds.hpp"

namespace gpucalc {

namespace {

using NlohmannJson = nlohmann::json;

using detail::Bound;
using detail::out_of_bound;

/** "source" or "source:line". */
std::string where(std::string_view source, std::size_t line) {
  std::string s(source);
  if (line > 0) s += ":" + std::to_string(line);
  return s;
}

/**
 * Python's json writes Infinity, -Infinity and NaN bare (SGLang's default request rate); strict
 * JSON has no such tokens. Outside strings they become the strings "Infinity", "-Infinity",
 * "NaN", which the field readers refuse by name (or read as an unlimited rate).
 */
std::string quote_nonfinite(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size()) out += text[++i];
      else if (ch == '"') in_string = false;
      continue;
    }
    bool matched = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const std::string_view w(word);
      if (text.compare(i, w.size(), w) == 0) {
        out += '"';
        out += w;
        out += '"';
        i += w.size() - 1;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (ch == '"') in_string = true;
    out += ch;
  }
  return out;
}

bool has_nonfinite_token(std::string_view text) {
  return text.find("Infinity") != std::string_view::npos || text.find("NaN") != std::string_view::npos;
}

/** Byte offset where `text` stops being JSON (a SAX pass that only records the error). */
struct ErrorPosition : nlohmann::json_sax<NlohmannJson> {
  std::size_t position = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) override {
    position = pos;
    overflow = e.id == 406;  // nlohmann's "number overflow": a number beyond a double (1e400)
    return false;
  }
  bool overflow = false;
};

/** The key of the value at `offset` ("key": value), or "" when there is none on its line. */
std::string key_before(std::string_view text, std::size_t offset) {
  std::size_t i = std::min(offset, text.size());
  while (i > 0 && text[i - 1] != ':' && text[i - 1] != '\n') --i;
  if (i == 0 || text[i - 1] != ':') return {};
  std::size_t end = i - 1;
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  if (end < 2 || text[end - 1] != '"') return {};
  const std::size_t start = text.rfind('"', end - 2);
  if (start == std::string_view::npos || end - start > 66) return {};
  return std::string(text.substr(start + 1, end - start - 2));
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

Error json_error(std::string_view text, std::string_view source, std::size_t first_line) {
  ErrorPosition sax;
  NlohmannJson::sax_parse(text.begin(), text.end(), &sax);
  const std::size_t at = sax.position > 0 ? sax.position - 1 : 0;
  const std::size_t line = first_line + line_of(text, at) - 1;
  if (sax.overflow) {
    const std::string key = key_before(text, at);
    return make_error(ErrorCode::kOutOfRange, where(source, line) + (key.empty() ? "" : ": " + key),
                      "is a number beyond any double (a figure this large is no measurement)");
  }
  return make_error(ErrorCode::kInvalidJson, where(source, line),
                    "is not valid JSON here (truncated, or not a benchmark result file)");
}

/** Reads typed fields of one run object; the first error names the line and the field. */
class RunFields {
 public:
  RunFields(std::string_view source, std::size_t line) : source_(source), line_(line) {}
  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }

  void fail(ErrorCode code, const std::string& field, const std::string& message) {
    if (!error_) error_ = make_error(code, where(source_, line_) + ": " + field, message);
  }

  /** A number (or numeric string) at `j`, times `scale` (to the bound's unit), within `b`;
   *  empty if absent. */
  std::optional<double> number(const NlohmannJson* j, const std::string& field, double scale, const Bound& b) {
    if (j == nullptr || j->is_null()) return std::nullopt;
    double x = 0.0;
    if (j->is_number()) {
      x = j->get<double>();
    } else if (j->is_string()) {
      const std::string& s = j->get_ref<const std::string&>();
      if (s == "NaN") return fail(ErrorCode::kBadValue, field, "is NaN (not a number)"), std::nullopt;
      if (s == "Infinity" || s == "-Infinity" || s == "inf") {
        return fail(ErrorCode::kOutOfRange, field, "is infinite"), std::nullopt;
      }
      return fail(ErrorCode::kBadValue, field, "must be a number, got a string"), std::nullopt;
    } else {
      return fail(ErrorCode::kBadValue, field, "must be a number"), std::nullopt;
    }
    if (auto e = out_of_bound(where(source_, line_) + ": " + field, x * scale, b)) {
      if (!error_) error_ = std::move(e);
      return std::nullopt;
    }
    return x * scale;
  }
  std::optional<double> number(const NlohmannJson& obj, const char* key, double scale, const Bound& b) {
    const auto it = obj.find(key);
    return number(it == obj.end() ? nullptr : &*it, key, scale, b);
  }
  /** Fails naming `field` unless the derived figure `x` lies within `b`. */
  void check(const std::string& field, double x, const Bound& b) {
    if (auto e = out_of_bound(where(source_, line_) + ": " + field, x, b)) {
      if (!error_) error_ = std::move(e);
    }
  }
  std::string text(const NlohmannJson& obj, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_string()) return fail(ErrorCode::kBadValue, key, "must be a string"), std::string();
    return it->get<std::string>().substr(0, 200);
  }

 private:
  std::string_view source_;
  std::size_t line_;
  std::optional<Error> error_;
};

const NlohmannJson* at_path(const NlohmannJson& j, std::initializer_list<const char*> keys) {
  const NlohmannJson* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object()) return nullptr;
    const auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

/** First string of a string or a list of strings. */
std::string first_string(const NlohmannJson* j) {
  if (j == nullptr) return {};
  if (j->is_string()) return j->get<std::string>().substr(0, 200);
  if (j->is_array() && !j->empty() && j->front().is_string()) return j->front().get<std::string>().substr(0, 200);
  return {};
}

/** "20261130-142501" (vLLM) or "2026-11-30T14:25:01" (AIPerf) -> "2026-11-30". */
std::string iso_date(const std::string& s) {
  const auto digits = [&](std::size_t from, std::size_t n) {
    if (s.size() < from + n) return false;
    for (std::size_t i = from; i < from + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
  };
  if (digits(0, 8)) return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2);
  if (digits(0, 4) && s.size() >= 10 && s[4] == '-' && digits(5, 2) && s[7] == '-' && digits(8, 2)) {
    return s.substr(0, 10);
  }
  return {};
}

/** Per-request means from run totals (tokens / completed requests). */
void per_request_lengths(RunFields& f, const NlohmannJson& o, BenchRun& r) {
  const auto completed = f.number(o, "completed", 1.0, detail::kRunRequests);
  if (!completed || *completed < 1.0) return;
  auto in = f.number(o, "total_input_tokens", 1.0, detail::kRunTokens);
  if (!in) in = f.number(o, "total_input", 1.0, detail::kRunTokens);
  auto out = f.number(o, "total_output_tokens", 1.0, detail::kRunTokens);
  if (!out) out = f.number(o, "total_output", 1.0, detail::kRunTokens);
  if (in) r.input_tokens = *in / *completed;
  if (out) r.output_tokens = *out / *completed;
  // Per request (total / completed), within the scenario's lengths.
  if (r.input_tokens) f.check("total_input_tokens", *r.input_tokens, detail::kTokensPerRequest);
  if (r.output_tokens) f.check("total_output_tokens", *r.output_tokens, detail::kTokensPerRequest);
}

/** request_rate: a number, or "inf" / Infinity (no limit). */
void request_rate(RunFields& f, const NlohmannJson& o, BenchRun& r) {
  const auto it = o.find("request_rate");
  if (it == o.end() || it->is_null()) return;
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    if (s == "inf" || s == "Infinity" || s == "trace") return;
  }
  r.request_rate_per_s = f.number(o, "request_rate", 1.0, detail::kRequestRatePerS);
}

/** vLLM (`vllm bench serve`, benchmark_serving.py) and SGLang bench_serving: the same stem. */
void read_vllm_like(RunFields& f, const NlohmannJson& o, BenchRun& r) {
  const bool sglang = o.contains("dataset_name") || o.contains("mean_e2e_latency_ms") ||
                      o.contains("random_input_len") || o.contains("accept_length");
  r.format = sglang ? "sglang" : "vllm";
  r.model = f.text(o, "model_id");
  if (r.model.empty() && o.contains("server_info") && o.at("server_info").is_object()) {
    r.model = first_string(at_path(o, {"server_info", "model_path"}));
  }
  if (o.contains("date") && o.at("date").is_string()) r.date = iso_date(o.at("date").get<std::string>());
  r.concurrency = f.number(o, "max_concurrency", 1.0, detail::kBenchConcurrency);
  request_rate(f, o, r);
  per_request_lengths(f, o, r);
  const double ms = 1e-3;
  r.mean_ttft_s = f.number(o, "mean_ttft_ms", ms, detail::kBenchLatencyS);
  r.median_ttft_s = f.number(o, "median_ttft_ms", ms, detail::kBenchLatencyS);
  r.mean_tpot_s = f.number(o, "mean_tpot_ms", ms, detail::kBenchLatencyS);
  r.median_tpot_s = f.number(o, "median_tpot_ms", ms, detail::kBenchLatencyS);
  r.output_tokens_per_s = f.number(o, "output_throughput", 1.0, detail::kTokensPerS);
  r.total_tokens_per_s = f.number(o, "total_token_throughput", 1.0, detail::kTokensPerS);
  if (!r.total_tokens_per_s) r.total_tokens_per_s = f.number(o, "total_throughput", 1.0, detail::kTokensPerS);
  if (!r.total_tokens_per_s && r.output_tokens_per_s) {
    const auto in = f.number(o, "input_throughput", 1.0, detail::kTokensPerS);
    if (in) r.total_tokens_per_s = *in + *r.output_tokens_per_s;
  }
}

/** The unit of a genai-perf / AIPerf metric as a factor to seconds (time) or 1 (counts). */
double time_scale(const NlohmannJson& metric) {
  const auto it = metric.find("unit");
  if (it == metric.end() || !it->is_string()) return 1e-3;  // both tools write ms
  const std::string& u = it->get_ref<const std::string&>();
  if (u == "s" || u == "sec" || u == "seconds") return 1.0;
  if (u == "us") return 1e-6;
  if (u == "ns") return 1e-9;
  return 1e-3;
}

/** genai-perf and AIPerf profile export JSON: one object per metric tag. */
void read_genai_perf(RunFields& f, const NlohmannJson& o, BenchRun& r) {
  r.format = o.contains("was_cancelled") || o.contains("aiperf_version") ||
                     at_path(o, {"input_config", "loadgen"}) != nullptr
                 ? "aiperf"
                 : "genai-perf";
  // A time statistic is read in the metric's unit and bounded in seconds.
  const auto stat = [&](const char* tag, const char* stat_key, const Bound& b) -> std::optional<double> {
    const NlohmannJson* m = at_path(o, {tag});
    if (m == nullptr || !m->is_object()) return std::nullopt;
    const double scale = &b == &detail::kBenchLatencyS ? time_scale(*m) : 1.0;
    const auto it = m->find(stat_key);
    return f.number(it == m->end() ? nullptr : &*it, std::string(tag) + "." + stat_key, scale, b);
  };
  r.mean_ttft_s = stat("time_to_first_token", "avg", detail::kBenchLatencyS);
  r.median_ttft_s = stat("time_to_first_token", "p50", detail::kBenchLatencyS);
  // Their inter-token latency is (E2E - TTFT) / (OSL - 1) per request: vLLM's TPOT.
  r.mean_tpot_s = stat("inter_token_latency", "avg", detail::kBenchLatencyS);
  r.median_tpot_s = stat("inter_token_latency", "p50", detail::kBenchLatencyS);
  r.output_tokens_per_s = stat("output_token_throughput", "avg", detail::kTokensPerS);
  r.input_tokens = stat("input_sequence_length", "avg", detail::kTokensPerRequest);
  r.output_tokens = stat("output_sequence_length", "avg", detail::kTokensPerRequest);
  const NlohmannJson* cfg = at_path(o, {"input_config"});
  if (cfg != nullptr && cfg->is_object()) {
    r.model = first_string(at_path(*cfg, {"endpoint", "model_names"}));
    if (r.model.empty()) r.model = first_string(at_path(*cfg, {"model_names"}));
    if (r.model.empty()) r.model = first_string(at_path(*cfg, {"model"}));
    for (const NlohmannJson* c : {at_path(*cfg, {"loadgen", "concurrency"}),
                          at_path(*cfg, {"perf_analyzer", "stimulus", "concurrency"}),
                          at_path(*cfg, {"concurrency"})}) {
      if (c != nullptr && !r.concurrency) r.concurrency = f.number(c, "input_config.concurrency", 1.0, detail::kBenchConcurrency);
    }
    if (!r.input_tokens) {
      for (const NlohmannJson* c : {at_path(*cfg, {"input", "prompt", "input_tokens", "mean"}),
                            at_path(*cfg, {"input", "synthetic_tokens", "mean"}),
                            at_path(*cfg, {"synthetic_input_tokens_mean"})}) {
        if (c != nullptr && !r.input_tokens) r.input_tokens = f.number(c, "input_config input tokens mean", 1.0, detail::kTokensPerRequest);
      }
    }
    if (!r.output_tokens) {
      for (const NlohmannJson* c : {at_path(*cfg, {"input", "prompt", "output_tokens", "mean"}),
                            at_path(*cfg, {"input", "output_tokens", "mean"}),
                            at_path(*cfg, {"output_tokens_mean"})}) {
        if (c != nullptr && !r.output_tokens) r.output_tokens = f.number(c, "input_config output tokens mean", 1.0, detail::kTokensPerRequest);
      }
    }
  }
  if (o.contains("start_time") && o.at("start_time").is_string()) r.date = iso_date(o.at("start_time").get<std::string>());
}

/** InferenceX agg row (process_result.py): latencies in seconds, throughput per GPU. */
void read_inferencex_agg(RunFields& f, const NlohmannJson& o, BenchRun& r) {
  r.format = "inferencex";
  r.model = f.text(o, "model");
  r.gpu = f.text(o, "hw");
  r.engine = f.text(o, "framework");
  r.weights = f.text(o, "precision");
  r.spec_decode = f.text(o, "spec_decoding");
  r.concurrency = f.number(o, "conc", 1.0, detail::kBenchConcurrency);
  // isl / osl are nominal: requests are drawn in [0.8 L, L], so the mean is 0.9 L.
  if (const auto isl = f.number(o, "isl", 1.0, detail::kTokensPerRequest)) r.input_tokens = 0.9 * *isl;
  if (const auto osl = f.number(o, "osl", 1.0, detail::kTokensPerRequest)) r.output_tokens = 0.9 * *osl;
  if (const auto tp = f.number(o, "tp", 1.0, detail::kParallelDegree)) r.tp = static_cast<int>(*tp);
  if (const auto ep = f.number(o, "ep", 1.0, detail::kParallelDegree)) r.ep = static_cast<int>(*ep);
  if (o.contains("dp_attention")) {
    const NlohmannJson& d = o.at("dp_attention");
    r.dp_attention = (d.is_boolean() && d.get<bool>()) || (d.is_string() && d.get<std::string>() == "true") ? 1 : 0;
  }
  r.mean_ttft_s = f.number(o, "mean_ttft", 1.0, detail::kBenchLatencyS);
  r.median_ttft_s = f.number(o, "median_ttft", 1.0, detail::kBenchLatencyS);
  r.mean_tpot_s = f.number(o, "mean_tpot", 1.0, detail::kBenchLatencyS);
  r.median_tpot_s = f.number(o, "median_tpot", 1.0, detail::kBenchLatencyS);
  r.total_tokens_per_s_per_gpu = f.number(o, "tput_per_gpu", 1.0, detail::kTokensPerS);
}

Result<BenchRun> read_run_object(const NlohmannJson& o, std::string_view source, std::size_t line) {
  RunFields f(source, line);
  BenchRun r;
  r.source = where(source, line);
  if (!o.is_object()) {
    return make_error(ErrorCode::kBadValue, r.source, "must be a JSON object (one benchmark run)");
  }
  if (o.contains("hw") && o.contains("conc")) {
    read_inferencex_agg(f, o, r);
  } else if (o.contains("time_to_first_token") || o.contains("inter_token_latency") ||
             (o.contains("request_throughput") && o.at("request_throughput").is_object())) {
    read_genai_perf(f, o, r);
  } else if (o.contains("completed") || o.contains("mean_ttft_ms") || o.contains("median_ttft_ms")) {
    read_vllm_like(f, o, r);
  } else {
    return make_error(ErrorCode::kBadValue, r.source,
                      "is not a known benchmark result (vLLM or SGLang bench serving, genai-perf, "
                      "AIPerf or InferenceX): no completed, mean_ttft_ms, time_to_first_token or hw");
  }
  if (!f.ok()) return f.error();
  if (!r.mean_ttft_s && !r.median_ttft_s && !r.mean_tpot_s && !r.median_tpot_s &&
      !r.total_tokens_per_s && !r.output_tokens_per_s && !r.total_tokens_per_s_per_gpu) {
    return make_error(ErrorCode::kBadValue, r.source,
                      "has no TTFT, TPOT or throughput figure (was the benchmark run with a "
                      "tokenizer and --percentile-metrics?)");
  }
  return r;
}

// ---------------------------------------------------------------- CSV

/** One CSV record's fields (RFC 4180 quotes); false when a quote is left open. */
bool split_csv_line(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cur += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(std::move(cur));
  return !quoted;
}

/** A CSV cell as a number: "" / "N/A" empty; genai-perf's "1,234.56" read without commas. */
std::optional<double> csv_number(RunFields& f, const std::string& cell, const std::string& field,
                                 double scale, const Bound& b) {
  std::string s;
  for (char ch : cell) {
    if (ch != ',' && ch != ' ') s += ch;
  }
  if (s.empty() || s == "N/A") return std::nullopt;
  if (s == "nan" || s == "NaN") return f.fail(ErrorCode::kBadValue, field, "is NaN (not a number)"), std::nullopt;
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    f.fail(ErrorCode::kBadValue, field, "must be a number");
    return std::nullopt;
  }
  if (!std::isfinite(x)) {
    f.fail(ErrorCode::kOutOfRange, field, "is infinite or beyond a double");
    return std::nullopt;
  }
  const NlohmannJson j(x);
  return f.number(&j, field, scale, b);
}

struct CsvLine {
  std::size_t number = 0;
  std::string_view text;
};

std::vector<CsvLine> lines_of(std::string_view text) {
  std::vector<CsvLine> lines;
  std::size_t start = 0, n = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++n;
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!l.empty()) lines.push_back({n, l});
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

/** InferenceX-style rows: the columns of shared/reference/serving-measured.csv. */
Result<std::vector<BenchRun>> read_inferencex_csv(const std::vector<CsvLine>& lines,
                                                  std::string_view source) {
  std::vector<std::string> header, cells;
  split_csv_line(lines[0].text, header);
  const auto col = [&](const char* name) -> int {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
  };
  for (const char* need : {"gpu", "model", "weights", "engine", "tp", "isl", "osl", "concurrency"}) {
    if (col(need) < 0) {
      return make_error(ErrorCode::kBadValue, where(source, lines[0].number) + ": " + need,
                        "column is missing (InferenceX rows need gpu, model, weights, engine, tp, "
                        "isl, osl, concurrency)");
    }
  }
  // Column of each field, found once.
  const char* const kColumns[] = {"date", "gpu", "model", "weights", "engine", "engine_version",
                                  "spec_decode", "tp", "ep", "dp_attention", "isl", "osl",
                                  "concurrency", "total_tokens_per_s_per_gpu", "mean_ttft_s",
                                  "median_ttft_s", "mean_tpot_s", "median_tpot_s"};
  std::vector<std::pair<std::string_view, int>> columns;
  for (const char* name : kColumns) columns.emplace_back(name, col(name));
  std::vector<BenchRun> runs;
  runs.reserve(lines.size() - 1);
  for (std::size_t k = 1; k < lines.size(); ++k) {
    if (runs.size() >= kMaxBenchRuns) {
      return make_error(ErrorCode::kTooLarge, std::string(source), "holds more than 200,000 runs");
    }
    RunFields f(source, lines[k].number);
    if (!split_csv_line(lines[k].text, cells)) {
      return make_error(ErrorCode::kBadValue, where(source, lines[k].number), "has a quote that is not closed");
    }
    if (cells.size() != header.size()) {
      return make_error(ErrorCode::kBadValue, where(source, lines[k].number),
                        "has " + std::to_string(cells.size()) + " cells; the header has " +
                            std::to_string(header.size()) + " (truncated?)");
    }
    const auto cell = [&](std::string_view name) -> const std::string& {
      static const std::string kEmpty;
      for (const auto& [column, i] : columns) {
        if (column == name) return i < 0 ? kEmpty : cells[static_cast<std::size_t>(i)];
      }
      return kEmpty;
    };
    const auto num = [&](const char* name, const Bound& b) { return csv_number(f, cell(name), name, 1.0, b); };
    BenchRun r;
    r.source = where(source, lines[k].number);
    r.format = "inferencex";
    r.date = iso_date(cell("date"));
    r.gpu = cell("gpu").substr(0, 64);
    r.model = cell("model").substr(0, 200);
    r.weights = cell("weights").substr(0, 32);
    r.engine = cell("engine").substr(0, 32);
    r.engine_version = cell("engine_version").substr(0, 100);
    r.spec_decode = cell("spec_decode").substr(0, 32);
    const auto tp = num("tp", detail::kParallelDegree), ep = num("ep", detail::kParallelDegree), dpa = num("dp_attention", detail::kFlag);
    const auto isl = num("isl", detail::kTokensPerRequest), osl = num("osl", detail::kTokensPerRequest);
    r.concurrency = num("concurrency", detail::kBenchConcurrency);
    r.total_tokens_per_s_per_gpu = num("total_tokens_per_s_per_gpu", detail::kTokensPerS);
    r.mean_ttft_s = num("mean_ttft_s", detail::kBenchLatencyS);
    r.median_ttft_s = num("median_ttft_s", detail::kBenchLatencyS);
    r.mean_tpot_s = num("mean_tpot_s", detail::kBenchLatencyS);
    r.median_tpot_s = num("median_tpot_s", detail::kBenchLatencyS);
    if (!f.ok()) return f.error();
    if (!tp || *tp < 1 || !isl || *isl < 1 || !osl || *osl < 1 || !r.concurrency || *r.concurrency < 1) {
      return make_error(ErrorCode::kBadValue, r.source, "needs tp, isl, osl and concurrency of at least 1");
    }
    r.tp = static_cast<int>(*tp);
    r.ep = ep ? std::max(1, static_cast<int>(*ep)) : 1;
    r.dp_attention = dpa ? static_cast<int>(*dpa) : 0;
    // Nominal lengths; requests are drawn in [0.8 L, L], the mean request is 0.9 L.
    r.input_tokens = 0.9 * *isl;
    r.output_tokens = 0.9 * *osl;
    runs.push_back(std::move(r));
  }
  return runs;
}

/** genai-perf / AIPerf profile export CSV: section 1 statistics, section 2 Metric,Value. */
Result<std::vector<BenchRun>> read_genai_perf_csv(const std::vector<CsvLine>& lines,
                                                  std::string_view source) {
  BenchRun r;
  r.source = std::string(source);
  r.format = "genai-perf";
  std::vector<std::string> header, cells;
  int avg = -1, p50 = -1;
  for (const CsvLine& line : lines) {
    if (!split_csv_line(line.text, cells)) {
      return make_error(ErrorCode::kBadValue, where(source, line.number), "has a quote that is not closed");
    }
    if (cells.empty()) continue;
    if (cells[0] == "Metric") {
      header = cells;
      avg = p50 = -1;
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "avg" || header[i] == "Value") avg = static_cast<int>(i);
        if (header[i] == "p50") p50 = static_cast<int>(i);
      }
      if (header.size() > 13 && header.back() == "std") r.format = "aiperf";
      continue;
    }
    if (header.empty()) continue;
    RunFields f(source, line.number);
    const auto stat = [&](int i, double scale, const Bound& b) -> std::optional<double> {
      if (i < 0 || static_cast<std::size_t>(i) >= cells.size()) return std::nullopt;
      return csv_number(f, cells[static_cast<std::size_t>(i)], cells[0], scale, b);
    };
    std::string name = cells[0];
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const double ms = 1e-3;
    if (name.rfind("time to first token", 0) == 0) {
      r.mean_ttft_s = stat(avg, ms, detail::kBenchLatencyS);
      r.median_ttft_s = stat(p50, ms, detail::kBenchLatencyS);
    } else if (name.rfind("inter token latency", 0) == 0) {
      r.mean_tpot_s = stat(avg, ms, detail::kBenchLatencyS);
      r.median_tpot_s = stat(p50, ms, detail::kBenchLatencyS);
    } else if (name.rfind("input sequence length", 0) == 0) {
      r.input_tokens = stat(avg, 1.0, detail::kTokensPerRequest);
    } else if (name.rfind("output sequence length", 0) == 0) {
      r.output_tokens = stat(avg, 1.0, detail::kTokensPerRequest);
    } else if (name.rfind("output token throughput (", 0) == 0 && name.find("user") == std::string::npos &&
               name.find("request") == std::string::npos) {
      r.output_tokens_per_s = stat(avg, 1.0, detail::kTokensPerS);
    }
    if (!f.ok()) return f.error();
  }
  if (!r.mean_ttft_s && !r.mean_tpot_s && !r.output_tokens_per_s) {
    return make_error(ErrorCode::kBadValue, std::string(source),
                      "has no Time To First Token, Inter Token Latency or Output Token Throughput row");
  }
  return std::vector<BenchRun>{std::move(r)};
}

}  // namespace

Result<std::vector<BenchRun>> parse_bench_results(std::string_view text, std::string_view source) {
  if (text.size() > kMaxBenchFileBytes) {
    return make_error(ErrorCode::kTooLarge, std::string(source), "is larger than 64 MB");
  }
  std::size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\n' || text[first] == '\r' ||
                                 text[first] == '\t')) {
    ++first;
  }
  if (first == text.size()) return make_error(ErrorCode::kBadValue, std::string(source), "is empty");
  if (text[first] != '{' && text[first] != '[') {
    const std::vector<CsvLine> lines = lines_of(text);
    if (lines[0].text.rfind("Metric,", 0) == 0) return read_genai_perf_csv(lines, source);
    if (lines[0].text.find("concurrency") != std::string_view::npos && lines.size() >= 2) {
      return read_inferencex_csv(lines, source);
    }
    return make_error(ErrorCode::kBadValue, where(source, 1),
                      "is neither JSON nor a known CSV (genai-perf / AIPerf \"Metric,...\" or "
                      "InferenceX rows with a concurrency column)");
  }
  std::string quoted;
  if (has_nonfinite_token(text)) {
    quoted = quote_nonfinite(text);
    text = quoted;
  }
  std::vector<BenchRun> runs;
  NlohmannJson doc = NlohmannJson::parse(text.begin(), text.end(), nullptr, false);
  if (!doc.is_discarded()) {
    if (doc.is_array()) {
      if (doc.size() > kMaxBenchRuns) {
        return make_error(ErrorCode::kTooLarge, std::string(source), "holds more than 200,000 runs");
      }
      std::size_t i = 0;
      for (const NlohmannJson& o : doc) {
        auto r = read_run_object(o, std::string(source) + "[" + std::to_string(i++) + "]", 0);
        if (!r) return r.error();
        runs.push_back(std::move(r).value());
      }
      if (runs.empty()) return make_error(ErrorCode::kBadValue, std::string(source), "holds no runs");
      return runs;
    }
    auto r = read_run_object(doc, source, 0);
    if (!r) return r.error();
    runs.push_back(std::move(r).value());
    return runs;
  }
  // JSON Lines (SGLang, vLLM --append-result): one run object per line, the first one whole.
  const std::vector<CsvLine> lines = lines_of(text);
  if (lines.size() < 2 ||
      NlohmannJson::parse(lines[0].text.begin(), lines[0].text.end(), nullptr, false).is_discarded()) {
    return json_error(text, source, 1);
  }
  for (const CsvLine& line : lines) {
    if (runs.size() >= kMaxBenchRuns) {
      return make_error(ErrorCode::kTooLarge, std::string(source), "holds more than 200,000 runs");
    }
    const NlohmannJson o = NlohmannJson::parse(line.text.begin(), line.text.end(), nullptr, false);
    if (o.is_discarded()) return json_error(line.text, source, line.number);
    auto r = read_run_object(o, source, line.number);
    if (!r) return r.error();
    runs.push_back(std::move(r).value());
  }
  return runs;
}

}  // namespace gpucalc
