// Golden tests: every figure of seed 002's spec, price and what-fits tables and its KV-cache
// paragraph, and seed 000's memory table, under the seeds' assumptions (marketed basis, no
// reserve). Expected values come from tests/fixtures/seed00*.json.
#include "gpucalc/memory.hpp"
#include "model/pricing.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::catalog_with_generic;
using gpucalc::test::eval_ok;
using gpucalc::test::fixture;
using gpucalc::test::rounded;

namespace {
const char* kSeedBasis = "&capacity=marketed&reserve=0";
double tflops(const Gpu& g, Precision p) {
  const auto& v = g.peak_flops_per_s[index_of(p)];
  return v ? *v / kFlopsPerTflop : -1.0;
}
}  // namespace

TEST_CASE("seed 002 spec table") {
  const auto seed = fixture("seed002.json");
  const Catalog& c = default_catalog();
  for (const auto& row : seed["spec"]) {
    const Gpu* g = c.find_gpu(row["gpu"].get<std::string>());
    REQUIRE(g != nullptr);
    CAPTURE(g->id);
    CHECK(g->architecture == row["architecture"].get<std::string>());
    CHECK(g->memory_type == row["memory_type"].get<std::string>());
    CHECK(g->hbm_marketed_bytes == row["hbm_gb"].get<double>() * kBytesPerGB);
    CHECK(g->memory_bandwidth_bytes_per_s == doctest::Approx(row["bandwidth_tbps"].get<double>() * kBytesPerTB));
    CHECK(tflops(*g, Precision::kFp8) == row["fp8_tflops"].get<double>());
    CHECK(tflops(*g, Precision::kBf16) == row["bf16_tflops"].get<double>());
    if (row["fp4_tflops"].is_null()) {
      CHECK_FALSE(g->peak_flops_per_s[index_of(Precision::kFp4)].has_value());
      CHECK_FALSE(g->fp4_native.has_value());
    } else {
      CHECK(tflops(*g, Precision::kFp4) == row["fp4_tflops"].get<double>());
    }
    CHECK(g->interconnect.kind.rfind(row["interconnect_kind"].get<std::string>(), 0) == 0);
    if (row.contains("link_gbps")) {
      CHECK(g->interconnect.link_bandwidth_bytes_per_s == doctest::Approx(row["link_gbps"].get<double>() * kBytesPerGB));
      CHECK(g->interconnect.links == row["links"].get<int>());
      CHECK(g->interconnect.topology == Topology::kFullMesh);
      // "7 links of 153.6 GB/s, about 1.08 TB/s in all"
      CHECK(rounded(g->interconnect.per_gpu_bandwidth_bytes_per_s / kBytesPerTB, 2) == 1.08);
    } else {
      CHECK(g->interconnect.per_gpu_bandwidth_bytes_per_s == row["per_gpu_gbps"].get<double>() * kBytesPerGB);
      CHECK(g->interconnect.topology == Topology::kSwitch);
    }
    CHECK(g->tdp_w == row["tdp_w"].get<double>());
  }
  const Gpu* mi355x = c.find_gpu("mi355x");
  const Gpu* h200 = c.find_gpu("h200-sxm");
  CHECK(std::fabs(tflops(*mi355x, Precision::kFp8) / tflops(*h200, Precision::kFp8) -
                  seed["fp8_peak_ratio"]["value"].get<double>()) <= seed["fp8_peak_ratio"]["tolerance"].get<double>());
  CHECK(std::fabs(mi355x->memory_bandwidth_bytes_per_s / h200->memory_bandwidth_bytes_per_s -
                  seed["bandwidth_ratio"]["value"].get<double>()) <= seed["bandwidth_ratio"]["tolerance"].get<double>());
}

