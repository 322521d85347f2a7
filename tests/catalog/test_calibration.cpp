// Calibration records: the core's parser, the catalog's use of records, and the
// benchmark's number formats that its GEMM spot check relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../bench/src/formats.hpp"
#include "gpucalc/calibration.hpp"
#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/scenario.hpp"

namespace {

using gpucalc::ErrorCode;
using gpucalc::Precision;
using gpucalc::index_of;
using gpucalc::parse_calibration_record;
using Json = nlohmann::json;

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/calibration/" + name);
  REQUIRE_MESSAGE(in.good(), "fixture missing: " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json example() {
  Json j = Json::parse(fixture_text("h200-sxm-example.json"), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

/** Parses `j` and expects an error with `code` whose field mentions `field_part`. */
void expect_error(const Json& j, ErrorCode code, const std::string& field_part) {
  const auto r = parse_calibration_record(j.dump(), "rec.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == code);
  CHECK_MESSAGE(r.error().field.find(field_part) != std::string::npos, r.error().to_string());
  CHECK(r.error().field.rfind("rec.json", 0) == 0);
  CHECK_FALSE(r.error().message.empty());
}

Json& measurement(Json& j, const std::string& id) {
  for (auto& m : j["measurements"]) {
    if (m["id"] == id) return m;
  }
  FAIL("no measurement " << id);
  return j;
}

}  // namespace

TEST_CASE("calibration: a full record parses into best and median figures") {
  const auto r = parse_calibration_record(fixture_text("h200-sxm-example.json"), "h200.json");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  const auto& rec = r.value();
  CHECK(rec.gpu_id == "h200-sxm");
  CHECK(rec.device_name == "NVIDIA H200");
  CHECK(rec.arch_target == "sm_90");
  CHECK(rec.date == "2026-01-02");
  CHECK(rec.source_name == "h200.json");
  CHECK_FALSE(rec.dry_run);
  REQUIRE(rec.hbm_copy_bytes_per_s);
  CHECK(*rec.hbm_copy_bytes_per_s == doctest::Approx(4.21e12));
  CHECK(*rec.hbm_triad_bytes_per_s == doctest::Approx(4.25e12));
  CHECK(*rec.hbm_dot_bytes_per_s == doctest::Approx(4.45e12));
  CHECK(*rec.matmul_best_flops_per_s[index_of(Precision::kBf16)] == doctest::Approx(7.7e14));
  CHECK(*rec.matmul_median_flops_per_s[index_of(Precision::kBf16)] == doctest::Approx(7.4e14));
  CHECK(*rec.matmul_best_flops_per_s[index_of(Precision::kFp8)] == doctest::Approx(1.40e15));
  // Unsupported and skipped measurements leave their fields empty.
  CHECK_FALSE(rec.matmul_best_flops_per_s[index_of(Precision::kFp4)]);
  CHECK_FALSE(rec.matmul_best_flops_per_s[index_of(Precision::kTf32)]);
  CHECK_FALSE(rec.p2p_unidirectional_bytes_per_s);
  CHECK_FALSE(rec.p2p_bidirectional_bytes_per_s);
}

TEST_CASE("calibration: the benchmark's dry-run output parses and is marked dry run") {
  const auto r = parse_calibration_record(fixture_text("dry-run.json"), "dry-run.json");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  CHECK(r.value().dry_run);
  CHECK(r.value().arch_target == "host");
  CHECK(r.value().hbm_triad_bytes_per_s);
  CHECK(r.value().matmul_best_flops_per_s[index_of(Precision::kBf16)]);
}

TEST_CASE("calibration: the catalog uses real records and never dry runs") {
  auto with_dry = gpucalc::extend_catalog(gpucalc::default_catalog(), fixture_text("dry-run.json"),
                                          "calibration/dry-run.json");
  REQUIRE_MESSAGE(with_dry.ok(), (with_dry.ok() ? "" : with_dry.error().to_string()));
  const auto* before = with_dry.value().find_calibration("h200-sxm");
  // The shipped data may hold a real H200 record; the dry run must never be the one found.
  if (before != nullptr) CHECK_FALSE(before->dry_run);

  auto with_real = gpucalc::extend_catalog(with_dry.value(), fixture_text("h200-sxm-example.json"),
                                           "calibration/h200-sxm-example.json");
  REQUIRE_MESSAGE(with_real.ok(), (with_real.ok() ? "" : with_real.error().to_string()));
  const auto* found = with_real.value().find_calibration("h200-sxm");
  REQUIRE(found != nullptr);
  CHECK_FALSE(found->dry_run);
  CHECK(with_real.value().find_calibration("mi300x") == nullptr);
}

TEST_CASE("calibration: a record for a GPU outside the catalog is refused") {
  Json j = example();
  j["gpu_id"] = "h300-sxm";
  CHECK(parse_calibration_record(j.dump(), "rec.json").ok());  // well formed on its own
  const auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), j.dump(), "calibration/x.json");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().field.find("gpu_id") != std::string::npos);
}

TEST_CASE("calibration: malformed documents are errors, never crashes") {
  const auto not_json = parse_calibration_record("{\"schema\": ", "rec.json");
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().code == ErrorCode::kInvalidJson);
  CHECK_FALSE(parse_calibration_record("[1, 2]", "rec.json").ok());
  CHECK_FALSE(parse_calibration_record("", "rec.json").ok());
  CHECK_FALSE(parse_calibration_record("null", "rec.json").ok());
  const std::string huge(std::size_t{5} << 20, ' ');
  const auto big = parse_calibration_record(huge, "rec.json");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == ErrorCode::kTooLarge);
}

