// gpucalc: the native command line. Reads files, calls the core, prints; all formulas are in core/.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/result_fields.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/serving_calibration.hpp"
#include "gpucalc/text.hpp"
#include "gpucalc/units.hpp"
#include "gpucalc/version.hpp"
#include "safe_io.hpp"
#include "warning_words.hpp"
#if __has_include("gpucalc/validation.hpp")
#include "gpucalc/validation.hpp"
#include "gpucalc/validation_disagg.hpp"
#define GPUCALC_HAVE_VALIDATION 1
#endif

namespace {

using gpucalc::Catalog;
using gpucalc::Error;
using gpucalc::ErrorCode;
using Json = nlohmann::ordered_json;

constexpr const char* kUsage = R"(usage: gpucalc [options] 'SCENARIO'
       gpucalc --list gpus|models|offerings|networks [--format table|json]
       gpucalc --fit-table ['SCENARIO'] [--format json]
       gpucalc --validate [--format table|json]
       gpucalc --validate --write-error-bands FILE   (make error-bands)
       gpucalc --curve 'SCENARIO' [--format table|csv|json]
       gpucalc --keys [--format table|json|markdown]
       gpucalc --calibrate-serving 'SCENARIO' FILE...   (a calibration document on stdout)

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
  --calibrate-serving 'SCENARIO' FILE...
                            fit the serving model of the scenario's offering and engine
                            to benchmark results (vLLM, SGLang, genai-perf, AIPerf,
                            InferenceX); load the document with --catalog
  --hf-config FILE --model-id ID
                            import a Hugging Face config.json as model ID
  --help, --version
exit status: 0 ok, 2 bad input (one line on stderr), 1 other failure
)";

[[noreturn]] void fail(const std::string& message, int status = 2) {
  // Escaped (names may carry ESC or NUL) and written whole: the line never stops at a NUL.
  std::string line = gpucalc::cli::printable(message);
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  line = "gpucalc: error: " + line + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::exit(status);
}

[[noreturn]] void fail(const Error& e) { fail(e.to_string()); }

/** A --catalog file (16 MiB), --hf-config file (1 MiB) or benchmark result file (64 MiB), read
 *  no further than the core's limit. */
std::string read_file(const std::string& path, std::size_t limit_bytes = gpucalc::kMaxJsonTextBytes) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) fail(path + ": cannot be read");
  bool read_error = false;
  auto text = gpucalc::cli::read_bounded(in, limit_bytes, read_error);
  std::fclose(in);
  if (!text) fail(path + ": is larger than " + std::to_string(limit_bytes >> 20) + " MiB");
  if (read_error) fail(path + ": cannot be read");
  return std::move(*text);
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
std::string gb(double bytes) { return fmt(bytes / gpucalc::kBytesPerGB, 2) + " GB"; }

