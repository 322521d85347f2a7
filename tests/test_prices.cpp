// Reference prices for every GPU, energy per token and per run, deployments of more
// than one server (scale-out network), and the verdict reasons they drive. Expected values are
// computed by hand from the data files' figures (data/gpus.json, data/offerings.json).
#include <set>

#include "model/energy.hpp"
#include "model/scale_out.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

namespace {

// InferenceX (shared/reference/prices.md): all-in kW per GPU, H200.
constexpr double kH200AllInW = 1730.0;
// data/offerings.json networks: achieved 43 GB/s per 400G NIC, 10 us per message.
constexpr double kNicBytesPerS = 43e9;
constexpr double kNicLatencyS = 10e-6;

const VerdictItem* find_item(const Evaluation& ev, const std::string& offering,
                             const std::string& code) {
  for (const auto& v : ev.verdict) {
    if (v.offering_id == offering && v.code == code) return &v;
  }
  return nullptr;
}

double param(const VerdictItem& v, const std::string& key) {
  for (const auto& [k, x] : v.params) {
    if (k == key) return x;
  }
  FAIL("verdict param missing: " << key);
  return 0.0;
}

/** The default catalog with both scale-out networks made ideal (no latency, 1 PB/s). */
Catalog ideal_network_catalog() {
  const char* doc = R"({"networks": [
    {"id": "8x400g-connectx7", "name": "ideal", "nics_per_server": 8, "nic_gbit_per_s": 400,
     "achieved_gbps_per_nic": {"value": 1000000, "source": "test"}, "latency_us": {"value": 0, "source": "test"},
     "sources": ["test"]},
    {"id": "8x400g-roce", "name": "ideal", "nics_per_server": 8, "nic_gbit_per_s": 400,
     "achieved_gbps_per_nic": {"value": 1000000, "source": "test"}, "latency_us": {"value": 0, "source": "test"},
     "sources": ["test"]}]})";
  auto c = extend_catalog(default_catalog(), doc, "ideal.json");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return c.value();
}

}  // namespace

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

TEST_CASE("energy: Llama 3.1 70B FP8 on 8x HGX H200, by hand from kW per GPU and the throughput") {
  const Evaluation ev = eval_ok(default_catalog(), "v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-h200");
  const OfferingResult& r = ev.results[0];
  REQUIRE(r.max_throughput_tokens_per_s);
  REQUIRE(r.energy_joules_per_output_token);
  REQUIRE(r.output_tokens_per_s_per_mw);
  REQUIRE(r.energy_usd_per_million_tokens);
  const double tps = *r.max_throughput_tokens_per_s;
  // J/token = kW per GPU x GPUs x 1000 / output tokens per s.
  const double joules = 1.73 * 8 * 1000 / tps;
  CHECK(*r.energy_joules_per_output_token == doctest::Approx(joules));
  // tokens/s per MW = tokens/s / (1.73 kW x 8 / 1000 kW per MW) = 10^6 / J per token.
  CHECK(*r.output_tokens_per_s_per_mw == doctest::Approx(tps / (1.73 * 8 / 1000)));
  CHECK(*r.output_tokens_per_s_per_mw == doctest::Approx(1e6 / joules));
  // Energy cost at the default US$0.08 per kWh: J per token x 10^6 tokens / 3.6 MJ per kWh x 0.08.
  CHECK(*r.energy_usd_per_million_tokens == doctest::Approx(joules * 1e6 / 3.6e6 * 0.08));
  CHECK(*r.energy_joules_per_output_token > 0.1);  // a plausible magnitude (InferenceX: 0.1-10 J)
  CHECK(*r.energy_joules_per_output_token < 10.0);
  // The kwh key scales the cost only.
  const Evaluation dear = eval_ok(default_catalog(), "v=1&model=llama-3.1-70b&weights=fp8&compare=fullgpu-8x-h200&kwh=0.2");
  CHECK(*dear.results[0].energy_usd_per_million_tokens == doctest::Approx(joules * 1e6 / 3.6e6 * 0.2));
  CHECK(*dear.results[0].energy_joules_per_output_token == doctest::Approx(joules));
  // Formulas themselves, by hand.
  CHECK(energy_joules_per_token(1730, 8, 13840) == doctest::Approx(1.0));
  CHECK(tokens_per_s_per_mw(1000, 1250, 8) == doctest::Approx(1e5));
  CHECK(energy_usd_per_million_tokens(3.6, 0.1) == doctest::Approx(0.1));
  CHECK(energy_kwh(1730, 8, 10) == doctest::Approx(138.4));
}

