#pragma once
// Shared helpers for the doctest suite: fixtures are read from tests/fixtures (one copy, also
// read by the JS tests).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"

namespace gpucalc::test {

inline nlohmann::json fixture(const std::string& name) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/" + name);
  REQUIRE_MESSAGE(in.good(), "fixture missing: " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

/** The bytes of tests/fixtures/<name>, as they are (any format). */
inline std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "fixture missing: " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/** True when result `r` carries the warning `code`. */
inline bool has_warning(const OfferingResult& r, std::string_view code) {
  for (const auto& w : r.warnings) {
    if (w == code) return true;
  }
  return false;
}

/** The verdict item's param `name`; a missing one fails the test. */
inline double param(const VerdictItem& v, const std::string& name) {
  for (const auto& [k, x] : v.params) {
    if (k == name) return x;
  }
  FAIL("no param " << name << " in " << v.code);
  return 0.0;
}

/** The first verdict item of `offering` with `code`, or nullptr. */
inline const VerdictItem* find_item(const Evaluation& ev, const std::string& offering,
                                    const std::string& code) {
  for (const auto& v : ev.verdict) {
    if (v.offering_id == offering && v.code == code) return &v;
  }
  return nullptr;
}

// InferenceX (shared/reference/prices.md): all-in kW per GPU, H200.
constexpr double kH200AllInW = 1730.0;
// data/offerings.json networks: achieved 43 GB/s per 400G NIC, 10 us per message.
constexpr double kNicBytesPerS = 43e9;
constexpr double kNicLatencyS = 10e-6;

/** Value rounded to `decimals`, as an article prints it. */
inline double rounded(double x, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(x * f) / f;
}

/** The default catalog plus a generic dense or MoE model of `params_b` billion parameters,
 *  shaped like Llama 3 70B (80 layers, 8 KV heads), for the seeds' "70B-class" figures. */
inline Catalog catalog_with_generic(double params_b, bool moe) {
  const std::string id = "generic-" + std::to_string(static_cast<int>(params_b)) + "b";
  const std::string doc = R"({"models": [{"id": ")" + id + R"(", "name": "generic", "layers": 80,
      "hidden_size": 8192, "intermediate_size": 28672, "heads": 64, "kv_heads": 8, "head_dim": 128,
      "vocab_size": 128256, "params_total_b": )" + std::to_string(params_b) +
                          R"(, "params_active_b": )" + std::to_string(moe ? 37.0 : params_b) +
                          (moe ? R"(, "experts_routed": 256, "experts_active": 8, "moe_intermediate_size": 2048)" : "") +
                          R"(, "sources": ["seed 002 generic model"]}]})";
  auto c = extend_catalog(default_catalog(), doc, "generic");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return c.value();
}

/** The default catalog plus `test-unpriced-8x-b200`: eight B200 with no price, whatever prices
 *  data/offerings.json gives its own B200 offerings. */
inline Catalog catalog_with_unpriced_b200() {
  const char* doc = R"json({"offerings": [{"id": "test-unpriced-8x-b200", "name": "8x B200 (no price)",
      "provider": "", "gpu": "b200", "gpu_count": 8, "kind": "server", "price_usd_per_month": null,
      "sources": ["test offering: unpriced"]}]})json";
  auto c = extend_catalog(default_catalog(), doc, "unpriced");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return c.value();
}

inline Evaluation eval_ok(const Catalog& catalog, const std::string& scenario) {
  auto r = evaluate_text(catalog, scenario, false);
  REQUIRE_MESSAGE(r.ok(), scenario << " -> " << (r.ok() ? "" : r.error().to_string()));
  return r.value();
}

}  // namespace gpucalc::test