void print_table(const std::vector<std::string>& raw_header,
                 const std::vector<std::vector<std::string>>& raw_rows) {
  // Cells carry catalog names: escape control characters before measuring and printing.
  std::vector<std::string> header;
  for (const auto& cell : raw_header) header.push_back(gpucalc::cli::printable(cell));
  std::vector<std::vector<std::string>> rows;
  for (const auto& raw : raw_rows) {
    rows.emplace_back();
    for (const auto& cell : raw) rows.back().push_back(gpucalc::cli::printable(cell));
  }
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

// Row labels of the evaluation table, by result field. A field not listed here is shown under
// its JSON name, so a new registry field appears without an edit; tests/cli/cli_contract.sh
// then fails until it has words here.
struct Label {
  const char* field;
  const char* text;
};
constexpr Label kLabels[] = {
    {"gpu_count", "GPUs"},
    {"gpu_name", "GPU"},
    {"capacity_bytes_per_gpu", "HBM per GPU"},
    {"capacity_assumed", "capacity read as GiB (assumed)"},
    {"reserve_bytes_per_gpu", "reserve per GPU"},
    {"weights_bytes", "weights"},
    {"weights_bytes_per_gpu", "weights per GPU"},
    {"kv_bytes_per_token", "KV per token"},
    {"kv_bytes_per_context", "KV per full context"},
    {"state_bytes_per_sequence", "fixed state per sequence (linear attention)"},
    {"request_tokens", "tokens one request holds (input + output)"},
    {"gpus_needed_weights_only", "GPUs needed (weights only)"},
    {"gpus_needed", "GPUs needed (weights+KV+reserve)"},
    {"gpus_needed_full_context", "GPUs needed (every user at the full context)"},
    {"fits", "fits"},
    {"fit_reason", "fit"},
    {"servers_needed", "servers needed"},
    {"servers", "servers deployed"},
    {"deployed_gpus", "GPUs deployed"},
    {"offering_hbm_marketed_bytes", "HBM deployed (as marketed)"},
    {"stackable", "servers can be joined (scale-out network)"},
    {"scale_out_network", "scale-out network"},
    {"instance_gpus", "GPUs per instance"},
    {"tensor_parallel", "tensor parallel"},
    {"pipeline_parallel", "pipeline parallel"},
    {"replicas", "replicas"},
    {"kv_free_bytes_per_gpu", "free for KV per GPU"},
    {"kv_used_bytes_per_gpu", "KV in use per GPU"},
    {"headroom_bytes_per_gpu", "headroom per GPU"},
    {"kv_free_bytes", "free for KV, offering"},
    {"full_contexts_per_instance", "full contexts per instance"},
    {"full_contexts", "full contexts, offering"},
    {"max_context_tokens", "longest context for users"},
    {"unit_price_month_usd", "price per month, one unit"},
    {"price_month_usd", "price per month, deployment"},
    {"price_gpu_hour_usd", "per GPU-hour"},
    {"price_gb_month_usd", "per GB of HBM per month"},
    {"price_delta_month_usd", "vs first, per month"},
    {"max_throughput_tokens_per_s", "max throughput (output tok/s)"},
    {"decode_tokens_per_s_per_user", "decode tok/s per user"},
    {"ttft_s", "TTFT, mean (first wave included)"},
    {"ttft_median_s", "TTFT, median"},
    {"tpot_s", "TPOT"},
    {"e2e_latency_s", "end-to-end latency per request"},
    {"total_tokens_per_s_per_gpu", "tok/s per GPU (input + output)"},
    {"output_tokens_per_s_per_gpu", "output tok/s per GPU"},
    {"engine_version", "engine version"},
    {"serving_tensor_parallel", "GPUs per serving instance"},
    {"serving_replicas", "serving instances"},
    {"expert_parallel", "expert parallel"},
    {"data_parallel_attention", "data-parallel attention"},
    {"pd_layout", "disaggregated layout (prefill + decode)"},
    {"prefill_gpus", "prefill GPUs"},
    {"prefill_workers", "prefill workers"},
    {"prefill_tp", "GPUs per prefill worker"},
    {"prefill_ep", "prefill expert parallel"},
    {"prefill_dpa", "prefill data-parallel attention"},
    {"decode_gpus", "decode GPUs"},
    {"decode_workers", "decode workers"},
    {"decode_tp", "GPUs per decode worker"},
    {"decode_ep", "decode expert parallel"},
    {"decode_dpa", "decode data-parallel attention"},
    {"kv_transfer_s", "KV transfer, prefill to decode"},
    {"kv_transfer_fabric", "KV transfer fabric"},
    {"prefill_utilization", "prefill pool utilization"},
    {"usd_per_million_tokens", "US$ per million output tokens"},
    {"usd_per_million_total_tokens", "US$ per million total tokens (input + output)"},
    {"at_speed_layout", "layout at the interactivity target"},
    {"at_speed_tokens_per_s_per_user", "at the target: tok/s per user"},
    {"at_speed_total_tokens_per_s_per_gpu", "at the target: total tok/s per GPU"},
    {"at_speed_output_tokens_per_s", "at the target: output tok/s, deployment"},
    {"at_speed_usd_per_million_tokens", "at the target: US$ per million output tokens"},
    {"scale_out_s", "inter-server time per step"},
    {"scale_out_strategy", "across servers"},
    {"all_in_power_w_per_gpu", "all-in power per GPU"},
    {"energy_joules_per_output_token", "energy per output token"},
    {"output_tokens_per_s_per_mw", "output tok/s per MW"},
    {"energy_usd_per_million_tokens", "energy US$ per million output tokens"},
    {"train_tokens_per_s", "training tokens/s"},
    {"train_hours", "hours to budget"},
    {"train_steps", "optimizer steps"},
    {"gpu_hours", "GPU-hours"},
    {"run_cost_usd", "cost of the run"},
    {"train_memory_bytes_per_gpu", "memory per GPU"},
    {"train_weights_bytes_per_gpu", "  of it weights"},
    {"train_gradient_bytes_per_gpu", "  of it gradients"},
    {"train_optimizer_bytes_per_gpu", "  of it optimizer state"},
    {"train_adapter_bytes_per_gpu", "  of it adapters (LoRA)"},
    {"train_activation_bytes_per_gpu", "  of it activations"},
    {"train_reserve_bytes_per_gpu", "  of it reserve"},
    {"train_free_bytes_per_gpu", "free per GPU"},
    {"billed_months", "months billed (monthly plan)"},
    {"energy_kwh_per_run", "energy of the run"},
    {"energy_usd_per_run", "energy cost of the run"},
    {"rates_source", "rates"},
};
// Shown in the header line instead of as rows.
constexpr const char* kHeaderFields[] = {"offering", "offering_name", "gpu"};
// Folded into the "rates" row's words.
constexpr const char* kFoldedFields[] = {"rates_estimate", "calibration_device", "calibration_date",
                                         "supplied_by", "error_bands_supplied_by"};

/** Which rates the figures used, in words made from the codes. */
std::string rates_words(const gpucalc::OfferingResult& r) {
  const std::string some = r.rates_estimate ? " (some figures estimate)" : "";
  switch (r.rates_source) {
    case gpucalc::RatesSource::kCalibrated:
      return "calibrated on " + r.calibration_device + ", " + r.calibration_date + some;
    case gpucalc::RatesSource::kMeasured: return "public measurements" + some;
    case gpucalc::RatesSource::kPeak: return "datasheet peak" + some;
    case gpucalc::RatesSource::kOverride: return "scenario override of the achieved fraction" + some;
    case gpucalc::RatesSource::kSupplied:
      return "supplied by " + r.supplied_by + ", not gpucalc's data" + some;
    case gpucalc::RatesSource::kCalibratedServing:
      return "serving calibration " + r.calibration_device + ", " + r.calibration_date + some;
  }
  return "-";
}

std::string label_of(const char* field) {
  for (const auto& l : kLabels) {
    if (std::string_view(l.field) == field) return l.text;
  }
  return field;
}

/** One table cell, formatted by the field's unit kind. */
std::string cell(const gpucalc::ResultField& f, const gpucalc::FieldValue& x) {
  using gpucalc::UnitKind;
  using T = gpucalc::FieldValue::Type;
  if (x.type == T::kNull) return "-";
  if (x.type == T::kText) return x.text.empty() ? "-" : std::string(x.text);
  if (x.type == T::kFlag) return x.flag ? "yes" : "no";
  const double n = *x.as_number();
  switch (f.unit) {
    case UnitKind::kBytes: return std::fabs(n) < 1e7 ? fmt(n, 0) + " B" : gb(n);
    case UnitKind::kTokens: return fmt(n, 0) + " tokens";
    case UnitKind::kTokensPerS: return fmt(n, std::fabs(n) < 1000 ? 1 : 0);
    case UnitKind::kSeconds: return std::fabs(n) < 1 ? fmt(n * 1000.0, 2) + " ms" : fmt(n, 3) + " s";
    case UnitKind::kHours: return fmt(n, std::fabs(n) < 1000 ? 2 : 0);
    case UnitKind::kUsd:
      if (n == 0) return "US$0";
      return (n < 0 ? "-US$" : "US$") + fmt(std::fabs(n), std::fabs(n) >= 1000 ? 0 : std::fabs(n) >= 1 ? 2 : 3);
    case UnitKind::kRatio: return fmt(n, 3);
    case UnitKind::kWatts: return fmt(n, 0) + " W";
    case UnitKind::kJoules: return fmt(n, 3) + " J";
    case UnitKind::kKwh: return fmt(n, 0) + " kWh";
    case UnitKind::kCount:
    case UnitKind::kText:
    case UnitKind::kFlag: break;
  }
  return fmt(n, 0);
}

/** ": " and the page's English sentence for warning `code` of result `r` (its GPU for {gpus}, the
 *  model's longest context for {max}); "" for a code the page does not word. */
std::string warning_sentence(std::string_view code, const gpucalc::OfferingResult& r,
                             const gpucalc::Evaluation& ev) {
  for (const auto& w : gpucalc::cli::kWarningWords) {
    if (code != w.code) continue;
    std::string text = w.text;
    const std::pair<std::string, std::string> params[] = {
        {"{gpus}", r.gpu_name}, {"{max}", fmt(static_cast<double>(ev.model.max_context_tokens), 0)}};
    for (const auto& [key, value] : params) {
      for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
        text.replace(at, key.size(), value);
      }
    }
    return ": " + gpucalc::cli::printable(text);  // a catalog's GPU name may carry escape codes
  }
  return "";
}

