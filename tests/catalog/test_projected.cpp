// Projected parts (data/gpus.json "projected": true): vendor claims only, a figure no source
// gives stays unset, every listing and result says projected, no default comparison holds one,
// and one is recommended only once the user prices it.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "test_support.hpp"

using namespace gpucalc;

namespace {

const char* const kProjectedGpus[] = {"mi455x", "vr200"};

using test::has_warning;

/** A GPU entry for the reader: `extra` is spliced into the object. */
std::string gpu_document(const std::string& extra, const std::string& peaks, const std::string& tdp) {
  return R"({"gpus": [{"id": "test-part", "name": "Test part", "vendor": "nvidia",
    "architecture": "Test", "hbm_gb": 288, "memory_bandwidth_tbps": 20.0,
    "peak_tflops": )" + peaks + R"(, "fp4_format": "nvfp4", )" + tdp + extra + R"(
    "interconnect": {"kind": "NVLink 6", "topology": "switch", "per_gpu_gbps": 3600,
      "scale_up_gpus": 72, "scale_up_source": "test"},
    "sources": ["test"]}]})";
}

}  // namespace

TEST_CASE("projected parts: listed and flagged, unset figures stay unset") {
  const Catalog& cat = default_catalog();
  auto gpus = nlohmann::json::parse(catalog_to_json(cat, "gpus").value());
  int projected = 0;
  for (const auto& g : gpus["gpus"]) {
    const std::string id = g["id"].get<std::string>();
    const bool expected = std::find(std::begin(kProjectedGpus), std::end(kProjectedGpus), id) != std::end(kProjectedGpus);
    CAPTURE(id);
    CHECK(g["projected"].get<bool>() == expected);
    projected += expected ? 1 : 0;
  }
  CHECK(projected == 2);
  // Figures no source gives are null, never filled in.
  const Gpu* vr = cat.find_gpu("vr200");
  REQUIRE(vr != nullptr);
  CHECK_FALSE(vr->peak_flops_per_s[index_of(Precision::kBf16)].has_value());
  CHECK_FALSE(vr->peak_flops_per_s[index_of(Precision::kFp8)].has_value());
  CHECK(vr->interconnect.links == 0);
  CHECK_FALSE(vr->all_in_power_w.has_value());
  const Gpu* mi = cat.find_gpu("mi455x");
  REQUIRE(mi != nullptr);
  CHECK_FALSE(mi->tdp_w.has_value());
  CHECK(mi->scale_up_gpus() == 72);
  auto offerings = nlohmann::json::parse(catalog_to_json(cat, "offerings").value());
  int racks = 0;
  for (const auto& o : offerings["offerings"]) {
    const Gpu* g = cat.find_gpu(o["gpu"].get<std::string>());
    REQUIRE(g != nullptr);
    CHECK(o["projected"].get<bool>() == g->projected);
    if (g->projected) {
      ++racks;
      CHECK(o["price_month_usd"].is_null());  // unpriced until the user gives a price
      CHECK(o["gpu_count"].get<int>() == 72);
    }
  }
  CHECK(racks == 2);
}

TEST_CASE("projected parts: the reader leaves a figure unset only on a projected part") {
  const std::string no_bf16 = R"({"fp4": 50000})";
  const std::string with_bf16 = R"({"bf16": 2000, "fp4": 50000})";
  // Without the flag: BF16 and TDP are required, and the link figures too.
  auto plain = extend_catalog(default_catalog(), gpu_document("", no_bf16, R"("tdp_w": 2300,)"), "t.json");
  REQUIRE_FALSE(plain);
  CHECK(plain.error().field.find("bf16") != std::string::npos);
  auto no_tdp = extend_catalog(default_catalog(), gpu_document("", with_bf16, ""), "t.json");
  REQUIRE_FALSE(no_tdp);
  auto links = extend_catalog(default_catalog(), gpu_document("", with_bf16, R"("tdp_w": 2300,)"), "t.json");
  REQUIRE_FALSE(links);
  CHECK(links.error().field.find("links") != std::string::npos);
  // With it, all three may be unset; the strict reader still refuses an unknown key.
  auto projected = extend_catalog(default_catalog(), gpu_document(R"("projected": true,)", no_bf16, ""), "t.json");
  REQUIRE(projected);
  CHECK(projected.value().find_gpu("test-part")->projected);
  auto unknown = extend_catalog(default_catalog(),
                                gpu_document(R"("projected": true, "projected_by": "x",)", no_bf16, ""), "t.json");
  CHECK_FALSE(unknown);
}

