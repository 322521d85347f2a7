// data/error-bands.json (error_bands.hpp): generated from the validation tables, loaded through
// the catalog, and fresh: recomputing it from the tables with the model gives the same figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/validation.hpp"
#include "gpucalc/validation_disagg.hpp"

using namespace gpucalc;

namespace {

const char* embedded_table(std::string_view name) {
  for (const auto& f : embedded_validation_files()) {
    if (name == f.name) return f.text;
  }
  return nullptr;
}

const std::string kStale = "data/error-bands.json is stale: run make error-bands";

// The file holds fractions rounded to 1e-4 (half of it either way); the model's last bits
// differ between libms.
bool same(double file, double computed) { return std::fabs(file - computed) <= 5.1e-5; }

bool same(const MetricError& a, const MetricError& b) {
  return a.points == b.points && same(a.mape, b.mape);
}

bool same(const ServingGpuError& a, const ServingGpuError& b) {
  return a.gpu == b.gpu && same(a.interactivity, b.interactivity) &&
         same(a.throughput_per_gpu, b.throughput_per_gpu) && same(a.ttft, b.ttft);
}

// The first result's error band (three metrics) for a scenario on the built-in catalog.
std::vector<ErrorBand> first_band(const std::string& scenario) {
  auto ev = evaluate_text(default_catalog(), scenario, false);
  REQUIRE(ev);
  REQUIRE(!ev.value().results.empty());
  const auto& b = ev.value().results[0].error_band;
  REQUIRE(b.size() == 3);
  return std::vector<ErrorBand>(b.begin(), b.end());
}

}  // namespace