TEST_CASE("seed 002 price table, per GPU-hour and per GB") {
  const auto seed = fixture("seed002.json");
  const Catalog& c = default_catalog();
  std::string ids;
  for (const auto& row : seed["prices"]) {
    const Offering* o = c.find_offering(row["offering"].get<std::string>());
    REQUIRE(o != nullptr);
    CHECK(o->gpu_id == row["gpu"].get<std::string>());
    CHECK(o->gpu_count == row["gpu_count"].get<int>());
    REQUIRE(o->price_usd_per_month.has_value());
    CHECK(*o->price_usd_per_month == row["price_month_usd"].get<double>());
    CHECK(rounded(price_usd_per_gpu_hour(*o->price_usd_per_month, o->gpu_count), 2) ==
          row["price_gpu_hour_usd"].get<double>());
    ids += (ids.empty() ? "" : ",") + o->id;
  }
  const Evaluation ev = eval_ok(c, "v=1&compare=" + ids + kSeedBasis);
  for (const auto& row : seed["per_gb_month"]) {
    for (const auto& r : ev.results) {
      if (r.offering_id != row["offering"].get<std::string>()) continue;
      REQUIRE(r.price_usd_per_gb_month.has_value());
      CHECK(rounded(*r.price_usd_per_gb_month, 2) == row["price_gb_month_usd"].get<double>());
    }
  }
  // 8 x 288 GB = 2,304 GB per server; US$4,000 cheaper; about 2.5x HBM per dollar.
  const Evaluation pair = eval_ok(c, std::string("v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200") + kSeedBasis);
  const auto& amd = pair.results[0];
  const auto& nv = pair.results[1];
  CHECK(amd.gpu_count * amd.fit.capacity_bytes_per_gpu / kBytesPerGB == seed["server_hbm_gb"]["value"].get<double>());
  CHECK(*nv.price_delta_usd_per_month == seed["monthly_saving_usd"].get<double>());
  CHECK(std::fabs(*nv.price_usd_per_gb_month / *amd.price_usd_per_gb_month -
                  seed["hbm_per_dollar_ratio"]["value"].get<double>()) <= seed["hbm_per_dollar_ratio"]["tolerance"].get<double>());
  // "Two or three single-card H200 plans stay under US$10,000 a month."
  const double single = *c.find_offering("fullgpu-1x-h200")->price_usd_per_month;
  CHECK(seed["single_h200_plans_under_usd"]["count"].get<int>() * single <
        seed["single_h200_plans_under_usd"]["limit_usd"].get<double>());
}

TEST_CASE("seed 002 what-fits table (weights only) and its practical notes") {
  const auto seed = fixture("seed002.json");
  for (const auto& row : seed["what_fits_weights_only"]) {
    const double params_b = row["params_b"].get<double>();
    const bool moe = row.value("moe", false);
    const Catalog c = catalog_with_generic(params_b, moe);
    const std::string model = "generic-" + std::to_string(static_cast<int>(params_b)) + "b";
    const std::string weights = row["weights"].get<std::string>();
    CAPTURE(model);
    CAPTURE(weights);
    const Evaluation ev = eval_ok(c, "v=1&model=" + model + "&weights=" + weights +
                                         "&context=4096&compare=fullgpu-8x-mi355x,fullgpu-8x-h200" + kSeedBasis);
    const auto& amd = ev.results[0];
    const auto& nv = ev.results[1];
    CHECK(amd.fit.weights_bytes == doctest::Approx(row["weights_gb"].get<double>() * kBytesPerGB));
    CHECK(amd.fit.gpus_needed_weights_only == row["mi355x"].get<int>());
    CHECK(nv.fit.gpus_needed_weights_only == row["h200"].get<int>());
    if (row.contains("h200_practical")) {
      // "1 GPU with no headroom; 2 in practice": with the seed's own caveat (keep room for
      // KV cache, activations and runtime) one H200 cannot hold it, so it takes two.
      const Evaluation practical = eval_ok(c, "v=1&model=" + model + "&weights=" + weights +
                                                  "&context=4096&compare=fullgpu-8x-h200&capacity=marketed");
      CHECK(practical.results[0].fit.reserve_bytes_per_gpu > 0);
      CHECK(practical.results[0].fit.gpus_needed == row["h200_practical"].get<int>());
      CHECK(nv.fit.gpus_needed == 1);  // with no reserve it does squeeze onto one
    }
    if (row.value("h200_exceeds_8_gpu_server", false)) {
      CHECK_FALSE(nv.fit.fits);
      CHECK(std::string(nv.fit.reason) == "needs_more_gpus");
      CHECK(nv.fit.gpus_needed > 8);
    }
  }
}