TEST_CASE("projected parts: never in a default comparison") {
  const Catalog& cat = default_catalog();
  auto s = decode_scenario("v=1");
  REQUIRE(s);
  for (const std::string& id : s.value().compare) {
    const Offering* o = cat.find_offering(id);
    REQUIRE(o != nullptr);
    CAPTURE(id);
    CHECK_FALSE(cat.find_gpu(o->gpu_id)->projected);
  }
}

TEST_CASE("projected parts: the result says projected, the band says no measurement") {
  auto ev = evaluate_text(default_catalog(),
                          "v=1&model=deepseek-v3&weights=fp8&compare=rack-72x-mi455x,fullgpu-8x-h200", false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results[0];
  CHECK(r.projected);
  CHECK(has_warning(r, "projected_part"));
  // Energy needs all_in_kw_per_gpu, which no source gives for MI455X: no figure, and a warning.
  CHECK(has_warning(r, "all_in_power_unset"));
  CHECK_FALSE(r.energy_joules_per_output_token.has_value());
  REQUIRE_FALSE(r.error_band.empty());
  for (const ErrorBand& b : r.error_band) {
    CHECK(b.points == 0);
    CHECK(b.basis.find("no measurement") != std::string::npos);
  }
  const OfferingResult& h = ev.value().results[1];
  CHECK_FALSE(h.projected);
  CHECK_FALSE(has_warning(h, "projected_part"));
  CHECK_FALSE(has_warning(h, "all_in_power_unset"));
  auto j = nlohmann::json::parse(evaluation_to_json(ev.value(), false));
  CHECK(j["results"][0]["projected"] == true);
  CHECK(j["results"][1]["projected"] == false);
}

TEST_CASE("projected parts: a computation that needs an unset figure names it") {
  // VR200 has neither FP8 nor BF16 peaks in any source: FP8 weights fall back to BF16 math,
  // which is unset; FP4 weights run on its one published figure.
  auto fp8 = evaluate_text(default_catalog(), "v=1&model=deepseek-v3&weights=fp8&compare=rack-72x-vr200", false);
  REQUIRE_FALSE(fp8);
  CHECK(fp8.error().field == "compare[0]");
  CHECK(fp8.error().message.find("peak_tflops.bf16") != std::string::npos);
  auto fp4 = evaluate_text(default_catalog(), "v=1&model=deepseek-v3&weights=fp4&compare=rack-72x-vr200", false);
  REQUIRE(fp4);
  CHECK(fp4.value().results[0].projected);
}

TEST_CASE("projected parts: recommended only once the user prices them") {
  // Over models, users and companions: unpriced, a projected part is never the recommendation;
  // priced at one cent a month it can be (so the rule, not the figures, kept it out).
  const char* const scenarios[] = {
      "v=1&model=deepseek-v3&weights=fp8&users=8",    "v=1&model=deepseek-v3&weights=fp8&users=64",
      "v=1&model=llama-3.1-70b&weights=fp8&users=16", "v=1&model=qwen3-235b-a22b&weights=fp8&users=32",
  };
  int priced_recommended = 0;
  for (const char* base : scenarios) {
    for (const char* compare : {"&compare=rack-72x-mi455x", "&compare=rack-72x-mi455x,fullgpu-8x-h200",
                                "&compare=fullgpu-8x-mi355x,rack-72x-mi455x"}) {
      const std::string text = std::string(base) + compare;
      CAPTURE(text);
      auto ev = evaluate_text(default_catalog(), text, false);
      REQUIRE(ev);
      CHECK(ev.value().recommended_offering_id != "rack-72x-mi455x");
      const bool first = std::string(compare).find("=rack") != std::string::npos;
      auto priced = evaluate_text(default_catalog(), text + (first ? "&price=0.01" : "&price=-,0.01"), false);
      REQUIRE(priced);
      priced_recommended += priced.value().recommended_offering_id == "rack-72x-mi455x" ? 1 : 0;
    }
  }
  CHECK(priced_recommended > 0);
}