TEST_CASE("error bands: data/error-bands.json is fresh") {
  const Catalog& catalog = default_catalog();
  REQUIRE_MESSAGE(static_cast<bool>(catalog.error_bands), "data/error-bands.json is missing: run make error-bands");
  const char* mlperf = embedded_table("validation.json");
  const char* serving = embedded_table("validation-serving.json");
  REQUIRE(mlperf != nullptr);
  REQUIRE(serving != nullptr);
  // Recomputed without the file (as the generator does), so the file cannot vouch for itself.
  auto base = build_default_catalog("error-bands.json");
  REQUIRE(base);
  CHECK_FALSE(static_cast<bool>(base.value().error_bands));
  const char* disagg = embedded_table("validation-disagg.json");
  REQUIRE(disagg != nullptr);
  auto computed = compute_error_bands(base.value(), mlperf, serving, disagg);
  REQUIRE(computed);
  const ErrorBandTable& want = computed.value();
  const ErrorBandTable& have = *catalog.error_bands;
  bool fresh = true;
  std::string first_difference;
  auto differs = [&](const std::string& what) {
    if (fresh) first_difference = what;
    fresh = false;
  };
  for (std::size_t v = 0; v < kErrorBandVendors; ++v) {
    for (std::size_t f = 0; f < kErrorBandFormats; ++f) {
      for (std::size_t r = 0; r < kErrorBandRegimes; ++r) {
        const auto& a = have.bands[v][f][r];
        const auto& b = want.bands[v][f][r];
        const std::string cell = "bands[" + std::to_string(v) + "][" + std::to_string(f) + "][" +
                                 std::to_string(r) + "]";
        if (a.size() != b.size()) {
          differs(cell + ": " + std::to_string(a.size()) + " metrics, want " + std::to_string(b.size()));
          continue;
        }
        for (std::size_t k = 0; k < a.size(); ++k) {
          if (a[k].metric != b[k].metric || a[k].group != b[k].group || a[k].points != b[k].points ||
              !same(a[k].mape, b[k].mape) || !same(a[k].p50, b[k].p50) || !same(a[k].p80, b[k].p80) ||
              a[k].basis != b[k].basis || a[k].statistic != b[k].statistic) {
            differs(cell + " " + b[k].metric + ": file " + std::to_string(a[k].mape) + " on " +
                    std::to_string(a[k].points) + " (" + a[k].group + "), model " +
                    std::to_string(b[k].mape) + " on " + std::to_string(b[k].points) + " (" + b[k].group + ")");
          }
        }
      }
    }
  }
  if (have.widening.size() != want.widening.size()) {
    differs("widening count");
  } else {
    for (std::size_t i = 0; i < have.widening.size(); ++i) {
      const BandWidening &a = have.widening[i], &b = want.widening[i];
      if (a.flag != b.flag || a.fold != b.fold || !same(a.interactivity, b.interactivity) ||
          !same(a.throughput_per_gpu, b.throughput_per_gpu) || !same(a.ttft, b.ttft)) {
        differs("widening " + b.flag);
      }
      bool same_architectures = a.architectures.size() == b.architectures.size();
      for (std::size_t k = 0; same_architectures && k < a.architectures.size(); ++k) {
        const ArchitectureWidening &x = a.architectures[k], &y = b.architectures[k];
        same_architectures = x.architecture == y.architecture && x.vendor == y.vendor && x.points == y.points &&
                             same(x.interactivity, y.interactivity) &&
                             same(x.throughput_per_gpu, y.throughput_per_gpu) && same(x.ttft, y.ttft);
      }
      if (!same_architectures) differs("widening " + b.flag + " architectures");
    }
  }
  if (have.measured.models != want.measured.models || have.measured.engines != want.measured.engines ||
      have.measured.gpus != want.measured.gpus || have.measured.users_max != want.measured.users_max) {
    differs("measured");
  }
  // The measured runs behind the chart's markers: the table's newest rows, figures to 4
  // significant digits.
  if (have.measured.runs.size() != want.measured.runs.size()) {
    differs("measured.runs count: file " + std::to_string(have.measured.runs.size()) + ", table " +
            std::to_string(want.measured.runs.size()));
  } else {
    const auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-3; };
    const auto near4 = [](double a, double b) { return std::fabs(a - b) <= 5e-4 * std::fabs(b) + 1e-12; };
    for (std::size_t i = 0; i < have.measured.runs.size(); ++i) {
      const MeasuredRun &a = have.measured.runs[i], &b = want.measured.runs[i];
      if (a.model != b.model || a.gpu_id != b.gpu_id || a.engine != b.engine || a.weights != b.weights ||
          a.date != b.date || a.tp != b.tp || a.mtp != b.mtp || a.concurrency != b.concurrency ||
          !near(a.input_tokens, b.input_tokens) || !near4(a.tokens_per_s_per_user, b.tokens_per_s_per_user) ||
          !near4(a.total_tokens_per_s_per_gpu, b.total_tokens_per_s_per_gpu)) {
        differs("measured.runs[" + std::to_string(i) + "]");
      }
    }
  }
  const ValidationSummary& hs = have.summary;
  const ValidationSummary& ws = want.summary;
  if (!same(hs.mlperf_median_abs_error, ws.mlperf_median_abs_error) ||
      !same(hs.mlperf_max_abs_error, ws.mlperf_max_abs_error) ||
      hs.mlperf_ranks_match != ws.mlperf_ranks_match ||
      hs.mlperf_ranks_match_beyond_ties != ws.mlperf_ranks_match_beyond_ties) {
    differs("summary.mlperf totals");
  }
  if (hs.mlperf_rows.size() != ws.mlperf_rows.size()) {
    differs("summary.mlperf.rows count");
  } else {
    for (std::size_t i = 0; i < hs.mlperf_rows.size(); ++i) {
      const auto &a = hs.mlperf_rows[i], &b = ws.mlperf_rows[i];
      if (a.id != b.id || a.workload != b.workload || a.gpu != b.gpu || a.unit != b.unit ||
          std::fabs(a.predicted - b.predicted) > 2e-3 || std::fabs(a.measured - b.measured) > 2e-3 ||
          !same(a.error, b.error)) {
        differs("summary.mlperf.rows " + b.id + ": file " + std::to_string(a.predicted) + ", model " +
                std::to_string(b.predicted));
      }
    }
  }
  if (hs.mlperf_per_gpu.size() != ws.mlperf_per_gpu.size()) {
    differs("summary.mlperf.per_gpu count");
  } else {
    for (std::size_t i = 0; i < hs.mlperf_per_gpu.size(); ++i) {
      if (hs.mlperf_per_gpu[i].gpu != ws.mlperf_per_gpu[i].gpu ||
          !same(hs.mlperf_per_gpu[i].error, ws.mlperf_per_gpu[i].error)) {
        differs("summary.mlperf.per_gpu " + ws.mlperf_per_gpu[i].gpu);
      }
    }
  }
  if (!same(hs.serving_all, ws.serving_all)) differs("summary.serving.all");
  if (hs.serving_per_gpu.size() != ws.serving_per_gpu.size()) {
    differs("summary.serving.per_gpu count");
  } else {
    for (std::size_t i = 0; i < hs.serving_per_gpu.size(); ++i) {
      if (!same(hs.serving_per_gpu[i], ws.serving_per_gpu[i])) {
        differs("summary.serving.per_gpu " + ws.serving_per_gpu[i].gpu);
      }
    }
  }
  INFO("first difference: " << first_difference);
  CHECK_MESSAGE(fresh, kStale);
}

