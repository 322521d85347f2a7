// gpucalc: the native command line. Reads files, calls the core, prints; all formulas are in core/.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/units.hpp"
#if __has_include("gpucalc/validation.hpp")
#include "gpucalc/validation.hpp"
#define GPUCALC_HAVE_VALIDATION 1
#endif

namespace {

using gpucalc::Catalog;
using gpucalc::Error;
using gpucalc::ErrorCode;
using Json = nlohmann::ordered_json;

constexpr const char* kUsage = R"(usage: gpucalc [options] 'SCENARIO'
       gpucalc --list gpus|models|offerings [--format table|json]
       gpucalc --fit-table ['SCENARIO'] [--format json]
       gpucalc --validate [--format table|json]
       gpucalc --keys

Compares GPU offerings for a model: what fits, how fast, what it costs.
SCENARIO is the canonical key=value&... string the web page keeps in its URL,
e.g. 'v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-mi355x,fullgpu-8x-h200'.
SCENARIO '-' reads it from standard input.
Every key has a default ('v=1' alone is the default comparison); --keys lists them.

options:
  --format table|json|csv   output format (default table)
  --explain                 show the formula and inputs behind every figure
  --catalog FILE.json       replace or extend the built-in catalog (repeatable); a
                            calibration record from the microbenchmark is accepted too
  --hf-config FILE --model-id ID
                            import a Hugging Face config.json as model ID
  --help, --version
exit status: 0 ok, 2 bad input (one line on stderr), 1 other failure
)";

[[noreturn]] void fail(const std::string& message, int status = 2) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  std::fprintf(stderr, "gpucalc: error: %s\n", line.c_str());
  std::exit(status);
}

[[noreturn]] void fail(const Error& e) { fail(e.to_string()); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (ss.str().size() > gpucalc::kMaxJsonTextBytes) fail(path + ": is larger than 16 MiB");
  return ss.str();
}

