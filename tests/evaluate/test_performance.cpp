// Throughput, training and cost model: hand-computed formulas, properties, goldens.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/memory.hpp"
#include "model/serving.hpp"
#include "model/throughput.hpp"
#include "model/training.hpp"
#include "gpucalc/units.hpp"

using namespace gpucalc;

namespace {

const Gpu& gpu_of(const char* id) {
  const Gpu* g = default_catalog().find_gpu(id);
  REQUIRE(g != nullptr);
  return *g;
}

const Model& model_of(const char* id) {
  const Model* m = default_catalog().find_model(id);
  REQUIRE(m != nullptr);
  return *m;
}

Scenario scenario_for(const char* model, WeightFormat w) {
  Scenario s;
  s.model = model;
  s.weights = w;
  s.kv = KvFormat::kFp8;
  s.input_tokens = 1024;
  s.output_tokens = 1024;
  return s;
}

}  // namespace

TEST_CASE("seed 000 golden: cost of a completed run is hours x hourly rate") {
  // Seed 000's illustrative table: 60 h x US$2.50 = US$150 vs 40 h x US$3.50 = US$140.
  const RunCostInputs none;
  CHECK(run_cost_usd(60.0, 2.50, none) == doctest::Approx(150.0));
  CHECK(run_cost_usd(40.0, 3.50, none) == doctest::Approx(140.0));
  CHECK(run_cost_usd(60.0, 2.50, none) - run_cost_usd(40.0, 3.50, none) == doctest::Approx(10.0));
}

TEST_CASE("run cost adds storage, networking, software, recovery, engineering; porting on AMD only") {
  RunCostInputs in;
  in.recovery_fraction = 0.05;
  in.storage_usd = 10;
  in.network_usd = 20;
  in.software_usd = 30;
  in.engineering_usd = 40;
  in.porting_usd = 1000;
  in.porting_applies = false;
  // 100 h x US$2 = 200; recovery 10; extras 100.
  CHECK(run_cost_usd(100.0, 2.0, in) == doctest::Approx(200.0 + 10.0 + 100.0));
  in.porting_applies = true;
  CHECK(run_cost_usd(100.0, 2.0, in) == doctest::Approx(1310.0));
}

TEST_CASE("US$ per million tokens, by hand") {
  // 23,900 / (10,000 tok/s x 3600 x 730 x 0.7) x 1e6
  const double expected = 23900.0 / (10000.0 * 3600.0 * 730.0 * 0.7) * 1e6;
  CHECK(usd_per_million_tokens(23900.0, 10000.0, 0.7) == doctest::Approx(expected));
  CHECK(usd_per_million_tokens(23900.0, 0.0, 0.7) == 0.0);
}

TEST_CASE("precision matrix: FP4 is weight-only on Hopper and CDNA 3, native on Blackwell and CDNA 4") {
  for (const char* id : {"h100-sxm", "h200-sxm", "mi300x", "mi325x"}) {
    const std::string gpu_id = id;
    CAPTURE(gpu_id);
    CHECK(inference_math_precision(gpu_of(id), WeightFormat::kFp4) == Precision::kFp8);
    CHECK(inference_math_precision(gpu_of(id), WeightFormat::kFp6) == Precision::kFp8);
  }
  for (const char* id : {"b200", "mi350x", "mi355x"}) {
    const std::string gpu_id = id;
    CAPTURE(gpu_id);
    CHECK(inference_math_precision(gpu_of(id), WeightFormat::kFp4) == Precision::kFp4);
  }
  CHECK(inference_math_precision(gpu_of("mi355x"), WeightFormat::kFp6) == Precision::kFp6);
  CHECK(inference_math_precision(gpu_of("h200-sxm"), WeightFormat::kInt4) == Precision::kBf16);
  CHECK(inference_math_precision(gpu_of("h200-sxm"), WeightFormat::kBf16) == Precision::kBf16);
  CHECK(training_math_precision(gpu_of("h100-sxm"), WeightFormat::kFp8, Workload::kLora) ==
        Precision::kFp8);
  CHECK(training_math_precision(gpu_of("h100-sxm"), WeightFormat::kFp8, Workload::kQlora) ==
        Precision::kBf16);
}

