// Error bands and the validation summary, precomputed into data/error-bands.json (error_bands.hpp).
#include "gpucalc/error_bands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>

#include "catalog/bounds.hpp"
#include "catalog/ids.hpp"
#include "gpucalc/validation.hpp"
#include "catalog/json_strict.hpp"
#include "output/json_writer.hpp"

namespace gpucalc {

namespace {

using Json = detail::JsonValue;
using detail::JsonWriter;

const char* const kVendors[kErrorBandVendors] = {"amd", "nvidia"};
const char* const kRegimes[kErrorBandRegimes] = {"1-8", "9-32", "33+"};
// A users-per-instance figure inside each regime, for error_band_for().
const double kRegimeUsers[kErrorBandRegimes] = {1, 16, 64};
const char* const kMetrics[] = {"interactivity", "throughput_per_gpu", "ttft"};

/** Provenance written beside every generated entry: what the figure was computed from. */
constexpr const char* kServingSource =
    "make error-bands: model vs data/validation-serving.json (InferenceX, newest runs)";
constexpr const char* kMlperfSource =
    "make error-bands: model vs data/validation.json (MLPerf v4.1, sources there)";

std::size_t regime_index(double users_per_instance) {
  return users_per_instance <= 8 ? 0 : users_per_instance <= 32 ? 1 : 2;
}

/** Fractions to 1e-6 (0.0001 %): the file stays stable under last-bit differences between
 *  libms (native glibc, the module's musl), which the freshness test tolerates. */
double rounded(double x) { return std::round(x * 1e6) / 1e6; }

/** Predicted and measured figures (tokens/s, minutes) to 1e-3. */
double rounded_figure(double x) { return std::round(x * 1e3) / 1e3; }

/** A measured run's figure for the chart's markers to 4 significant digits (what a marker's
 *  label shows, and the page carries 223 of them: 0.6 KB gzip less than to 1e-3). */
double significant4(double x) {
  if (!(x != 0.0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 3.0 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

void write_serving_gpu(JsonWriter& w, const ServingGpuError& g) {
  w.begin_object().field("group", g.gpu);
  w.field("interactivity", rounded(g.interactivity.mape)).field("n_interactivity", g.interactivity.points);
  w.field("throughput_per_gpu", rounded(g.throughput_per_gpu.mape));
  w.field("n_throughput_per_gpu", g.throughput_per_gpu.points);
  w.field("mean_ttft", rounded(g.ttft.mape)).field("n_mean_ttft", g.ttft.points);
  w.field("source", kServingSource).end_object();
}

void write_summary(JsonWriter& w, const ValidationSummary& s) {
  w.begin_object();
  w.key("mlperf").begin_object();
  w.field("median_abs_error", rounded(s.mlperf_median_abs_error));
  w.field("max_abs_error", rounded(s.mlperf_max_abs_error));
  w.field("ranks_match", s.mlperf_ranks_match);
  w.field("ranks_match_beyond_ties", s.mlperf_ranks_match_beyond_ties);
  w.key("rows").begin_array();
  for (const auto& r : s.mlperf_rows) {
    w.begin_object().field("id", r.id).field("workload", r.workload).field("gpu", r.gpu);
    w.field("unit", r.unit).field("predicted", rounded_figure(r.predicted));
    w.field("measured", rounded_figure(r.measured)).field("error", rounded(r.error));
    w.field("source", kMlperfSource).end_object();
  }
  w.end_array();
  w.key("per_gpu").begin_array();
  for (const auto& g : s.mlperf_per_gpu) {
    w.begin_object().field("gpu", g.gpu).field("mape", rounded(g.error.mape));
    w.field("points", g.error.points).field("source", kMlperfSource).end_object();
  }
  w.end_array().end_object();
  w.key("serving").begin_object();
  w.key("mape_per_gpu").begin_array();
  for (const auto& g : s.serving_per_gpu) write_serving_gpu(w, g);
  w.end_array();
  w.key("mape_all");
  write_serving_gpu(w, s.serving_all);
  w.end_object();
  w.end_object();
}

ServingGpuError serving_error(const Mape& m) {
  return ServingGpuError{m.group,
                         {m.interactivity, m.n_interactivity},
                         {m.throughput, m.n_throughput},
                         {m.ttft, m.n_ttft}};
}

Error bands_error(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "error-bands.json." + field, message);
}

template <class T>
std::optional<T> read(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const Json& v = j.at(key);
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v.is_boolean()) return v.get<bool>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() < 1000000) {
      return static_cast<int>(v.get<long long>());
    }
  } else {
    if (v.is_number() && v.get<double>() >= 0.0 && v.get<double>() < 1e12) return v.get<double>();
  }
  return std::nullopt;
}

/** An error fraction (MAPE) within its physical bound, named by its path. */
std::optional<Error> bad_error_fraction(const std::string& path, double x) {
  return detail::out_of_bound("error-bands.json." + path, x, detail::kErrorFraction);
}

/** The first key of `j` not in `known`, named by its path in the file. */
std::optional<Error> unknown(const Json& j, const std::string& path,
                             std::initializer_list<std::string_view> known) {
  return detail::unknown_key(j, path.empty() ? "error-bands.json" : "error-bands.json." + path, known);
}

std::optional<Error> read_serving_gpu(const Json& j, const std::string& path, ServingGpuError& out) {
  if (auto e = unknown(j, path, {"group", "interactivity", "n_interactivity", "throughput_per_gpu",
                                 "n_throughput_per_gpu", "mean_ttft", "n_mean_ttft", "source", "note"})) {
    return e;
  }
  const auto group = read<std::string>(j, "group");
  struct Metric {
    const char *mape_key, *n_key;
    MetricError* out;
  };
  const Metric metrics[] = {{"interactivity", "n_interactivity", &out.interactivity},
                            {"throughput_per_gpu", "n_throughput_per_gpu", &out.throughput_per_gpu},
                            {"mean_ttft", "n_mean_ttft", &out.ttft}};
  if (!group) return bands_error(path + ".group", "is required (a string)");
  out.gpu = *group;
  for (const Metric& m : metrics) {
    const auto mape = read<double>(j, m.mape_key);
    const auto n = read<int>(j, m.n_key);
    if (!mape || !n) return bands_error(path, std::string("needs ") + m.mape_key + " (a fraction) and " + m.n_key);
    if (auto e = bad_error_fraction(path + "." + m.mape_key, *mape)) return e;
    *m.out = MetricError{*mape, *n};
  }
  return std::nullopt;
}

std::optional<Error> read_summary(const Json& j, ValidationSummary& s) {
  if (!j.is_object() || !j.contains("mlperf") || !j.contains("serving")) {
    return bands_error("summary", "needs mlperf and serving");
  }
  if (auto e = unknown(j, "summary", {"mlperf", "serving", "note"})) return e;
  const Json& m = j.at("mlperf");
  if (auto e = unknown(m, "summary.mlperf", {"median_abs_error", "max_abs_error", "ranks_match",
                                             "ranks_match_beyond_ties", "rows", "per_gpu", "note"})) {
    return e;
  }
  const auto median = read<double>(m, "median_abs_error");
  const auto max = read<double>(m, "max_abs_error");
  const auto ranks = read<bool>(m, "ranks_match");
  const auto ranks_ties = read<bool>(m, "ranks_match_beyond_ties");
  if (!median || !max || !ranks || !ranks_ties || !m.contains("rows") || !m.at("rows").is_array() ||
      !m.contains("per_gpu") || !m.at("per_gpu").is_array()) {
    return bands_error("summary.mlperf",
               "needs median_abs_error, max_abs_error, ranks_match, ranks_match_beyond_ties, rows, per_gpu");
  }
  s.mlperf_median_abs_error = *median;
  s.mlperf_max_abs_error = *max;
  s.mlperf_ranks_match = *ranks;
  s.mlperf_ranks_match_beyond_ties = *ranks_ties;
  std::size_t i = 0;
  for (const Json& r : m.at("rows")) {
    const std::string path = "summary.mlperf.rows[" + std::to_string(i++) + "]";
    if (auto e = unknown(r, path, {"id", "workload", "gpu", "unit", "predicted", "measured", "error", "source"})) {
      return e;
    }
    const auto id = read<std::string>(r, "id");
    const auto workload = read<std::string>(r, "workload");
    const auto gpu = read<std::string>(r, "gpu");
    const auto unit = read<std::string>(r, "unit");
    const auto predicted = read<double>(r, "predicted");
    const auto measured = read<double>(r, "measured");
    // error = predicted / measured - 1 may be negative: read as a number in (-1, 1e6).
    const bool error_ok = r.is_object() && r.contains("error") && r.at("error").is_number() &&
                          r.at("error").get<double>() > -1.0 && r.at("error").get<double>() < 1e6;
    if (!id || !workload || !gpu || !unit || !predicted || !measured || !error_ok) {
      return bands_error(path, "needs id, workload, gpu, unit, predicted, measured, error");
    }
    s.mlperf_rows.push_back(
        MlperfRowError{*id, *workload, *gpu, *unit, *predicted, *measured, r.at("error").get<double>()});
  }
  i = 0;
  for (const Json& g : m.at("per_gpu")) {
    const std::string path = "summary.mlperf.per_gpu[" + std::to_string(i++) + "]";
    const auto gpu = read<std::string>(g, "gpu");
    const auto mape = read<double>(g, "mape");
    const auto n = read<int>(g, "points");
    if (auto e = unknown(g, path, {"gpu", "mape", "points", "source"})) return e;
    if (!gpu || !mape || !n) return bands_error(path, "needs gpu, mape and points");
    if (auto e = bad_error_fraction(path + ".mape", *mape)) return e;
    s.mlperf_per_gpu.push_back(MlperfGpuError{*gpu, {*mape, *n}});
  }
  const Json& sv = j.at("serving");
  if (auto e = unknown(sv, "summary.serving", {"mape_per_gpu", "mape_all", "note"})) return e;
  if (!sv.is_object() || !sv.contains("mape_all") || !sv.contains("mape_per_gpu") ||
      !sv.at("mape_per_gpu").is_array()) {
    return bands_error("summary.serving", "needs mape_per_gpu and mape_all");
  }
  if (auto e = read_serving_gpu(sv.at("mape_all"), "summary.serving.mape_all", s.serving_all)) return e;
  i = 0;
  for (const Json& g : sv.at("mape_per_gpu")) {
    ServingGpuError out;
    const std::string path = "summary.serving.mape_per_gpu[" + std::to_string(i++) + "]";
    if (auto e = read_serving_gpu(g, path, out)) return e;
    s.serving_per_gpu.push_back(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

void widen_bands(ErrorBandTable& t) {
  for (std::size_t v = 0; v < kErrorBandVendors; ++v) {
    for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
      for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
        for (unsigned combo = 0; combo < kBandFlagCombos; ++combo) {
          std::vector<ErrorBand> bands = t.bands[v][f][r];
          for (std::size_t m = 0; m < bands.size(); ++m) {
            ErrorBand& b = bands[m];
            for (std::size_t k = 0; k < 4 && k < t.widening.size(); ++k) {
              if ((combo & (1u << k)) == 0) continue;
              const double x = (m == 0 ? t.widening[k].interactivity : m == 1 ? t.widening[k].throughput_per_gpu : t.widening[k].ttft);
              b.p50 *= x;
              b.p80 *= x;
              b.mape *= x;
              char factor[32];
              std::snprintf(factor, sizeof factor, "%.2f", x);
              b.basis += std::string("; x") + factor + " " + t.widening[k].flag + " (" + t.widening[k].fold + " folds)";
            }
            b.model_unmeasured = (combo & kBandModelUnmeasured) != 0;
            b.users_beyond_measured = (combo & kBandUsersBeyondMeasured) != 0;
            b.engine_unmeasured = (combo & kBandEngineUnmeasured) != 0;
            b.gpu_unmeasured = (combo & kBandGpuUnmeasured) != 0;
          }
          t.widened[v][f][r][combo] = std::move(bands);
        }
      }
    }
  }
}


unsigned band_flags(const ErrorBandTable& t, std::string_view model_id, std::string_view engine_id,
                    std::string_view vendor, std::string_view gpu_id, double users_per_instance) {
  // This runs once per serving curve point: the lengths are compared first, and the text only
  // where they agree (comparing std::strings is a chain of calls into libc++ in the WASM module).
  const auto has = [](const std::vector<std::string>& v, std::string_view x) {
    return std::any_of(v.begin(), v.end(), [x](const std::string& y) { return detail::same_id(y, x); });
  };
  const MeasuredSet& m = t.measured;
  if (m.gpus.empty()) return 0;  // a table without its measured set: no flags
  unsigned flags = 0;
  if (!has(m.models, model_id)) flags |= kBandModelUnmeasured;
  if (users_per_instance > m.users_max) flags |= kBandUsersBeyondMeasured;
  // "<engine>@<vendor>", matched in place (building the key allocated a string each time).
  const auto engine_at_vendor = [&](const std::string& x) {
    const std::size_t at = engine_id.size();
    return x.size() == at + 1 + vendor.size() && x[at] == '@' &&
           detail::same_id(std::string_view(x.data(), at), engine_id) &&
           detail::same_id(std::string_view(x.data() + at + 1, vendor.size()), vendor);
  };
  if (std::none_of(m.engines.begin(), m.engines.end(), engine_at_vendor)) flags |= kBandEngineUnmeasured;
  if (!has(m.gpus, gpu_id)) flags |= kBandGpuUnmeasured;
  return flags;
}

const char* users_regime(double users_per_instance) {
  return kRegimes[regime_index(users_per_instance)];
}

Result<ErrorBandTable> compute_error_bands(const Catalog& catalog, std::string_view validation_json,
                                           std::string_view serving_json) {
  auto mlperf = run_validation(catalog, validation_json);
  if (!mlperf) return mlperf.error();
  auto serving = run_serving_validation(catalog, serving_json, true);
  if (!serving) return serving.error();
  ErrorBandTable t;
  t.widening = band_widening(serving.value());
  t.measured = measured_set(serving.value());
  for (std::size_t v = 0; v < kErrorBandVendors; ++v) {
    for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
      for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
        t.bands[v][f][r] = error_band_for(serving.value(), kVendors[v],
                                          weight_format_name(static_cast<WeightFormat>(f)),
                                          kRegimeUsers[r]);
      }
    }
  }
  ValidationSummary& s = t.summary;
  const ValidationReport& m = mlperf.value();
  std::map<std::string, MetricError> by_gpu;
  for (const auto& row : m.rows) {
    s.mlperf_rows.push_back(
        MlperfRowError{row.id, row.workload, row.gpu_id, row.unit, row.predicted, row.measured, row.error});
    MetricError& e = by_gpu[row.gpu_id];
    e.mape += std::fabs(row.error);
    ++e.points;
  }
  for (auto& [gpu, e] : by_gpu) {
    e.mape /= e.points;
    s.mlperf_per_gpu.push_back(MlperfGpuError{gpu, e});
  }
  s.mlperf_median_abs_error = m.median_abs_error;
  s.mlperf_max_abs_error = m.max_abs_error;
  s.mlperf_ranks_match = m.ranks_match;
  s.mlperf_ranks_match_beyond_ties = m.ranks_match_beyond_ties;
  for (const Mape& g : serving.value().per_gpu) s.serving_per_gpu.push_back(serving_error(g));
  s.serving_all = serving_error(serving.value().all);
  s.serving_all.gpu = "all";
  widen_bands(t);
  return t;
}