TEST_CASE("error bands: the generated text reads back to the same table") {
  const Catalog& catalog = default_catalog();
  REQUIRE(static_cast<bool>(catalog.error_bands));
  const std::string text = error_bands_to_json(*catalog.error_bands);
  auto back = parse_error_bands(text);
  REQUIRE(back);
  CHECK(error_bands_to_json(back.value()) == text);
  // The evaluation's band is the table's cell for its vendor, weights and users per instance.
  const auto& band = catalog_error_band(catalog, "amd", WeightFormat::kFp8, 4);
  REQUIRE(band.size() == 3);
  CHECK(band[0].metric == "interactivity");
  CHECK(band[0].group == back.value().bands[0][static_cast<std::size_t>(WeightFormat::kFp8)][0][0].group);
  CHECK(std::string(users_regime(8)) == "1-8");
  CHECK(std::string(users_regime(9)) == "9-32");
  CHECK(std::string(users_regime(33)) == "33+");
}

TEST_CASE("error bands: a broken error-bands document fails loudly, naming the field") {
  auto r = extend_catalog(default_catalog(),
                          R"({"schema": "gpucalc-error-bands/1", "bands": [{"vendor": "intel",
                               "weights": "fp8", "users": "1-8", "metrics": []}], "summary": {}})",
                          "bad-bands.json");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kInvalidCatalog);
  CHECK(r.error().field.find("bands[0]") != std::string::npos);
  auto missing = parse_error_bands(R"({"bands": []})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field.find("widening") != std::string::npos);
  // Every widening entry after the first, and the measured set without runs, as the documents
  // below share them.
  const std::string later_flags = R"(,
          {"flag": "b", "fold": "users", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1, "architectures": []},
          {"flag": "c", "fold": "engine", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1, "architectures": []},
          {"flag": "d", "fold": "gpu", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1, "architectures": []},
          {"flag": "e", "fold": "disaggregated", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1, "architectures": []}],
          "measured": {"models": [], "engines": [], "gpus": [], "users_max": 1)";
  const std::string first_flag =
      R"({"bands": [], "widening": [{"flag": "a", "fold": "model", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1, "architectures": []})";
  auto no_summary = parse_error_bands(first_flag + later_flags + "}}");
  REQUIRE_FALSE(no_summary);
  CHECK(no_summary.error().field.find("summary") != std::string::npos);
  // An architecture's factor below 1 (a band narrowed for extrapolating) is refused, by path.
  auto narrowed = parse_error_bands(
      R"({"bands": [], "widening": [{"flag": "a", "fold": "model", "interactivity": 1, "throughput_per_gpu": 1, "ttft": 1,
          "architectures": [{"architecture": "CDNA 3", "vendor": "amd", "interactivity": 0.5, "throughput_per_gpu": 1, "ttft": 1, "points": 36}]})" +
      later_flags + "}}");
  REQUIRE_FALSE(narrowed);
  CHECK(narrowed.error().field.find("widening[0].architectures[0]") != std::string::npos);
  // measured.runs: a column per field, each as long as the model column; a short column is
  // named, and so is a value out of its bounds.
  const std::string head = first_flag + later_flags + R"(, "runs": )";
  const std::string columns =
      R"("model": ["m"], "gpu": ["g"], "engine": ["e"], "weights": ["fp8"], "date": ["2026-01-01"],
         "engine_version": [""], "tp": [8], "ep": [1], "dp_attention": [0], "mtp": [0], "input_tokens": [921.6],
         "output_tokens": [921.6], "concurrency": [4], "tokens_per_s_per_user": [100],
         "total_tokens_per_s_per_gpu": [200])";
  auto short_column = parse_error_bands(head + "{" + columns + R"(, "ttft_s": []}}})");
  REQUIRE_FALSE(short_column);
  CHECK(short_column.error().field.find("measured.runs.ttft_s") != std::string::npos);
  auto whole_runs = parse_error_bands(head + "{" + columns + R"(, "ttft_s": [0.1]}}})");
  REQUIRE_FALSE(whole_runs);  // the runs read whole: what is missing is the summary
  CHECK(whole_runs.error().field.find("summary") != std::string::npos);
  std::string zero_tp = columns;
  zero_tp.replace(zero_tp.find(R"("tp": [8])"), 9, R"("tp": [0])");
  auto out_of_bounds = parse_error_bands(head + "{" + zero_tp + R"(, "ttft_s": [0.1]}}})");
  REQUIRE_FALSE(out_of_bounds);
  CHECK(out_of_bounds.error().field.find("measured.runs.tp[0]") != std::string::npos);
  auto unknown_column = parse_error_bands(head + "{" + columns + R"(, "ttft_s": [0.1], "color": ["red"]}}})");
  REQUIRE_FALSE(unknown_column);
  CHECK(unknown_column.error().field.find("measured.runs.color") != std::string::npos);
}

