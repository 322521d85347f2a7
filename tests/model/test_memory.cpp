// Hand-computed formula tests for the memory fit (expected values computed here, by hand).
#include "gpucalc/memory.hpp"
#include "model/pricing.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

TEST_CASE("bytes per parameter include block scales") {
  CHECK(weight_bytes_per_param(WeightFormat::kBf16, Fp4Encoding::kMxfp4) == 2.0);
  CHECK(weight_bytes_per_param(WeightFormat::kFp8, Fp4Encoding::kMxfp4) == 1.0);
  CHECK(weight_bytes_per_param(WeightFormat::kFp6, Fp4Encoding::kMxfp4) == 0.78125);  // 6/8 + 8/(8*32)
  CHECK(weight_bytes_per_param(WeightFormat::kFp4, Fp4Encoding::kMxfp4) == 0.53125);  // 4/8 + 1/32
  CHECK(weight_bytes_per_param(WeightFormat::kFp4, Fp4Encoding::kNvfp4) == 0.5625);   // 4/8 + 1/16
  CHECK(weight_bytes_per_param(WeightFormat::kInt4, Fp4Encoding::kMxfp4) == doctest::Approx(0.51953125));
}

TEST_CASE("FP4 weight bytes follow each GPU's encoding") {
  const Catalog& c = default_catalog();
  const Model& m = *c.find_model("llama-3.1-70b");
  CHECK(weight_bytes(m, WeightFormat::kFp4, *c.find_gpu("mi355x")) == doctest::Approx(70.55e9 * 0.53125));
  CHECK(weight_bytes(m, WeightFormat::kFp4, *c.find_gpu("b200")) == doctest::Approx(70.55e9 * 0.5625));
  // H200 has no FP4 math: weights are stored MXFP4, weight-only.
  CHECK(weight_bytes(m, WeightFormat::kFp4, *c.find_gpu("h200-sxm")) == doctest::Approx(70.55e9 * 0.53125));
}

TEST_CASE("KV bytes per token: GQA, MLA, sliding windows") {
  const Catalog& c = default_catalog();
  // GQA: 2 x 80 x 8 x 128 x 2 bytes
  CHECK(kv_bytes_per_token(*c.find_model("llama-3.1-70b"), KvFormat::kBf16) == 327680.0);
  CHECK(kv_bytes_per_token(*c.find_model("llama-3.1-405b"), KvFormat::kFp8) == 2.0 * 126 * 8 * 128);
  // MLA: 61 x (512 + 64) x 2 bytes, not per head
  const Model& ds = *c.find_model("deepseek-v3");
  CHECK(kv_bytes_per_token(ds, KvFormat::kBf16) == 61.0 * 576 * 2);
  // MLA is replicated on every TP rank: per-GPU bytes do not shrink with TP.
  const Deployment tp8{8, 8, 1};
  CHECK(kv_bytes_per_sequence_per_gpu(ds, KvFormat::kFp8, tp8, 1000) == 61.0 * 576 * 1000);
  // GQA heads split over TP; replicated when TP exceeds the KV heads (Qwen3: 4 KV heads).
  const Model& qwen3 = *c.find_model("qwen3-235b-a22b");
  const Deployment tp4{4, 4, 1};
  CHECK(kv_bytes_per_sequence_per_gpu(qwen3, KvFormat::kFp8, tp4, 1000) == 2.0 * 94 * 1 * 128 * 1000);
  CHECK(kv_bytes_per_sequence_per_gpu(qwen3, KvFormat::kFp8, tp8, 1000) == 2.0 * 94 * 1 * 128 * 1000);
  // gpt-oss-120b: 18 full layers hold the whole context, 18 sliding layers at most 128 tokens.
  const Model& oss = *c.find_model("gpt-oss-120b");
  const Deployment one{};
  CHECK(kv_bytes_per_sequence_per_gpu(oss, KvFormat::kBf16, one, 100000) ==
        2.0 * 8 * 64 * 2 * (18 * 100000.0 + 18 * 128.0));
  CHECK(kv_bytes_per_sequence_per_gpu(oss, KvFormat::kBf16, one, 100) == 2.0 * 8 * 64 * 2 * 36 * 100.0);
  // Pipeline stages split the layers: 80 layers over 2 stages -> 40 on the busiest.
  const Model& llama = *c.find_model("llama-3.1-70b");
  const Deployment tp8pp2{16, 8, 2};
  CHECK(kv_bytes_per_sequence_per_gpu(llama, KvFormat::kFp8, tp8pp2, 10) == 2.0 * 40 * 1 * 128 * 10);
}