std::string error_bands_to_json(const ErrorBandTable& t) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", kErrorBandsSchema);
  w.field("generated_by", "make error-bands (gpucalc --validate --write-error-bands data/error-bands.json)");
  w.field("note",
          "Generated from data/validation.json and data/validation-serving.json by the model; do "
          "not edit. bands: per vendor, weight format and users per instance, the out-of-sample "
          "error (mape, p50, p80 of |predicted / measured - 1|) of the nearest group of newest "
          "serving rows with at least 3 points, each predicted with the constants re-set without "
          "its request shape (error_band_for() in core/src/validation/validation.cpp). widening: per "
          "extrapolation flag and metric, how much more the folds that held out a whole model, "
          "engine, GPU or the rows above 32 users erred (p80 of each row's error / its own band, "
          "at least 1): a prediction so flagged has its band multiplied by it "
          "(band_widening()). measured: what the newest rows measured, for the flags, and those rows (runs) for the serving chart's markers. "
          "summary: per-GPU in-sample error of both tables, for the page's "
          "accuracy panel. The test 'error bands: data/error-bands.json is fresh' fails when the "
          "model or the tables change and this file was not regenerated.");
  w.key("bands").begin_array();
  for (std::size_t v = 0; v < kErrorBandVendors; ++v) {
    for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
      for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
        w.begin_object();
        w.field("vendor", kVendors[v]);
        w.field("weights", weight_format_name(static_cast<WeightFormat>(f)));
        w.field("users", kRegimes[r]).field("source", kServingSource);
        w.key("metrics").begin_array();
        for (const ErrorBand& b : t.bands[v][f][r]) {
          w.begin_object().field("metric", b.metric).field("mape", rounded(b.mape));
          w.field("p50", rounded(b.p50)).field("p80", rounded(b.p80));
          w.field("points", b.points).field("group", b.group).field("basis", b.basis);
          if (!b.statistic.empty()) w.field("statistic", b.statistic);
          w.field("source", kServingSource).end_object();
        }
        w.end_array().end_object();
      }
    }
  }
  w.end_array();
  w.key("widening").begin_array();
  for (const BandWidening& x : t.widening) {
    w.begin_object().field("flag", x.flag).field("fold", x.fold);
    w.field("interactivity", rounded(x.interactivity)).field("throughput_per_gpu", rounded(x.throughput_per_gpu));
    w.field("ttft", rounded(x.ttft)).field("source", kServingSource).end_object();
  }
  w.end_array();
  w.key("measured").begin_object();
  for (const auto& [key, list] : {std::pair<const char*, const std::vector<std::string>*>{"models", &t.measured.models},
                                  {"engines", &t.measured.engines},
                                  {"gpus", &t.measured.gpus}}) {
    w.key(key).begin_array();
    for (const auto& x : *list) w.value(x);
    w.end_array();
  }
  w.field("users_max", t.measured.users_max);
  w.key("runs").begin_array();
  for (const MeasuredRun& r : t.measured.runs) {
    w.begin_object().field("model", r.model).field("gpu", r.gpu_id).field("engine", r.engine);
    w.field("weights", r.weights).field("date", r.date).field("engine_version", r.engine_version);
    w.field("tp", r.tp).field("ep", r.ep).field("dp_attention", r.dp_attention).field("mtp", r.mtp);
    w.field("input_tokens", rounded_figure(r.input_tokens)).field("output_tokens", rounded_figure(r.output_tokens));
    w.field("concurrency", r.concurrency);
    w.field("tokens_per_s_per_user", significant4(r.tokens_per_s_per_user));
    w.field("total_tokens_per_s_per_gpu", significant4(r.total_tokens_per_s_per_gpu));
    w.field("ttft_s", significant4(r.ttft_s)).end_object();
  }
  w.end_array();
  w.field("source", kServingSource).end_object();
  w.key("summary");
  write_summary(w, t.summary);
  w.end_object();
  // One band per line ("[{" and "},{" do not occur inside the strings written here), so a
  // regeneration reads as a diff of the bands that changed.
  std::string out;
  const std::string& s = w.str();
  out.reserve(s.size() + 256);
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if ((s[i] == '[' || (s[i] == ',' && i > 0 && s[i - 1] == '}')) && i + 1 < s.size() && s[i + 1] == '{') {
      out += '\n';
    }
  }
  out += '\n';
  return out;
}