TEST_CASE("error bands: a replacement document changes the band an evaluation carries") {
  auto text = error_bands_to_json(*default_catalog().error_bands);
  // Every group renamed: the evaluation must read the replacement, not a copy compiled in.
  for (std::size_t at = text.find("\"group\":\""); at != std::string::npos;
       at = text.find("\"group\":\"", at + 1)) {
    text.insert(at + 9, "x-");
  }
  auto replaced = extend_catalog(default_catalog(), text, "bands.json");
  REQUIRE(replaced);
  auto s = decode_scenario("v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-h200&users=4");
  REQUIRE(s);
  auto ev = evaluate(replaced.value(), s.value(), false);
  REQUIRE(ev);
  REQUIRE(!ev.value().results.empty());
  const auto& band = ev.value().results[0].error_band;
  REQUIRE(band.size() == 3);
  CHECK(band[0].group.rfind("x-", 0) == 0);
}

TEST_CASE("error bands: the validation summary lists every validated GPU of both tables") {
  const std::string json = validation_summary_json(default_catalog());
  CHECK(json.find("\"mlperf\":") != std::string::npos);
  CHECK(json.find("\"serving\":") != std::string::npos);
  CHECK(json.find("\"mape_per_gpu\":") != std::string::npos);
  const ValidationSummary& s = default_catalog().error_bands->summary;
  CHECK(s.mlperf_rows.size() == 13);
  CHECK(!s.mlperf_per_gpu.empty());
  CHECK(!s.serving_per_gpu.empty());
  int serving_points = 0;
  for (const auto& g : s.serving_per_gpu) serving_points += g.throughput_per_gpu.points;
  CHECK(serving_points == s.serving_all.throughput_per_gpu.points);
  Catalog empty;
  CHECK(validation_summary_json(empty).find("\"error\"") != std::string::npos);
}

TEST_CASE("error bands: a result's band stays valid after the catalog it came from is gone") {
  // The result shares the catalog's error-band table (ErrorBandList) instead of copying it.
  ErrorBandList band;
  std::string group;
  {
    // A table of its own (parsed anew), owned by this catalog alone.
    auto copy = extend_catalog(default_catalog(), error_bands_to_json(*default_catalog().error_bands),
                               "bands.json");
    REQUIRE(copy);
    REQUIRE(copy.value().error_bands.get() != default_catalog().error_bands.get());
    auto s = decode_scenario("v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-h200&users=4");
    REQUIRE(s);
    auto ev = evaluate(copy.value(), s.value(), false);
    REQUIRE(ev);
    band = ev.value().results[0].error_band;
    REQUIRE(band.size() == 3);
    group = band[0].group;
  }
  REQUIRE(band.size() == 3);
  CHECK(band[0].group == group);
  CHECK(band[0].metric == "interactivity");
  CHECK(ErrorBandList{}.empty());
}