TEST_CASE("energy per training run: all-in power x GPUs x hours") {
  const Evaluation ev = eval_ok(default_catalog(), "v=1&model=llama-3.1-8b&workload=lora&compare=fullgpu-8x-h200&kwh=0.1");
  const OfferingResult& r = ev.results[0];
  REQUIRE(r.train_hours);
  REQUIRE(r.energy_kwh_per_run);
  CHECK(*r.energy_kwh_per_run == doctest::Approx(1.73 * 8 * *r.train_hours));
  CHECK(*r.energy_usd_per_run == doctest::Approx(1.73 * 8 * *r.train_hours * 0.1));
  CHECK_FALSE(r.energy_joules_per_output_token.has_value());
}

TEST_CASE("scale-out formulas by hand") {
  Network net;
  net.nics_per_server = 8;
  net.achieved_bytes_per_s_per_nic.value = 43e9;
  net.latency_s.value = 10e-6;
  const ScaleOutLink link = make_scale_out_link(net, 8, 2);
  CHECK(link.bytes_per_s_per_gpu == 43e9);  // one NIC per GPU
  CHECK(servers_spanned(link, 16) == 2);
  CHECK(servers_spanned(link, 8) == 1);
  // One pipeline boundary, 64 tokens x 8192 hidden x 2 B over 8 TP ranks' NICs.
  CHECK(pipeline_boundaries_s(link, 1, 64.0 * 8192 * 2, 8) ==
        doctest::Approx(10e-6 + 64.0 * 8192 * 2 / 8 / 43e9));
  // DeepSeek-V3 EP across 2 servers: 58 MoE layers x (dispatch + combine), 32 tokens, top-8.
  const double per_gpu = 32.0 / 2 * 8 * 0.5 * 7168 * 2 / 8;
  CHECK(expert_all_to_all_s(link, 58, 32, 8, 7168, 2.0) == doctest::Approx(58 * 2 * (10e-6 + per_gpu / 43e9)));
  // Gradient all-reduce of 16 GB per GPU across 2 servers: 2 x 1/2 x 16e9 / 8 / 43e9 + 2 x 10 us.
  CHECK(cross_server_allreduce_s(link, 16e9) == doctest::Approx(16e9 / 8 / 43e9 + 20e-6));
  // Nothing crosses the network inside one server.
  const ScaleOutLink one = make_scale_out_link(net, 8, 1);
  CHECK(cross_server_allreduce_s(one, 16e9) == 0.0);
  CHECK(expert_all_to_all_s(one, 58, 32, 8, 7168, 2.0) == 0.0);
}