TEST_CASE("calibration: top-level fields are checked") {
  SUBCASE("schema missing") {
    Json j = example();
    j.erase("schema");
    expect_error(j, ErrorCode::kInvalidCatalog, "schema");
  }
  SUBCASE("another schema version") {
    Json j = example();
    j["schema"] = "gpucalc-calibration/2";
    expect_error(j, ErrorCode::kUnsupportedVersion, "schema");
  }
  SUBCASE("gpu_id not an id") {
    Json j = example();
    j["gpu_id"] = "NVIDIA H200";
    expect_error(j, ErrorCode::kInvalidCatalog, "gpu_id");
  }
  SUBCASE("gpu_id not a string") {
    Json j = example();
    j["gpu_id"] = 200;
    expect_error(j, ErrorCode::kInvalidCatalog, "gpu_id");
  }
  SUBCASE("date not ISO") {
    Json j = example();
    j["date"] = "02/01/2026";
    expect_error(j, ErrorCode::kInvalidCatalog, "date");
  }
  SUBCASE("date month out of range") {
    Json j = example();
    j["date"] = "2026-13-01";
    expect_error(j, ErrorCode::kInvalidCatalog, "date");
  }
  SUBCASE("dry_run not a boolean") {
    Json j = example();
    j["dry_run"] = "no";
    expect_error(j, ErrorCode::kBadValue, "dry_run");
  }
  SUBCASE("environment missing") {
    Json j = example();
    j.erase("environment");
    expect_error(j, ErrorCode::kInvalidCatalog, "environment");
  }
  SUBCASE("device name empty") {
    Json j = example();
    j["environment"]["device_name"] = "";
    expect_error(j, ErrorCode::kInvalidCatalog, "environment.device_name");
  }
  SUBCASE("arch not a target") {
    Json j = example();
    j["environment"]["arch"] = "hopper";
    expect_error(j, ErrorCode::kInvalidCatalog, "environment.arch");
  }
  SUBCASE("host arch outside a dry run") {
    Json j = example();
    j["environment"]["arch"] = "host";
    expect_error(j, ErrorCode::kInvalidCatalog, "environment.arch");
  }
  SUBCASE("driver version not a string") {
    Json j = example();
    j["environment"]["driver_version"] = 580;
    expect_error(j, ErrorCode::kBadValue, "environment.driver_version");
  }
  SUBCASE("measurements not an array") {
    Json j = example();
    j["measurements"] = Json::object();
    expect_error(j, ErrorCode::kInvalidCatalog, "measurements");
  }
  SUBCASE("tool not an object") {
    Json j = example();
    j["tool"] = "bench";
    expect_error(j, ErrorCode::kBadValue, "tool");
  }
}

