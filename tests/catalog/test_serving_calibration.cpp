// Serving calibration (serving_calibration.hpp): the fit on measured runs, its document, and
// results computed with it.
#include "gpucalc/bench_results.hpp"
#include "gpucalc/serving_calibration.hpp"
#include "gpucalc/validation.hpp"
#include "test_support.hpp"

namespace gpucalc {
namespace {

std::vector<BenchRun> bench_runs(const std::string& name) {
  auto r = parse_bench_results(test::fixture_text("bench-results/" + name), name);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r.value();
}

ServingCalibration calibrated(const std::string& scenario, const std::vector<BenchRun>& runs) {
  auto c = calibrate_serving(default_catalog(), scenario, runs, "2026-12-02");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return c.value();
}

double mean_error(const CalibrationErrors& e) {
  return (e.interactivity + e.throughput_per_gpu + e.ttft) / 3.0;
}

// The mi300x / SGLang DeepSeek-R1 rows without speculative decoding (25 rows).
constexpr const char* kGroupScenario = "v=1&compare=server-8x-mi300x&engine=sglang";

std::vector<BenchRun> group_rows() {
  std::vector<BenchRun> rows;
  for (const BenchRun& r : bench_runs("serving-measured.csv")) {
    if (r.gpu == "mi300x" && r.engine == "sglang" && r.spec_decode == "none") rows.push_back(r);
  }
  return rows;
}

}  // namespace

TEST_CASE("serving calibration: fitted on half a GPU/engine group, the other half's error falls") {
  const std::vector<BenchRun> rows = group_rows();
  REQUIRE(rows.size() == 25);
  std::vector<BenchRun> train, test;
  for (std::size_t i = 0; i < rows.size(); ++i) (i % 2 == 0 ? train : test).push_back(rows[i]);
  const ServingCalibration cal = calibrated(kGroupScenario, train);
  CHECK(cal.points.size() == train.size());
  CHECK(cal.cross_validation == "leave-one-out");
  // The held-out half, described the same way, without and with the corrections.
  auto held = score_calibration(default_catalog(), cal, test);
  REQUIRE_MESSAGE(held.ok(), (held.ok() ? "" : held.error().to_string()));
  const CalibrationScore& h = held.value();
  REQUIRE(h.points.size() == test.size());
  MESSAGE("mi300x / SGLang, held-out half (" << test.size() << " rows): interactivity MAPE "
          << h.before.interactivity << " -> " << h.after.interactivity << ", throughput/GPU "
          << h.before.throughput_per_gpu << " -> " << h.after.throughput_per_gpu << ", TTFT "
          << h.before.ttft << " -> " << h.after.ttft << "; in sample " << mean_error(cal.before)
          << " -> " << mean_error(cal.after) << ", leave-one-out " << mean_error(cal.cross_validated));
  CHECK(mean_error(h.after) < mean_error(h.before));
  CHECK(mean_error(cal.after) < mean_error(cal.before));
  // Loaded into the catalog, it changes no figure of another GPU.
  auto with = extend_catalog(default_catalog(), serving_calibration_to_json(cal), "cal.json");
  REQUIRE_MESSAGE(with.ok(), (with.ok() ? "" : with.error().to_string()));
  const char* serving = nullptr;
  for (const auto& f : embedded_validation_files()) {
    if (std::string(f.name) == "validation-serving.json") serving = f.text;
  }
  REQUIRE(serving != nullptr);
  const auto plain = run_serving_validation(default_catalog(), serving);
  const auto corrected = run_serving_validation(with.value(), serving);
  REQUIRE(plain.ok());
  REQUIRE(corrected.ok());
  REQUIRE(plain.value().per_gpu.size() == corrected.value().per_gpu.size());
  bool saw_group = false;
  for (std::size_t i = 0; i < plain.value().per_gpu.size(); ++i) {
    const Mape& a = plain.value().per_gpu[i];
    const Mape& b = corrected.value().per_gpu[i];
    CAPTURE(a.group);
    if (a.group == "mi300x") {
      saw_group = true;
      MESSAGE("mi300x on the validation table: mean MAPE " << (a.interactivity + a.throughput + a.ttft) / 3
              << " -> " << (b.interactivity + b.throughput + b.ttft) / 3);
      continue;
    }
    CHECK(b.interactivity == a.interactivity);
    CHECK(b.throughput == a.throughput);
    CHECK(b.ttft == a.ttft);
  }
  CHECK(saw_group);
}

TEST_CASE("serving calibration: the corrections stay within their physical bounds") {
  const ServingCalibration cal = calibrated(kGroupScenario, group_rows());
  CHECK(cal.cross_validation == "leave-one-out");
  const Gpu* gpu = default_catalog().find_gpu("mi300x");
  REQUIRE(gpu != nullptr);
  for (std::size_t i = 0; i < kCorrectionCount; ++i) {
    CAPTURE(kCorrectionNames[i]);
    CHECK(cal.corrections.value[i] >= cal.corrections.min[i]);
    CHECK(cal.corrections.value[i] <= cal.corrections.max[i]);
  }
  CHECK(cal.corrections.min[0] == doctest::Approx(0.25));
  CHECK(cal.corrections.max[3] == doctest::Approx(0.05));
  CHECK(cal.corrections.min[4] <= 0.0);
}

TEST_CASE("serving calibration: the document round-trips, loads, and results say so") {
  const ServingCalibration cal = calibrated(kGroupScenario, group_rows());
  const std::string doc = serving_calibration_to_json(cal);
  auto back = parse_serving_calibration(doc, "cal.json");
  REQUIRE_MESSAGE(back.ok(), (back.ok() ? "" : back.error().to_string()));
  CHECK(back.value().id == "serving-mi300x-sglang-2026-12-02");
  CHECK(back.value().points.size() == 25);
  for (std::size_t i = 0; i < kCorrectionCount; ++i) {
    CHECK(back.value().corrections.value[i] == cal.corrections.value[i]);
  }
  CHECK(serving_calibration_to_json(back.value()) == doc);
  auto with = extend_catalog(default_catalog(), doc, "cal.json");
  REQUIRE(with.ok());
  const std::string scenario =
      "v=1&model=deepseek-v3&compare=server-8x-mi300x,fullgpu-8x-h200&engine=sglang&users=32&tp=8";
  const Evaluation plain = test::eval_ok(default_catalog(), scenario);
  const Evaluation e = test::eval_ok(with.value(), scenario);
  REQUIRE(e.results.size() == 2);
  const OfferingResult& mi = e.results[0];
  CHECK(std::string(rates_source_name(mi.rates_source)) == "calibrated_serving");
  CHECK(mi.calibration_device == "serving-mi300x-sglang-2026-12-02");
  CHECK(mi.calibration_date == "2026-12-02");
  REQUIRE_FALSE(mi.error_band.empty());
  CHECK(mi.error_band[0].group.rfind("calibrated serving-mi300x-sglang", 0) == 0);
  CHECK(mi.tpot_s != plain.results[0].tpot_s);
  // The other offering's GPU has no calibration: untouched.
  CHECK(std::string(rates_source_name(e.results[1].rates_source)) != "calibrated_serving");
  CHECK(e.results[1].tpot_s == plain.results[1].tpot_s);
}

TEST_CASE("serving calibration: files from each format, what they lack taken from the scenario") {
  std::vector<BenchRun> runs = bench_runs("vllm.json");
  for (const BenchRun& r : bench_runs("vllm-append.jsonl")) runs.push_back(r);
  // vLLM files name a Hugging Face model and no GPU, tp or weights: the scenario must.
  auto missing = calibrate_serving(default_catalog(), "v=1&compare=fullgpu-8x-h200&engine=vllm", runs, "2026-12-02");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().field == "vllm.json: model");
  auto no_tp = calibrate_serving(default_catalog(),
                                 "v=1&compare=fullgpu-8x-h200&engine=vllm&model=llama-3.1-70b&weights=fp8",
                                 runs, "2026-12-02");
  REQUIRE_FALSE(no_tp.ok());
  CHECK(no_tp.error().field == "vllm.json: tp");
  const ServingCalibration cal = calibrated(
      "v=1&compare=fullgpu-8x-h200&engine=vllm&model=llama-3.1-70b&weights=fp8&tp=8", runs);
  CHECK(cal.points.size() == 3);
  CHECK(cal.points[0].format == "vllm");
  CHECK(mean_error(cal.after) <= mean_error(cal.before));
  // SGLang lines name no model either; genai-perf CSV names no concurrency.
  auto sg = calibrate_serving(default_catalog(), "v=1&compare=fullgpu-8x-h200&engine=sglang&model=deepseek-v3&weights=fp8&tp=8",
                              bench_runs("sglang.jsonl"), "2026-12-02");
  CHECK_MESSAGE(sg.ok(), (sg.ok() ? "" : sg.error().to_string()));
  auto csv = calibrate_serving(default_catalog(), "v=1&compare=fullgpu-8x-h200&engine=vllm&model=llama-3.1-70b&weights=fp8&tp=8",
                               bench_runs("genai-perf.csv"), "2026-12-02");
  REQUIRE_FALSE(csv.ok());
  CHECK(csv.error().field == "genai-perf.csv: max_concurrency");
  CHECK(csv.error().message.find("users=") != std::string::npos);
  // Engines of several kinds in one file, none named: which one is asked for.
  auto engines = calibrate_serving(default_catalog(), "v=1&compare=fullgpu-8x-h200", bench_runs("serving-measured.csv"), "d");
  REQUIRE_FALSE(engines.ok());
  CHECK(engines.error().field == "engine");
}