TEST_CASE("rates: public measurements by default, calibration record overrides, override of peak") {
  const Catalog& base = default_catalog();
  const Gpu& h200 = gpu_of("h200-sxm");
  const Scenario s;
  const Rates pub = resolve_rates(base, h200, Precision::kFp8, s);
  CHECK(pub.label == "public measurements");
  CHECK(pub.matmul_flops_per_s == doctest::Approx(1453.4e12));
  CHECK(pub.hbm_bytes_per_s == doctest::Approx(4.48e12));

  const Rates est = resolve_rates(base, gpu_of("b200"), Precision::kFp8, s);
  CHECK(est.label == "public measurements (some figures estimate)");

  // No achieved FP8 figure on MI355X: its measured BF16 fraction of peak applies (an estimate).
  const Rates mi355 = resolve_rates(base, gpu_of("mi355x"), Precision::kFp8, s);
  CHECK(mi355.estimate);
  CHECK(mi355.matmul_flops_per_s == doctest::Approx(1565.0 / 2500.0 * 5000e12));

  Catalog cal = base;
  CalibrationRecord rec;
  rec.gpu_id = "h200-sxm";
  rec.device_name = "NVIDIA H200";
  rec.date = "2026-11-30";
  rec.hbm_dot_bytes_per_s = 4.5e12;
  rec.matmul_best_flops_per_s[index_of(Precision::kFp8)] = 1500e12;
  cal.calibrations.push_back(rec);
  const Rates c = resolve_rates(cal, h200, Precision::kFp8, s);
  CHECK(c.label == "calibrated on NVIDIA H200, 2026-11-30");
  CHECK(c.matmul_flops_per_s == doctest::Approx(1500e12));
  CHECK(c.hbm_bytes_per_s == doctest::Approx(4.5e12));

  Gpu bare = h200;
  bare.achieved_matmul_flops_per_s = {};
  bare.achieved_hbm_bytes_per_s.reset();
  bare.achieved_allreduce_bus_bytes_per_s.reset();
  const Rates peak = resolve_rates(base, bare, Precision::kFp8, s);
  CHECK(peak.label == "datasheet peak");
  CHECK(peak.matmul_flops_per_s == doctest::Approx(1979e12));

  Scenario o;
  o.flops_efficiency = 0.5;
  o.bandwidth_efficiency = 0.8;
  const Rates ov = resolve_rates(base, h200, Precision::kFp8, o);
  CHECK(ov.matmul_flops_per_s == doctest::Approx(0.5 * 1979e12));
  CHECK(ov.hbm_bytes_per_s == doctest::Approx(0.8 * 4.8e12));
}

TEST_CASE("MoE parameter split, Mixtral 8x7B by hand") {
  const Model& m = model_of("mixtral-8x7b");
  const ParamSplit s = split_params(m);
  const double per_expert = 32.0 * 3.0 * 4096.0 * 14336.0;
  CHECK(s.per_expert == doctest::Approx(per_expert));
  CHECK(s.expert_total == doctest::Approx(8.0 * per_expert));
  CHECK(s.expert_active == doctest::Approx(2.0 * per_expert));
  CHECK(s.dense_active == doctest::Approx(12.9e9 - 2.0 * per_expert));
  CHECK(s.attention_flops_per_layer_ctx_token == doctest::Approx(4.0 * 32 * 128));
}

namespace {
/** The serving context of `mid` at `weights` on `gpu` with `engine` (one model: the serving one). */
ServingContext serving_context_for(const char* mid, WeightFormat weights, const Gpu& gpu,
                                   const char* engine = "vllm") {
  Scenario s = scenario_for(mid, weights);
  s.engine = engine;
  return make_serving_context(default_catalog(), s, model_of(mid), gpu, *default_engines().find(engine), "");
}
}  // namespace

TEST_CASE("largest batch: the engine's KV pool over KV for input + output, capped by its admission limit") {
  const Catalog& cat = default_catalog();
  const Model& m = model_of("llama-2-70b");
  const Gpu& g = gpu_of("h200-sxm");
  Scenario s = scenario_for("llama-2-70b", WeightFormat::kFp8);
  s.engine = "vllm";
  const ServingContext c = make_serving_context(cat, s, m, g, *default_engines().find("vllm"), "");
  const double pool = kv_pool_bytes_per_gpu(*c.engine, c.capacity_bytes_per_gpu, c.weight_bytes, 1, c.chunk_tokens);
  // K and V, 80 layers x 8 KV heads x 128, over input + output / 2 tokens (the mean a running
  // sequence holds), at the KV format the engine stores.
  const double seq = 2.0 * 80 * 8 * 128 * (1024 + 512.0) * (c.kv == KvFormat::kFp8 ? 1.0 : 2.0);
  const double room = std::floor(pool / seq);
  CHECK(max_sequences(c, Parallel{1, 1, false}) == doctest::Approx(std::min(room, c.engine->max_running_requests)));
  // The cap is the scenario's engine's admission limit (its profile's max_running_requests):
  // a tenth of the KV room binds it.
  auto engines = std::make_shared<EngineCatalog>(catalog_engines(cat));
  double* limit = nullptr;
  for (EngineProfile& e : engines->engines) {
    if (e.id == "vllm") limit = &e.max_running_requests;
  }
  REQUIRE(limit != nullptr);
  *limit = std::floor(room / 10.0);
  const ServingContext capped = make_serving_context(cat, s, m, g, *engines->find("vllm"), "");
  CHECK(max_sequences(capped, Parallel{1, 1, false}) == doctest::Approx(*limit));
}