TEST_CASE("calibration: measurements are checked") {
  SUBCASE("unknown id") {
    Json j = example();
    j["measurements"][0]["id"] = "hbm_scale";
    expect_error(j, ErrorCode::kBadValue, "measurements[0].id");
  }
  SUBCASE("unknown status") {
    Json j = example();
    j["measurements"][1]["status"] = "great";
    expect_error(j, ErrorCode::kBadValue, "measurements[1].status");
  }
  SUBCASE("value not positive") {
    Json j = example();
    measurement(j, "hbm_triad")["value"] = -1;
    expect_error(j, ErrorCode::kBadValue, "measurements[1].value");
  }
  SUBCASE("value missing when ok") {
    Json j = example();
    measurement(j, "matmul_bf16").erase("value");
    expect_error(j, ErrorCode::kBadValue, "measurements[3].value");
  }
  SUBCASE("wrong unit") {
    Json j = example();
    measurement(j, "matmul_bf16")["unit"] = "TFLOPS";
    expect_error(j, ErrorCode::kInvalidCatalog, "measurements[3].unit");
  }
  SUBCASE("bytes where FLOP/s belong") {
    Json j = example();
    measurement(j, "hbm_copy")["unit"] = "FLOP/s";
    expect_error(j, ErrorCode::kInvalidCatalog, "measurements[0].unit");
  }
  SUBCASE("statistic missing") {
    Json j = example();
    measurement(j, "hbm_dot").erase("statistic");
    expect_error(j, ErrorCode::kInvalidCatalog, "measurements[2].statistic");
  }
  SUBCASE("median not a number") {
    Json j = example();
    measurement(j, "matmul_fp8")["median"] = "fast";
    expect_error(j, ErrorCode::kBadValue, "measurements[4].median");
  }
  SUBCASE("efficiency disagrees with value / peak") {
    Json j = example();
    measurement(j, "hbm_copy")["efficiency"] = 0.5;
    expect_error(j, ErrorCode::kBadValue, "measurements[0].efficiency");
  }
  SUBCASE("efficiency far above 1") {
    Json j = example();
    Json& m = measurement(j, "hbm_copy");
    m["peak"] = 1e12;
    m["efficiency"] = 4.21;
    expect_error(j, ErrorCode::kOutOfRange, "measurements[0].efficiency");
  }
  SUBCASE("sizes not an object") {
    Json j = example();
    measurement(j, "hbm_copy")["sizes"] = 3;
    expect_error(j, ErrorCode::kBadValue, "measurements[0].sizes");
  }
  SUBCASE("the same measurement twice") {
    Json j = example();
    j["measurements"].push_back(measurement(j, "matmul_bf16"));
    expect_error(j, ErrorCode::kInvalidCatalog, ".id");
  }
  SUBCASE("a measurement that is not an object") {
    Json j = example();
    j["measurements"].push_back(42);
    expect_error(j, ErrorCode::kInvalidCatalog, "measurements[8]");
  }
}

TEST_CASE("calibration: failed and unsupported measurements carry no figure") {
  Json j = example();
  measurement(j, "hbm_triad")["status"] = "failed";
  measurement(j, "matmul_bf16")["status"] = "unsupported";
  const auto r = parse_calibration_record(j.dump(), "rec.json");
  REQUIRE(r.ok());
  CHECK_FALSE(r.value().hbm_triad_bytes_per_s);
  CHECK(r.value().hbm_copy_bytes_per_s);
  CHECK_FALSE(r.value().matmul_best_flops_per_s[index_of(Precision::kBf16)]);
}