TEST_CASE("capacity basis: marketed decimal GB vs device-reported bytes") {
  const Catalog& c = default_catalog();
  const Gpu& h200 = *c.find_gpu("h200-sxm");
  CHECK(capacity_bytes(h200, CapacityBasis::kMarketed) == 141e9);
  CHECK(capacity_bytes(h200, CapacityBasis::kDevice) == 143771.0 * 1048576.0);  // 150.75 GB
  CHECK_FALSE(capacity_is_assumed(h200, CapacityBasis::kDevice));
  const Gpu& mi355x = *c.find_gpu("mi355x");
  CHECK(capacity_bytes(mi355x, CapacityBasis::kDevice) == 288.0 * 1073741824.0);
  CHECK(capacity_is_assumed(mi355x, CapacityBasis::kDevice));
}

TEST_CASE("the done-when scenario: marketed vs device basis") {
  const Catalog& c = default_catalog();
  const std::string base = "v=1&model=llama-3.1-70b&weights=fp8&kv=fp8&context=131072&users=1&reserve=0"
                           "&compare=fullgpu-8x-mi355x,fullgpu-8x-h200";
  const Evaluation marketed = eval_ok(c, base + "&capacity=marketed");
  const Evaluation device = eval_ok(c, base + "&capacity=device");
  const double weights = 70.55e9;
  const double context = 163840.0 * 131072;
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(marketed.results[i].fit.kv_bytes_per_token == 163840.0);
    CHECK(marketed.results[i].fit.gpus_needed == 1);
    // auto: one copy over the whole server (TP 8), the most room for KV
    CHECK(marketed.results[i].fit.replicas == 1);
    CHECK(marketed.results[i].fit.deployment.tensor_parallel == 8);
  }
  CHECK(marketed.results[1].fit.kv_free_bytes == doctest::Approx(8 * 141e9 - weights));
  CHECK(marketed.results[0].fit.kv_free_bytes == doctest::Approx(8 * 288e9 - weights));
  CHECK(marketed.results[1].fit.full_contexts == static_cast<long long>((8 * 141e9 - weights) / context));
  CHECK(marketed.results[0].fit.full_contexts == static_cast<long long>((8 * 288e9 - weights) / context));
  // Per GPU, as seed 002's paragraph counts it (tp=1: eight one-GPU replicas): ~70 GB and 3
  // contexts on an H200, ~218 GB and 10 on an MI355X.
  const Evaluation per_gpu = eval_ok(c, base + "&capacity=marketed&tp=1");
  CHECK(per_gpu.results[1].fit.kv_free_bytes_per_gpu == doctest::Approx(141e9 - weights));
  CHECK(per_gpu.results[1].fit.full_contexts == 8 * 3);
  CHECK(per_gpu.results[0].fit.full_contexts == 8 * 10);
  const double h200_device = 143771.0 * 1048576.0;
  CHECK(device.results[1].fit.kv_free_bytes == doctest::Approx(8 * h200_device - weights));
  CHECK(device.results[1].fit.full_contexts == static_cast<long long>((8 * h200_device - weights) / context));
  const double mi355x_device = 288.0 * 1073741824.0;
  CHECK(device.results[0].fit.kv_free_bytes == doctest::Approx(8 * mi355x_device - weights));
  const Evaluation device_per_gpu = eval_ok(c, base + "&capacity=device&tp=1");
  CHECK(device_per_gpu.results[0].fit.full_contexts_per_instance == 11);  // 238.7 GB / 21.47 GB
  CHECK(device_per_gpu.results[1].fit.full_contexts_per_instance == 3);   // 80.2 GB / 21.47 GB
  CHECK(device.results[0].capacity_assumed);
  CHECK_FALSE(device.results[1].capacity_assumed);
  // The offering's HBM as sold, on either basis (seed 002: 8 x 288 GB = 2,304 GB; 8 x 141 GB).
  CHECK(device.results[0].offering_hbm_marketed_bytes == doctest::Approx(8 * 288e9));
  CHECK(per_gpu.results[1].offering_hbm_marketed_bytes == doctest::Approx(8 * 141e9));
}