TEST_CASE("property: more HBM bandwidth never slows a decode step") {
  for (const char* mid : {"llama-2-70b", "mixtral-8x7b", "deepseek-v3", "llama-3.1-8b", "gpt-oss-120b"}) {
    for (const char* gid : {"h100-sxm", "h200-sxm", "mi300x", "mi355x", "b200"}) {
      Gpu fast = gpu_of(gid);
      fast.achieved_hbm_bytes_per_s->value *= 1.5;
      const ServingContext slow_c = serving_context_for(mid, WeightFormat::kFp8, gpu_of(gid));
      const ServingContext fast_c = serving_context_for(mid, WeightFormat::kFp8, fast);
      for (double b : {1.0, 8.0, 64.0, 512.0}) {
        for (int tp : {1, 8}) {
          const Parallel p{tp, 1, false};
          const std::string model_id = mid, gpu_id = gid;
          CAPTURE(model_id);
          CAPTURE(gpu_id);
          CHECK(step_cost(fast_c, p, b, 1, 2048, true).total_s <= step_cost(slow_c, p, b, 1, 2048, true).total_s);
        }
      }
    }
  }
}

TEST_CASE("property: more HBM never fits fewer contexts") {
  for (const char* mid : {"llama-3.1-70b", "mixtral-8x7b", "deepseek-v3", "qwen3-235b-a22b"}) {
    for (const char* gid : {"h100-sxm", "h200-sxm", "mi300x", "mi355x", "b200"}) {
      const Gpu& small = gpu_of(gid);
      Gpu big = small;
      big.hbm_marketed_bytes *= 1.25;
      if (big.hbm_device_bytes) *big.hbm_device_bytes *= 1.25;
      Offering off;
      off.gpu_count = 8;
      off.gpu_id = gid;
      Scenario s = scenario_for(mid, WeightFormat::kFp8);
      s.context_tokens = 8192;
      const std::string model_id = mid, gpu_id = gid;
      CAPTURE(model_id);
      CAPTURE(gpu_id);
      // At a fixed instance size. (With tp=0 the fit picks the smallest instance that fits,
      // which can shrink with more HBM and so hold fewer contexts over the whole offering.)
      for (int tp : {1, 2, 4, 8}) {
        s.tp = tp;
        const MemoryFit a = fit_memory(model_of(mid), small, off, s);
        const MemoryFit b = fit_memory(model_of(mid), big, off, s);
        CAPTURE(tp);
        CHECK(b.full_contexts >= a.full_contexts);
        CHECK(b.max_context_tokens >= a.max_context_tokens);
      }
      const ServingContext ca = serving_context_for(mid, WeightFormat::kFp8, small, "sglang");
      const ServingContext cb = serving_context_for(mid, WeightFormat::kFp8, big, "sglang");
      for (int tp : {1, 2, 4, 8}) {
        const Parallel p{tp, 1, false};
        CHECK(max_sequences(cb, p) >= max_sequences(ca, p));
      }
    }
  }
}