TEST_CASE("DeepSeek-V3 BF16 on HGX H200: two servers needed, then fits on 16 GPUs at twice the price") {
  const Catalog& c = default_catalog();
  const std::string base = "v=1&model=deepseek-v3&weights=bf16&context=4096&compare=fullgpu-8x-h200";
  const Evaluation one = eval_ok(c, base);
  const OfferingResult& a = one.results[0];
  CHECK(a.fit.servers_needed == 2);
  CHECK_FALSE(a.fit.fits);
  CHECK(std::string(a.fit.reason) == "needs_more_gpus");
  CHECK(a.servers == 1);
  REQUIRE(find_item(one, "fullgpu-8x-h200", "needs_servers") != nullptr);
  CHECK(param(*find_item(one, "fullgpu-8x-h200", "needs_servers"), "servers_needed") == 2);

  const Evaluation two = eval_ok(c, base + "&servers=2");
  const OfferingResult& b = two.results[0];
  CHECK(b.fit.fits);
  CHECK(b.servers == 2);
  CHECK(b.deployed_gpus == 16);
  CHECK(b.fit.deployment.gpus == 16);
  CHECK(b.fit.deployment.tensor_parallel == 8);  // tensor parallel inside one server
  CHECK(b.fit.deployment.pipeline_parallel == 2);
  CHECK(*b.price_usd_per_month == 2 * 23900);
  CHECK(*b.unit_price_usd_per_month == 23900);
  CHECK(*b.price_usd_per_gpu_hour == doctest::Approx(47800.0 / 16 / 730));
  // servers=0: as many as needed, the same deployment.
  const Evaluation any = eval_ok(c, base + "&servers=0");
  CHECK(any.results[0].servers == 2);
  CHECK(*any.results[0].max_throughput_tokens_per_s == doctest::Approx(*b.max_throughput_tokens_per_s));

  // The inter-node link, by hand: expert parallel across the 2 servers, one user's token per
  // decode step: 58 MoE layers x 2 x (10 us + 1/2 token x 8 experts x 1/2 remote x 7168 x 2 B / 8 NICs / 43 GB/s).
  REQUIRE(b.scale_out_s);
  const double hop_s = 58 * 2 * (kNicLatencyS + 1.0 / 2 * 8 * 0.5 * 7168 * 2 / 8 / kNicBytesPerS);
  CHECK(*b.scale_out_s == doctest::Approx(hop_s));
  CHECK(b.scale_out_strategy == "expert_parallel");
  // Against an ideal network the step is that much slower, and the throughput lower.
  const Evaluation ideal = eval_ok(ideal_network_catalog(), base + "&servers=2");
  const OfferingResult& i = ideal.results[0];
  REQUIRE(i.tpot_s);
  CHECK(*b.tpot_s - *i.tpot_s == doctest::Approx(hop_s).epsilon(1e-3));
  CHECK(*b.max_throughput_tokens_per_s < *i.max_throughput_tokens_per_s);
  CHECK(*b.max_throughput_tokens_per_s > 0.5 * *i.max_throughput_tokens_per_s);
  // Energy of the deployment counts all 16 GPUs.
  CHECK(*b.energy_joules_per_output_token == doctest::Approx(kH200AllInW * 16 / *b.max_throughput_tokens_per_s));
  // The what-fits table says two servers too.
  Scenario s = two.scenario;
  auto table = fit_table_json(c, s);
  REQUIRE(table.ok());
  CHECK(table.value().find("\"servers_needed\":2") != std::string::npos);
}

TEST_CASE("seed 002's DeepSeek figures on one server are unchanged by servers=1") {
  const Catalog& c = default_catalog();
  const std::string base = "v=1&model=deepseek-v3&context=4096&compare=fullgpu-8x-mi355x,fullgpu-8x-h200&capacity=marketed&reserve=0&weights=fp8&tp=8";
  const Evaluation def = eval_ok(c, base);
  const Evaluation one = eval_ok(c, base + "&servers=1,1");
  CHECK(def.canonical == one.canonical);  // servers=1 is the default, not written
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(one.results[k].fit.kv_free_bytes == def.results[k].fit.kv_free_bytes);
    CHECK(one.results[k].servers == 1);
    CHECK(one.results[k].fit.servers_needed == 1);
    CHECK_FALSE(one.results[k].scale_out_s.has_value());
  }
  CHECK(one.results[0].fit.kv_free_bytes == doctest::Approx(8 * 288e9 - 671e9));
  CHECK(one.results[1].fit.kv_free_bytes == doctest::Approx(8 * 141e9 - 671e9));
}

