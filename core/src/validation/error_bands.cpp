// Error bands and the validation summary, precomputed into data/error-bands.json (error_bands.hpp).
#include "gpucalc/error_bands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>

#include "catalog/bounds.hpp"
#include "catalog/ids.hpp"
#include "gpucalc/folds.hpp"
#include "gpucalc/validation.hpp"
#include "gpucalc/validation_disagg.hpp"
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

/** The fields of a measured run as data/error-bands.json stores them (measured.runs: a column
 *  per field): a string, a count or a figure, with the bounds a number is checked against. */
struct RunField {
  const char* key;
  std::string MeasuredRun::*text;
  int MeasuredRun::*count;
  double MeasuredRun::*figure;
  const detail::Bound* bound;
};
const RunField kRunFields[] = {
    {"model", &MeasuredRun::model, nullptr, nullptr, nullptr},
    {"gpu", &MeasuredRun::gpu_id, nullptr, nullptr, nullptr},
    {"engine", &MeasuredRun::engine, nullptr, nullptr, nullptr},
    {"weights", &MeasuredRun::weights, nullptr, nullptr, nullptr},
    {"date", &MeasuredRun::date, nullptr, nullptr, nullptr},
    {"engine_version", &MeasuredRun::engine_version, nullptr, nullptr, nullptr},
    {"tp", nullptr, &MeasuredRun::tp, nullptr, &detail::kInstanceTp},
    {"ep", nullptr, &MeasuredRun::ep, nullptr, &detail::kParallelDegree},
    {"dp_attention", nullptr, &MeasuredRun::dp_attention, nullptr, &detail::kFlag},
    {"mtp", nullptr, &MeasuredRun::mtp, nullptr, &detail::kMtpTokens},
    {"input_tokens", nullptr, nullptr, &MeasuredRun::input_tokens, &detail::kPointTokens},
    {"output_tokens", nullptr, nullptr, &MeasuredRun::output_tokens, &detail::kPointTokens},
    {"concurrency", nullptr, nullptr, &MeasuredRun::concurrency, &detail::kPointConcurrency},
    {"tokens_per_s_per_user", nullptr, nullptr, &MeasuredRun::tokens_per_s_per_user, &detail::kTokensPerS},
    {"total_tokens_per_s_per_gpu", nullptr, nullptr, &MeasuredRun::total_tokens_per_s_per_gpu, &detail::kTokensPerS},
    {"ttft_s", nullptr, nullptr, &MeasuredRun::ttft_s, &detail::kBenchLatencyS}};

/** Provenance written beside every generated entry: what the figure was computed from. */
constexpr const char* kServingSource =
    "make error-bands: model vs data/validation-serving.json (InferenceX, newest runs)";
constexpr const char* kDisaggSource =
    "make error-bands: model vs data/validation-disagg.json (InferenceX disaggregated runs, newest), "
    "each point held out by its GPU, engine and layout folds";
constexpr const char* kMlperfSource =
    "make error-bands: model vs data/validation.json (MLPerf v4.1, sources there)";

std::size_t regime_index(double users_per_instance) {
  return users_per_instance <= 8 ? 0 : users_per_instance <= 32 ? 1 : 2;
}

/** Fractions to 1e-4 (0.01 %, a hundredth of the band's printed precision): the file stays
 *  stable under last-bit differences between libms (native glibc, the module's musl), which the
 *  freshness test tolerates, and the page module that embeds it carries no digits nobody reads
 *  (1e-6 cost 0.25 KB of the page's 200 KB gzip). */
double rounded(double x) { return std::round(x * 1e4) / 1e4; }

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


/** Each flag's factor per metric (BandFlag order; interactivity, throughput per GPU, TTFT). */
using FlagFactors = std::array<std::array<double, 3>, kBandFlags>;

/** `base` (a cell's bands) under every combination of flags into out[0 .. kBandFlagCombos),
 *  widened by `factors`, the basis naming each factor and `where` it was measured. */