TEST_CASE("seed 002 DeepSeek-V3 on the two 8-GPU servers") {
  const auto seed = fixture("seed002.json")["deepseek_8_gpu_servers"];
  const Catalog& c = default_catalog();
  const std::string base = std::string("v=1&model=deepseek-v3&context=4096&compare=fullgpu-8x-mi355x,fullgpu-8x-h200") + kSeedBasis;
  // One copy of the weights spread over the whole server (tp=8), as the article counts it.
  const Evaluation fp8 = eval_ok(c, base + "&weights=fp8&tp=8");
  const double tol = seed["fp8"]["tolerance_gb"].get<double>();
  CHECK(fp8.results[0].fit.fits);
  CHECK(fp8.results[1].fit.fits);
  CHECK(std::fabs(fp8.results[0].fit.kv_free_bytes / kBytesPerGB - seed["fp8"]["mi355x_kv_free_gb"].get<double>()) <= tol);
  CHECK(std::fabs(fp8.results[1].fit.kv_free_bytes / kBytesPerGB - seed["fp8"]["h200_kv_free_gb"].get<double>()) <= tol);
  CHECK(fp8.results[0].fit.kv_free_bytes == doctest::Approx(8 * 288e9 - 671e9));
  CHECK(fp8.results[1].fit.kv_free_bytes == doctest::Approx(8 * 141e9 - 671e9));
  // BF16: only the MI355X server holds it, with about 960 GB left.
  const Evaluation bf16 = eval_ok(c, base + "&weights=bf16");
  CHECK(bf16.results[0].fit.fits);
  CHECK(bf16.results[0].fit.gpus_needed <= 8);
  CHECK_FALSE(bf16.results[1].fit.fits);
  const Evaluation bf16_tp8 = eval_ok(c, base + "&weights=bf16&tp=8");
  CHECK(std::fabs(bf16_tp8.results[0].fit.kv_free_bytes / kBytesPerGB - seed["bf16"]["mi355x_kv_free_gb"].get<double>()) <=
        seed["bf16"]["tolerance_gb"].get<double>());
  CHECK_FALSE(bf16_tp8.results[1].fit.fits);
  CHECK(bf16_tp8.results[1].fit.kv_free_bytes < 0);  // the shortfall: 1,128 - 1,342 GB
}

TEST_CASE("seed 002 KV-cache paragraph: 70B-class GQA model at FP8 with 128K contexts") {
  const auto kv = fixture("seed002.json")["kv_paragraph"];
  const double tol = kv["free_tolerance_gb"].get<double>();
  const std::string tail = "&weights=fp8&kv=fp8&context=" + std::to_string(kv["context_tokens"].get<long long>()) +
                           "&users=1&tp=1&compare=fullgpu-8x-mi355x,fullgpu-1x-h200" + kSeedBasis;
  // The paragraph is about one GPU: tp=1 (one instance per GPU).
  // Llama 3.1 70B itself (70.55B parameters) and the article's round 70B.
  for (const std::string& model : {std::string("llama-3.1-70b"), std::string("generic-70b")}) {
    CAPTURE(model);
    const Catalog c = catalog_with_generic(70, false);
    const Evaluation ev = eval_ok(c, "v=1&model=" + model + tail);
    const auto& amd = ev.results[0];
    const auto& nv = ev.results[1];
    CHECK(amd.fit.kv_bytes_per_token == kv["kv_bytes_per_token"].get<double>());
    CHECK(rounded(amd.fit.kv_bytes_per_token / 1e6, 2) == kv["kv_mb_per_token_about"].get<double>());
    CHECK(std::round(amd.fit.kv_bytes_per_context / kBytesPerGB) == kv["kv_gb_per_context_about"].get<double>());
    CHECK(std::fabs(nv.fit.kv_free_bytes_per_gpu / kBytesPerGB - kv["h200_free_gb_about"].get<double>()) <= tol);
    CHECK(std::fabs(amd.fit.kv_free_bytes_per_gpu / kBytesPerGB - kv["mi355x_free_gb_about"].get<double>()) <= tol);
    CHECK(nv.fit.full_contexts_per_instance == kv["h200_contexts_about"].get<long long>());
    CHECK(amd.fit.full_contexts_per_instance == kv["mi355x_contexts_about"].get<long long>());
    CHECK(nv.fit.full_contexts == 3);        // one GPU
    CHECK(amd.fit.full_contexts == 8 * 10);  // eight one-GPU instances on the server
  }
}

TEST_CASE("seed 000 memory table and 70B at 16-bit = 140 GB") {
  const auto seed = fixture("seed000.json");
  const Catalog& c = default_catalog();
  for (const auto& row : seed["memory"]) {
    const Gpu* g = c.find_gpu(row["gpu"].get<std::string>());
    REQUIRE(g != nullptr);
    CHECK(g->hbm_marketed_bytes == row["hbm_gb"].get<double>() * kBytesPerGB);
    CHECK(g->architecture == row["architecture"].get<std::string>());
    if (row.contains("memory_type")) CHECK(g->memory_type == row["memory_type"].get<std::string>());
  }
  const Catalog gc = catalog_with_generic(70, false);
  const Evaluation ev = eval_ok(gc, "v=1&model=generic-70b&weights=bf16&compare=fullgpu-8x-h200");
  CHECK(ev.results[0].fit.weights_bytes == seed["weights_16bit"]["weights_gb"].get<double>() * kBytesPerGB);
}