Json dry_run_fixture() {
  Json j = Json::parse(fixture_text("dry-run.json"), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

TEST_CASE("calibration: the dry-run record holds every serving-model field") {
  const auto r = parse_calibration_record(fixture_text("dry-run.json"), "dry-run.json");
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  const auto& rec = r.value();
  for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kFp4}) {
    CHECK_FALSE(rec.gemm_small[index_of(p)].empty());
    CHECK_FALSE(rec.grouped_gemm[index_of(p)].empty());
  }
  const auto& small = rec.gemm_small[index_of(Precision::kBf16)];
  // The host back end sweeps M = 1, 8, 64 over two stand-in shapes.
  REQUIRE(small.size() == 6);
  CHECK(small[0].m == 1);
  CHECK(small[0].n == 128);
  CHECK(small[0].k == 64);
  CHECK(small[0].flops_per_s > 0);
  const auto& grouped = rec.grouped_gemm[index_of(Precision::kBf16)];
  REQUIRE_FALSE(grouped.empty());
  CHECK(grouped[0].experts == 2);
  CHECK(grouped[0].tokens_per_expert == 1);
  REQUIRE(rec.attention_decode.size() == 4);
  CHECK(rec.attention_decode[0].batch == 1);
  CHECK(rec.attention_decode[0].context_tokens == 64);
  CHECK(rec.attention_decode[0].kv_bytes_per_s > 0);
  CHECK(rec.allreduce_gpus == 2);
  REQUIRE(rec.allreduce.size() == 4);  // 8, 16, 32, 64 KiB
  CHECK(rec.allreduce[0].bytes == 8192);
  CHECK(rec.allreduce[3].bytes == 65536);
  // Bus bandwidth by the nccl-tests formula, recomputed by the loader: 2 (g - 1) / g x bytes / t.
  CHECK(rec.allreduce[0].bus_bytes_per_s ==
        doctest::Approx(2.0 * 1 / 2 * 8192 / rec.allreduce[0].latency_s));
  REQUIRE(rec.launch_latency_s);
  REQUIRE(rec.graph_launch_latency_s);
  CHECK(*rec.launch_latency_s > 0);
  CHECK(*rec.graph_launch_latency_s > 0);
}

TEST_CASE("calibration: serving-model measurements are checked") {
  auto find = [](Json& j, const std::string& id) -> Json& { return measurement(j, id); };
  auto index = [](const Json& j, const std::string& id) {
    for (std::size_t i = 0; i < j["measurements"].size(); ++i) {
      if (j["measurements"][i]["id"] == id) return "measurements[" + std::to_string(i) + "]";
    }
    return std::string("?");
  };
  SUBCASE("points missing") {
    Json j = dry_run_fixture();
    find(j, "gemm_small_bf16").erase("points");
    expect_error(j, ErrorCode::kInvalidCatalog, index(j, "gemm_small_bf16") + ".points");
  }
  SUBCASE("points empty") {
    Json j = dry_run_fixture();
    find(j, "attention_decode")["points"] = Json::array();
    expect_error(j, ErrorCode::kInvalidCatalog, index(j, "attention_decode") + ".points");
  }
  SUBCASE("a fractional M") {
    Json j = dry_run_fixture();
    find(j, "gemm_small_fp8")["points"][2]["m"] = 1.5;
    expect_error(j, ErrorCode::kBadValue, index(j, "gemm_small_fp8") + ".points[2].m");
  }
  SUBCASE("an M beyond the bound") {
    Json j = dry_run_fixture();
    find(j, "gemm_small_fp8")["points"][0]["m"] = 1e12;
    expect_error(j, ErrorCode::kOutOfRange, index(j, "gemm_small_fp8") + ".points[0].m");
  }
  SUBCASE("experts missing") {
    Json j = dry_run_fixture();
    find(j, "grouped_gemm_bf16")["points"][0].erase("experts");
    expect_error(j, ErrorCode::kBadValue, index(j, "grouped_gemm_bf16") + ".points[0].experts");
  }
  SUBCASE("a point value of 1e308 FLOP/s") {
    Json j = dry_run_fixture();
    find(j, "grouped_gemm_bf16")["points"][1]["value"] = 1e308;
    expect_error(j, ErrorCode::kBadValue, index(j, "grouped_gemm_bf16") + ".points[1].value");
  }
  SUBCASE("a negative context") {
    Json j = dry_run_fixture();
    find(j, "attention_decode")["points"][0]["context_tokens"] = -4096;
    expect_error(j, ErrorCode::kOutOfRange, index(j, "attention_decode") + ".points[0].context_tokens");
  }
  SUBCASE("an all-reduce over one GPU") {
    Json j = dry_run_fixture();
    find(j, "allreduce")["gpus"] = 1;
    expect_error(j, ErrorCode::kBadValue, index(j, "allreduce") + ".gpus");
  }
  SUBCASE("bus bandwidth that does not follow from the latency") {
    Json j = dry_run_fixture();
    Json& p = find(j, "allreduce")["points"][1];
    p["bus_bytes_per_s"] = p["bus_bytes_per_s"].get<double>() * 3;
    expect_error(j, ErrorCode::kBadValue, index(j, "allreduce") + ".points[1].bus_bytes_per_s");
  }
  SUBCASE("a latency of two seconds") {
    Json j = dry_run_fixture();
    find(j, "launch_latency")["value"] = 2.0;
    expect_error(j, ErrorCode::kOutOfRange, index(j, "launch_latency") + ".value");
  }
  SUBCASE("a latency in the wrong unit") {
    Json j = dry_run_fixture();
    find(j, "graph_launch_latency")["unit"] = "us";
    expect_error(j, ErrorCode::kInvalidCatalog, index(j, "graph_launch_latency") + ".unit");
  }
  SUBCASE("the same sweep twice") {
    Json j = dry_run_fixture();
    j["measurements"].push_back(find(j, "attention_decode"));
    expect_error(j, ErrorCode::kInvalidCatalog, ".id");
  }
}