void print_evaluation_table(const gpucalc::Evaluation& ev, bool explain) {
  std::cout << "scenario: " << ev.canonical << "\n";
  std::cout << "model: " << gpucalc::cli::printable(ev.model.name) << " (" << fmt(ev.model.params_total / 1e9, 2)
            << "B parameters, " << fmt(ev.model.params_active / 1e9, 2) << "B active)\n";
  std::cout << "capacity basis: " << gpucalc::capacity_basis_name(ev.scenario.capacity) << "\n\n";
  std::vector<std::string> header = {""};
  for (const auto& r : ev.results) header.push_back(r.offering_name);
  const auto scope = ev.scenario.workload == gpucalc::Workload::kInference
                         ? gpucalc::FieldScope::kInference
                         : gpucalc::FieldScope::kTraining;
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : gpucalc::result_fields()) {
    if (f.scope != gpucalc::FieldScope::kAll && f.scope != scope) continue;
    bool in_header = false;
    for (const char* h : kHeaderFields) in_header = in_header || std::string_view(h) == f.name;
    for (const char* h : kFoldedFields) in_header = in_header || std::string_view(h) == f.name;
    if (in_header) continue;
    const bool rates = std::string_view(f.name) == "rates_source";
    std::vector<std::string> cells = {label_of(f.name)};
    for (const auto& r : ev.results) cells.push_back(rates ? rates_words(r) : cell(f, f.get(r)));
    rows.push_back(cells);
  }
  print_table(header, rows);
  if (!ev.results.empty() && !ev.results.front().error_bands_supplied_by.empty()) {
    std::cout << "error bands: from " << ev.results.front().error_bands_supplied_by
              << ", not gpucalc's\n";
  }
  if (!ev.verdict.empty()) {
    std::cout << "\nverdict:\n";
    for (const auto& v : ev.verdict) {
      std::string params;
      for (const auto& [k, x] : v.params) params += " " + std::string(k) + "=" + fmt(x, 2);
      std::cout << "  [" << v.kind << "] " << v.offering_id << ": " << v.code << params
                << (v.basis.empty() ? "" : " (by " + std::string(v.basis) + ")") << "\n";
    }
  }
  if (!ev.recommended_offering_id.empty()) {
    std::cout << "recommended: " << ev.recommended_offering_id << " (by " << ev.recommendation_basis << ")\n";
  }
  bool band_header = false;
  for (const auto& r : ev.results) {
    if (r.error_band.empty()) continue;
    // The header once, before the first offering that has a band (the first may have none).
    std::cout << (band_header ? "" : "\nerror band (out of sample):\n");
    band_header = true;
    std::string line = "  " + r.offering_id + ":";
    bool extrapolated = false;
    const char* separator = " ";
    for (const auto& b : r.error_band) {
      // The TTFT band names its statistic: the median TTFT row (the mean where the rows were).
      const std::string metric = b.statistic.empty() ? b.metric : b.metric + " (" + b.statistic + ")";
      line += separator + metric + " ±" + fmt(100.0 * b.p80, 0) + " % (80 % of " + std::to_string(b.points) + " unseen points)";
      separator = "; ";
      extrapolated = extrapolated || b.model_unmeasured || b.users_beyond_measured || b.engine_unmeasured || b.gpu_unmeasured;
    }
    // A disaggregated layout's band is widened by how the disaggregated runs erred held out.
    // (Those runs publish no TTFT: its band is the aggregated one.)
    if (r.error_band[0].disaggregated) {
      line += "; disaggregated layout: interactivity and throughput widened by validation-disagg.json's folds, "
              "TTFT the aggregated band (no disaggregated TTFT measured)";
    }
    if (extrapolated) {
      const auto& b = r.error_band[0];
      line += "; extrapolated:";
      if (b.model_unmeasured) line += " model unmeasured";
      if (b.users_beyond_measured) line += " users beyond measured";
      if (b.engine_unmeasured) line += " engine unmeasured";
      if (b.gpu_unmeasured) line += " GPU unmeasured";
    }
    std::cout << line << "\n";
  }
  for (const auto& r : ev.results) {
    for (const auto& w : r.warnings) {
      std::cout << "warning: " << r.offering_id << ": " << w << warning_sentence(w, r, ev) << "\n";
    }
  }
  if (explain) {
    for (const auto& r : ev.results) {
      std::cout << "\n" << gpucalc::cli::printable(r.offering_name) << "\n";
      for (const auto& t : r.trace) {
        std::cout << "  " << t.field << " = " << t.formula << "\n";
        for (const auto& [k, x] : t.inputs) std::cout << "      " << k << " = " << fmt(x, x == std::floor(x) ? 0 : 6) << "\n";
        if (!t.note.empty()) std::cout << "      note: " << gpucalc::cli::printable(t.note) << "\n";
      }
    }
  }
}