TEST_CASE("practical GPUs needed: smallest legal TP whose engine KV pool holds the users' requests") {
  const Catalog& c = default_catalog();
  // Llama 3.1 405B FP8, 8 users of 1K + 1K requests, one of them at the 32K context, marketed
  // H200 (141 GB), served by vLLM (the auto engine of a dense model): its KV pool is
  // capacity x 0.9 - weights, under capacity - reserve - weights.
  // n = 4: 405.85/4 = 101.46 GB; pool 0.9 x 141 - 101.46 = 25.44 GB (< 141 - 5 - 101.46);
  // n = 2: 202.9 GB > 141, so 4.
  const Evaluation ev = eval_ok(c, "v=1&model=llama-3.1-405b&weights=fp8&users=8&context=32768"
                                   "&compare=fullgpu-8x-h200&capacity=marketed&reserve=5&tp=4");
  const auto& f = ev.results[0].fit;
  CHECK(f.engine_pool);
  CHECK(f.gpus_needed_weights_only == 3);
  CHECK(f.gpus_needed == 4);  // 3 does not split 128 heads
  CHECK(f.deployment.tensor_parallel == 4);
  CHECK(f.replicas == 2);
  CHECK(f.kv_free_bytes_per_gpu == doctest::Approx(0.9 * 141e9 - 405.85e9 / 4));
  CHECK(f.reserve_bytes_per_gpu == doctest::Approx(0.1 * 141e9));
  const double per_token = 2.0 * 126 * 2 * 128;  // 8 KV heads over TP 4 = 2 per GPU
  const double seq_per_gpu = per_token * 32768;
  CHECK(f.full_contexts_per_instance == static_cast<long long>(f.kv_free_bytes_per_gpu / seq_per_gpu));
  CHECK(f.max_context_tokens == static_cast<long long>(f.kv_free_bytes_per_gpu / 8 / per_token));
  // 8 users over 2 replicas: 4 requests on each instance, 3 of 2,048 tokens and one of 32K.
  CHECK(f.request_tokens == 2048);
  CHECK(f.weights_bytes_per_gpu == doctest::Approx(405.85e9 / 4));
  CHECK(f.kv_used_bytes_per_gpu == doctest::Approx(3 * per_token * 2048 + seq_per_gpu));
  CHECK(f.headroom_bytes_per_gpu == doctest::Approx(f.kv_free_bytes_per_gpu - f.kv_used_bytes_per_gpu));
  // Every user at the full context: 8 x 2.11 GB = 16.9 GB, within the 25.4 GB pool at n = 4 too.
  CHECK(f.gpus_needed_full_context == 4);
}

TEST_CASE("a model larger than the offering says why") {
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c, "v=1&model=llama-3.1-405b&weights=bf16&compare=fullgpu-1x-h200,fullgpu-8x-h200");
  CHECK_FALSE(ev.results[0].fit.fits);
  CHECK(std::string(ev.results[0].fit.reason) == "needs_more_gpus");
  CHECK(ev.results[0].fit.full_contexts == 0);
  CHECK(ev.results[1].fit.fits);
  // An explicit TP that is too small to hold it.
  const Evaluation small = eval_ok(c, "v=1&model=llama-3.1-405b&weights=bf16&tp=2&compare=fullgpu-8x-h200");
  CHECK_FALSE(small.results[0].fit.fits);
  CHECK(std::string(small.results[0].fit.reason) == "does_not_fit");
}