TEST_CASE("calibration: dates must be real calendar days") {
  auto date_ok = [](const std::string& date) {
    Json j = example();
    j["date"] = date;
    return parse_calibration_record(j.dump(), "rec.json").ok();
  };
  CHECK(date_ok("2026-01-02"));
  CHECK(date_ok("2024-02-29"));  // leap year
  CHECK(date_ok("2026-01-02T10:15"));
  CHECK(date_ok("2026-01-02T10:15:30.123Z"));
  CHECK(date_ok("2026-01-02T10:15:30+05:30"));
  CHECK_FALSE(date_ok("2026-02-31T<script>"));
  CHECK_FALSE(date_ok("2026-02-31"));
  CHECK_FALSE(date_ok("2026-02-29"));  // 2026 is no leap year
  CHECK_FALSE(date_ok("2026-04-31"));
  CHECK_FALSE(date_ok("2026-01-02T<script>"));
  CHECK_FALSE(date_ok("2026-01-02T25:00"));
  CHECK_FALSE(date_ok("2026-01-02T10:15Zjunk"));
  CHECK_FALSE(date_ok("1900-01-01"));
  Json j = example();
  j["date"] = "2026-02-31T<script>";
  expect_error(j, ErrorCode::kInvalidCatalog, "date");
}

TEST_CASE("calibration: a figure of 1e308 is refused when parsed") {
  Json j = example();
  measurement(j, "hbm_triad")["value"] = 1e308;
  measurement(j, "hbm_triad").erase("efficiency");
  expect_error(j, ErrorCode::kOutOfRange, "measurements[1].value");
  Json f = example();
  measurement(f, "matmul_bf16")["value"] = 1e308;
  measurement(f, "matmul_bf16").erase("efficiency");
  expect_error(f, ErrorCode::kOutOfRange, "measurements[3].value");
}

namespace {

/** Loads `j` next to the default catalog as calibration/<name>; the error when it is refused. */
std::optional<gpucalc::Error> catalog_refuses(const Json& j, const std::string& name = "h200.json") {
  const auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), j.dump(), "calibration/" + name);
  if (c.ok()) return std::nullopt;
  return c.error();
}

void expect_implausible(const Json& j, const std::string& field_part) {
  const auto e = catalog_refuses(j);
  REQUIRE_MESSAGE(e, "record accepted, expected it refused at " << field_part);
  CHECK(e->code == ErrorCode::kOutOfRange);
  CHECK_MESSAGE(e->field.find("h200.json") != std::string::npos, e->to_string());
  CHECK_MESSAGE(e->field.find(field_part) != std::string::npos, e->to_string());
}

const gpucalc::Gpu& h200() {
  const auto* g = gpucalc::default_catalog().find_gpu("h200-sxm");
  REQUIRE(g != nullptr);
  return *g;
}

/** A real (not dry-run) H200 record: the example plus the dry run's serving-model sweeps, their
 *  values replaced by plausible ones computed from the catalog H200 (a fraction of its roofline). */
