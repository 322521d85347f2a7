// The scale-up domain as catalog data: a GPU's `interconnect.scale_up_gpus` bounds tensor and
// expert parallelism, a rack of 72 GPUs loads from a --catalog document alone, and the fabric's
// figures only ever help.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/disagg.hpp"
#include "model/scale_out.hpp"
#include "model/serving.hpp"
#include "model/throughput.hpp"
#include "catalog/engines.hpp"

using namespace gpucalc;

namespace {

/** A catalog document with one GPU of a `scale_up`-GPU NVLink domain at `per_gpu_gbps` and one
 *  priced offering of `gpus` of them (B200 figures, no kernel tables: the bus-bandwidth path). */
std::string rack_document(int scale_up, int gpus, double per_gpu_gbps) {
  const std::string n = std::to_string(scale_up);
  return R"({"gpus": [{"id": "test-rack-gpu", "name": "Test rack GPU", "vendor": "nvidia",
    "architecture": "Blackwell", "hbm_gb": 180, "memory_bandwidth_tbps": 8.0,
    "peak_tflops": {"bf16": 2250, "fp8": 4500, "fp4": 9000}, "fp8_format": "e4m3",
    "fp4_format": "nvfp4", "tdp_w": 1200,
    "interconnect": {"kind": "NVLink 5", "topology": "switch", "links": 18, "link_gbps": 100,
      "per_gpu_gbps": )" + std::to_string(per_gpu_gbps) + R"(, "scale_up_gpus": )" + n + R"(,
      "scale_up_source": "test: )" + n + R"( GPUs in one NVLink domain"},
    "sources": ["test"]}],
  "offerings": [{"id": "test-rack", "name": "Test rack", "gpu": "test-rack-gpu",
    "gpu_count": )" + std::to_string(gpus) + R"(, "kind": "server", "price_usd_per_month": 100000,
    "sources": ["test"]}]})";
}

Catalog rack_catalog(int scale_up, int gpus, double per_gpu_gbps = 1800) {
  auto c = extend_catalog(default_catalog(), rack_document(scale_up, gpus, per_gpu_gbps), "rack.json");
  REQUIRE(c);
  return c.value();
}

}  // namespace