/** The accepted values of a scenario key in words: "1 to 16,777,216", "bf16, fp8 or fp4". */
std::string key_range(const gpucalc::ScenarioKey& k) {
  using gpucalc::KeyKind;
  auto num = [](double x) {
    return x == std::floor(x) && std::fabs(x) < 1e16 ? fmt(x, 0) : gpucalc::format_scenario_number(x);
  };
  switch (k.kind) {
    case KeyKind::kInteger: return num(k.min) + " to " + num(k.max);
    case KeyKind::kNumber:
      return (k.min_exclusive ? "more than " + num(k.min) + ", up to " : num(k.min) + " to ") + num(k.max);
    case KeyKind::kBoolean: return "0 or 1";
    case KeyKind::kChoice: {
      std::string out;
      for (std::size_t i = 0; i < k.choices.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == k.choices.size() ? " or " : ", ") + k.choices[i];
      }
      return out;
    }
    case KeyKind::kId: return "a catalog id";
    case KeyKind::kIdList: return num(k.min) + " to " + num(k.max) + " catalog ids";
    case KeyKind::kNumberList: return "each " + num(k.min) + " to " + num(k.max) + ", or -";
  }
  return "";
}

void print_keys(const std::string& format) {
  if (format == "json") {
    std::cout << gpucalc::scenario_schema_json() << "\n";
    return;
  }
  if (format == "markdown") {  // docs/scenario.md's key table, checked by tests/cli/cli_contract.sh
    std::cout << "| key | kind | default | accepts | meaning |\n|---|---|---|---|---|\n";
    for (const auto& k : gpucalc::scenario_keys()) {
      std::cout << "| `" << k.key << "` | " << gpucalc::key_kind_name(k.kind) << " | "
                << k.default_text << " | " << key_range(k) << " | " << k.description << " |\n";
    }
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : gpucalc::scenario_keys()) {
    rows.push_back({k.key, gpucalc::key_kind_name(k.kind), k.default_text, key_range(k), k.description});
  }
  print_table({"key", "kind", "default", "accepts", "meaning"}, rows);
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
      rows.push_back({g.id, g.name + (g.projected ? " [projected]" : ""), g.architecture, fmt(g.hbm_marketed_bytes / 1e9, 0) + " GB",
                      fmt(g.memory_bandwidth_bytes_per_s / 1e12, 2) + " TB/s", peak(gpucalc::Precision::kBf16),
                      peak(gpucalc::Precision::kFp8), peak(gpucalc::Precision::kFp4),
                      g.tdp_w ? fmt(*g.tdp_w, 0) + " W" : std::string("-")});
    }
    print_table({"id", "name", "arch", "HBM", "bandwidth", "BF16 TF", "FP8 TF", "FP4 TF", "TDP"}, rows);
  } else if (what == "models") {
    for (const auto& m : catalog.models) {
      // The first source; the rest are in --format json.
      std::string source = m.sources.empty() ? "-" : m.sources.front();
      if (m.sources.size() > 1) source += " (+" + std::to_string(m.sources.size() - 1) + " more)";
      rows.push_back({m.id, m.name, fmt(m.params_total / 1e9, 2) + "B", fmt(m.params_active / 1e9, 2) + "B",
                      gpucalc::attention_kind_name(m.attention), std::to_string(m.layers),
                      std::to_string(m.kv_heads), source});
    }
    print_table({"id", "name", "params", "active", "attention", "layers", "kv heads", "source"}, rows);
  } else if (what == "networks") {
    for (const auto& n : catalog.networks) {
      rows.push_back({n.id, n.name, std::to_string(n.nics_per_server) + " x " + fmt(n.nic_line_rate_bytes_per_s / 1e9, 0) + " GB/s",
                      fmt(n.achieved_bytes_per_s_per_nic.value / 1e9, 1) + " GB/s" + (n.achieved_bytes_per_s_per_nic.estimate ? " (estimate)" : ""),
                      fmt(n.latency_s.value * 1e6, 1) + " us" + (n.latency_s.estimate ? " (estimate)" : "")});
    }
    print_table({"id", "name", "NICs per server", "achieved per NIC", "latency"}, rows);
  } else {
    for (const auto& o : catalog.offerings) {
      std::string tier = o.tier.empty() ? "-" : o.tier;
      if (o.price_estimate) tier += " (estimate)";
      const gpucalc::Gpu* gpu = catalog.find_gpu(o.gpu_id);
      const bool projected = gpu != nullptr && gpu->projected;
      rows.push_back({o.id + (projected ? " [projected]" : ""), std::to_string(o.gpu_count) + " x " + o.gpu_id,
                      o.price_usd_per_month ? "US$" + fmt(*o.price_usd_per_month, 0) : "unpriced",
                      o.listed_usd_per_gpu_hour ? "US$" + fmt(*o.listed_usd_per_gpu_hour, 2) + "/GPU-h" : "",
                      tier, o.scale_out_id.empty() ? "-" : o.scale_out_id,
                      o.price_source.empty() ? "-" : o.price_source});
    }
    print_table({"id", "GPUs", "per month", "listed", "tier", "scale-out", "price source"}, rows);
  }
}