Json serving_record() {
  Json j = example();
  const Json dry = dry_run_fixture();
  const gpucalc::Gpu& g = h200();
  const double hbm = g.memory_bandwidth_bytes_per_s;
  const double link = g.interconnect.per_gpu_bandwidth_bytes_per_s;
  for (Json m : dry["measurements"]) {
    const std::string id = m["id"];
    const bool small = id.rfind("gemm_small_", 0) == 0, grouped = id.rfind("grouped_gemm_", 0) == 0;
    if (id == "gemm_small_fp4" || id == "grouped_gemm_fp4") continue;  // H200 has no FP4 peak
    if (small || grouped) {
      const Precision p = id.find("fp8") != std::string::npos ? Precision::kFp8 : Precision::kBf16;
      const double peak = *g.peak_flops_per_s[index_of(p)];
      const double bytes_per_value = p == Precision::kFp8 ? 1.0 : 2.0;
      for (Json& pt : m["points"]) {
        const double e = grouped ? pt["experts"].get<double>() : 1.0;
        const double mm = grouped ? pt["tokens_per_expert"].get<double>() : pt["m"].get<double>();
        const double n = pt["n"], k = pt["k"];
        // Half the roofline: time = 2 x max(FLOP / peak, bytes / HBM).
        const double flop = e * 2 * mm * n * k;
        const double bytes = e * ((n * k + mm * k) * bytes_per_value + 2 * mm * n);
        pt["value"] = flop / (2 * std::max(flop / peak, bytes / hbm));
      }
    } else if (id == "attention_decode") {
      for (Json& pt : m["points"]) pt["value"] = 0.8 * hbm;
    } else if (id == "allreduce") {
      for (Json& pt : m["points"]) {
        const double bytes = pt["bytes"];
        const double latency = 10e-6 + bytes / (0.25 * link);
        pt["value"] = latency;
        pt["bus_bytes_per_s"] = 2.0 * (2 - 1) / 2 * bytes / latency;
      }
    } else if (id == "launch_latency") {
      m["value"] = 5e-6;
    } else if (id == "graph_launch_latency") {
      m["value"] = 2e-6;
    } else {
      continue;
    }
    j["measurements"].push_back(m);
  }
  return j;
}

}  // namespace

TEST_CASE("calibration: a real record with plausible serving-model figures loads") {
  const Json j = serving_record();
  const auto e = catalog_refuses(j);
  CHECK_MESSAGE(!e, (e ? e->to_string() : ""));
  const auto r = parse_calibration_record(j.dump(), "h200.json");
  REQUIRE(r.ok());
  CHECK_FALSE(r.value().dry_run);
  CHECK(r.value().gemm_small[index_of(Precision::kBf16)].size() == 6);
  CHECK(r.value().gemm_small[index_of(Precision::kFp4)].empty());
  CHECK(r.value().launch_latency_s == doctest::Approx(5e-6));
}