TEST_CASE("scale-up domain: a 72-GPU NVLink rack loads from a catalog document alone") {
  const Catalog cat = rack_catalog(72, 72);
  const Gpu* gpu = cat.find_gpu("test-rack-gpu");
  REQUIRE(gpu != nullptr);
  CHECK(gpu->scale_up_gpus() == 72);
  auto listing = catalog_to_json(cat, "offerings");
  REQUIRE(listing);
  CHECK(listing.value().find(R"("id":"test-rack","name":"Test rack","provider":"","gpu":"test-rack-gpu","gpu_count":72,"scale_up_gpus":72)") != std::string::npos);
  // Tensor and expert parallelism range over the whole domain, not one 8-GPU server: on 64 of
  // the rack's GPUs DeepSeek's 128 heads split up to 64 ways, experts with them, with no
  // scale-out network.
  auto sc = decode_scenario("v=1&model=deepseek-v3&weights=fp8&context=8192&engine=sglang");
  REQUIRE(sc);
  const Model& m = *cat.find_model("deepseek-v3");
  const ServingContext c = make_serving_context(cat, sc.value(), m, *gpu, *default_engines().find("sglang"), "");
  std::vector<int> sizes;
  for (const Parallel& p : legal_layouts(c, 64, 0, 0, 0)) {
    CHECK(p.servers == 1);
    sizes.push_back(p.tp);
  }
  CHECK(std::find(sizes.begin(), sizes.end(), 64) != sizes.end());
  // The same GPU on 8-GPU baseboards stops at 8 inside one server.
  const Catalog hgx = rack_catalog(8, 8);
  const ServingContext c8 = make_serving_context(hgx, sc.value(), m, *hgx.find_gpu("test-rack-gpu"),
                                                 *default_engines().find("sglang"), "");
  for (const Parallel& p : legal_layouts(c8, 8, 0, 0, 0)) CHECK(p.tp <= 8);
  // The whole scenario runs, and the memory fit keeps one instance inside the domain.
  auto ev = evaluate_text(cat, "v=1&model=deepseek-v3&weights=fp8&context=8192&compare=test-rack&users=64", false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results.front();
  CHECK(r.fit.fits);
  CHECK(r.fit.deployment.pipeline_parallel == 1);
  CHECK(r.fit.deployment.tensor_parallel == r.serving_tensor_parallel);  // the served instance
  REQUIRE(r.total_tokens_per_s_per_gpu);
  CHECK(*r.total_tokens_per_s_per_gpu > 0.0);
  // An instance past 8 GPUs stays one tensor-parallel instance inside the 72-GPU domain.
  auto wide = evaluate_text(cat, "v=1&model=deepseek-v3&weights=fp8&context=8192&compare=test-rack&users=64&tp=16", false);
  REQUIRE(wide);
  const OfferingResult& w = wide.value().results.front();
  CHECK(w.fit.fits);
  CHECK(w.fit.deployment.pipeline_parallel == 1);
  CHECK(w.fit.deployment.tensor_parallel == 16);
  CHECK(w.fit.replicas == 4);  // 72 / 16: each holds its share of the users
}

TEST_CASE("scale-up domain: tp past it is checked against the compared GPUs' domains") {
  // Llama 3.1 70B has 64 heads: tp=16 is a legal split inside a 72-GPU domain, and on 8-GPU
  // servers it is 8-way tensor parallel x 2 pipeline stages (also legal).
  const Catalog cat = rack_catalog(72, 72);
  auto ev = evaluate_text(cat, "v=1&model=llama-3.1-70b&compare=test-rack&tp=16&users=8", false);
  REQUIRE(ev);
  CHECK(ev.value().results.front().fit.deployment.tensor_parallel == 16);
  CHECK(ev.value().results.front().fit.deployment.pipeline_parallel == 1);
}

TEST_CASE("property: more scale-up bandwidth never lowers throughput") {
  for (const char* scenario : {"v=1&model=deepseek-v3&weights=fp8&compare=test-rack&users=64",
                               "v=1&model=deepseek-v3&weights=fp8&compare=test-rack&users=512&tpot_max=0.05",
                               "v=1&model=llama-3.1-70b&weights=fp8&compare=test-rack&users=256"}) {
    CAPTURE(scenario);
    double last_point = 0.0, last_best = 0.0;
    for (double gbps : {225.0, 450.0, 900.0, 1800.0, 3600.0}) {
      CAPTURE(gbps);
      const Catalog cat = rack_catalog(72, 72, gbps);
      auto ev = evaluate_text(cat, scenario, false);
      REQUIRE(ev);
      const OfferingResult& r = ev.value().results.front();
      REQUIRE(r.total_tokens_per_s_per_gpu);
      REQUIRE(r.max_throughput_tokens_per_s);
      CHECK(*r.total_tokens_per_s_per_gpu >= last_point * (1.0 - 1e-12));
      CHECK(*r.max_throughput_tokens_per_s >= last_best * (1.0 - 1e-12));
      last_point = *r.total_tokens_per_s_per_gpu;
      last_best = *r.max_throughput_tokens_per_s;
    }
  }
}

TEST_CASE("property: a 16-GPU expert-parallel group moved from two 8-GPU servers into one 72-GPU domain never serves less") {
  // The same GPU twice: on 8-GPU baseboards joined by the B200 servers' scale-out network, and
  // in one 72-GPU NVLink domain. The group keeps its shape: 16 data-parallel attention ranks,
  // experts over all 16 GPUs; only the fabric its all-to-all crosses changes.
  const Catalog servers = rack_catalog(8, 16);
  const Catalog rack = rack_catalog(72, 72);
  const Network* network = default_catalog().scale_out_of(*default_catalog().find_offering("ref-8x-b200-hyperscaler"));
  REQUIRE(network != nullptr);
  for (const char* scenario : {"v=1&model=deepseek-v3&weights=fp8&input=922&output=922&engine=sglang",
                               "v=1&model=deepseek-v3&weights=fp4&input=922&output=922&engine=sglang&mtp=1",
                               "v=1&model=qwen3-235b-a22b&weights=fp8&input=922&output=922&engine=sglang"}) {
    CAPTURE(scenario);
    auto sc = decode_scenario(scenario);
    REQUIRE(sc);
    const Model& m = *default_catalog().find_model(sc.value().model);
    const EngineProfile& e = *default_engines().find("sglang");
    ServingContext across = make_serving_context(servers, sc.value(), m, *servers.find_gpu("test-rack-gpu"), e, "");
    across.scale_out = make_scale_out_link(*network, 8, 2);
    const ServingContext inside = make_serving_context(rack, sc.value(), m, *rack.find_gpu("test-rack-gpu"), e, "");
    const Parallel spanning{8, 8, true, 2, true};
    const Parallel domain{16, 16, true, 1};
    // The 72-GPU domain's own search offers that group (a wide instance: 16 does not divide
    // 72), so the comparison below is one the calculator can choose.
    const std::vector<Parallel> offered = legal_layouts(inside, 72, 0, 16, 1);
    CHECK(std::any_of(offered.begin(), offered.end(), [&](const Parallel& p) {
      return p.tp == domain.tp && p.ep == domain.ep && p.dpa && p.servers == 1;
    }));
    // Across servers the group is the wide instance whose all-to-all the network's RDMA figures
    // (DeepEP, ConnectX-7) time, and the 16-GPU search over the two servers offers it.
    CHECK(rdma_wide_ep(across, spanning));
    const std::vector<Parallel> offered_across = legal_layouts(across, 16, 0, 16, 1);
    CHECK(std::any_of(offered_across.begin(), offered_across.end(), [&](const Parallel& p) {
      return p.tp == spanning.tp && p.ep == spanning.ep && p.dpa && p.rdma && p.servers == spanning.servers;
    }));
    REQUIRE(max_sequences(inside, domain) >= max_sequences(across, spanning));
    for (double users : {1.0, 16.0, 128.0, 1024.0}) {
      CAPTURE(users);
      const ServingPoint a = serve(across, spanning, 1, users);
      const ServingPoint b = serve(inside, domain, 1, users);
      REQUIRE(a.fits);
      REQUIRE(b.fits);
      CHECK(b.total_tokens_per_s_per_gpu >= a.total_tokens_per_s_per_gpu * (1.0 - 1e-12));
      CHECK(b.tokens_per_s_per_user >= a.tokens_per_s_per_user * (1.0 - 1e-12));
      // The same group as the decode pool of a disaggregated deployment (one 8-GPU prefill
      // worker beside it).
      const DisaggPoint da = serve_disaggregated(across, DisaggLayout{Parallel{8, 8, true}, 1, spanning, 1}, users);
      const DisaggPoint db = serve_disaggregated(inside, DisaggLayout{Parallel{8, 8, true}, 1, domain, 1}, users);
      REQUIRE(da.fits);
      REQUIRE(db.fits);
      CHECK(db.total_tokens_per_s_per_gpu >= da.total_tokens_per_s_per_gpu * (1.0 - 1e-12));
    }
  }
}

TEST_CASE("all-reduce: a curve measured over 4 GPUs is read as a 4-GPU ring") {
  // The curve of the 8-GPU test in test_serving.cpp, measured over 4 GPUs instead.
  Fabric f;
  f.allreduce_gpus = 4;
  Curve c;
  for (const auto& [bytes, s] : {std::pair{8192.0, 4e-6}, std::pair{65536.0, 6e-6}}) c.push(bytes, s);
  f.allreduce = &c;
  // 4 GPUs: the curve itself; beyond its last point, the last point's bandwidth.
  CHECK(allreduce_s(f, 131072, 4) == doctest::Approx(12e-6));
  // More GPUs than measured: the measured size (the ring is not extrapolated up).
  CHECK(allreduce_s(f, 131072, 8) == doctest::Approx(12e-6));
  // 2 GPUs, 262144 bytes: t_4(4 x 262144 / 2 = 524288) = 6e-6 x 524288 / 65536 = 48e-6, times
  // (2 - 1) / (4 - 1).
  CHECK(allreduce_s(f, 262144, 2) == doctest::Approx(48e-6 / 3.0));
  // The fabric's all-to-all latency, where given, replaces the all-reduce latency in the
  // all-to-all without curves: two transfers of tokens x hidden x 2 bytes.
  Fabric bus;
  bus.bus_bytes_per_s = 1e11;
  bus.latency_s = 5e-6;
  const double base = alltoall_s(bus, 16, 7168, 8);
  bus.alltoall_latency_s = 2e-6;
  CHECK(alltoall_s(bus, 16, 7168, 8) == doctest::Approx(base - 2.0 * 3e-6));
}

TEST_CASE("wide expert parallelism: DeepSeek-R1 on a GB200 NVL72 rack runs one EP 64 instance with DP attention, 8 GPUs idle and paid for") {
  const Catalog& cat = default_catalog();
  auto ev = evaluate_text(cat,
                          "v=1&model=deepseek-r1-0528&compare=ref-nvl72-gb200-neocloud&engine=trtllm&ep=64&dpa=1&users=4096",
                          false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results.front();
  CHECK(std::find(r.warnings.begin(), r.warnings.end(), "no_split_fits_for_throughput") == r.warnings.end());
  CHECK(r.serving_tensor_parallel == 64);
  CHECK(r.expert_parallel == 64);
  CHECK(r.data_parallel_attention);
  CHECK(r.serving_replicas == 1);
  REQUIRE(r.total_tokens_per_s_per_gpu);
  CHECK(*r.total_tokens_per_s_per_gpu > 0.0);
  REQUIRE(r.price_usd_per_month);
  REQUIRE(!r.curve.empty());
  for (const ServingCurveEntry& e : r.curve) {
    CAPTURE(e.layout);
    CHECK(e.layout == "1x(tp64,ep64,dpa)");
    CHECK(e.replicas == 1);
    CHECK(e.gpus == 64);
    // The price is of all 72 GPUs and the per-GPU figure divides by all 72: the cost per
    // million tokens computed from it is the point's own.
    CHECK(e.usd_per_million_tokens ==
          doctest::Approx(usd_per_million_tokens(*r.price_usd_per_month, e.output_tokens_per_s_per_gpu * 72.0,
                                                 ev.value().scenario.utilization)).epsilon(1e-9));
  }
}

TEST_CASE("wide expert parallelism: instances past the power-of-two ones only where the domain is wider than they reach") {
  auto sc = decode_scenario("v=1&model=kimi-k2.5&context=8192&engine=sglang");
  REQUIRE(sc);
  const Model& m = *default_catalog().find_model("kimi-k2.5");
  const EngineProfile& e = *default_engines().find("sglang");
  // 8-GPU baseboards: the auto search is the powers of two up to 8, as before (384 experts
  // would split 3 or 6 ways, but no wide instance is offered there).
  const Catalog hgx = rack_catalog(8, 8);
  const ServingContext c8 = make_serving_context(hgx, sc.value(), m, *hgx.find_gpu("test-rack-gpu"), e, "");
  for (const Parallel& p : legal_layouts(c8, 8, 0, 0, 0)) {
    CHECK((p.tp & (p.tp - 1)) == 0);
    CHECK(p.tp <= 8);
  }
  // A 72-GPU domain: 16, 32 and 64 GPUs (dividing the 384 experts and the 64 heads), experts
  // split as wide as the instance, attention data parallel.
  const Catalog rack = rack_catalog(72, 72);
  const ServingContext c72 = make_serving_context(rack, sc.value(), m, *rack.find_gpu("test-rack-gpu"), e, "");
  std::vector<int> wide;
  for (const Parallel& p : legal_layouts(c72, 72, 0, 0, 0)) {
    if (72 % p.tp == 0) continue;
    CHECK(p.ep == p.tp);
    CHECK(p.dpa);
    wide.push_back(p.tp);
  }
  CHECK(wide == std::vector<int>{16, 32, 64});
  // Asked for by ep: only the instance as wide as it.
  const std::vector<Parallel> ep32 = legal_layouts(c72, 72, 0, 32, 1);
  REQUIRE(ep32.size() == 1);
  CHECK(ep32.front().tp == 32);
}

TEST_CASE("count_deployed_gpus: idle GPUs of the offering lower the per-GPU figures, a divisible layout is unchanged") {
  ServingPoint pt;
  pt.par = Parallel{64, 64, true};
  pt.replicas = 1;
  pt.total_tokens_per_s_per_gpu = 900.0;
  pt.output_tokens_per_s_per_gpu = 450.0;
  count_deployed_gpus(pt, 72);
  CHECK(pt.total_tokens_per_s_per_gpu == doctest::Approx(800.0));
  CHECK(pt.output_tokens_per_s_per_gpu == doctest::Approx(400.0));
  ServingPoint whole = pt;
  whole.par = Parallel{8, 8, true};
  whole.replicas = 9;
  count_deployed_gpus(whole, 72);
  CHECK(whole.total_tokens_per_s_per_gpu == 800.0);
}

namespace {

/** A serving context of `model` on `servers` 8-GPU servers of `offering` joined by its network. */
ServingContext across_servers(const char* scenario, const char* offering, int servers) {
  const Catalog& cat = default_catalog();
  auto sc = decode_scenario(scenario);
  REQUIRE(sc);
  const Offering& o = *cat.find_offering(offering);
  const Gpu& g = *cat.find_gpu(o.gpu_id);
  const Model& m = *cat.find_model(sc.value().model);
  auto e = select_engine(catalog_engines(cat), sc.value().engine, g, m);
  REQUIRE(e);
  ServingContext c = make_serving_context(cat, sc.value(), m, g, *e.value(), "");
  REQUIRE(cat.scale_out_of(o) != nullptr);
  c.scale_out = make_scale_out_link(*cat.scale_out_of(o), o.gpu_count, servers);
  return c;
}

}  // namespace

TEST_CASE("RDMA all-to-all of wide expert parallelism: the DeepEP figures by hand") {
  const Network& cx7 = *default_catalog().find_network("8x400g-connectx7");
  const ScaleOutLink link = make_scale_out_link(cx7, 8, 2);
  REQUIRE(link.ep_all_to_all != nullptr);
  CHECK(link.ep_bandwidth_scale == doctest::Approx(1.0));  // one 400G NIC per GPU, as measured
  CHECK(rdma_all_to_all_known(link, 16));
  CHECK(rdma_all_to_all_known(link, 64));
  CHECK_FALSE(rdma_all_to_all_known(link, 8));   // one server: no RDMA group
  CHECK_FALSE(rdma_all_to_all_known(link, 24));  // no figure
  // DeepSeek's shape (hidden 7168, top-8) at the figures' 128 tokens per GPU: EP16 118 + 195 us.
  CHECK(rdma_all_to_all_s(link, 16, 128, 8, 7168) == doctest::Approx(313e-6));
  CHECK(rdma_all_to_all_s(link, 64, 128, 8, 7168) == doctest::Approx(487e-6));
  // Smaller batches shrink in proportion, to half the figure.
  CHECK(rdma_all_to_all_s(link, 16, 64, 8, 7168) == doctest::Approx(313e-6 / 2));
  CHECK(rdma_all_to_all_s(link, 16, 1, 8, 7168) == doctest::Approx(313e-6 / 2));
  // Larger ones add the bytes past the figure's batch that cross to the other server (half),
  // FP8 dispatch at 45 GB/s per GPU, BF16 combine at 40.5 GB/s.
  const double extra = (1024.0 - 128.0) * 8 * 7168;
  CHECK(rdma_all_to_all_s(link, 16, 1024, 8, 7168) ==
        doctest::Approx(313e-6 + extra * 1.0 * 0.5 / 45e9 + extra * 2.0 * 0.5 / 40.5e9));
  // A model of half the width moves half the bytes: at 256 tokens it is at the figure's batch.
  CHECK(rdma_all_to_all_s(link, 16, 256, 8, 3584) == doctest::Approx(313e-6));
  // Four GPUs per NIC pair's worth: a server with 4 NICs for 8 GPUs has half the bandwidth.
  Network half = cx7;
  half.nics_per_server = 4;
  const ScaleOutLink slow = make_scale_out_link(half, 8, 2);
  CHECK(slow.ep_bandwidth_scale == doctest::Approx(0.5));
  CHECK(rdma_all_to_all_s(slow, 16, 1024, 8, 7168) ==
        doctest::Approx(313e-6 + 2.0 * (extra * 1.0 * 0.5 / 45e9 + extra * 2.0 * 0.5 / 40.5e9)));
  // The RoCE network of the AMD servers carries no figures on purpose (the MORI-EP ones timed the
  // measured two-server decode pools too fast: data/offerings.json, docs/serving.md).
  const ScaleOutLink roce = make_scale_out_link(*default_catalog().find_network("8x400g-roce"), 8, 4);
  CHECK_FALSE(rdma_all_to_all_known(roce, 16));
  CHECK_FALSE(rdma_all_to_all_known(roce, 32));
}

TEST_CASE("wide expert parallelism across servers: ep=16&servers=2 on 8x B200 runs one 16-GPU instance over RDMA") {
  const Catalog& cat = default_catalog();
  auto ev = evaluate_text(cat,
                          "v=1&model=deepseek-r1-0528&compare=ref-8x-b200-neocloud&engine=sglang&servers=2&ep=16&users=512",
                          true);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results.front();
  CHECK(r.servers == 2);
  CHECK(r.serving_tensor_parallel == 16);
  CHECK(r.expert_parallel == 16);
  CHECK(r.data_parallel_attention);
  CHECK(r.serving_replicas == 1);
  CHECK(r.scale_out_strategy == "expert_parallel");
  REQUIRE(r.scale_out_s);
  CHECK(*r.scale_out_s > 0.0);
  // --explain says the all-to-all crosses servers, over RDMA.
  const auto it = std::find_if(r.trace.begin(), r.trace.end(), [](const TraceEntry& e) { return e.field == "scale_out_s"; });
  REQUIRE(it != r.trace.end());
  CHECK(it->formula_id == "scale_out_s_expert_parallel_rdma");
  CHECK(it->formula.find("across servers over RDMA") != std::string::npos);
  // Every curve point is that instance; its cost is of both servers' 16 GPUs.
  REQUIRE(r.price_usd_per_month);
  REQUIRE(!r.curve.empty());
  for (const ServingCurveEntry& e : r.curve) {
    CAPTURE(e.layout);
    CHECK(e.layout == "1x(tp16,ep16,dpa,rdma)");
    CHECK(e.gpus == 16);
    CHECK(e.usd_per_million_tokens ==
          doctest::Approx(usd_per_million_tokens(*r.price_usd_per_month, e.output_tokens_per_s_per_gpu * 16.0,
                                                 ev.value().scenario.utilization)).epsilon(1e-9));
  }
}

TEST_CASE("wide expert parallelism across servers: offered only for MoE models whose experts split, on two servers or more, with figures") {
  const char* r1 = "v=1&model=deepseek-r1-0528&engine=sglang";
  auto across = [](const std::vector<Parallel>& v) {
    std::vector<int> n;
    for (const Parallel& p : v) {
      if (p.servers > 1 && p.dpa) {
        CHECK(p.rdma);
        n.push_back(p.gpus());
      }
    }
    return n;
  };
  // 8x B200, ConnectX-7: EP 16, 32, 64 as the servers allow.
  const ServingContext b200_8 = across_servers(r1, "ref-8x-b200-neocloud", 8);
  CHECK(across(legal_layouts(b200_8, 64, 0, 0, 0)) == std::vector<int>{16, 32, 64});
  CHECK(across(legal_layouts(b200_8, 16, 0, 0, 0)) == std::vector<int>{16});
  CHECK(across(legal_layouts(b200_8, 8, 0, 0, 0)).empty());  // one server
  const std::vector<Parallel> asked = legal_layouts(b200_8, 64, 0, 32, 0);
  CHECK(across(asked) == std::vector<int>{32});
  // MI355X: the RoCE network has no figures, so nothing crosses AMD servers.
  const ServingContext mi = across_servers(r1, "ref-8x-mi355x-neocloud", 8);
  CHECK(across(legal_layouts(mi, 64, 0, 0, 0)).empty());
  // Dense: never; Mixtral's 8 experts do not split 16 ways.
  const ServingContext dense = across_servers("v=1&model=llama-3.1-70b&engine=sglang", "ref-8x-b200-neocloud", 2);
  CHECK(across(legal_layouts(dense, 16, 0, 0, 0)).empty());
  const ServingContext mixtral = across_servers("v=1&model=mixtral-8x22b&engine=sglang", "ref-8x-b200-neocloud", 2);
  CHECK(across(legal_layouts(mixtral, 16, 0, 0, 0)).empty());
  // A network without the RDMA figures: not offered.
  ServingContext plain = b200_8;
  plain.scale_out.ep_all_to_all = nullptr;
  CHECK(across(legal_layouts(plain, 64, 0, 0, 0)).empty());
}

TEST_CASE("property: offering wide expert parallelism across servers never lowers the best throughput at a target") {
  // The search with the RDMA option keeps every layout it had without it, so the best point
  // within the same targets can only rise.
  struct Case {
    const char* scenario;
    const char* offering;
    int servers;
  };
  for (const Case& k :
       {Case{"v=1&model=deepseek-r1-0528&engine=sglang&input=1024&output=1024", "ref-8x-b200-neocloud", 2},
        Case{"v=1&model=deepseek-r1-0528&engine=trtllm&input=1024&output=1024", "ref-8x-b200-neocloud", 4},
        Case{"v=1&model=kimi-k2.5&engine=sglang&input=8192&output=1024", "ref-8x-h200-neocloud", 8},
        Case{"v=1&model=deepseek-r1-0528&engine=vllm&input=1024&output=1024", "ref-8x-h200-neocloud", 2}}) {
    const char* scenario = k.scenario;
    const char* offering = k.offering;
    const int servers = k.servers;
    CAPTURE(scenario);
    CAPTURE(offering);
    const ServingContext with = across_servers(scenario, offering, servers);
    ServingContext without = with;
    without.scale_out.ep_all_to_all = nullptr;
    const int gpus = 8 * servers;
    const std::vector<Parallel> more = legal_layouts(with, gpus, 0, 0, 0);
    const std::vector<Parallel> fewer = legal_layouts(without, gpus, 0, 0, 0);
    for (const Parallel& p : fewer) {
      CHECK(std::any_of(more.begin(), more.end(), [&](const Parallel& q) {
        return q.tp == p.tp && q.ep == p.ep && q.dpa == p.dpa && q.servers == p.servers && q.rdma == p.rdma;
      }));
    }
    CHECK(more.size() > fewer.size());
    for (double interactivity : {0.0, 10.0, 30.0, 60.0}) {
      CAPTURE(interactivity);
      const auto a = best_within(without, gpus, fewer, ServingTargets{0.0, 0.0, interactivity});
      const auto b = best_within(with, gpus, more, ServingTargets{0.0, 0.0, interactivity});
      if (!a) continue;
      REQUIRE(b);
      CHECK(b->output_tokens_per_s >= a->output_tokens_per_s * (1.0 - 1e-12));
    }
  }
}