/** What the command line asked for. */
struct Options {
  std::string format = "table", list, scenario_text, hf_path, model_id = "custom";
  std::string error_bands_path;
  std::vector<std::string> catalog_paths, bench_paths;
  bool explain = false, validate = false, fit_table = false, keys = false, have_scenario = false;
  bool curve = false, calibrate = false;
};

/** The options from argv; --help and --version answer at once (exit 0), bad options fail. */
Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= args.size()) fail(std::string(name) + ": needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "gpucalc " << gpucalc::version() << " (scenario v" << gpucalc::kScenarioVersion << ")\n";
      std::exit(0);
    } else if (a == "--format") {
      o.format = value("--format");
      if (o.format != "table" && o.format != "json" && o.format != "csv" && o.format != "markdown") {
        fail("--format: must be table, json, csv or markdown (--keys), got \"" + o.format + "\"");
      }
    } else if (a == "--explain") {
      o.explain = true;
    } else if (a == "--catalog" || a == "--calibration") {
      o.catalog_paths.push_back(value("--catalog"));
    } else if (a == "--calibrate-serving") {
      if (o.have_scenario) fail("scenario: give one scenario string (quote it: the shell splits on &)");
      o.scenario_text = value("--calibrate-serving");
      o.have_scenario = o.calibrate = true;
      while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) o.bench_paths.push_back(args[++i]);
      if (o.bench_paths.empty()) fail("--calibrate-serving: name at least one benchmark result file");
    } else if (a == "--list") {
      o.list = value("--list");
    } else if (a == "--curve") {
      o.curve = true;
    } else if (a == "--validate") {
      o.validate = true;
    } else if (a == "--write-error-bands") {
      o.error_bands_path = value("--write-error-bands");
    } else if (a == "--fit-table") {
      o.fit_table = true;
    } else if (a == "--keys") {
      o.keys = true;
    } else if (a == "--hf-config") {
      o.hf_path = value("--hf-config");
    } else if (a == "--model-id") {
      o.model_id = value("--model-id");
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      fail(a + ": unknown option (see gpucalc --help)");
    } else {
      if (o.have_scenario) fail("scenario: give one scenario string (quote it: the shell splits on &)");
      o.scenario_text = a;
      o.have_scenario = true;
    }
  }
  if (!o.error_bands_path.empty() && (!o.validate || !o.catalog_paths.empty())) {
    fail("--write-error-bands: use it with --validate alone (the bands describe the built-in catalog)");
  }
  return o;
}

