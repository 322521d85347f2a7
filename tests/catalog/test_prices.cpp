// Reference prices for every GPU and a vendor's own price list, by hand from the data files
// (data/gpus.json, data/offerings.json).
#include <set>
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;
using gpucalc::test::kH200AllInW;
using gpucalc::test::kNicBytesPerS;
using gpucalc::test::kNicLatencyS;

TEST_CASE("every catalog GPU has a priced offering of one scale-up domain (an 8-GPU server, a 72-GPU rack); references name tier, source, date") {
  const Catalog& c = default_catalog();
  std::set<std::string> priced_gpus;
  for (const auto& o : c.offerings) {
    const Gpu* g = c.find_gpu(o.gpu_id);
    REQUIRE(g != nullptr);
    if (o.gpu_count == g->scale_up_gpus() && o.price_usd_per_month && *o.price_usd_per_month > 0) {
      priced_gpus.insert(o.gpu_id);
    }
  }
  // Every GPU but a projected part (unpriced until the user prices it) has a priced domain.
  for (const auto& g : c.gpus) {
    CAPTURE(g.id);
    CHECK(priced_gpus.count(g.id) == (g.projected ? 0u : 1u));
  }
  // InferenceX tiers, US$ per GPU-hour (shared/reference/prices.md) x 8 GPUs x 730 h.
  struct Row {
    const char* id;
    double usd_per_gpu_hour;
    int gpus = 8;
  };
  const Row rows[] = {{"ref-8x-h100-hyperscaler", 1.30}, {"ref-8x-h100-neocloud", 1.69},
                      {"ref-8x-h100-rental-3y", 1.30},   {"ref-8x-h200-hyperscaler", 1.41},
                      {"ref-8x-h200-neocloud", 1.74},    {"ref-8x-h200-rental-3y", 1.60},
                      {"ref-8x-b200-hyperscaler", 1.95}, {"ref-8x-b200-neocloud", 2.34},
                      {"ref-8x-b200-rental-3y", 2.90},   {"ref-8x-mi300x-hyperscaler", 1.12},
                      {"ref-8x-mi300x-neocloud", 1.40},  {"ref-8x-mi300x-rental-3y", 1.55},
                      {"ref-8x-mi325x-hyperscaler", 1.28}, {"ref-8x-mi325x-neocloud", 1.59},
                      {"ref-8x-mi325x-rental-3y", 1.80}, {"ref-8x-mi355x-hyperscaler", 1.48},
                      {"ref-8x-mi355x-neocloud", 1.90},  {"ref-8x-mi355x-rental-3y", 2.10},
                      {"ref-8x-b300-hyperscaler", 2.34}, {"ref-8x-b300-neocloud", 2.808},
                      {"ref-8x-b300-rental-3y", 3.48},
                      {"ref-nvl72-gb200-hyperscaler", 2.21, 72}, {"ref-nvl72-gb200-neocloud", 2.75, 72},
                      {"ref-nvl72-gb200-rental-3y", 3.30, 72},   {"ref-nvl72-gb300-hyperscaler", 2.652, 72},
                      {"ref-nvl72-gb300-neocloud", 3.30, 72},    {"ref-nvl72-gb300-rental-3y", 3.96, 72}};
  for (const auto& row : rows) {
    const Offering* o = c.find_offering(row.id);
    REQUIRE_MESSAGE(o != nullptr, row.id);
    CAPTURE(o->id);
    CHECK(o->gpu_count == row.gpus);
    CHECK(*o->price_usd_per_month == doctest::Approx(row.usd_per_gpu_hour * row.gpus * 730));
    CHECK(*o->listed_usd_per_gpu_hour == row.usd_per_gpu_hour);
    CHECK(o->price_source.find("InferenceX") != std::string::npos);
    CHECK(o->price_date == "2026-12-01");
    CHECK_FALSE(o->price_estimate);
    CHECK(o->id.find(o->tier) != std::string::npos);
  }
  // The B300 and GB300 rates are temporary in the source itself, and the price says so.
  for (const char* id : {"ref-8x-b300-neocloud", "ref-nvl72-gb300-neocloud"}) {
    CHECK(c.find_offering(id)->price_source.find("temporary") != std::string::npos);
  }
  CHECK(c.find_offering("ref-nvl72-gb200-neocloud")->price_source.find("temporary") == std::string::npos);
  // H100 hyperscaler: 1.30 x 8 x 730 = US$7,592 a month.
  CHECK(*c.find_offering("ref-8x-h100-hyperscaler")->price_usd_per_month == doctest::Approx(7592.0));
  // MI350X: an estimate, flagged, with its rule (the MI355X rate x 2,300 / 2,500).
  for (const char* tier : {"hyperscaler", "neocloud", "rental-3y"}) {
    const Offering* est = c.find_offering(std::string("ref-8x-mi350x-") + tier);
    const Offering* base = c.find_offering(std::string("ref-8x-mi355x-") + tier);
    REQUIRE(est != nullptr);
    CHECK(est->price_estimate);
    CHECK(est->price_source.find("rule") != std::string::npos);
    CHECK(*est->listed_usd_per_gpu_hour == doctest::Approx(*base->listed_usd_per_gpu_hour * 2300.0 / 2500.0));
  }
  // Seed 002's offers keep their prices and stay the default comparison.
  CHECK(*c.find_offering("fullgpu-8x-h200")->price_usd_per_month == 23900);
  CHECK(c.find_offering("fullgpu-8x-h200")->tier == "provider");
  CHECK(Scenario{}.compare == std::vector<std::string>{"fullgpu-8x-mi355x", "fullgpu-8x-h200"});
  // Scale-out networks (seed 002): RoCE on the MI355X server, ConnectX-7 on HGX H200, none on 1x H200.
  CHECK(c.find_offering("fullgpu-8x-mi355x")->scale_out_id == "8x400g-roce");
  CHECK(c.find_offering("fullgpu-8x-h200")->scale_out_id == "8x400g-connectx7");
  CHECK(c.scale_out_of(*c.find_offering("fullgpu-1x-h200")) == nullptr);
  const Network* cx7 = c.find_network("8x400g-connectx7");
  REQUIRE(cx7 != nullptr);
  CHECK(cx7->nics_per_server == 8);
  CHECK(cx7->nic_line_rate_bytes_per_s == 400e9 / 8);
  CHECK(cx7->achieved_bytes_per_s_per_nic.value == kNicBytesPerS);
  CHECK(cx7->latency_s.value == doctest::Approx(kNicLatencyS));
  CHECK_FALSE(cx7->achieved_bytes_per_s_per_nic.source.empty());
  // All-in power per GPU (InferenceX) beside the TDP; MI350X estimated.
  CHECK(c.find_gpu("h200-sxm")->all_in_power_w->value == kH200AllInW);
  CHECK(c.find_gpu("h200-sxm")->tdp_w == 700);
  CHECK(c.find_gpu("mi350x")->all_in_power_w->estimate);
  CHECK(c.find_gpu("mi350x")->all_in_power_w->value == doctest::Approx(2650.0 - (1400.0 - 1000.0)));
  // A projected part's all-in power is in no source: left unset, never invented.
  for (const auto& g : c.gpus) CHECK(g.all_in_power_w.has_value() != g.projected);
}