void widen_cell(const std::vector<ErrorBand>& base, const std::vector<BandWidening>& widening,
                const FlagFactors& factors, const std::string& where, std::vector<ErrorBand>* out) {
  for (unsigned combo = 0; combo < kBandFlagCombos; ++combo) {
    std::vector<ErrorBand> bands = base;
    for (std::size_t m = 0; m < bands.size(); ++m) {
      ErrorBand& b = bands[m];
      for (std::size_t k = 0; k < kBandFlags && k < widening.size(); ++k) {
        if ((combo & (1u << k)) == 0) continue;
        const double x = factors[k][std::min<std::size_t>(m, 2)];
        b.p50 *= x;
        b.p80 *= x;
        b.mape *= x;
        char text[32];
        std::snprintf(text, sizeof text, "%.2f", x);
        b.basis += std::string("; x") + text + " " + widening[k].flag + " (" + widening[k].fold + " folds" + where + ")";
      }
      b.model_unmeasured = (combo & kBandModelUnmeasured) != 0;
      b.users_beyond_measured = (combo & kBandUsersBeyondMeasured) != 0;
      b.engine_unmeasured = (combo & kBandEngineUnmeasured) != 0;
      b.gpu_unmeasured = (combo & kBandGpuUnmeasured) != 0;
      b.disaggregated = (combo & kBandDisaggregated) != 0;
    }
    out[combo] = std::move(bands);
  }
}

}  // namespace

void widen_bands(ErrorBandTable& t) {
  // Each flag's factors over all rows, and each architecture's: its own where the flag gives
  // one, else those over all rows.
  FlagFactors all{};
  for (std::size_t k = 0; k < kBandFlags; ++k) {
    const BandWidening* w = k < t.widening.size() ? &t.widening[k] : nullptr;
    all[k] = w ? std::array<double, 3>{w->interactivity, w->throughput_per_gpu, w->ttft}
               : std::array<double, 3>{1.0, 1.0, 1.0};
  }
  constexpr std::size_t kCell = kErrorBandRegimes * kBandFlagCombos, kVendorCells = kErrorBandFormats * kCell;
  t.widened.assign(kErrorBandVendors * kVendorCells, {});
  for (std::size_t v = 0; v < kErrorBandVendors; ++v) {
    for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
      for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
        widen_cell(t.bands[v][f][r], t.widening, all, "", &t.widened[v * kVendorCells + f * kCell + r * kBandFlagCombos]);
      }
    }
  }
  t.widened_by_architecture.clear();
  for (const BandWidening& w : t.widening) {
    for (const ArchitectureWidening& a : w.architectures) {
      const bool known = std::any_of(t.widened_by_architecture.begin(), t.widened_by_architecture.end(),
                                     [&](const auto& c) { return c.architecture == a.architecture; });
      if (known) continue;
      FlagFactors own = all;
      for (std::size_t k = 0; k < t.widening.size() && k < kBandFlags; ++k) {
        for (const ArchitectureWidening& x : t.widening[k].architectures) {
          if (x.architecture == a.architecture) own[k] = {x.interactivity, x.throughput_per_gpu, x.ttft};
        }
      }
      ErrorBandTable::ArchitectureCells c{a.architecture, std::vector<std::vector<ErrorBand>>(kVendorCells)};
      const std::size_t v = a.vendor == "amd" ? 0 : 1;
      for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
        for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
          widen_cell(t.bands[v][f][r], t.widening, own, ", " + a.architecture, &c.cells[f * kCell + r * kBandFlagCombos]);
        }
      }
      t.widened_by_architecture.push_back(std::move(c));
    }
  }
}