/** The scenario from standard input (`-`: long strings, pipes), bounded: an endless stream is
 *  refused at once. */
std::string read_stdin_scenario() {
  bool read_error = false;
  auto text = gpucalc::cli::read_bounded(stdin, gpucalc::kMaxScenarioBytes + 2, read_error);
  if (!text) {
    fail("scenario: standard input holds more than " + std::to_string(gpucalc::kMaxScenarioBytes) +
         " bytes");
  }
  if (read_error) fail("scenario: standard input cannot be read");
  std::string scenario = std::move(*text);
  while (!scenario.empty() && (scenario.back() == '\n' || scenario.back() == '\r')) scenario.pop_back();
  return scenario;
}

/** The built-in catalog, extended by every --catalog file and the --hf-config model. */
Catalog load_catalog(const Options& o) {
  // The generator leaves out the file it rewrites: a stale or broken copy must not stop it.
  auto built = gpucalc::build_default_catalog(o.error_bands_path.empty() ? "" : "error-bands.json");
  if (!built) fail("built-in catalog: " + built.error().to_string(), 1);
  Catalog catalog = std::move(built).value();
  for (const auto& path : o.catalog_paths) {
    auto next = gpucalc::extend_catalog(catalog, read_file(path), path);
    if (!next) fail(next.error());
    catalog = std::move(next).value();
  }
  if (!o.hf_path.empty()) {
    auto model = gpucalc::import_hf_config(read_file(o.hf_path, gpucalc::kMaxHfConfigBytes), o.model_id);
    if (!model) fail(o.hf_path + ": " + model.error().to_string());
    bool replaced = false;
    for (auto& m : catalog.models) {
      if (m.id == model.value().id) { m = model.value(); replaced = true; }
    }
    if (!replaced) catalog.models.push_back(model.value());
  }
  return catalog;
}