TEST_CASE("a model that fits one server: more servers are replicas, no inter-node traffic") {
  const Catalog& c = default_catalog();
  const Evaluation one = eval_ok(c, "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=fullgpu-8x-h200");
  const Evaluation two = eval_ok(c, "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=fullgpu-8x-h200&servers=2");
  CHECK(two.results[0].fit.deployment.gpus == 8);
  CHECK(two.results[0].fit.replicas == 2);
  CHECK_FALSE(two.results[0].scale_out_s.has_value());
  CHECK(*two.results[0].max_throughput_tokens_per_s ==
        doctest::Approx(2 * *one.results[0].max_throughput_tokens_per_s));
  CHECK(*two.results[0].usd_per_million_tokens == doctest::Approx(*one.results[0].usd_per_million_tokens));
  // A dense model split over two servers pipelines: one boundary, users x hidden x 2 B / TP per NIC.
  const Evaluation pp = eval_ok(c, "v=1&model=llama-3.1-70b&weights=fp8&context=8192&users=4&tp=16&compare=fullgpu-8x-h200&servers=2");
  REQUIRE(pp.results[0].scale_out_s);
  CHECK(*pp.results[0].scale_out_s == doctest::Approx(kNicLatencyS + 4.0 * 8192 * 2 / 8 / kNicBytesPerS));
  CHECK(pp.results[0].scale_out_strategy == "pipeline");
}

TEST_CASE("single-GPU VMs cannot be stacked into one model-parallel deployment") {
  const Catalog& c = default_catalog();
  // Llama 3.1 70B BF16 needs 2 GPUs: two 1x H200 VMs are separate, not one split model.
  const Evaluation ev = eval_ok(c, "v=1&model=llama-3.1-70b&weights=bf16&compare=fullgpu-1x-h200&servers=2");
  const OfferingResult& r = ev.results[0];
  CHECK_FALSE(r.stackable);
  CHECK(r.fit.servers_needed == 2);
  CHECK_FALSE(r.fit.fits);
  CHECK(std::string(r.fit.reason) == "not_stackable");
  CHECK(find_item(ev, "fullgpu-1x-h200", "not_stackable") != nullptr);
  const Evaluation one = eval_ok(c, "v=1&model=llama-3.1-70b&weights=bf16&compare=fullgpu-1x-h200");
  CHECK(std::find(one.results[0].warnings.begin(), one.results[0].warnings.end(), "not_stackable") !=
        one.results[0].warnings.end());
  // FP8 fits one GPU: three VMs are three independent copies (seed 002), at three times the price.
  const Evaluation fp8_one = eval_ok(c, "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=fullgpu-1x-h200");
  const Evaluation fp8 = eval_ok(c, "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=fullgpu-1x-h200&servers=3");
  CHECK(fp8.results[0].fit.fits);
  CHECK(fp8.results[0].fit.replicas == 3);
  CHECK(*fp8.results[0].price_usd_per_month == 3 * 3090);
  CHECK(*fp8.results[0].max_throughput_tokens_per_s ==
        doctest::Approx(3 * *fp8_one.results[0].max_throughput_tokens_per_s));
  // Training cannot span them either.
  const Evaluation train = eval_ok(c, "v=1&model=llama-3.1-8b&workload=lora&compare=fullgpu-1x-h200&servers=2");
  CHECK_FALSE(train.results[0].train_tokens_per_s.has_value());
}

TEST_CASE("training data-parallel across servers pays the gradient all-reduce over the network") {
  const Catalog& c = default_catalog();
  const std::string base = "v=1&model=llama-3.1-8b&workload=finetune&weights=bf16&compare=fullgpu-8x-h200";
  const Evaluation one = eval_ok(c, base);
  const Evaluation two = eval_ok(c, base + "&servers=2");
  const Evaluation ideal = eval_ok(ideal_network_catalog(), base + "&servers=2");
  REQUIRE(one.results[0].train_tokens_per_s);
  REQUIRE(two.results[0].train_tokens_per_s);
  const double t1 = *one.results[0].train_tokens_per_s, t2 = *two.results[0].train_tokens_per_s;
  CHECK(t2 > t1);
  CHECK(t2 < 2 * t1);
  CHECK(t2 < *ideal.results[0].train_tokens_per_s);
  CHECK(*two.results[0].energy_kwh_per_run == doctest::Approx(1.73 * 16 * *two.results[0].train_hours));
}

