// Deployments of more than one server over the scale-out network: the formulas by hand and
// what they change in fit, price and speed (data/offerings.json networks).
#include "model/scale_out.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;
using gpucalc::test::find_item;
using gpucalc::test::kH200AllInW;
using gpucalc::test::kNicBytesPerS;
using gpucalc::test::kNicLatencyS;

namespace {

using test::param;

#define IDEAL_EP                                                                                       \
  R"({"tokens_per_rank": 128, "hidden": 7168, "top_k": 8, "figure_nic_gbit_per_s": 400,)"              \
  R"("dispatch_us_ep16": {"value": 0.001, "source": "test"}, "combine_us_ep16": {"value": 0.001, "source": "test"},)" \
  R"("dispatch_us_ep32": {"value": 0.001, "source": "test"}, "combine_us_ep32": {"value": 0.001, "source": "test"},)" \
  R"("dispatch_us_ep64": {"value": 0.001, "source": "test"}, "combine_us_ep64": {"value": 0.001, "source": "test"},)" \
  R"("rdma_dispatch_gbps_per_gpu": {"value": 1000000, "source": "test"},)"                             \
  R"("rdma_combine_gbps_per_gpu": {"value": 1000000, "source": "test"}, "sources": ["test"]})"

/** The default catalog with both scale-out networks made ideal (no latency, 1 PB/s), their
 *  RDMA all-to-all too (1 ns, 1 PB/s per GPU), so every layout across servers gets faster. */
Catalog ideal_network_catalog() {
  const char* doc = R"({"networks": [
    {"id": "8x400g-connectx7", "name": "ideal", "nics_per_server": 8, "nic_gbit_per_s": 400,
     "achieved_gbps_per_nic": {"value": 1000000, "source": "test"}, "latency_us": {"value": 0, "source": "test"},
     "ep_all_to_all": )" IDEAL_EP R"(, "sources": ["test"]},
    {"id": "8x400g-roce", "name": "ideal", "nics_per_server": 8, "nic_gbit_per_s": 400,
     "achieved_gbps_per_nic": {"value": 1000000, "source": "test"}, "latency_us": {"value": 0, "source": "test"},
     "ep_all_to_all": )" IDEAL_EP R"(, "sources": ["test"]}]})";
  auto c = extend_catalog(default_catalog(), doc, "ideal.json");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return c.value();
}

}  // namespace

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

TEST_CASE("wide expert parallelism over RDMA: 16 GPUs on two servers against DeepEP's measured all-to-all") {
  // DeepSeek-V3 decode, 128 tokens on each of 16 ranks (8 per server), one MoE layer's dispatch +
  // combine over the ConnectX-7 network (data/offerings.json). DeepEP over ConnectX-7 400G on
  // H800 measured EP16 at 118 + 195 us (low-latency kernels, 2025-06 table) and 173 + 329 us
  // (initial release), shared/reference/engines.md section 7: the model lies between them.
  const Network* net = default_catalog().find_network("8x400g-connectx7");
  REQUIRE(net != nullptr);
  const ScaleOutLink link = make_scale_out_link(*net, 8, 2);
  const double per_layer = expert_all_to_all_s(link, 1, 16 * 128, 8, 7168, 2.0);
  CHECK(per_layer >= (118 + 195) * 1e-6);
  CHECK(per_layer <= (173 + 329) * 1e-6);
  // At the same 128 tokens a rank, four servers send a larger share of each token's experts
  // off the server (3/4 against 1/2), as DeepEP's EP32 row is slower than its EP16 row; one
  // server sends nothing over the network.
  const double four = expert_all_to_all_s(make_scale_out_link(*net, 8, 4), 1, 32 * 128, 8, 7168, 2.0);
  CHECK(four > per_layer);
  CHECK(expert_all_to_all_s(make_scale_out_link(*net, 8, 1), 1, 16 * 128, 8, 7168, 2.0) == 0.0);
}
