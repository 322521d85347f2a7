// What a supplied catalog document may change (CatalogTrust): a price list from a link or an
// embedding host carries offerings, prices and names; the user's own file may replace any
// figure, and every result built on it names the file.
#include <nlohmann/json.hpp>

#include "gpucalc/evaluate.hpp"
#include "test_support.hpp"

using namespace gpucalc;

namespace {

std::string embedded(const char* name) {
  for (const auto& f : embedded_data_files()) {
    if (std::string(f.name) == name) return f.text;
  }
  FAIL("no embedded file ", name);
  return {};
}

/** The built-in H200 entry with hostile figures: 100,000 GB of HBM at 1,000 TB/s. */
std::string forged_h200() {
  const auto gpus = nlohmann::json::parse(embedded("gpus.json"));
  for (auto g : gpus["gpus"]) {
    if (g["id"] != "h200-sxm") continue;
    g["hbm_gb"] = 100000;
    g["memory_bandwidth_tbps"] = 1000;
    g["achieved"]["hbm_tbps"]["value"] = 1000;
    return nlohmann::json{{"gpus", {g}}}.dump();
  }
  FAIL("no h200-sxm in gpus.json");
  return {};
}

nlohmann::json evaluated(const Catalog& c, const char* scenario) {
  auto ev = evaluate_text(c, scenario, false);
  REQUIRE_MESSAGE(ev.ok(), scenario);
  return nlohmann::json::parse(evaluation_to_json(ev.value(), false));
}

constexpr const char* kPair = "v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200";
constexpr const char* kPrices =
    R"({"offerings": [{"id": "fullgpu-8x-h200", "name": "8x NVIDIA H200",
  "provider": "Vendor", "gpu": "h200-sxm", "gpu_count": 8, "kind": "server",
  "price_usd_per_month": 17000, "sources": ["test"]}]})";

}  // namespace

TEST_CASE("a price list (link, embedding host) may set offerings and prices, not the figures") {
  const Catalog& base = default_catalog();
  // Every kind of document that is not offerings, each refused by name; the catalog is unchanged.
  const std::pair<std::string, std::string> refused[] = {
      {forged_h200(), "gpus"},
      {embedded("models.json"), "models"},
      {embedded("offerings.json"), "networks"},
      {embedded("performance.json"), "gpucalc-performance/1"},
      {embedded("engines.json"), "gpucalc-engines/1"},
      {embedded("kernels.json"), "gpucalc-kernels/1"},
      {embedded("error-bands.json"), "gpucalc-error-bands/1"},
  };
  for (const auto& entry : refused) {
    // Plain variables, not a structured binding: doctest's message macros capture them (clang, C++17).
    const auto& text = entry.first;
    const std::string what = entry.second;
    auto r = extend_catalog(base, text, "host.json", CatalogTrust::kPriceList);
    REQUIRE_FALSE_MESSAGE(r.ok(), what);
    CHECK(r.error().code == ErrorCode::kNotAllowed);
    CHECK(std::string(error_code_name(r.error().code)) == "not_allowed");
    CHECK_MESSAGE(r.error().field == "host.json: " + what, r.error().field);
    CHECK(r.error().message.find("offerings") != std::string::npos);
  }
  // A list of offerings alone is taken: its price is shown, the figures stay gpucalc's.
  auto prices = extend_catalog(base, kPrices, "vendor.json", CatalogTrust::kPriceList);
  REQUIRE(prices.ok());
  const auto before = evaluated(base, kPair);
  const auto after = evaluated(prices.value(), kPair);
  CHECK(after["results"][1]["price_month_usd"] == 17000.0);
  CHECK(after["results"][1]["rates_source"] == "measured");
  CHECK(after["results"][1]["supplied_by"].is_null());
  CHECK(after["results"][1]["error_bands_supplied_by"].is_null());
  CHECK(after["results"][1]["max_throughput_tokens_per_s"] ==
        before["results"][1]["max_throughput_tokens_per_s"]);
  CHECK(after["results"][1]["decode_tokens_per_s_per_user"] ==
        before["results"][1]["decode_tokens_per_s_per_user"]);
}

TEST_CASE("the user's own file may replace figures, and every result built on them names it") {
  const Catalog& base = default_catalog();
  const auto builtin = evaluated(base, kPair);
  for (const auto& r : builtin["results"]) {
    CHECK(r["rates_source"] == "measured");
    CHECK(r["supplied_by"].is_null());
    CHECK(r["error_bands_supplied_by"].is_null());
  }
  // A GPU's figures: the H200 result says whose they are; the MI355X one is untouched.
  auto gpu = extend_catalog(base, forged_h200(), "my-gpus.json", CatalogTrust::kUser);
  REQUIRE(gpu.ok());
  const auto g = evaluated(gpu.value(), kPair);
  CHECK(g["results"][1]["rates_source"] == "supplied");
  CHECK(g["results"][1]["supplied_by"] == "my-gpus.json");
  CHECK(g["results"][1]["max_throughput_tokens_per_s"] !=
        builtin["results"][1]["max_throughput_tokens_per_s"]);
  CHECK(g["results"][0]["rates_source"] == "measured");
  CHECK(g["results"][0]["supplied_by"].is_null());
  // Model constants reach every result; the default is extend_catalog's trust.
  auto constants = extend_catalog(gpu.value(), embedded("performance.json"), "my-constants.json");
  REQUIRE(constants.ok());
  const auto k = evaluated(constants.value(), kPair);
  CHECK(k["results"][0]["supplied_by"] == "my-constants.json");
  CHECK(k["results"][1]["supplied_by"] == "my-gpus.json, my-constants.json");
  // Error bands: named apart (they change no figure, only the accuracy stated beside them).
  auto bands =
      extend_catalog(base, embedded("error-bands.json"), "my-bands.json", CatalogTrust::kUser);
  REQUIRE(bands.ok());
  const auto b = evaluated(bands.value(), kPair);
  CHECK(b["results"][0]["error_bands_supplied_by"] == "my-bands.json");
  CHECK(b["results"][0]["rates_source"] == "measured");
  // gpucalc's own file again (the built-in trust) names nothing.
  auto restored = extend_catalog(bands.value(), embedded("error-bands.json"), "error-bands.json",
                                 CatalogTrust::kBuiltIn);
  REQUIRE(restored.ok());
  CHECK(evaluated(restored.value(), kPair)["results"][0]["error_bands_supplied_by"].is_null());
}