/** measured.runs (optional: a table without it draws no markers), each field within the
 *  bounds of a measured point. */
std::optional<Error> read_measured_runs(const Json& ms, std::vector<MeasuredRun>& runs) {
  if (!ms.contains("runs")) return std::nullopt;
  if (!ms.at("runs").is_array()) return bands_error("measured.runs", "must be an array");
  std::size_t i = 0;
  for (const Json& x : ms.at("runs")) {
    const std::string path = "measured.runs[" + std::to_string(i++) + "]";
    if (!x.is_object()) return bands_error(path, "must be an object");
    if (auto e = unknown(x, path, {"model", "gpu", "engine", "weights", "date", "engine_version", "tp",
                                   "ep", "dp_attention", "mtp", "input_tokens", "output_tokens",
                                   "concurrency", "tokens_per_s_per_user",
                                   "total_tokens_per_s_per_gpu", "ttft_s"})) {
      return *e;
    }
    MeasuredRun r;
    for (const auto& [key, field] : {std::pair<const char*, std::string*>{"model", &r.model},
                                     {"gpu", &r.gpu_id}, {"engine", &r.engine}, {"weights", &r.weights},
                                     {"date", &r.date}, {"engine_version", &r.engine_version}}) {
      const auto v = read<std::string>(x, key);
      if (!v || v->size() > 200) return bands_error(path + "." + key, "is required (a string of at most 200 bytes)");
      *field = *v;
    }
    double tp = 0, ep = 0, dpa = 0, mtp = 0;
    for (const auto& [key, field, bound] :
         {std::tuple<const char*, double*, const detail::Bound*>{"tp", &tp, &detail::kInstanceTp},
          {"ep", &ep, &detail::kParallelDegree}, {"dp_attention", &dpa, &detail::kFlag},
          {"mtp", &mtp, &detail::kMtpTokens}, {"input_tokens", &r.input_tokens, &detail::kPointTokens},
          {"output_tokens", &r.output_tokens, &detail::kPointTokens},
          {"concurrency", &r.concurrency, &detail::kPointConcurrency},
          {"tokens_per_s_per_user", &r.tokens_per_s_per_user, &detail::kTokensPerS},
          {"total_tokens_per_s_per_gpu", &r.total_tokens_per_s_per_gpu, &detail::kTokensPerS},
          {"ttft_s", &r.ttft_s, &detail::kBenchLatencyS}}) {
      const auto v = read<double>(x, key);
      if (!v) return bands_error(path + "." + key, "is required (a number)");
      if (auto e = detail::out_of_bound("error-bands.json." + path + "." + key, *v, *bound)) return *e;
      *field = *v;
    }
    r.tp = static_cast<int>(tp);
    r.ep = static_cast<int>(ep);
    r.dp_attention = static_cast<int>(dpa);
    r.mtp = static_cast<int>(mtp);
    runs.push_back(std::move(r));
  }
  return std::nullopt;
}