/** --calibrate-serving: the calibration document of the benchmark files on stdout. */
void calibrate(const Catalog& catalog, const Options& o) {
  std::vector<gpucalc::BenchRun> runs;
  for (const auto& path : o.bench_paths) {
    auto file = gpucalc::parse_bench_results(read_file(path, gpucalc::kMaxBenchFileBytes), path);
    if (!file) fail(file.error());
    for (auto& r : file.value()) runs.push_back(std::move(r));
  }
  char today[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(today, sizeof today, "%Y-%m-%d", std::gmtime(&now));
  auto cal = gpucalc::calibrate_serving(catalog, o.scenario_text, runs, today);
  if (!cal) fail(cal.error());
  std::cout << gpucalc::serving_calibration_to_json(cal.value());
}

#ifdef GPUCALC_HAVE_VALIDATION
/** A validation table compiled into the binary (data/validation*.json). */
const char* validation_text(const char* name) {
  for (const auto& f : gpucalc::embedded_validation_files()) {
    if (std::string(f.name) == name) return f.text;
  }
  fail(std::string(name) + " is not compiled in", 1);
  return nullptr;
}
#endif

/** --validate: the three validation reports; with --write-error-bands, the bands file. */
void validate(const Catalog& catalog, const Options& o) {
#ifdef GPUCALC_HAVE_VALIDATION
  const char* text = validation_text("validation.json");
  auto report = gpucalc::run_validation(catalog, text);
  if (!report) fail(report.error());
  const char* serving_text = validation_text("validation-serving.json");
  if (!o.error_bands_path.empty()) {
    auto table = gpucalc::compute_error_bands(catalog, text, serving_text, validation_text("validation-disagg.json"));
    if (!table) fail(table.error());
    const std::string out = gpucalc::error_bands_to_json(table.value());
    std::ofstream f(o.error_bands_path, std::ios::binary | std::ios::trunc);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    f.close();
    if (!f) fail(o.error_bands_path + ": cannot be written", 1);
    std::cout << "wrote " << o.error_bands_path << " (" << out.size()
              << " bytes); the next build embeds it\n";
    return;
  }
  auto serving = gpucalc::run_serving_validation(catalog, serving_text, true);
  if (!serving) fail(serving.error());
  auto disagg = gpucalc::run_disagg_validation(catalog, validation_text("validation-disagg.json"), true);
  if (!disagg) fail(disagg.error());
  if (o.format == "json") {
    std::cout << "{\"mlperf\": " << gpucalc::validation_report_to_json(report.value())
              << ",\n\"serving\": " << gpucalc::serving_report_to_json(serving.value());
    if (catalog.error_bands) {
      std::cout << ",\n\"band_coverage\": " << gpucalc::band_coverage_to_json(serving.value(), *catalog.error_bands);
    }
    std::cout << ",\n\"disaggregated\": " << gpucalc::disagg_report_to_json(disagg.value()) << "}\n";
  } else {
    std::cout << gpucalc::validation_report_to_text(report.value()) << "\n"
              << gpucalc::serving_report_to_text(serving.value());
    if (catalog.error_bands) std::cout << gpucalc::band_coverage_to_text(serving.value(), *catalog.error_bands);
    std::cout << "\n"
              << gpucalc::disagg_report_to_text(disagg.value()) << "\n";
    if (catalog.error_bands) {
      // The band a disaggregated figure reads (its cell x the disaggregated widening), checked
      // on the held-out points of each fold kind.
      const auto share = gpucalc::disagg_band_coverage(catalog, disagg.value(), *catalog.error_bands);
      std::printf("Error bands of disaggregated figures: held-out points inside their own p80\n");
      for (std::size_t k = 0; k < gpucalc::kDisaggFoldKinds; ++k) {
        std::printf("  leave one %s out: interactivity %.1f %%, throughput per GPU %.1f %%\n",
                    gpucalc::kDisaggFoldNames[k], 100.0 * share[k][0], 100.0 * share[k][1]);
      }
    }
  }
#else
  (void)catalog;
  (void)o;
  fail("--validate: this build has no validation model yet", 1);
#endif
}

/** --fit-table: GPUs needed per model and weight format for every compared offering. */
void print_fit_table(const Catalog& catalog, const Options& o) {
  auto s = gpucalc::decode_scenario(o.have_scenario ? o.scenario_text : "v=1");
  if (!s) fail(s.error());
  auto table = gpucalc::fit_table_json(catalog, s.value());
  if (!table) fail(table.error());
  if (o.format == "json") {
    std::cout << table.value() << "\n";
    return;
  }
  const Json j = Json::parse(table.value(), nullptr, false);
  std::vector<std::string> header = {"model", "weights"};
  for (const auto& g : j["offerings"]) header.push_back(g.get<std::string>() + " (weights only / practical)");
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : j["rows"]) {
    std::vector<std::string> cells = {r["model"].get<std::string>(), r["weights"].get<std::string>()};
    for (const auto& c : r["cells"]) {
      cells.push_back(std::to_string(c["gpus_needed_weights_only"].get<int>()) + " / " +
                      (c["gpus_needed"].is_null() ? std::string("-") : std::to_string(c["gpus_needed"].get<int>())) +
                      (c["servers_needed"].is_null() || c["servers_needed"].get<int>() <= 1
                           ? std::string()
                           : " (" + std::to_string(c["servers_needed"].get<int>()) +
                                 (c.value("stackable", true) ? " servers)" : " units, not stackable)")));
    }
    rows.push_back(cells);
  }
  print_table(header, rows);
}

