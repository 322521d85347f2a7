// Calibration records (issue 5): the core's parser, the catalog's use of records, and the
// benchmark's number formats that its GEMM spot check relies on.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../bench/src/formats.hpp"
#include "gpucalc/calibration.hpp"
#include "gpucalc/catalog.hpp"

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