Result<ErrorBandTable> parse_error_bands(std::string_view json_text) {
  auto parsed = detail::parse_json_strict(json_text, "error-bands.json");
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  if (!j.is_object() || !j.contains("bands") || !j.at("bands").is_array()) {
    return bands_error("bands", "is required (an array)");
  }
  if (auto e = unknown(j, "", {"schema", "generated_by", "note", "bands", "widening", "measured", "summary"})) {
    return *e;
  }
  ErrorBandTable t;
  std::array<std::array<std::array<bool, kErrorBandRegimes>, kErrorBandFormats>, kErrorBandVendors> seen{};
  std::size_t i = 0;
  for (const Json& b : j.at("bands")) {
    const std::string path = "bands[" + std::to_string(i++) + "]";
    if (auto e = unknown(b, path, {"vendor", "weights", "users", "source", "metrics", "note"})) return *e;
    const auto vendor = read<std::string>(b, "vendor");
    const auto weights = read<std::string>(b, "weights");
    const auto users = read<std::string>(b, "users");
    std::size_t v = kErrorBandVendors, r = kErrorBandRegimes;
    for (std::size_t k = 0; k < kErrorBandVendors; ++k) if (vendor && *vendor == kVendors[k]) v = k;
    for (std::size_t k = 0; k < kErrorBandRegimes; ++k) if (users && *users == kRegimes[k]) r = k;
    const auto format = weights ? parse_weight_format(*weights) : std::nullopt;
    if (v == kErrorBandVendors || r == kErrorBandRegimes || !format) {
      return bands_error(path, "needs vendor (amd, nvidia), weights (a weight format) and users (1-8, 9-32, 33+)");
    }
    const auto f = static_cast<std::size_t>(*format);
    if (seen[v][f][r]) return bands_error(path, "repeats " + *vendor + " " + *weights + " " + *users);
    seen[v][f][r] = true;
    if (!b.contains("metrics") || !b.at("metrics").is_array()) return bands_error(path + ".metrics", "is required (an array)");
    std::size_t k = 0;
    for (const Json& m : b.at("metrics")) {
      const std::string mpath = path + ".metrics[" + std::to_string(k++) + "]";
      if (auto e = unknown(m, mpath, {"metric", "mape", "p50", "p80", "points", "group", "basis", "statistic", "source"})) {
        return *e;
      }
      const auto metric = read<std::string>(m, "metric");
      const auto mape = read<double>(m, "mape");
      const auto points = read<int>(m, "points");
      const auto group = read<std::string>(m, "group");
      const auto p50 = read<double>(m, "p50");
      const auto p80 = read<double>(m, "p80");
      const auto basis = read<std::string>(m, "basis");
      bool known = false;
      for (const char* name : kMetrics) known = known || (metric && *metric == name);
      if (!known || !mape || !points || !group || !p50 || !p80 || !basis) {
        return bands_error(mpath, "needs metric (interactivity, throughput_per_gpu, ttft), mape, p50, p80, points, group, basis");
      }
      if (auto e = bad_error_fraction(mpath + ".mape", *mape)) return *e;
      if (auto e = bad_error_fraction(mpath + ".p50", *p50)) return *e;
      if (auto e = bad_error_fraction(mpath + ".p80", *p80)) return *e;
      ErrorBand band;
      band.metric = *metric;
      band.mape = *mape;
      band.points = *points;
      band.group = *group;
      band.p50 = *p50;
      band.p80 = *p80;
      band.basis = *basis;
      if (m.contains("statistic")) {
        const auto statistic = read<std::string>(m, "statistic");
        if (!statistic || (*statistic != "median" && *statistic != "mean" && *statistic != "median+mean")) {
          return bands_error(mpath + ".statistic", "must be \"median\", \"mean\" or \"median+mean\"");
        }
        band.statistic = *statistic;
      }
      t.bands[v][f][r].push_back(std::move(band));
    }
  }
  if (!j.contains("widening") || !j.at("widening").is_array() || j.at("widening").size() != 4) {
    return bands_error("widening", "is required: one entry per flag (model, users, engine, GPU)");
  }
  i = 0;
  for (const Json& x : j.at("widening")) {
    const std::string path = "widening[" + std::to_string(i++) + "]";
    if (auto e = unknown(x, path, {"flag", "fold", "interactivity", "throughput_per_gpu", "ttft", "source"})) {
      return *e;
    }
    BandWidening w;
    const auto flag = read<std::string>(x, "flag");
    const auto fold = read<std::string>(x, "fold");
    const auto a = read<double>(x, "interactivity"), b = read<double>(x, "throughput_per_gpu"), c = read<double>(x, "ttft");
    if (!flag || !fold || !a || !b || !c || *a < 1.0 || *b < 1.0 || *c < 1.0) {
      return bands_error(path, "needs flag, fold and interactivity, throughput_per_gpu, ttft (factors >= 1)");
    }
    t.widening.push_back(BandWidening{*flag, *fold, *a, *b, *c});
  }
  if (!j.contains("measured") || !j.at("measured").is_object()) return bands_error("measured", "is required");
  const Json& ms = j.at("measured");
  if (auto e = unknown(ms, "measured", {"models", "engines", "gpus", "users_max", "runs", "source"})) return *e;
  for (const auto& [key, list] : {std::pair<const char*, std::vector<std::string>*>{"models", &t.measured.models},
                                  {"engines", &t.measured.engines},
                                  {"gpus", &t.measured.gpus}}) {
    if (!ms.contains(key) || !ms.at(key).is_array()) return bands_error(std::string("measured.") + key, "is required (an array of ids)");
    for (const Json& x : ms.at(key)) {
      if (!x.is_string()) return bands_error(std::string("measured.") + key, "must hold strings");
      list->push_back(x.get<std::string>());
    }
  }
  const auto users_max = read<double>(ms, "users_max");
  if (!users_max) return bands_error("measured.users_max", "is required (a number)");
  t.measured.users_max = *users_max;
  if (auto e = read_measured_runs(ms, t.measured.runs)) return *e;
  if (!j.contains("summary")) return bands_error("summary", "is required");
  if (auto e = read_summary(j.at("summary"), t.summary)) return *e;
  widen_bands(t);
  return t;
}