TEST_CASE("serving calibration: hostile documents are refused, naming the field") {
  const ServingCalibration cal = calibrated(kGroupScenario, group_rows());
  const std::string doc = serving_calibration_to_json(cal);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string d = doc;
    const auto at = d.find(from);
    REQUIRE(at != std::string::npos);
    d.replace(at, from.size(), to);
    return parse_serving_calibration(d, "cal.json");
  };
  CHECK(with("\"skipped_points\"", "\"surprise\": 1, \"skipped_points\"").error().field == "cal.json: surprise");
  CHECK(with("\"weight_stream_scale\":{\"value\":", "\"weight_stream_scale\":{\"value\":9e9,\"x\":").error().field ==
        "cal.json: corrections.weight_stream_scale.x");
  CHECK(with("gpucalc-serving-calibration/1", "gpucalc-serving-calibration/2").error().code ==
        ErrorCode::kUnsupportedVersion);
  CHECK(with("\"points\":[", "\"points\":[7,").error().field == "cal.json: points[0]");
  CHECK(with("\"tp\":8", "\"tp\":1e300").error().field == "cal.json: points[0].tp");
  CHECK(with("\"scenario\":\"v=1", "\"scenario\":\"v=1&users=-4").error().field == "cal.json: scenario");
  auto dup = with("\"skipped_points\"", "\"skipped_points\":0,\"skipped_points\"");
  CHECK(dup.error().field.find("skipped_points") != std::string::npos);
  // A value outside its own min / max.
  std::string out = doc;
  const auto at = out.find("\"value\":", out.find("request_overhead_s"));
  out.replace(at, 8, "\"value\":99,\"was\":");
  CHECK_FALSE(parse_serving_calibration(out, "cal.json").ok());
  // More runs than one calibration fits.
  std::vector<BenchRun> many;
  for (int i = 0; i < 9; ++i) {
    for (const BenchRun& r : bench_runs("serving-measured.csv")) {
      if (r.gpu == "mi300x") many.push_back(r);
    }
  }
  auto too_many = calibrate_serving(default_catalog(), kGroupScenario, many, "d");
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().code == ErrorCode::kTooLarge);
}

}  // namespace gpucalc