TEST_CASE("error bands: on the folds at least 75 % of points lie inside their own p80, per metric") {
  const char* mlperf = embedded_table("validation.json");
  const char* serving = embedded_table("validation-serving.json");
  REQUIRE(mlperf != nullptr);
  REQUIRE(serving != nullptr);
  auto report = run_serving_validation(default_catalog(), serving, true);
  REQUIRE(report);
  const ErrorBandTable& table = *default_catalog().error_bands;
  const auto share = band_coverage(report.value(), table);
  // Pooled over the fold kinds, each held-out point against the band its fold's kind of
  // extrapolation gets (the request-shape folds: no flag).
  for (std::size_t m = 0; m < kFoldMetrics; ++m) {
    double sum = 0.0;
    for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
      CAPTURE(kind);
      CAPTURE(m);
      CHECK(share[kind][m] >= 0.75);  // every fold kind, not only their mean
      sum += share[kind][m];
    }
    CAPTURE(m);
    CHECK(sum / kFoldKinds >= 0.75);
  }
}

TEST_CASE("error bands: on each GPU architecture's rows the extrapolating folds hold 75 % inside their p80") {
  const char* serving = embedded_table("validation-serving.json");
  REQUIRE(serving != nullptr);
  auto report = run_serving_validation(default_catalog(), serving, true);
  REQUIRE(report);
  const ErrorBandTable& table = *default_catalog().error_bands;
  std::vector<std::string> architectures;
  for (const auto& r : report.value().rows) {
    if (std::find(architectures.begin(), architectures.end(), r.architecture) == architectures.end()) {
      architectures.push_back(r.architecture);
    }
  }
  REQUIRE(architectures.size() >= 4);  // CDNA 3, CDNA 4, Hopper, Blackwell
  // --validate --format json carries the same shares.
  const auto json = nlohmann::json::parse(band_coverage_to_json(report.value(), table));
  REQUIRE(json.at("per_architecture").size() == architectures.size());
  CHECK(json.at("per_fold_kind").size() == kFoldKinds);
  for (const std::string& a : architectures) {
    const auto share = band_coverage(report.value(), table, a);
    CHECK(json.at("per_architecture").at(a).at("model").at("interactivity").get<double>() == share[kFoldModel][0]);
    for (std::size_t kind : {kFoldModel, kFoldEngine, kFoldGpu, kFoldUsers}) {
      for (std::size_t m = 0; m < kFoldMetrics; ++m) {
        CAPTURE(a);
        CAPTURE(kind);
        CAPTURE(m);
        if (share[kind][m] < 0.0) continue;  // no held-out row of this architecture
        CHECK(share[kind][m] >= 0.75);
      }
    }
  }
}

TEST_CASE("error bands: a disaggregated figure's band holds 75 % of the disaggregated table's held-out points") {
  const char* disagg = embedded_table("validation-disagg.json");
  REQUIRE(disagg != nullptr);
  auto report = run_disagg_validation(default_catalog(), disagg, true);
  REQUIRE(report);
  const ErrorBandTable& table = *default_catalog().error_bands;
  REQUIRE(table.widening.size() == kBandFlags);
  CHECK(table.widening[4].flag == "disaggregated");
  CHECK(table.widening[4].ttft == 1.0);  // the disaggregated runs publish no TTFT
  const auto share = disagg_band_coverage(default_catalog(), report.value(), table);
  for (std::size_t k = 0; k < kDisaggFoldKinds; ++k) {
    for (std::size_t m = 0; m < 2; ++m) {
      CAPTURE(k);
      CAPTURE(m);
      CHECK(share[k][m] >= 0.75);
    }
  }
}