TEST_CASE("property: FP4 on a weight-only GPU never computes faster than its FP8 path") {
  for (const char* gid : {"h100-sxm", "h200-sxm", "mi300x", "mi325x"}) {
    for (const char* mid : {"llama-3.1-70b", "mixtral-8x7b", "llama-3.1-8b"}) {
      const ServingContext c8 = serving_context_for(mid, WeightFormat::kFp8, gpu_of(gid));
      const ServingContext c4 = serving_context_for(mid, WeightFormat::kFp4, gpu_of(gid));
      const std::string model_id = mid, gpu_id = gid;
      CAPTURE(model_id);
      CAPTURE(gpu_id);
      CHECK(c4.matmul_flops_per_s <= c8.matmul_flops_per_s);
      const Parallel p{8, 1, false};
      CHECK(step_cost(c4, p, 8, 4096, 4096, false).compute_s >= step_cost(c8, p, 8, 4096, 4096, false).compute_s);
      CHECK(step_cost(c4, p, 256, 1, 4096, true).compute_s >= step_cost(c8, p, 256, 1, 4096, true).compute_s);
    }
  }
  // Where FP4 is native it does compute faster.
  const ServingContext b8 = serving_context_for("llama-3.1-70b", WeightFormat::kFp8, gpu_of("b200"));
  const ServingContext b4 = serving_context_for("llama-3.1-70b", WeightFormat::kFp4, gpu_of("b200"));
  CHECK(b4.matmul_flops_per_s > b8.matmul_flops_per_s);
}

TEST_CASE("property: cost scales linearly with price") {
  const Catalog& cat = default_catalog();
  Scenario s = scenario_for("llama-3.1-70b", WeightFormat::kFp8);
  s.context_tokens = 8192;
  s.compare = {"fullgpu-8x-h200", "server-8x-mi300x"};
  s.price_usd_per_month = {10000.0, 10000.0};
  auto a = evaluate(cat, s, false);
  s.price_usd_per_month = {20000.0, 20000.0};
  auto b = evaluate(cat, s, false);
  REQUIRE(a);
  REQUIRE(b);
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(a.value().results[i].usd_per_million_tokens);
    CHECK(*b.value().results[i].usd_per_million_tokens ==
          doctest::Approx(2.0 * *a.value().results[i].usd_per_million_tokens));
  }
  s.workload = Workload::kLora;
  s.seq_tokens = 4096;
  s.price_usd_per_month = {10000.0, 10000.0};
  auto c = evaluate(cat, s, false);
  s.price_usd_per_month = {30000.0, 30000.0};
  auto d = evaluate(cat, s, false);
  REQUIRE(c);
  REQUIRE(d);
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(c.value().results[i].run_cost_usd);
    CHECK(*d.value().results[i].run_cost_usd ==
          doctest::Approx(3.0 * *c.value().results[i].run_cost_usd));
  }
}

TEST_CASE("training memory and FLOPs, Llama 3.1 8B pretraining by hand") {
  const Catalog& cat = default_catalog();
  const Model& m = model_of("llama-3.1-8b");
  Scenario s;
  s.model = "llama-3.1-8b";
  s.workload = Workload::kPretrain;
  s.weights = WeightFormat::kBf16;
  s.seq_tokens = 4096;
  s.micro_batch = 1;
  s.zero_stage = 1;
  s.recompute = Recompute::kSelective;
  s.train_tokens = 1e9;
  const Gpu& g = gpu_of("h200-sxm");
  const TrainingEstimate t =
      estimate_training(cat, s, m, g, 8, capacity_bytes(g, CapacityBasis::kDevice), default_model_constants());
  REQUIRE(t.deployment.tensor_parallel == 1);
  CHECK(t.data_parallel == 8);
  // ZeRO-1: weights 2 + gradients 2 + optimizer 12 / 8 bytes per parameter.
  CHECK(t.state_bytes_per_gpu == doctest::Approx(8.03e9 * (2.0 + 2.0 + 12.0 / 8.0)));
  // Korthikanti, selective: 34 x s x b x h per layer.
  CHECK(t.activation_bytes_per_gpu == doctest::Approx(32.0 * 34.0 * 4096 * 4096));
  CHECK(t.fits);
  // 6 x params + attention 4 x (12 x L x heads x head_dim x s / 4) (3 passes + 1 recomputed).
  const double attn_fwd = 4.0 * 32 * 128 * 32 * 4096.0;
  CHECK(t.flops_per_token == doctest::Approx(6.0 * 8.03e9 + 4.0 * attn_fwd));
  CHECK(t.hours == doctest::Approx(1e9 / t.tokens_per_s / 3600.0));
  CHECK(t.gpu_hours == doctest::Approx(8.0 * t.hours));

  s.zero_stage = 3;
  const TrainingEstimate z3 =
      estimate_training(cat, s, m, g, 8, capacity_bytes(g, CapacityBasis::kDevice), default_model_constants());
  CHECK(z3.state_bytes_per_gpu == doctest::Approx(8.03e9 * 16.0 / 8.0));
  s.recompute = Recompute::kFull;
  const TrainingEstimate full =
      estimate_training(cat, s, m, g, 8, capacity_bytes(g, CapacityBasis::kDevice), default_model_constants());
  CHECK(full.activation_bytes_per_gpu == doctest::Approx(32.0 * 2.0 * 4096 * 4096));
  CHECK(full.flops_per_token == doctest::Approx(8.0 * 8.03e9 + 4.0 * attn_fwd));
  CHECK(full.tokens_per_s < t.tokens_per_s);
}