std::string fmt(double x, int decimals) {
  if (!std::isfinite(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  // thousands separators for the integer part
  std::string s = buf;
  const std::size_t dot = s.find('.');
  std::size_t end = dot == std::string::npos ? s.size() : dot;
  const std::size_t start = (s[0] == '-') ? 1 : 0;
  for (std::size_t i = end; i > start + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}
std::string fmt_opt(const std::optional<double>& x, int decimals, const char* prefix = "",
                    const char* suffix = "") {
  if (!x || !std::isfinite(*x)) return "-";
  return (*x < 0 ? "-" : "") + std::string(prefix) + fmt(std::fabs(*x), decimals) + suffix;
}
std::string gb(double bytes) { return fmt(bytes / gpucalc::kBytesPerGB, 2) + " GB"; }

void print_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], r[i].size());
    }
  };
  measure(header);
  for (const auto& r : rows) measure(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (std::size_t i = 0; i < r.size(); ++i) {
      out += r[i];
      if (i + 1 < r.size()) out += std::string(width[i] - r[i].size() + 2, ' ');
    }
    std::cout << out << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

void print_evaluation_table(const gpucalc::Evaluation& ev, bool explain) {
  std::cout << "scenario: " << ev.canonical << "\n";
  std::cout << "model: " << ev.model.name << " (" << fmt(ev.model.params_total / 1e9, 2)
            << "B parameters, " << fmt(ev.model.params_active / 1e9, 2) << "B active)\n";
  std::cout << "capacity basis: " << gpucalc::capacity_basis_name(ev.scenario.capacity) << "\n\n";
  std::vector<std::string> header = {""};
  for (const auto& r : ev.results) header.push_back(r.offering_name);
  std::vector<std::vector<std::string>> rows;
  auto row = [&](const std::string& label, auto get) {
    std::vector<std::string> cells = {label};
    for (const auto& r : ev.results) cells.push_back(get(r));
    rows.push_back(cells);
  };
  using R = gpucalc::OfferingResult;
  row("GPU", [](const R& r) { return std::to_string(r.gpu_count) + " x " + r.gpu_name; });
  row("HBM per GPU", [](const R& r) { return gb(r.fit.capacity_bytes_per_gpu) + (r.capacity_assumed ? " (GiB assumed)" : ""); });
  row("reserve per GPU", [](const R& r) { return gb(r.fit.reserve_bytes_per_gpu); });
  row("weights", [](const R& r) { return gb(r.fit.weights_bytes); });
  row("KV per token", [](const R& r) { return fmt(r.fit.kv_bytes_per_token, 0) + " B"; });
  row("KV per full context", [](const R& r) { return gb(r.fit.kv_bytes_per_context); });
  row("GPUs needed (weights only)", [](const R& r) { return std::to_string(r.fit.gpus_needed_weights_only); });
  row("GPUs needed (weights+KV+reserve)", [](const R& r) { return r.fit.gpus_needed > 0 ? std::to_string(r.fit.gpus_needed) : std::string("more than 1024"); });
  row("fits", [](const R& r) { return r.fit.fits ? std::string("yes") : std::string("no (") + r.fit.reason + ")"; });
  row("instance (TP x PP) x replicas", [](const R& r) {
    return std::to_string(r.fit.deployment.tensor_parallel) + " x " + std::to_string(r.fit.deployment.pipeline_parallel) + " x " + std::to_string(r.fit.replicas); });
  row("free for KV per GPU", [](const R& r) { return gb(r.fit.kv_free_bytes_per_gpu); });
  row("free for KV, offering", [](const R& r) { return gb(r.fit.kv_free_bytes); });
  row("full contexts per instance", [](const R& r) { return std::to_string(r.fit.full_contexts_per_instance); });
  row("full contexts, offering", [](const R& r) { return std::to_string(r.fit.full_contexts); });
  row("longest context for users", [](const R& r) { return fmt(static_cast<double>(r.fit.max_context_tokens), 0) + " tokens"; });
  row("price per month", [](const R& r) { return fmt_opt(r.price_usd_per_month, 0, "US$"); });
  row("per GPU-hour", [](const R& r) { return fmt_opt(r.price_usd_per_gpu_hour, 2, "US$"); });
  row("per GB of HBM per month", [](const R& r) { return fmt_opt(r.price_usd_per_gb_month, 2, "US$"); });
  row("vs first, per month", [](const R& r) { return fmt_opt(r.price_delta_usd_per_month, 0, "US$"); });
  if (ev.scenario.workload == gpucalc::Workload::kInference) {
    row("max throughput (output tok/s)", [](const R& r) { return fmt_opt(r.max_throughput_tokens_per_s, 0); });
    row("decode tok/s per user", [](const R& r) { return fmt_opt(r.decode_tokens_per_s_per_user, 1); });
    row("TTFT", [](const R& r) { return fmt_opt(r.ttft_s, 3, "", " s"); });
    row("TPOT", [](const R& r) { return r.tpot_s ? fmt(*r.tpot_s * 1000.0, 2) + " ms" : "-"; });
    row("US$ per million tokens", [](const R& r) { return fmt_opt(r.usd_per_million_tokens, 3, "US$"); });
  } else {
    row("training tokens/s", [](const R& r) { return fmt_opt(r.train_tokens_per_s, 0); });
    row("memory per GPU", [](const R& r) { return r.train_memory_bytes_per_gpu ? gb(*r.train_memory_bytes_per_gpu) : "-"; });
    row("hours to budget", [](const R& r) { return fmt_opt(r.train_hours, 2); });
    row("GPU-hours", [](const R& r) { return fmt_opt(r.gpu_hours, 1); });
    row("cost of the run", [](const R& r) { return fmt_opt(r.run_cost_usd, 0, "US$"); });
  }
  row("rates", [](const R& r) { return r.rates_label.empty() ? std::string("-") : r.rates_label; });
  print_table(header, rows);
  if (!ev.verdict.empty()) {
    std::cout << "\nverdict:\n";
    for (const auto& v : ev.verdict) {
      std::string params;
      for (const auto& [k, x] : v.params) params += " " + k + "=" + fmt(x, 2);
      std::cout << "  [" << v.kind << "] " << v.offering_id << ": " << v.code << params << "\n";
    }
  }
  if (!ev.recommended_offering_id.empty()) {
    std::cout << "recommended: " << ev.recommended_offering_id << " (by " << ev.recommendation_basis << ")\n";
  }
  for (const auto& r : ev.results) {
    for (const auto& w : r.warnings) std::cout << "warning: " << r.offering_id << ": " << w << "\n";
  }
  if (explain) {
    for (const auto& r : ev.results) {
      std::cout << "\n" << r.offering_name << "\n";
      for (const auto& t : r.trace) {
        std::cout << "  " << t.field << " = " << t.formula << "\n";
        for (const auto& [k, x] : t.inputs) std::cout << "      " << k << " = " << fmt(x, x == std::floor(x) ? 0 : 6) << "\n";
        if (!t.note.empty()) std::cout << "      note: " << t.note << "\n";
      }
    }
  }
}

void print_csv(const std::string& json_text) {
  const Json j = Json::parse(json_text, nullptr, false);
  const Json& results = j["results"];
  if (results.empty()) return;
  std::vector<std::string> keys;
  for (const auto& [k, v] : results[0].items()) {
    if (!v.is_object() && !v.is_array()) keys.push_back(k);
  }
  std::string line = "scenario";
  for (const auto& k : keys) line += "," + k;
  std::cout << line << "\n";
  for (const auto& r : results) {
    line = "\"" + j["scenario"].get<std::string>() + "\"";
    for (const auto& k : keys) {
      const Json& v = r[k];
      line += ",";
      if (v.is_string()) line += "\"" + v.get<std::string>() + "\"";
      else if (!v.is_null()) line += v.dump();
    }
    std::cout << line << "\n";
  }
}

void list_catalog(const Catalog& catalog, const std::string& what, const std::string& format) {
  auto listed = gpucalc::catalog_to_json(catalog, what);
  if (!listed) fail(listed.error());
  if (format == "json") {
    std::cout << listed.value() << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows;
  if (what == "gpus") {
    for (const auto& g : catalog.gpus) {
      auto peak = [&](gpucalc::Precision p) {
        const auto& v = g.peak_flops_per_s[gpucalc::index_of(p)];
        return v ? fmt(*v / 1e12, 0) : std::string("-");
      };
      rows.push_back({g.id, g.name, g.architecture, fmt(g.hbm_marketed_bytes / 1e9, 0) + " GB",
                      fmt(g.memory_bandwidth_bytes_per_s / 1e12, 2) + " TB/s", peak(gpucalc::Precision::kBf16),
                      peak(gpucalc::Precision::kFp8), peak(gpucalc::Precision::kFp4), fmt(g.tdp_w, 0) + " W"});
    }
    print_table({"id", "name", "arch", "HBM", "bandwidth", "BF16 TF", "FP8 TF", "FP4 TF", "TDP"}, rows);
  } else if (what == "models") {
    for (const auto& m : catalog.models) {
      rows.push_back({m.id, m.name, fmt(m.params_total / 1e9, 2) + "B", fmt(m.params_active / 1e9, 2) + "B",
                      m.attention == gpucalc::AttentionKind::kMla ? "mla" : "gqa", std::to_string(m.layers),
                      std::to_string(m.kv_heads)});
    }
    print_table({"id", "name", "params", "active", "attention", "layers", "kv heads"}, rows);
  } else {
    for (const auto& o : catalog.offerings) {
      rows.push_back({o.id, o.name, std::to_string(o.gpu_count) + " x " + o.gpu_id,
                      o.price_usd_per_month ? "US$" + fmt(*o.price_usd_per_month, 0) : "unpriced"});
    }
    print_table({"id", "name", "GPUs", "per month"}, rows);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string format = "table", list, scenario_text, hf_path, model_id = "custom";
  bool explain = false, validate = false, fit_table = false, keys = false, have_scenario = false;
  std::vector<std::string> catalog_paths;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= args.size()) fail(std::string(name) + ": needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version") {
      std::cout << "gpucalc 0.1.0 (scenario v" << gpucalc::kScenarioVersion << ")\n";
      return 0;
    } else if (a == "--format") {
      format = value("--format");
      if (format != "table" && format != "json" && format != "csv") fail("--format: must be table, json or csv, got \"" + format + "\"");
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--catalog" || a == "--calibration") {
      catalog_paths.push_back(value("--catalog"));
    } else if (a == "--list") {
      list = value("--list");
    } else if (a == "--validate") {
      validate = true;
    } else if (a == "--fit-table") {
      fit_table = true;
    } else if (a == "--keys") {
      keys = true;
    } else if (a == "--hf-config") {
      hf_path = value("--hf-config");
    } else if (a == "--model-id") {
      model_id = value("--model-id");
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      fail(a + ": unknown option (see gpucalc --help)");
    } else {
      if (have_scenario) fail("scenario: give one scenario string (quote it: the shell splits on &)");
      scenario_text = a;
      have_scenario = true;
    }
  }

  if (have_scenario && scenario_text == "-") {  // scenario on stdin (long strings, pipes)
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    scenario_text = ss.str();
    while (!scenario_text.empty() && (scenario_text.back() == '\n' || scenario_text.back() == '\r')) {
      scenario_text.pop_back();
    }
  }
  auto built = gpucalc::build_default_catalog();
  if (!built) fail("built-in catalog: " + built.error().to_string(), 1);
  Catalog catalog = std::move(built).value();
  for (const auto& path : catalog_paths) {
    auto next = gpucalc::extend_catalog(catalog, read_file(path), path);
    if (!next) fail(next.error());
    catalog = std::move(next).value();
  }
  if (!hf_path.empty()) {
    auto model = gpucalc::import_hf_config(read_file(hf_path), model_id);
    if (!model) fail(hf_path + ": " + model.error().to_string());
    bool replaced = false;
    for (auto& m : catalog.models) {
      if (m.id == model.value().id) { m = model.value(); replaced = true; }
    }
    if (!replaced) catalog.models.push_back(model.value());
  }

  if (keys) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& k : gpucalc::scenario_keys()) rows.push_back({k.key, k.default_text, k.description});
    print_table({"key", "default", "meaning"}, rows);
    return 0;
  }
  if (!list.empty()) {
    list_catalog(catalog, list, format);
    return 0;
  }
  if (validate) {
#ifdef GPUCALC_HAVE_VALIDATION
    const char* text = nullptr;
    for (const auto& f : gpucalc::embedded_data_files()) {
      if (std::string(f.name) == "validation.json") text = f.text;
    }
    if (text == nullptr) fail("validation.json is not compiled in", 1);
    auto report = gpucalc::run_validation(catalog, text);
    if (!report) fail(report.error());
    const char* serving_text = nullptr;
    for (const auto& f : gpucalc::embedded_data_files()) {
      if (std::string(f.name) == "validation-serving.json") serving_text = f.text;
    }
    if (serving_text == nullptr) fail("validation-serving.json is not compiled in", 1);
    auto serving = gpucalc::run_serving_validation(catalog, serving_text);
    if (!serving) fail(serving.error());
    if (format == "json") {
      std::cout << "{\"mlperf\": " << gpucalc::validation_report_to_json(report.value())
                << ",\n\"serving\": " << gpucalc::serving_report_to_json(serving.value()) << "}\n";
    } else {
      std::cout << gpucalc::validation_report_to_text(report.value()) << "\n"
                << gpucalc::serving_report_to_text(serving.value()) << "\n";
    }
    return 0;
#else
    fail("--validate: this build has no validation model yet", 1);
#endif
  }
  if (!have_scenario && !fit_table) {
    std::cerr << kUsage;
    fail("scenario: missing (try 'v=1')");
  }
  if (fit_table) {
    auto s = gpucalc::decode_scenario(have_scenario ? scenario_text : "v=1");
    if (!s) fail(s.error());
    auto table = gpucalc::fit_table_json(catalog, s.value());
    if (!table) fail(table.error());
    if (format == "json") {
      std::cout << table.value() << "\n";
      return 0;
    }
    const Json j = Json::parse(table.value(), nullptr, false);
    std::vector<std::string> header = {"model", "weights"};
    for (const auto& g : j["offerings"]) header.push_back(g.get<std::string>() + " (weights only / practical)");
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : j["rows"]) {
      std::vector<std::string> cells = {r["model"].get<std::string>(), r["weights"].get<std::string>()};
      for (const auto& c : r["cells"]) {
        cells.push_back(std::to_string(c["gpus_needed_weights_only"].get<int>()) + " / " +
                        (c["gpus_needed"].is_null() ? std::string("-") : std::to_string(c["gpus_needed"].get<int>())));
      }
      rows.push_back(cells);
    }
    print_table(header, rows);
    return 0;
  }
  auto ev = gpucalc::evaluate_text(catalog, scenario_text, explain || format == "json");
  if (!ev) fail(ev.error());
  if (format == "json") {
    std::cout << gpucalc::evaluation_to_json(ev.value(), explain) << "\n";
  } else if (format == "csv") {
    print_csv(gpucalc::evaluation_to_json(ev.value(), false));
  } else {
    print_evaluation_table(ev.value(), explain);
  }
  return 0;
}