TEST_CASE("a vendor's price list still replaces the reference prices; bad price entries are errors") {
  const char* prices = R"J({"offerings": [{"id": "ref-8x-h100-neocloud", "name": "8x H100 (vendor)",
      "gpu": "h100-sxm", "gpu_count": 8, "price_usd_per_month": 9000, "tier": "provider", "sources": ["vendor list"]}]})J";
  auto c = extend_catalog(default_catalog(), prices, "vendor.json");
  REQUIRE(c.ok());
  const Evaluation ev = eval_ok(c.value(), "v=1&compare=ref-8x-h100-neocloud");
  CHECK(*ev.results[0].price_usd_per_month == 9000);
  CHECK(*ev.results[0].price_usd_per_gpu_hour == doctest::Approx(9000.0 / 8 / 730));

  auto both = parse_catalog_json(R"({"offerings": [{"id": "o", "name": "o", "gpu": "x", "gpu_count": 8,
      "price_usd_per_month": 1, "price_usd_per_gpu_hour": 1, "sources": ["s"]}]})", "v.json");
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().field == "v.json: offerings[0](o).price_usd_per_gpu_hour");
  auto tier = parse_catalog_json(R"({"offerings": [{"id": "o", "name": "o", "gpu": "x", "gpu_count": 8,
      "tier": "cheap", "sources": ["s"]}]})", "v.json");
  REQUIRE_FALSE(tier.ok());
  CHECK(tier.error().field == "v.json: offerings[0](o).tier");
  auto net = extend_catalog(default_catalog(), R"({"offerings": [{"id": "o", "name": "o", "gpu": "h100-sxm",
      "gpu_count": 8, "scale_out": "no-such-net", "sources": ["s"]}]})", "v.json");
  REQUIRE_FALSE(net.ok());
  CHECK(net.error().field.find("offerings(o).scale_out") != std::string::npos);
  auto nolat = parse_catalog_json(R"({"networks": [{"id": "n", "name": "n", "nics_per_server": 8,
      "nic_gbit_per_s": 400, "achieved_gbps_per_nic": {"value": 43, "source": "s"}, "sources": ["s"]}]})", "n.json");
  REQUIRE_FALSE(nolat.ok());
  CHECK(nolat.error().field == "n.json: networks[0](n).latency_us");
}