TEST_CASE("LoRA and QLoRA: trainable adapters, frozen base") {
  const Catalog& cat = default_catalog();
  const Model& m = model_of("llama-2-70b");
  Scenario s;
  s.model = "llama-2-70b";
  s.workload = Workload::kLora;
  s.weights = WeightFormat::kBf16;
  s.lora_rank = 16;
  s.seq_tokens = 8192;
  const Gpu& g = gpu_of("h200-sxm");
  const double cap = capacity_bytes(g, CapacityBasis::kDevice);
  const TrainingEstimate lora = estimate_training(cat, s, m, g, 8, cap, default_model_constants());
  const double h = 8192, q = 64 * 128, kv = 8 * 128, ffn = 28672;
  const double per_layer = (h + q) + 2 * (h + kv) + (q + h) + 3 * (h + ffn);
  CHECK(lora.trainable_params == doctest::Approx(16 * per_layer * 80));
  s.workload = Workload::kQlora;
  const TrainingEstimate qlora = estimate_training(cat, s, m, g, 8, cap, default_model_constants());
  CHECK(qlora.state_bytes_per_gpu < lora.state_bytes_per_gpu);
  s.workload = Workload::kFinetune;
  const TrainingEstimate fft = estimate_training(cat, s, m, g, 8, cap, default_model_constants());
  CHECK(fft.flops_per_token > lora.flops_per_token);
}

TEST_CASE("evaluate fills the performance fields, rates label and trace") {
  const Catalog& cat = default_catalog();
  Scenario s;  // defaults: Llama 3.1 70B FP8, MI355X vs H200 servers
  s.context_tokens = 8192;
  auto ev = evaluate(cat, s, true);
  REQUIRE(ev);
  for (const auto& r : ev.value().results) {
    CAPTURE(r.offering_id);
    REQUIRE(r.max_throughput_tokens_per_s);
    CHECK(*r.max_throughput_tokens_per_s > 0.0);
    REQUIRE(r.tpot_s);
    REQUIRE(r.ttft_s);
    REQUIRE(r.decode_tokens_per_s_per_user);
    CHECK(*r.decode_tokens_per_s_per_user == doctest::Approx(1.0 / *r.tpot_s));
    REQUIRE(r.usd_per_million_tokens);
    CHECK(std::string(rates_source_name(r.rates_source)).size() > 0);
    bool has_tpot_trace = false;
    for (const auto& t : r.trace) has_tpot_trace = has_tpot_trace || t.field == "tpot_s";
    CHECK(has_tpot_trace);
  }
  auto quiet = evaluate(cat, s, false);
  REQUIRE(quiet);
  for (const auto& r : quiet.value().results) {
    for (const auto& t : r.trace) {
      CHECK(t.field != "tpot_s");  // performance traces only when asked for
    }
  }
}