TEST_CASE("verdict: cost per million tokens for every pair, energy beyond 10 %") {
  const Evaluation ev = eval_ok(default_catalog(),
                                "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=ref-8x-h100-neocloud,ref-8x-b200-neocloud,ref-8x-mi300x-neocloud");
  int pairs = 0;
  for (const auto& v : ev.verdict) {
    if (v.code != "cheaper_per_million_tokens_than") continue;
    ++pairs;
    CHECK(param(v, "ratio") == doctest::Approx(param(v, "other_usd_per_million_tokens") / param(v, "usd_per_million_tokens")));
    CHECK(param(v, "ratio") > 1.0);
    const auto other = static_cast<std::size_t>(param(v, "other_index"));
    CHECK(*ev.results[other].usd_per_million_tokens == param(v, "other_usd_per_million_tokens"));
  }
  CHECK(pairs == 3);
  // Energy: the lowest J/token gets the reason only when it leads the next by more than 10 %.
  double best = 1e30, next = 1e30;
  std::string best_id;
  for (const auto& r : ev.results) {
    const double j = *r.energy_joules_per_output_token;
    if (j < best) {
      next = best;
      best = j;
      best_id = r.offering_id;
    } else if (j < next) {
      next = j;
    }
  }
  const VerdictItem* energy = find_item(ev, best_id, "less_energy_per_token");
  CHECK((energy != nullptr) == (next / best > 1.10));
  if (energy != nullptr) CHECK(param(*energy, "ratio") == doctest::Approx(next / best));
}

TEST_CASE("scenario keys servers and kwh: decode, encode, errors") {
  auto s = decode_scenario("v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x&servers=2,-&kwh=0.12");
  REQUIRE(s.ok());
  CHECK(s.value().servers == std::vector<int>{2, 1});
  CHECK(s.value().usd_per_kwh == 0.12);
  const std::string canon = encode_scenario(s.value());
  CHECK(canon.find("&servers=2") != std::string::npos);
  CHECK(canon.find("&kwh=0.12") != std::string::npos);
  auto again = decode_scenario(canon);
  REQUIRE(again.ok());
  CHECK(again.value() == s.value());
  CHECK(decode_scenario("v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x&servers=1,0").value().servers ==
        std::vector<int>{1, 0});
  CHECK(decode_scenario("v=1").value().usd_per_kwh == 0.08);
  for (const char* bad : {"v=1&servers=x", "v=1&servers=-1", "v=1&servers=1,1,1", "v=1&servers=129",
                          "v=1&servers=1.5"}) {
    CAPTURE(bad);
    auto e = decode_scenario(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == "servers");
  }
  for (const char* bad : {"v=1&kwh=0", "v=1&kwh=-1", "v=1&kwh=abc", "v=1&kwh=1000"}) {
    CAPTURE(bad);
    auto e = decode_scenario(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == "kwh");
  }
  const Evaluation ev = eval_ok(default_catalog(), "v=1&compare=fullgpu-8x-h200&servers=2");
  const std::string json = evaluation_to_json(ev, true);
  for (const char* key : {"\"servers_needed\":1", "\"servers\":2", "\"deployed_gpus\":16",
                          "\"energy_joules_per_output_token\":", "\"output_tokens_per_s_per_mw\":",
                          "\"energy_usd_per_million_tokens\":", "\"unit_price_month_usd\":23900",
                          "\"price_month_usd\":47800", "\"scale_out_network\":\"8x400g-connectx7\""}) {
    CAPTURE(key);
    CHECK(json.find(key) != std::string::npos);
  }
  CHECK(json.find("NaN") == std::string::npos);
}