const std::vector<ErrorBand>& table_band(const ErrorBandTable& t, std::size_t v, std::size_t f, std::size_t r,
                                         unsigned flags, std::string_view architecture) {
  flags %= kBandFlagCombos;
  const std::size_t cell = (f * kErrorBandRegimes + r) * kBandFlagCombos + flags;
  if (flags != 0 && !architecture.empty()) {
    for (const auto& c : t.widened_by_architecture) {
      if (c.architecture == architecture) return c.cells[cell];
    }
  }
  return t.widened[v * kErrorBandFormats * kErrorBandRegimes * kBandFlagCombos + cell];
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

namespace {

/** A scored row of the disaggregated table as a band reads it: its cell (vendor, weights, users
 *  per decode worker), its GPU's architecture, and per fold kind its held-out |error| per
 *  metric (interactivity, throughput per GPU; -1 where none). */
struct DisaggBandRow {
  std::size_t vendor = 1, format = 0, regime = 0;
  std::string architecture;
  std::array<std::array<double, 2>, kDisaggFoldKinds> error{};
};

std::vector<DisaggBandRow> disagg_band_rows(const Catalog& catalog, const DisaggValidationReport& report) {
  std::vector<DisaggBandRow> out;
  for (const DisaggValidationRow& r : report.rows) {
    const Gpu* gpu = catalog.find_gpu(r.gpu);
    const auto weights = parse_weight_format(r.weights);
    if (!r.newest || gpu == nullptr || !weights || r.out_of_sample.size() < kDisaggFoldKinds) continue;
    // "1x(tp4,ep4,dpa)+5x(tp8,ep8)": the decode pool's workers lead the part after '+'.
    const std::size_t plus = r.layout.find('+');
    const double workers = plus == std::string::npos ? 1.0 : std::max(1.0, std::atof(r.layout.c_str() + plus + 1));
    DisaggBandRow b;
    b.vendor = gpu->vendor == "amd" ? 0 : 1;
    b.format = std::min(kErrorBandFormats - 1, static_cast<std::size_t>(*weights));
    b.regime = regime_index(r.concurrency / workers);
    b.architecture = gpu->architecture;
    const double measured[2] = {r.measured_interactivity, r.measured_throughput_per_gpu};
    for (std::size_t k = 0; k < kDisaggFoldKinds; ++k) {
      for (std::size_t m = 0; m < 2; ++m) {
        const double p = r.out_of_sample[k][m];
        b.error[k][m] = p > 0.0 && measured[m] > 0.0 ? std::fabs(p / measured[m] - 1.0) : -1.0;
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

void set_widening_factors(const std::vector<WideningSample>& samples, BandWidening& w) {
  double* all[] = {&w.interactivity, &w.throughput_per_gpu, &w.ttft};
  // The factor that puts 80 % of the samples inside: the 80th percentile of error / band.
  const auto factors = [&](const std::string* architecture, double* slots[3]) {
    int points = 0;
    for (std::size_t m = 0; m < 3; ++m) {
      std::vector<double> ratio;
      for (const WideningSample& x : samples) {
        if (x.metric == m && (architecture == nullptr || x.architecture == *architecture)) ratio.push_back(x.ratio);
      }
      if (m == 0) points = static_cast<int>(ratio.size());
      const bool enough = architecture == nullptr || static_cast<int>(ratio.size()) >= kArchitectureWideningRows;
      if (!ratio.empty() && enough) *slots[m] = std::max(1.0, quantile(ratio, 0.8));
    }
    return points;
  };
  factors(nullptr, all);
  std::vector<std::pair<std::string, std::string>> architectures;
  for (const WideningSample& x : samples) {
    const std::pair<std::string, std::string> a{x.architecture, x.vendor};
    if (!x.architecture.empty() && std::find(architectures.begin(), architectures.end(), a) == architectures.end()) {
      architectures.push_back(a);
    }
  }
  std::sort(architectures.begin(), architectures.end());
  w.architectures.clear();
  for (const auto& [architecture, vendor] : architectures) {
    ArchitectureWidening a{architecture, vendor, w.interactivity, w.throughput_per_gpu, w.ttft, 0};
    double* slots[] = {&a.interactivity, &a.throughput_per_gpu, &a.ttft};
    a.points = factors(&architecture, slots);
    if (a.points >= kArchitectureWideningRows) w.architectures.push_back(std::move(a));
  }
}

BandWidening disaggregated_widening(const Catalog& catalog, const DisaggValidationReport& report,
                                    const ErrorBandTable& t) {
  // Over the held-out points of every fold kind (a whole GPU, engine or layout out), each
  // point's |error| over the p80 of the aggregated band its cell reads; no TTFT is published.
  std::vector<WideningSample> samples;
  for (const DisaggBandRow& r : disagg_band_rows(catalog, report)) {
    const auto& cell = t.bands[r.vendor][r.format][r.regime];
    for (std::size_t m = 0; m < 2; ++m) {
      const double band = m < cell.size() ? cell[m].p80 : 0.0;
      for (std::size_t k = 0; k < kDisaggFoldKinds; ++k) {
        if (band > 0.0 && r.error[k][m] >= 0.0) samples.push_back({r.architecture, kVendors[r.vendor], m, r.error[k][m] / band});
      }
    }
  }
  BandWidening w{"disaggregated", "disaggregated", 1.0, 1.0, 1.0, {}};
  set_widening_factors(samples, w);
  return w;
}

std::array<std::array<double, 2>, kDisaggFoldKinds> disagg_band_coverage(const Catalog& catalog,
                                                                        const DisaggValidationReport& report,
                                                                        const ErrorBandTable& t) {
  std::array<std::array<double, 2>, kDisaggFoldKinds> share{};
  const std::vector<DisaggBandRow> rows = disagg_band_rows(catalog, report);
  for (std::size_t k = 0; k < kDisaggFoldKinds; ++k) {
    for (std::size_t m = 0; m < 2; ++m) {
      int inside = 0, n = 0;
      for (const DisaggBandRow& r : rows) {
        const auto& band = table_band(t, r.vendor, r.format, r.regime, kBandDisaggregated, r.architecture);
        if (r.error[k][m] < 0.0 || m >= band.size()) continue;
        ++n;
        inside += r.error[k][m] <= band[m].p80 ? 1 : 0;
      }
      share[k][m] = n > 0 ? static_cast<double>(inside) / n : 0.0;
    }
  }
  return share;
}

Result<ErrorBandTable> compute_error_bands(const Catalog& catalog, std::string_view validation_json,
                                           std::string_view serving_json, std::string_view disagg_json) {
  auto mlperf = run_validation(catalog, validation_json);
  if (!mlperf) return mlperf.error();
  auto serving = run_serving_validation(catalog, serving_json, true);
  if (!serving) return serving.error();
  auto disagg = run_disagg_validation(catalog, disagg_json, true);
  if (!disagg) return disagg.error();
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
  t.widening.push_back(disaggregated_widening(catalog, disagg.value(), t));
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
          "(band_widening()); architectures: the same over the fold's rows of each GPU architecture "
          "with at least 10 of them, which a prediction on a GPU of that architecture takes instead. measured: what the newest rows measured, for the flags, and those rows (runs) for the serving chart's markers. "
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
    w.field("ttft", rounded(x.ttft));
    w.key("architectures").begin_array();
    for (const ArchitectureWidening& a : x.architectures) {
      w.begin_object().field("architecture", a.architecture).field("vendor", a.vendor);
      w.field("interactivity", rounded(a.interactivity)).field("throughput_per_gpu", rounded(a.throughput_per_gpu));
      w.field("ttft", rounded(a.ttft)).field("points", a.points).end_object();
    }
    w.end_array();
    w.field("source", x.flag == "disaggregated" ? kDisaggSource : kServingSource).end_object();
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
  // One array per field, a run per index (the page module embeds this file: a column's values
  // compress better than the same keys repeated in every run).
  w.key("runs").begin_object();
  const auto& runs = t.measured.runs;
  for (const RunField& c : kRunFields) {
    w.key(c.key).begin_array();
    for (const MeasuredRun& r : runs) {
      if (c.text) {
        w.value(r.*c.text);
      } else if (c.count) {
        w.value(static_cast<long long>(r.*c.count));
      } else {
        // Lengths to 1e-3 as the table maps them (0.9 x nominal), figures to 4 digits.
        const double x = r.*c.figure;
        const bool tokens = c.figure == &MeasuredRun::input_tokens || c.figure == &MeasuredRun::output_tokens;
        w.value(c.figure == &MeasuredRun::concurrency ? x : tokens ? rounded_figure(x) : significant4(x));
      }
    }
    w.end_array();
  }
  w.end_object();
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
  const Json& cols = ms.at("runs");
  if (!cols.is_object() || !cols.contains("model") || !cols.at("model").is_array()) {
    return bands_error("measured.runs", "must be an object of columns");
  }
  for (auto it = cols.begin(); it != cols.end(); ++it) {
    const bool known = std::any_of(std::begin(kRunFields), std::end(kRunFields),
                                   [&](const RunField& c) { return it.key() == c.key; });
    if (!known) return bands_error("measured.runs." + it.key(), "is not a field");
  }
  const std::size_t n = cols.at("model").size();
  runs.assign(n, MeasuredRun{});
  for (const RunField& c : kRunFields) {
    const std::string path = std::string("measured.runs.") + c.key;
    if (!cols.contains(c.key) || !cols.at(c.key).is_array() || cols.at(c.key).size() != n) {
      return bands_error(path, "is required (an array as long as model)");
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Json& x = cols.at(c.key)[i];
      const std::string at = path + "[" + std::to_string(i) + "]";
      if (c.text) {
        if (!x.is_string() || x.get_ref<const std::string&>().size() > 200) {
          return bands_error(at, "must be a string");
        }
        runs[i].*c.text = x.get<std::string>();
        continue;
      }
      if (!x.is_number()) return bands_error(at, "must be a number");
      const double v = x.get<double>();
      if (auto e = detail::out_of_bound("error-bands.json." + at, v, *c.bound)) return e;
      if (c.count) {
        runs[i].*c.count = static_cast<int>(v);
      } else {
        runs[i].*c.figure = v;
      }
    }
  }
  return std::nullopt;
}

namespace {

/** data/error-bands.json "widening": one entry per flag, each with its architectures. */
std::optional<Error> read_widening(const Json& j, std::vector<BandWidening>& out) {
  if (!j.contains("widening") || !j.at("widening").is_array() || j.at("widening").size() != kBandFlags) {
    return bands_error("widening", "is required: one entry per flag (model, users, engine, GPU, disaggregated)");
  }
  std::size_t i = 0;
  for (const Json& x : j.at("widening")) {
    const std::string path = "widening[" + std::to_string(i++) + "]";
    if (auto e = unknown(x, path, {"flag", "fold", "interactivity", "throughput_per_gpu", "ttft", "architectures", "source"})) {
      return *e;
    }
    const auto flag = read<std::string>(x, "flag");
    const auto fold = read<std::string>(x, "fold");
    const auto a = read<double>(x, "interactivity"), b = read<double>(x, "throughput_per_gpu"), c = read<double>(x, "ttft");
    if (!flag || !fold || !a || !b || !c || *a < 1.0 || *b < 1.0 || *c < 1.0) {
      return bands_error(path, "needs flag, fold and interactivity, throughput_per_gpu, ttft (factors >= 1)");
    }
    BandWidening w{*flag, *fold, *a, *b, *c, {}};
    if (!x.contains("architectures") || !x.at("architectures").is_array()) {
      return bands_error(path + ".architectures", "is required (an array)");
    }
    std::size_t k = 0;
    for (const Json& y : x.at("architectures")) {
      const std::string apath = path + ".architectures[" + std::to_string(k++) + "]";
      if (auto e = unknown(y, apath, {"architecture", "vendor", "interactivity", "throughput_per_gpu", "ttft", "points"})) {
        return *e;
      }
      const auto arch = read<std::string>(y, "architecture"), vendor = read<std::string>(y, "vendor");
      const auto ya = read<double>(y, "interactivity"), yb = read<double>(y, "throughput_per_gpu");
      const auto yc = read<double>(y, "ttft");
      const auto points = read<int>(y, "points");
      if (!arch || arch->empty() || !vendor || (*vendor != "amd" && *vendor != "nvidia") || !ya || !yb || !yc ||
          *ya < 1.0 || *yb < 1.0 || *yc < 1.0 || !points || *points < 1) {
        return bands_error(apath, "needs architecture, vendor, factors >= 1 and points");
      }
      w.architectures.push_back(ArchitectureWidening{*arch, *vendor, *ya, *yb, *yc, *points});
    }
    out.push_back(std::move(w));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> parse_error_bands_into(std::string_view json_text, ErrorBandTable& t) {
  auto parsed = detail::parse_json_strict(json_text, "error-bands.json");
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  if (!j.is_object() || !j.contains("bands") || !j.at("bands").is_array()) {
    return bands_error("bands", "is required (an array)");
  }
  if (auto e = unknown(j, "", {"schema", "generated_by", "note", "bands", "widening", "measured", "summary"})) {
    return *e;
  }
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
  if (auto e = read_widening(j, t.widening)) return *e;
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
  return std::nullopt;
}

Result<ErrorBandTable> parse_error_bands(std::string_view json_text) {
  ErrorBandTable t;
  if (auto e = parse_error_bands_into(json_text, t)) return *e;
  return t;
}

const std::vector<ErrorBand>& catalog_error_band(const Catalog& catalog, const std::string& vendor,
                                                 WeightFormat weights, double users_per_instance,
                                                 unsigned flags, std::string_view architecture) {
  static const std::vector<ErrorBand> kNone;
  if (!catalog.error_bands) return kNone;
  const std::size_t v = std::string_view(vendor) == "amd" ? 0 : 1;
  const std::size_t f = std::min(kErrorBandFormats - 1, static_cast<std::size_t>(weights));
  return table_band(*catalog.error_bands, v, f, regime_index(users_per_instance), flags, architecture);
}

ErrorBandList catalog_error_band_list(const Catalog& catalog, const std::string& vendor,
                                      WeightFormat weights, double users_per_instance,
                                      unsigned flags, std::string_view architecture) {
  const std::vector<ErrorBand>& bands =
      catalog_error_band(catalog, vendor, weights, users_per_instance, flags, architecture);
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