TEST_CASE("performance constants parse with sources and reject bad values") {
  // Every constant is required: the built-in document is the only source of the values.
  const char* full = R"({"schema": "gpucalc-performance/1",
      "matmul_fraction": {"value": 0.5, "source": "x"}, "hbm_fraction": 0.9,
      "moe_expert_gemm_fraction": 0.5, "step_overhead_s": 0.0005, "allreduce_latency_s": 5e-6,
      "activation_traffic_factor": 2,
      "large_m_matmul_fraction": 0.95, "large_m_tokens": 4096, "small_m_tokens": 256,
      "moe_stream_fraction": 0.75, "attention_fraction": 0.9, "small_kernel_latency_s": 3e-6,
      "small_kernels_attention_gqa": 5, "small_kernels_attention_mla": 8,
      "small_kernels_ffn_dense": 4, "small_kernels_ffn_moe": 7, "gemm_kernels_attention_gqa": 2,
      "gemm_kernels_attention_mla": 5, "first_wave_fraction": 0.1, "arrival_spread_fraction": 0.2,
      "kv_transfer_fraction": 1})";
  auto ok = parse_model_constants(full);
  REQUIRE(ok);
  CHECK(ok.value().matmul_fraction == doctest::Approx(0.5));
  CHECK_FALSE(parse_model_constants("not json"));
  auto partial = parse_model_constants(R"({"matmul_fraction": {"value": 0.5, "source": "x"}})");
  REQUIRE_FALSE(partial);
  CHECK(partial.error().field == "performance.hbm_fraction");
  auto high = parse_model_constants(std::string(full).replace(std::string(full).find("0.9"), 3, "1.5"));
  REQUIRE_FALSE(high);
  CHECK(high.error().field == "performance.hbm_fraction");
  CHECK(high.error().code == ErrorCode::kOutOfRange);
  auto text = parse_model_constants(std::string(full).replace(std::string(full).find("0.9"), 3, "\"fast\""));
  REQUIRE_FALSE(text);
  CHECK(text.error().field == "performance.hbm_fraction");
  auto schema = parse_model_constants(R"({"schema": "gpucalc-performance/9"})");
  REQUIRE_FALSE(schema);
  CHECK(schema.error().field == "performance.schema");
  // An engine's admission limit lives in its profile (data/engines.json max_running_requests),
  // never among the global constants: a constants document naming one is refused.
  const std::string with_limit = std::string(full).replace(std::string(full).find("\"activation_traffic_factor\""), 0,
                                                           "\"max_batch_sequences\": 256, ");
  auto limit = parse_model_constants(with_limit);
  REQUIRE_FALSE(limit);
  CHECK(limit.error().field.find("max_batch_sequences") != std::string::npos);
}

TEST_CASE("decode step of Llama 2 70B on one H200, by hand (the serving step's weights, FLOPs and KV)") {
  const Gpu& g = gpu_of("h200-sxm");
  const ServingContext c = serving_context_for("llama-2-70b", WeightFormat::kFp8, g);
  // Per layer: Q and O (8192 x 8192 each), K and V (8192 x 8 KV heads x 128 each); the SwiGLU
  // FFN (3 x 8192 x 28672); the LM head (32000 x 8192) once: 68.71 B of the stated 68.98 B.
  // A decode step streams every stated parameter once (the rest, the embedding table, with
  // the layers), FP8 weights at one byte each.
  const double attention = 2.0 * 8192 * 8192 + 2.0 * 8192 * 8 * 128;
  const double ffn = 3.0 * 8192 * 28672;
  const double head = 32000.0 * 8192;
  const double params = 80 * (attention + ffn) + head;
  CHECK(params == doctest::Approx(68.71e9).epsilon(0.001));
  const double stated = 68.98e9;
  const double batch = 16, ctx = 1000;
  const StepBreakdown st = step_cost(c, Parallel{1, 1, false}, batch, 1, ctx, true);
  CHECK(st.weight_bytes_per_gpu == doctest::Approx(stated * 1.0));
  // KV read: K and V of 80 layers x 8 heads x 128 per token of context, per sequence.
  const double kv_value_bytes = c.kv == KvFormat::kFp8 ? 1.0 : 2.0;
  CHECK(st.kv_bytes_per_gpu == doctest::Approx(batch * ctx * 2.0 * 80 * 8 * 128 * kv_value_bytes));
  // GEMM FLOPs, 2 per weight per token, plus attention (QK^T and PV over the context).
  CHECK(st.flops_per_gpu >= 2.0 * batch * params);
  CHECK(st.flops_per_gpu == doctest::Approx(2.0 * batch * params + batch * 80 * 4.0 * 64 * 128 * ctx).epsilon(0.01));
  CHECK(st.total_s == doctest::Approx(st.gemm_latency_s + st.weights_s + st.experts_s + st.compute_s +
                                      st.attention_s + st.small_kernels_s + st.allreduce_s + st.alltoall_s +
                                      st.scale_out_s + st.engine_s));
  CHECK(st.allreduce_s == 0.0);

  // TP 2 over NVLink: weights, FLOPs and KV heads split two ways, and two all-reduces a layer.
  const StepBreakdown st2 = step_cost(c, Parallel{2, 1, false}, batch, 1, ctx, true);
  CHECK(st2.weight_bytes_per_gpu == doctest::Approx(stated / 2));
  CHECK(st2.kv_bytes_per_gpu == doctest::Approx(st.kv_bytes_per_gpu / 2));
  CHECK(st2.flops_per_gpu == doctest::Approx(st.flops_per_gpu / 2).epsilon(0.01));
  CHECK(st2.allreduce_s > 0.0);
}