TEST_CASE("calibration: figures beyond the datasheet peak or below 1 % of it are refused") {
  const gpucalc::Gpu& g = h200();
  const double hbm = g.memory_bandwidth_bytes_per_s;
  const double bf16 = *g.peak_flops_per_s[index_of(Precision::kBf16)];
  SUBCASE("HBM above the datasheet") {
    Json j = example();
    measurement(j, "hbm_dot")["value"] = 1.05 * hbm;
    measurement(j, "hbm_dot").erase("efficiency");
    expect_implausible(j, "measurements(hbm_dot).value");
  }
  SUBCASE("HBM below 1 % of the datasheet") {
    Json j = example();
    measurement(j, "hbm_copy")["value"] = 0.009 * hbm;
    measurement(j, "hbm_copy").erase("efficiency");
    measurement(j, "hbm_copy")["median"] = 0.009 * hbm;
    expect_implausible(j, "measurements(hbm_copy).value");
  }
  SUBCASE("the smallest positive double") {
    Json j = example();
    measurement(j, "hbm_triad")["value"] = 5e-324;
    measurement(j, "hbm_triad").erase("efficiency");
    measurement(j, "hbm_triad").erase("median");
    expect_implausible(j, "measurements(hbm_triad).value");
  }
  SUBCASE("GEMM above the dense peak") {
    Json j = example();
    measurement(j, "matmul_bf16")["value"] = 1.01 * bf16;
    measurement(j, "matmul_bf16").erase("efficiency");
    expect_implausible(j, "measurements(matmul_bf16).value");
  }
  SUBCASE("a GEMM median below 1 % of the peak") {
    Json j = example();
    measurement(j, "matmul_bf16")["median"] = 0.005 * bf16;
    expect_implausible(j, "measurements(matmul_bf16).median");
  }
  SUBCASE("an FP4 figure on a GPU without FP4") {
    Json j = example();
    Json& m = measurement(j, "matmul_fp4");
    m = {{"id", "matmul_fp4"}, {"status", "ok"}, {"value", 1e15}, {"unit", "FLOP/s"}, {"statistic", "best"}};
    expect_implausible(j, "measurements(matmul_fp4).value");
  }
  SUBCASE("a small-M GEMM point above the peak") {
    Json j = serving_record();
    measurement(j, "gemm_small_bf16")["points"][4]["value"] = 1.2 * bf16;
    expect_implausible(j, "measurements(gemm_small_bf16).points[4].value");
  }
  SUBCASE("a small-M GEMM point below 1 % of its roofline") {
    Json j = serving_record();
    Json& pt = measurement(j, "gemm_small_bf16")["points"][0];
    pt["value"] = pt["value"].get<double>() / 200;  // half the roofline / 200 = 0.25 %
    expect_implausible(j, "measurements(gemm_small_bf16).points[0].value");
  }
  SUBCASE("a grouped GEMM point below 1 % of its roofline") {
    Json j = serving_record();
    Json& pt = measurement(j, "grouped_gemm_fp8")["points"][3];
    pt["value"] = pt["value"].get<double>() / 100;
    expect_implausible(j, "measurements(grouped_gemm_fp8).points[3].value");
  }
  SUBCASE("decode attention above the HBM datasheet") {
    Json j = serving_record();
    measurement(j, "attention_decode")["points"][2]["value"] = 1.1 * hbm;
    expect_implausible(j, "measurements(attention_decode).points[2].value");
  }
  SUBCASE("all-reduce bus bandwidth above the interconnect") {
    Json j = serving_record();
    Json& pt = measurement(j, "allreduce")["points"][3];
    const double bytes = pt["bytes"];
    const double latency = bytes / (2 * g.interconnect.per_gpu_bandwidth_bytes_per_s);
    pt["value"] = latency;
    pt["bus_bytes_per_s"] = bytes / latency;
    expect_implausible(j, "measurements(allreduce).points");
  }
  SUBCASE("a bandwidth-bound all-reduce below 1 % of the interconnect") {
    Json j = serving_record();
    Json& pt = measurement(j, "allreduce")["points"][0];
    const double bytes = 32.0 * (1 << 20);
    const double latency = bytes / (0.005 * g.interconnect.per_gpu_bandwidth_bytes_per_s);
    pt["bytes"] = bytes;
    pt["value"] = latency;
    pt["bus_bytes_per_s"] = bytes / latency;
    expect_implausible(j, "measurements(allreduce).points[3].bus_bytes_per_s");  // sorted last
  }
  SUBCASE("a dry run is never held to the datasheet: it is never used") {
    CHECK_FALSE(catalog_refuses(dry_run_fixture()));
  }
}