TEST_CASE("an explicit TP replicated over the deployment: each replica holds its share of the users") {
  const Catalog& c = default_catalog();
  // DeepSeek-R1 FP8 (MLA: every TP rank holds each request's latent, 35,136 B a token) on a GB200
  // NVL72 rack at tp=8: 9 replicas. 2,048 users of 1K + 1K requests are 228 per replica (16 GB
  // of KV a GPU), which the 85.7 GB pool holds; all 2,048 on one instance (147 GB) would not.
  const Evaluation ev = eval_ok(c, "v=1&model=deepseek-r1-0528&compare=ref-nvl72-gb200-neocloud&users=2048&tp=8");
  const auto& f = ev.results[0].fit;
  CHECK(f.fits);
  CHECK(f.replicas == 9);
  CHECK(f.deployment.tensor_parallel == 8);
  CHECK(f.kv_used_bytes_per_gpu < f.kv_free_bytes_per_gpu);
  CHECK(f.kv_used_bytes_per_gpu < 0.25 * 2048 * 35136.0 * 2048);
  // Past what 9 replicas hold it still says so.
  const Evaluation many = eval_ok(c, "v=1&model=deepseek-r1-0528&compare=ref-nvl72-gb200-neocloud&users=40000&tp=8");
  CHECK_FALSE(many.results[0].fit.fits);
  CHECK(std::string(many.results[0].fit.reason) == "does_not_fit");
}

TEST_CASE("longest context for N users, with sliding windows solved exactly") {
  const Catalog& c = default_catalog();
  const Model& oss = *c.find_model("gpt-oss-120b");
  const Deployment one{};
  const double per_layer = 2.0 * 8 * 64 * 1;  // FP8
  const double free_bytes = 10e9;
  const long long users = 4;
  const long long t = max_context_for(oss, KvFormat::kFp8, one, free_bytes, users);
  // budget per user = 2.5e9; sliding layers hold 18 x 128 tokens; full layers the rest
  const double expect = (free_bytes / users - per_layer * 18 * 128) / (per_layer * 18);
  CHECK(t == static_cast<long long>(expect));
  CHECK(users * kv_bytes_per_sequence_per_gpu(oss, KvFormat::kFp8, one, static_cast<double>(t)) <= free_bytes);
  CHECK(users * kv_bytes_per_sequence_per_gpu(oss, KvFormat::kFp8, one, static_cast<double>(t + 1)) > free_bytes);
}

TEST_CASE("pricing formulas") {
  CHECK(price_usd_per_gpu_hour(19900, 8) == doctest::Approx(19900.0 / 8 / 730));
  CHECK(price_usd_per_gb_month(19900, 8, 288e9) == doctest::Approx(19900.0 / 2304));
  // A user's price override replaces the catalog price for that offering only.
  const Evaluation ev = eval_ok(default_catalog(), "v=1&price=15000,-&compare=fullgpu-8x-mi355x,fullgpu-8x-h200");
  CHECK(*ev.results[0].price_usd_per_month == 15000);
  CHECK(*ev.results[1].price_usd_per_month == 23900);
  CHECK(*ev.results[1].price_delta_usd_per_month == 8900);
  // Unpriced offerings give null prices, never NaN.
  const Evaluation unpriced = eval_ok(default_catalog(), "v=1&compare=server-8x-b200");
  CHECK_FALSE(unpriced.results[0].price_usd_per_month.has_value());
  CHECK_FALSE(unpriced.results[0].price_usd_per_gpu_hour.has_value());
  const std::string json = evaluation_to_json(unpriced, true);
  CHECK(json.find("NaN") == std::string::npos);
  CHECK(json.find("\"price_month_usd\":null") != std::string::npos);
}