namespace gpucalc {

TEST_CASE("serving calibration: an embedding host's document corrects serving figures only, naming it") {
  const ServingCalibration cal = calibrated(kGroupScenario, group_rows());
  const std::string doc = serving_calibration_to_json(cal);
  const std::string host = "https://vendor.example/calibration.json";
  // A price list may not carry it: offerings, prices and names only.
  auto priced = extend_catalog(default_catalog(), doc, "host.json", CatalogTrust::kPriceList);
  REQUIRE_FALSE(priced.ok());
  CHECK(priced.error().code == ErrorCode::kNotAllowed);
  CHECK(priced.error().field == "host.json: gpucalc-serving-calibration/1");
  // As a serving calibration it is taken, and every result built on it names the host.
  auto with = extend_catalog(default_catalog(), doc, host, CatalogTrust::kServingCalibration);
  REQUIRE_MESSAGE(with.ok(), (with.ok() ? "" : with.error().to_string()));
  const std::string scenario =
      "v=1&model=deepseek-v3&compare=server-8x-mi300x,fullgpu-8x-h200&engine=sglang&users=32&tp=8";
  const Evaluation plain = test::eval_ok(default_catalog(), scenario);
  const Evaluation e = test::eval_ok(with.value(), scenario);
  CHECK(std::string(rates_source_name(e.results[0].rates_source)) == "calibrated_serving");
  CHECK(e.results[0].supplied_by == host);
  CHECK(e.results[0].tpot_s != plain.results[0].tpot_s);
  CHECK(e.results[1].supplied_by.empty());
  CHECK(e.results[1].tpot_s == plain.results[1].tpot_s);
  // The user's own document is named by its file, and stays calibrated_serving.
  auto own = extend_catalog(default_catalog(), doc, "mine.json", CatalogTrust::kUser);
  REQUIRE(own.ok());
  const Evaluation o = test::eval_ok(own.value(), scenario);
  CHECK(std::string(rates_source_name(o.results[0].rates_source)) == "calibrated_serving");
  CHECK(o.results[0].supplied_by == "mine.json");
  // Anything else from the host, alone or beside it, is refused by name: GPU figures, error
  // bands, engines, offerings; the catalog is unchanged.
  const auto file = [](const char* name) {
    for (const auto& f : embedded_data_files()) {
      if (std::string(f.name) == name) return std::string(f.text);
    }
    return std::string();
  };
  const std::pair<std::string, std::string> refused[] = {
      {file("gpus.json"), "gpus"},
      {file("error-bands.json"), "gpucalc-error-bands/1"},
      {file("engines.json"), "gpucalc-engines/1"},
      {file("offerings.json"), "offerings"},
      {R"({"offerings": []})", "schema"},
  };
  for (const auto& entry : refused) {
    const std::string what = entry.second;
    auto r = extend_catalog(default_catalog(), entry.first, "https://vendor.example/x.json",
                            CatalogTrust::kServingCalibration);
    REQUIRE_FALSE_MESSAGE(r.ok(), what);
    CHECK(r.error().code == ErrorCode::kNotAllowed);
    CHECK_MESSAGE(r.error().field == "https://vendor.example/x.json: " + what, r.error().field);
  }
}

}  // namespace gpucalc