/** --curve --format json: every compared offering's serving curve as the core computed it. */
void print_curve_json(const gpucalc::Evaluation& ev) {
  Json out = Json::array();
  for (const auto& r : ev.results) {
    Json pts = Json::array();
    for (const auto& c : r.curve) {
      pts.push_back({{"tokens_per_s_per_user", c.tokens_per_s_per_user},
                     {"total_tokens_per_s_per_gpu", c.total_tokens_per_s_per_gpu},
                     {"output_tokens_per_s_per_gpu", c.output_tokens_per_s_per_gpu},
                     {"ttft_s", c.ttft_s},
                     {"ttft_median_s", c.ttft_median_s},
                     {"tpot_s", c.tpot_s},
                     // null for an unpriced offering, as in the result (never US$0)
                     {"usd_per_million_tokens", c.usd_per_million_tokens > 0 ? Json(c.usd_per_million_tokens) : Json()},
                     {"token_kind", gpucalc::kCurveTokenKind},
                     {"tp", c.tp},
                     {"ep", c.ep},
                     {"dpa", c.dpa},
                     {"users", c.users},
                     {"gpus", c.gpus},
                     {"layout", c.layout},
                     {"disaggregated", c.disaggregated}});
    }
    out.push_back({{"offering", r.offering_id}, {"engine", r.engine}, {"curve", pts}});
  }
  std::cout << out.dump(2) << "\n";
}

/** --curve as a table or CSV (every cell through the core's one CSV cell writer). */
void print_curve(const gpucalc::Evaluation& ev, const std::string& format) {
  if (format == "json") {
    print_curve_json(ev);
    return;
  }
  const std::vector<std::string> header = {"offering", "tokens/s/user", "total tok/s/GPU",
                                           "output tok/s/GPU", "TTFT mean s", "TPOT s",
                                           "US$/M output tok", "tp", "ep", "dpa", "users",
                                           "gpus", "layout", "TTFT median s"};
  auto num = [](double x, const char* f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return std::string(buf);
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : ev.results) {
    for (const auto& c : r.curve) {
      rows.push_back({r.offering_id, num(c.tokens_per_s_per_user, "%.1f"),
                      num(c.total_tokens_per_s_per_gpu, "%.0f"),
                      num(c.output_tokens_per_s_per_gpu, "%.0f"), num(c.ttft_s, "%.3f"),
                      num(c.tpot_s, "%.4f"),
                      c.usd_per_million_tokens > 0 ? num(c.usd_per_million_tokens, "%.3f")
                      : format == "csv"            ? ""  // an empty cell, as the result's null
                                                   : "-",
                      std::to_string(c.tp), std::to_string(c.ep), c.dpa ? "1" : "0",
                      num(c.users, "%.0f"), std::to_string(c.gpus), c.layout,
                      num(c.ttft_median_s, "%.3f")});  // last: the columns before keep their places
    }
  }
  if (format != "csv") {
    print_table(header, rows);
    return;
  }
  std::string csv;
  auto record = [&csv](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) csv += ',';
      gpucalc::append_csv_cell(csv, row[i]);
    }
    csv += "\r\n";
  };
  record(header);
  for (const auto& row : rows) record(row);
  std::cout << csv;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (o.have_scenario && o.scenario_text == "-") o.scenario_text = read_stdin_scenario();
  const Catalog catalog = load_catalog(o);
  if (o.calibrate) {
    calibrate(catalog, o);
  } else if (o.keys) {
    print_keys(o.format);
  } else if (!o.list.empty()) {
    list_catalog(catalog, o.list, o.format);
  } else if (o.validate) {
    validate(catalog, o);
  } else if (!o.have_scenario && !o.fit_table) {
    std::cerr << kUsage;
    fail("scenario: missing (try 'v=1')");
  } else if (o.fit_table) {
    print_fit_table(catalog, o);
  } else {
    auto ev = gpucalc::evaluate_text(catalog, o.scenario_text, o.explain || o.format == "json");
    if (!ev) fail(ev.error());
    if (o.curve) {
      print_curve(ev.value(), o.format);
    } else if (o.format == "json") {
      std::cout << gpucalc::evaluation_to_json(ev.value(), o.explain) << "\n";
    } else if (o.format == "csv") {
      std::cout << gpucalc::evaluation_to_csv(ev.value());
    } else {
      print_evaluation_table(ev.value(), o.explain);
    }
  }
  return 0;
}