TEST_CASE("bench formats: BF16, FP8 and FP4 encodings") {
  using namespace gpucalc::bench;
  CHECK(encode_bf16(1.0f) == 0x3F80);
  CHECK(decode_bf16(encode_bf16(-2.5f)) == -2.5f);
  CHECK(decode_bf16(encode_bf16(1.00390625f)) == 1.0f);  // ties to even
  // OCP E4M3: 1.0 is 0x38, saturates at 448, smallest subnormal 2^-9.
  CHECK(encode_e4m3(1.0f, false) == 0x38);
  CHECK(decode_e4m3(encode_e4m3(1000.0f, false), false) == 448.0f);
  CHECK(decode_e4m3(encode_e4m3(-0.3f, false), false) == doctest::Approx(-0.3f).epsilon(0.07));
  CHECK(decode_e4m3(0x01, false) == std::ldexp(1.0f, -9));
  CHECK(std::isnan(decode_e4m3(0x7F, false)));
  // fnuz: bias 8, max 240, 0x80 is NaN so zero is never negative.
  CHECK(encode_e4m3(1.0f, true) == 0x40);
  CHECK(decode_e4m3(encode_e4m3(1000.0f, true), true) == 240.0f);
  CHECK(encode_e4m3(-0.0f, true) == 0x00);
  CHECK(std::isnan(decode_e4m3(0x80, true)));
  // Every finite code round-trips.
  for (int b = 0; b < 256; ++b) {
    for (bool fnuz : {false, true}) {
      const float v = decode_e4m3(static_cast<std::uint8_t>(b), fnuz);
      if (std::isnan(v) || v == 0.0f) continue;
      CHECK(encode_e4m3(v, fnuz) == b);
    }
  }
  // E2M1: the eight magnitudes and their signs.
  const float magnitudes[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int c = 0; c < 8; ++c) {
    CHECK(decode_e2m1(static_cast<std::uint8_t>(c)) == magnitudes[c]);
    CHECK(encode_e2m1(magnitudes[c]) == c);
    if (c > 0) CHECK(encode_e2m1(-magnitudes[c]) == (c | 0x8));
  }
  CHECK(encode_e2m1(100.0f) == 7);
}

TEST_CASE("bench formats: the normal draws look standard normal") {
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double x = gpucalc::bench::normal_draw(7, static_cast<std::uint64_t>(i));
    sum += x;
    sum2 += x * x;
  }
  CHECK(std::fabs(sum / n) < 0.05);
  CHECK(sum2 / n == doctest::Approx(1.0).epsilon(0.05));
}

TEST_CASE("calibration: the serving model's TPOT and TTFT follow a record's serving-model fields") {
  const Json full = serving_record();
  Json only = full;
  only["measurements"] = Json::array();
  for (const auto& m : full["measurements"]) {
    const std::string id = m["id"];
    const bool serving = id.rfind("gemm_small_", 0) == 0 || id.rfind("grouped_gemm_", 0) == 0 ||
                         id == "attention_decode" || id == "allreduce" || id == "launch_latency" ||
                         id == "graph_launch_latency";
    if (serving) only["measurements"].push_back(m);
  }
  REQUIRE(only["measurements"].size() == 8);
  auto calibrated = gpucalc::extend_catalog(gpucalc::default_catalog(), only.dump(),
                                            "calibration/h200-sxm-serving.json");
  REQUIRE_MESSAGE(calibrated.ok(), (calibrated.ok() ? "" : calibrated.error().to_string()));
  REQUIRE(calibrated.value().find_calibration("h200-sxm") != nullptr);
  gpucalc::Scenario s;  // defaults: Llama 3.1 70B FP8, MI355X vs H200 servers
  s.context_tokens = 8192;
  const auto before = gpucalc::evaluate(gpucalc::default_catalog(), s, false);
  const auto after = gpucalc::evaluate(calibrated.value(), s, false);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  int h200_results = 0;
  for (const auto& a : after.value().results) {
    const gpucalc::OfferingResult* b = nullptr;
    for (const auto& r : before.value().results) if (r.offering_id == a.offering_id) b = &r;
    REQUIRE(b != nullptr);
    CAPTURE(a.offering_id);
    REQUIRE(a.tpot_s); REQUIRE(a.ttft_s); REQUIRE(b->tpot_s); REQUIRE(b->ttft_s);
    if (a.gpu_id == "h200-sxm") {
      ++h200_results;
      CHECK(*a.tpot_s != doctest::Approx(*b->tpot_s).epsilon(1e-6));
      CHECK(*a.ttft_s != doctest::Approx(*b->ttft_s).epsilon(1e-6));
    } else {
      CHECK(*a.tpot_s == doctest::Approx(*b->tpot_s));
      CHECK(*a.ttft_s == doctest::Approx(*b->ttft_s));
    }
  }
  CHECK(h200_results > 0);
}