namespace gpucalc {

TEST_CASE("serving calibration: measured markers: the calibration's runs and the table's, of the same shape") {
  const std::string scenario =
      "v=1&model=deepseek-v3&compare=server-8x-mi300x,fullgpu-8x-h200&engine=sglang&users=32&tp=8";
  const auto count = [](const OfferingResult& r, const char* source) {
    std::size_t n = 0;
    for (const MeasuredMarker& m : r.measured_points) n += m.source == source ? 1 : 0;
    return n;
  };
  // Without a calibration: the table's newest 1k/1k runs of each GPU with SGLang, FP8, no MTP.
  const Evaluation plain = test::eval_ok(default_catalog(), scenario);
  for (const OfferingResult& r : plain.results) {
    CHECK(count(r, "calibration") == 0);
    CHECK(count(r, "validation") >= 3);
    for (const MeasuredMarker& m : r.measured_points) {
      CHECK(m.document == "validation-serving.json");
      CHECK(m.tokens_per_s_per_user > 0.0);
      CHECK(m.total_tokens_per_s_per_gpu > 0.0);
    }
  }
  // Another shape (8k in, 1k out) has other runs; a shape nobody measured has none.
  const Evaluation long_in = test::eval_ok(default_catalog(), scenario + "&input=8192&output=1024");
  CHECK(count(long_in.results[0], "validation") >= 3);
  CHECK(long_in.results[0].measured_points[0].tokens_per_s_per_user !=
        plain.results[0].measured_points[0].tokens_per_s_per_user);
  CHECK(test::eval_ok(default_catalog(), scenario + "&input=300&output=300").results[0].measured_points.empty());
  // Another engine, or MTP on, are other runs (the H200 has both in the table).
  const auto xs = [](const OfferingResult& r) {
    std::vector<double> x;
    for (const MeasuredMarker& m : r.measured_points) x.push_back(m.tokens_per_s_per_user);
    return x;
  };
  const std::string h200 = "v=1&model=deepseek-v3&compare=fullgpu-8x-h200&users=32&tp=8&engine=";
  const auto sglang = xs(test::eval_ok(default_catalog(), h200 + "sglang").results[0]);
  const auto trtllm = xs(test::eval_ok(default_catalog(), h200 + "trtllm").results[0]);
  const auto mtp = xs(test::eval_ok(default_catalog(), h200 + "sglang&mtp=1").results[0]);
  CHECK(sglang == xs(plain.results[1]));
  CHECK_FALSE(trtllm.empty());
  CHECK_FALSE(mtp.empty());
  CHECK(trtllm != sglang);
  CHECK(mtp != sglang);
  // With the calibration: its own runs of this shape (two dates x five concurrencies at 1k/1k)
  // on its GPU only.
  const ServingCalibration cal = calibrated(kGroupScenario, group_rows());
  auto with = extend_catalog(default_catalog(), serving_calibration_to_json(cal), "cal.json");
  REQUIRE(with.ok());
  const Evaluation e = test::eval_ok(with.value(), scenario);
  CHECK(count(e.results[0], "calibration") == 10);
  CHECK(count(e.results[1], "calibration") == 0);
  for (const MeasuredMarker& m : e.results[0].measured_points) {
    if (m.source != "calibration") continue;
    CHECK(m.document == "serving-mi300x-sglang-2026-12-02");
    CHECK(m.run.rfind("serving-measured.csv:", 0) == 0);
  }
}

}  // namespace gpucalc