TEST_CASE("error bands: disaggregated figures carry their band, widened for disaggregation") {
  // B200 over four servers, disaggregation forced: the result's figures and every
  // disaggregated curve point read the aggregated cell at the users per decode worker, times
  // the disaggregated factor of Blackwell.
  auto ev = evaluate_text(default_catalog(),
                          "v=1&model=deepseek-r1-0528&weights=fp4&compare=ref-8x-b200-neocloud&servers=4"
                          "&pd=1&users=1024&interactivity=40",
                          false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results[0];
  REQUIRE_FALSE(r.pd_layout.empty());
  REQUIRE(r.error_band.size() == 3);
  CHECK(r.error_band[0].basis.find("disaggregated") != std::string::npos);
  for (const ErrorBand& b : r.error_band) CHECK(b.disaggregated);  // the flag the page words
  // The disaggregated runs publish no TTFT: that band is the aggregated one (factor 1).
  CHECK(r.error_band[2].basis.find("x1.00 disaggregated") != std::string::npos);
  const ErrorBandTable& table = *default_catalog().error_bands;
  double factor = table.widening[4].interactivity;
  for (const ArchitectureWidening& a : table.widening[4].architectures) {
    if (a.architecture == "Blackwell") factor = a.interactivity;
  }
  const auto& base = catalog_error_band(default_catalog(), "nvidia", WeightFormat::kFp4,
                                        1024.0 / std::max(1, r.decode_workers), 0, "Blackwell");
  REQUIRE(base.size() == 3);
  CHECK(r.error_band[0].p80 == doctest::Approx(base[0].p80 * factor));
  int disaggregated = 0, aggregated = 0;
  // pd=1 draws disaggregated points only; pd=auto's front has both kinds.
  auto count = [&](const OfferingResult& result) {
    for (const ServingCurveEntry& p : result.curve) {
      if (p.error_band_index < 0) continue;
      REQUIRE(p.error_band_index < static_cast<int>(result.curve_error_bands.size()));
      const ErrorBand& b = result.curve_error_bands[p.error_band_index][0];
      CHECK(b.disaggregated == p.disaggregated);  // an aggregated point's band is not flagged
      if (p.disaggregated) CHECK(b.basis.find("disaggregated") != std::string::npos);
      ++(p.disaggregated ? disaggregated : aggregated);
    }
  };
  count(r);
  CHECK(disaggregated > 0);
  auto both = evaluate_text(default_catalog(),
                            "v=1&model=deepseek-r1-0528&weights=fp4&compare=ref-8x-b200-neocloud&servers=4"
                            "&pd=auto&users=1024&interactivity=40",
                            false);
  REQUIRE(both);
  count(both.value().results[0]);
  CHECK(aggregated > 0);
  REQUIRE(r.interactivity_point);
  CHECK(r.interactivity_point->error_band_index >= 0);
}

TEST_CASE("error bands: the widening of an architecture is the p80 over its own rows (by hand)") {
  // Twenty rows of one cell (nvidia, fp8, 4 users), request-shape error 10 % each (the band's
  // p80), ten on architecture A and ten on B. Held out by model, A's rows err 30 % (3 bands),
  // B's 10 % (1 band): over all rows the 80th percentile of error / band is 3, on A's 3, on B's 1.
  ServingValidationReport report;
  for (int i = 0; i < 20; ++i) {
    ServingValidationRow r;
    r.vendor = "nvidia";
    r.architecture = i < 10 ? "A" : "B";
    r.weights = "fp8";
    r.concurrency = 4;
    r.newest = true;
    r.measured_interactivity = 100.0;
    r.out_of_sample[kFoldShape] = FoldFigures{110.0, 0.0, 0.0};
    r.out_of_sample[kFoldModel] = FoldFigures{i < 10 ? 130.0 : 110.0, 0.0, 0.0};
    report.rows.push_back(r);
  }
  const auto widening = band_widening(report);
  REQUIRE(widening.size() == 4);
  const BandWidening& model = widening[0];
  CHECK(model.flag == "model_unmeasured");
  CHECK(model.interactivity == doctest::Approx(3.0));
  REQUIRE(model.architectures.size() == 2);
  CHECK(model.architectures[0].architecture == "A");
  CHECK(model.architectures[0].vendor == "nvidia");
  CHECK(model.architectures[0].points == 10);
  CHECK(model.architectures[0].interactivity == doctest::Approx(3.0));
  CHECK(model.architectures[1].interactivity == doctest::Approx(1.0));
  // The metrics with no row keep the factor over all rows (1: nothing to widen).
  CHECK(model.architectures[1].throughput_per_gpu == doctest::Approx(model.throughput_per_gpu));
  // Fewer than kArchitectureWideningRows rows: no architecture of its own.
  report.rows.resize(kArchitectureWideningRows - 1);
  CHECK(band_widening(report)[0].architectures.empty());
}

TEST_CASE("error bands: a flagged prediction takes its GPU architecture's widening") {
  const ErrorBandTable& table = *default_catalog().error_bands;
  const auto factor = [&](const std::string& architecture) {
    for (const ArchitectureWidening& a : table.widening[0].architectures) {
      if (a.architecture == architecture) return a.interactivity;
    }
    return table.widening[0].interactivity;
  };
  // Same vendor cell (amd, fp8, 9-32 users), a model nobody measured: MI325X (CDNA 3) and MI355X
  // (CDNA 4) read the same base band, each widened by its architecture's factor.
  const auto cdna3 = first_band("v=1&model=qwen3-235b-a22b&weights=fp8&compare=server-8x-mi325x&users=32&engine=sglang");
  const auto cdna4 = first_band("v=1&model=qwen3-235b-a22b&weights=fp8&compare=fullgpu-8x-mi355x&users=32&engine=sglang");
  const auto base = first_band("v=1&model=deepseek-v3&weights=fp8&compare=fullgpu-8x-mi355x&users=32&engine=sglang");
  REQUIRE(cdna3[0].model_unmeasured);
  REQUIRE(cdna4[0].model_unmeasured);
  REQUIRE_FALSE(base[0].model_unmeasured);
  CHECK(cdna3[0].p80 == doctest::Approx(base[0].p80 * factor("CDNA 3")));
  CHECK(cdna4[0].p80 == doctest::Approx(base[0].p80 * factor("CDNA 4")));
  CHECK(cdna3[0].basis.find("CDNA 3") != std::string::npos);
  // An architecture the table never measured (B300: Blackwell Ultra) takes the factor over all rows.
  const auto b300 = first_band("v=1&model=qwen3-235b-a22b&weights=fp8&compare=ref-8x-b300-neocloud&users=32&engine=sglang");
  const auto b300_base = first_band("v=1&model=deepseek-v3&weights=fp8&compare=fullgpu-8x-h200&users=32&engine=sglang");
  REQUIRE(b300[0].gpu_unmeasured);
  CHECK(b300[0].p80 == doctest::Approx(b300_base[0].p80 * table.widening[0].interactivity *
                                       table.widening[3].interactivity));
}

TEST_CASE("error bands: a prediction beyond what was measured is flagged and its band widened") {
  const auto measured = first_band("v=1&model=deepseek-v3&weights=fp8&compare=fullgpu-8x-h200&users=32");
  const auto same_arch = first_band("v=1&model=deepseek-r1-0528&weights=fp8&compare=fullgpu-8x-h200&users=32");
  const auto unmeasured = first_band("v=1&model=qwen3-235b-a22b&weights=fp8&compare=fullgpu-8x-h200&users=32");
  CHECK_FALSE(measured[0].model_unmeasured);
  CHECK_FALSE(same_arch[0].model_unmeasured);  // the same architecture (same_architecture)
  CHECK(same_arch[0].p80 == measured[0].p80);
  CHECK(unmeasured[0].model_unmeasured);
  for (std::size_t m = 0; m < 3; ++m) {
    CAPTURE(m);
    CHECK(measured[m].p80 > 0.0);
    CHECK(measured[m].p80 >= measured[m].p50);
    CHECK(unmeasured[m].p80 >= measured[m].p80);
    CHECK(unmeasured[m].basis.find("model_unmeasured") != std::string::npos);
  }
  const auto many = first_band("v=1&model=deepseek-v3&weights=fp8&compare=fullgpu-8x-h200&users=8000");
  CHECK(many[0].users_beyond_measured);
  const auto mi350 = first_band("v=1&model=deepseek-v3&weights=fp8&compare=server-8x-mi350x&users=32");
  CHECK(mi350[0].gpu_unmeasured);
}

TEST_CASE("error bands: the TTFT band names the statistic its rows were compared on") {
  // By hand: four rows of one group, TTFT predicted 10 % high; the last published only a mean.
  ServingValidationReport report;
  for (int i = 0; i < 4; ++i) {
    ServingValidationRow r;
    r.vendor = "nvidia";
    r.weights = "fp8";
    r.concurrency = 4;
    r.newest = true;
    r.measured_ttft_s = 1.0;
    r.ttft_median = i < 3;
    r.out_of_sample[kFoldShape] = FoldFigures{0.0, 0.0, 1.1};
    report.rows.push_back(r);
  }
  auto mixed = error_band_for(report, "nvidia", "fp8", 4);
  REQUIRE(mixed.size() == 3);
  CHECK(mixed[2].metric == "ttft");
  CHECK(mixed[2].points == 4);
  CHECK(mixed[2].statistic == "median+mean");
  CHECK(mixed[2].basis.find("1 of 4 points published only the mean") != std::string::npos);
  CHECK(mixed[0].statistic.empty());  // interactivity: no TTFT statistic
  report.rows[3].ttft_median = true;
  CHECK(error_band_for(report, "nvidia", "fp8", 4)[2].statistic == "median");
  for (auto& r : report.rows) r.ttft_median = false;
  CHECK(error_band_for(report, "nvidia", "fp8", 4)[2].statistic == "mean");
}

TEST_CASE("error bands: a result's TTFT band is the median's, and its median TTFT is at most its mean") {
  // The built-in table: the statistic of every TTFT band is what the newest rows published.
  const Catalog& catalog = default_catalog();
  REQUIRE(static_cast<bool>(catalog.error_bands));
  auto base = build_default_catalog("error-bands.json");
  REQUIRE(base);
  auto serving = run_serving_validation(base.value(), embedded_table("validation-serving.json"), false);
  REQUIRE(serving);
  int newest = 0, mean_only = 0;
  for (const auto& r : serving.value().rows) {
    if (!r.newest || !(r.measured_ttft_s > 0.0)) continue;
    ++newest;
    if (!r.ttft_median) ++mean_only;
  }
  REQUIRE(newest > mean_only);  // most rows published a median
  const ErrorBandTable& t = *catalog.error_bands;
  for (const auto& by_format : t.bands) {
    for (const auto& by_regime : by_format) {
      for (const auto& bands : by_regime) {
        for (const ErrorBand& b : bands) {
          if (b.metric != "ttft") continue;
          CHECK((b.statistic == "median" || b.statistic == "median+mean" || b.statistic == "mean"));
          if (mean_only == 0) CHECK(b.statistic == "median");
          if (b.statistic == "mean") CHECK(b.points <= mean_only);
        }
      }
    }
  }
  int served = 0;
  for (const char* key : {"v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-h200,fullgpu-8x-mi355x&users=4",
                          "v=1&model=deepseek-r1-0528&compare=fullgpu-8x-h200,server-8x-b200&users=64",
                          "v=1&model=deepseek-v3&users=64&pd=1"}) {
    CAPTURE(key);
    auto s = decode_scenario(key);
    REQUIRE(s);
    auto ev = evaluate(catalog, s.value(), false);
    REQUIRE(ev);
    for (const OfferingResult& r : ev.value().results) {
      CAPTURE(r.offering_id);
      if (!r.ttft_s) {
        CHECK_FALSE(r.ttft_median_s);
        continue;
      }
      ++served;
      REQUIRE(r.ttft_median_s);
      CHECK(*r.ttft_median_s > 0.0);
      CHECK(*r.ttft_median_s <= *r.ttft_s);
      for (const ServingCurveEntry& e : r.curve) {
        CHECK(e.ttft_median_s > 0.0);
        CHECK(e.ttft_median_s <= e.ttft_s);
      }
      // The band the CLI and the page print beside the median TTFT was measured on the median.
      for (const ErrorBand& b : r.error_band) {
        if (b.metric == "ttft" && b.points > 0) CHECK(b.statistic.rfind("median", 0) == 0);
      }
    }
  }
  CHECK(served >= 4);  // the comparisons above are served, disaggregated one included
}