const std::vector<ErrorBand>& catalog_error_band(const Catalog& catalog, const std::string& vendor,
                                                 WeightFormat weights, double users_per_instance,
                                                 unsigned flags) {
  static const std::vector<ErrorBand> kNone;
  if (!catalog.error_bands) return kNone;
  const std::size_t v = std::string_view(vendor) == "amd" ? 0 : 1;
  const std::size_t f = std::min(kErrorBandFormats - 1, static_cast<std::size_t>(weights));
  return catalog.error_bands->widened[v][f][regime_index(users_per_instance)][flags % kBandFlagCombos];
}

ErrorBandList catalog_error_band_list(const Catalog& catalog, const std::string& vendor,
                                      WeightFormat weights, double users_per_instance,
                                      unsigned flags) {
  const std::vector<ErrorBand>& bands = catalog_error_band(catalog, vendor, weights, users_per_instance, flags);
  if (bands.empty()) return ErrorBandList{};
  // Aliasing: shares ownership of the whole table, points at this cell's bands.
  return ErrorBandList(std::shared_ptr<const std::vector<ErrorBand>>(catalog.error_bands, &bands));
}

std::string validation_summary_json(const Catalog& catalog) {
  if (!catalog.error_bands) {
    return error_to_json(make_error(ErrorCode::kInvalidCatalog, "error-bands.json",
                                    "is not in the catalog: run make error-bands"));
  }
  JsonWriter w;
  write_summary(w, catalog.error_bands->summary);
  return std::move(w.str());
}

}  // namespace gpucalc
