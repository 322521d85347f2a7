// The fit answers the serving question: the KV of the users' requests as the engine holds them
// (its KV pool rule), one request at the full context, the full-context worst case apart; cost
// figures name their token kind and the speed they are priced at; training memory by part and
// monthly plans billed by the month; up to kMaxCompared offerings.
#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/result_fields.hpp"
#include "gpucalc/scenario.hpp"
#include "model/serving.hpp"
#include "model/throughput.hpp"
#include "gpucalc/units.hpp"
#include "model/training.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

namespace {

const OfferingResult& result_of(const Evaluation& ev, const std::string& id) {
  for (const auto& r : ev.results) {
    if (r.offering_id == id) return r;
  }
  FAIL("no result for " << id);
  return ev.results.front();
}

const EngineProfile& engine_for(const Catalog& c, const Scenario& s, const Gpu& gpu, const Model& m) {
  auto e = select_engine(catalog_engines(c), s.engine, gpu, m);
  REQUIRE(e.ok());
  return *e.value();
}

}  // namespace

TEST_CASE("fit and serving agree: DeepSeek-R1 FP8, 64 users of chat 1K/1K fit one 8-GPU server") {
  // The fit used to reserve the full 128K context for every user (MLA replicated on every rank)
  // and said "needs 24 GPUs" on H200 while the serving model ran 64 users on one server.
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c,
      "v=1&model=deepseek-r1-0528&weights=fp8&users=64&input=1024&output=1024&context=131072&"
      "compare=fullgpu-8x-mi355x,fullgpu-8x-h200");
  for (const char* id : {"fullgpu-8x-mi355x", "fullgpu-8x-h200"}) {
    CAPTURE(id);
    const OfferingResult& r = result_of(ev, id);
    CHECK(r.fit.fits);
    CHECK(r.fit.deployment.gpus == 8);
    CHECK(r.fit.gpus_needed <= 8);
    CHECK(r.fit.request_tokens == 2048);
    REQUIRE(r.decode_tokens_per_s_per_user);
    // The card's one deployment: the speeds are for the fit's instance.
    CHECK(r.serving_tensor_parallel == r.fit.deployment.gpus);
    CHECK(r.fit.headroom_bytes_per_gpu >= 0.0);
  }
  // The worst case, every user at 128K, is its own figure: more than the server on H200.
  CHECK(result_of(ev, "fullgpu-8x-h200").fit.gpus_needed_full_context > 8);
}

TEST_CASE("the fit's KV: (users - 1) requests of input + output and one at the full context, in the engine's pool") {
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c,
      "v=1&model=llama-3.1-70b&weights=fp8&users=10&input=2000&output=500&context=32768&"
      "compare=fullgpu-8x-h200&tp=4");
  const OfferingResult& r = ev.results.front();
  const Model& m = *c.find_model("llama-3.1-70b");
  const Gpu& gpu = *c.find_gpu("h200-sxm");
  REQUIRE(r.fit.fits);
  REQUIRE(r.fit.deployment.gpus == 4);
  // Two replicas of TP4 on 8 GPUs: 5 users each.
  REQUIRE(r.fit.replicas == 2);
  const Deployment d = r.fit.deployment;
  // By hand: Llama 3.1 70B, 80 layers x 2 (K, V) x 8 KV heads / TP 4 x 128 x 1 B (FP8 KV).
  const double per_token = 80.0 * 2 * 2 * 128;
  CHECK(kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, d, 2500) == doctest::Approx(per_token * 2500));
  CHECK(r.fit.kv_used_bytes_per_gpu == doctest::Approx(4 * per_token * 2500 + per_token * 32768));
  // The pool is the engine's (vLLM for a dense model: capacity x 0.9 - weights), the same
  // function the serving model's max_sequences sizes its KV slots with.
  const EngineProfile& e = engine_for(c, ev.scenario, gpu, m);
  const double cap = capacity_bytes(gpu, ev.scenario.capacity);
  const double weights = weight_bytes(m, WeightFormat::kFp8, gpu) / 4;
  CHECK(r.fit.kv_free_bytes_per_gpu ==
        doctest::Approx(kv_pool_bytes_per_gpu(e, cap, weights, 4, engine_chunk_tokens(e, gpu))));
  if (e.kv_rule == KvRule::kUtilization) {
    CHECK(r.fit.kv_free_bytes_per_gpu == doctest::Approx(cap * e.kv_fraction - weights));
  }
  // What the engine keeps besides weights and pool is the reserve the memory chart draws.
  CHECK(r.fit.reserve_bytes_per_gpu + r.fit.weights_bytes_per_gpu + r.fit.kv_free_bytes_per_gpu ==
        doctest::Approx(cap));
}

TEST_CASE("MLA KV per rank as the engine stores it: replicated under TP, split under DP attention") {
  const Catalog& c = default_catalog();
  const std::string base =
      "v=1&model=deepseek-r1-0528&weights=fp8&users=64&input=1024&output=1024&context=8192&compare=fullgpu-8x-h200";
  const OfferingResult tp = eval_ok(c, base).results.front();
  const OfferingResult dpa = eval_ok(c, base + "&dpa=1").results.front();
  REQUIRE(tp.fit.fits);
  REQUIRE(dpa.fit.fits);
  const Model& m = *c.find_model("deepseek-r1-0528");
  const double seq_req = kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, Deployment{}, 2048);
  const double seq_ctx = kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, Deployment{}, 8192);
  // TP 8: the latent on every rank, all 64 users on each GPU.
  CHECK(tp.fit.kv_used_bytes_per_gpu == doctest::Approx(63 * seq_req + seq_ctx));
  // DP attention: each of the 8 ranks holds its 8 users.
  CHECK(dpa.fit.kv_used_bytes_per_gpu == doctest::Approx(7 * seq_req + seq_ctx));
}

TEST_CASE("without an engine (what-fits table, training) the fit keeps users x context in capacity - reserve") {
  const Catalog& c = default_catalog();
  auto s = decode_scenario("v=1&model=llama-3.1-70b&weights=fp8&users=2&context=8192&reserve=5&tp=8");
  REQUIRE(s.ok());
  const Model& m = *c.find_model("llama-3.1-70b");
  const Gpu& gpu = *c.find_gpu("h200-sxm");
  const MemoryFit f = fit_memory(m, gpu, *c.find_offering("fullgpu-8x-h200"), s.value());
  CHECK_FALSE(f.engine_pool);
  CHECK(f.kv_used_bytes_per_gpu ==
        doctest::Approx(2 * kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, f.deployment, 8192)));
  CHECK(f.kv_free_bytes_per_gpu ==
        doctest::Approx(capacity_bytes(gpu, s.value().capacity) - 5e9 - f.weights_bytes / 8));
}

TEST_CASE("cost fields name their token kind: registry, curve points") {
  CHECK(std::string(token_kind("usd_per_million_tokens")) == "output");
  CHECK(std::string(token_kind("usd_per_million_total_tokens")) == "total");
  CHECK(std::string(token_kind("energy_usd_per_million_tokens")) == "output");
  CHECK(token_kind("price_month_usd") == nullptr);
  const auto fields = nlohmann::json::parse(result_fields_json());
  int kinds = 0;
  for (const auto& f : fields) {
    if (f.contains("token_kind")) {
      ++kinds;
      CHECK(std::string(token_kind(f["name"].get<std::string>())) == f["token_kind"].get<std::string>());
    }
  }
  CHECK(kinds >= 3);
  const Catalog& c = default_catalog();
  EvaluateOptions o;
  o.with_curve = true;
  auto ev = evaluate(c, decode_scenario("v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200").value(), o);
  REQUIRE(ev.ok());
  const auto doc = nlohmann::json::parse(evaluation_to_json(ev.value(), false));
  const auto& curve = doc["results"][0]["curve"];
  REQUIRE_FALSE(curve.empty());
  CHECK(curve[0]["token_kind"] == "output");
}

TEST_CASE("the verdict's cost reasons name the speed per user and the limits they are priced at") {
  const Catalog& c = default_catalog();
  EvaluateOptions o;
  o.with_curve = true;
  auto run = [&](const std::string& text) {
    auto ev = evaluate(c, decode_scenario(text).value(), o);
    REQUIRE(ev.ok());
    return ev.value();
  };
  auto param = [](const VerdictItem& v, std::string_view name) -> std::optional<double> {
    for (const auto& [k, x] : v.params) {
      if (k == name) return x;
    }
    return std::nullopt;
  };
  const Evaluation ev = run("v=1&model=llama-3.1-70b&ttft_max=2&tpot_max=0.2");
  int costs = 0;
  for (const VerdictItem& v : ev.verdict) {
    if (v.code != "cheaper_per_million_tokens" && v.code != "cheaper_per_million_tokens_than") continue;
    ++costs;
    const OfferingResult& r = result_of(ev, std::string(v.offering_id));
    REQUIRE(r.max_throughput_point);
    CHECK(param(v, "tokens_per_s_per_user") == doctest::Approx(r.max_throughput_point->tokens_per_s_per_user));
    CHECK(param(v, "ttft_max_s") == doctest::Approx(2.0));
    CHECK(param(v, "tpot_max_s") == doctest::Approx(0.2));
  }
  CHECK(costs >= 1);
  const Evaluation at = run("v=1&model=llama-3.1-70b&interactivity=20");
  for (const VerdictItem& v : at.verdict) {
    if (v.code.rfind("cheaper_per_million_tokens", 0) != 0) continue;
    CHECK(param(v, "interactivity") == doctest::Approx(20.0));
    CHECK_FALSE(param(v, "ttft_max_s"));
  }
}

TEST_CASE("training memory by part sums to the training memory; no KV") {
  const Catalog& c = default_catalog();
  for (const char* w : {"finetune", "lora"}) {
    CAPTURE(w);
    const Evaluation ev =
        eval_ok(c, std::string("v=1&model=llama-3.1-8b&workload=") + w + "&compare=fullgpu-8x-h200");
    const OfferingResult& r = ev.results.front();
    REQUIRE(r.train_memory_parts);
    REQUIRE(r.train_memory_bytes_per_gpu);
    const TrainingMemoryParts& p = *r.train_memory_parts;
    CHECK(p.weights + p.gradients + p.optimizer + p.adapters + p.activations + p.reserve ==
          doctest::Approx(*r.train_memory_bytes_per_gpu));
    if (std::string(w) == "lora") {
      CHECK(p.gradients == 0.0);
      CHECK(p.adapters > 0.0);
    } else {
      CHECK(p.adapters == 0.0);
      // Mixed-precision Adam: gradients 2 B, optimizer 12 B per parameter (same sharding at ZeRO 0).
      if (ev.scenario.zero_stage == 0) CHECK(p.optimizer == doctest::Approx(6.0 * p.gradients));
    }
    const ResultField* f = find_result_field("train_adapter_bytes_per_gpu");
    REQUIRE(f != nullptr);
    CHECK(f->scope == FieldScope::kTraining);
  }
}

TEST_CASE("a monthly plan bills every month a run occupies; an hourly reference tier bills the hours") {
  CHECK(billed_months(6.1, 0.0) == 1.0);
  CHECK(billed_months(730.0, 0.0) == 1.0);
  CHECK(billed_months(700.0, 0.1) == 2.0);
  RunCostInputs in;
  in.billed_monthly = true;
  CHECK(run_cost_usd(6.1, 10.0, in) == doctest::Approx(7300.0));
  in.billed_monthly = false;
  CHECK(run_cost_usd(6.1, 10.0, in) == doctest::Approx(61.0));
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c, "v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud");
  const OfferingResult& monthly = result_of(ev, "fullgpu-8x-h200");
  const OfferingResult& hourly = result_of(ev, "ref-8x-h200-neocloud");
  REQUIRE(monthly.run_cost_usd);
  REQUIRE(monthly.train_hours);
  REQUIRE(*monthly.train_hours < kHoursPerMonth);
  REQUIRE(monthly.billed_months);
  CHECK(*monthly.billed_months == 1.0);
  CHECK(*monthly.run_cost_usd >= *monthly.price_usd_per_month);
  CHECK_FALSE(hourly.billed_months);
  REQUIRE(hourly.run_cost_usd);
  CHECK(*hourly.run_cost_usd < *hourly.price_usd_per_month);
}

TEST_CASE("a training run's steps: train_tokens / (seq x micro-batch x data parallel), rounded up") {
  const Catalog& c = default_catalog();
  for (const int mb : {1, 2}) {
    const std::string text = "v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&seq=4096&compare=fullgpu-8x-h200&mb=" +
                             std::to_string(mb);
    auto ev = evaluate(c, decode_scenario(text).value(), true);
    REQUIRE(ev.ok());
    const OfferingResult& r = ev.value().results[0];
    REQUIRE(r.train_steps);
    // The data-parallel degree the memory model split the run over (its trace's input).
    double dp = 0.0;
    for (const TraceEntry& e : r.trace) {
      if (e.field != "train_memory_bytes_per_gpu") continue;
      for (const auto& [name, value] : e.inputs) {
        if (name == "data_parallel") dp = value;
      }
    }
    REQUIRE(dp >= 1.0);
    CHECK(*r.train_steps == std::ceil(1e8 / (4096.0 * mb * dp)));
  }
  // Not fitting: no steps, like no hours.
  auto big = evaluate(c, decode_scenario("v=1&model=llama-3.1-405b&workload=finetune&compare=fullgpu-8x-h200").value(), false);
  REQUIRE(big.ok());
  CHECK_FALSE(big.value().results[0].train_steps);
}

TEST_CASE("up to kMaxCompared offerings; a longer list keeps the first ones and names the dropped") {
  CHECK(kMaxCompared == 8);
  std::string ids;
  for (int i = 1; i <= 10; ++i) ids += (i > 1 ? "," : "") + std::string("o") + std::to_string(i);
  const ScenarioDecode d = decode_scenario_lenient("v=1&compare=" + ids);
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].field == "compare");
  CHECK(d.errors[0].message.find("dropped o9, o10") != std::string::npos);
  REQUIRE(d.scenario.compare.size() == 8);
  CHECK(d.scenario.compare[7] == "o8");
  CHECK_FALSE(decode_scenario("v=1&compare=" + ids).ok());
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c,
      "v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,fullgpu-1x-h200,ref-8x-h100-neocloud,"
      "ref-8x-b200-neocloud,ref-8x-mi300x-neocloud,ref-8x-mi325x-neocloud");
  CHECK(ev.results.size() == 7);
}

TEST_CASE("a key given twice: the error says so (params.repeated), and names the later value") {
  const ScenarioDecode d = decode_scenario_lenient("v=1&users=4&users=8");
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].field == "users");
  REQUIRE(d.errors[0].params.size() == 1);
  CHECK(d.errors[0].params[0].first == "repeated");
  CHECK(d.scenario.users == 4);
}

TEST_CASE("a link that names no weights keeps leaving them to the core through decode and encode") {
  // The page decodes a link, re-encodes it and evaluates that: gpt-oss-120b must stay at its
  // release format (MXFP4), not the schema's fp8.
  const auto d = nlohmann::json::parse(scenario_decode_json("v=1&model=gpt-oss-120b"));
  const std::string text = d["scenario"].get<std::string>();
  CHECK(text.find("weights=") == std::string::npos);
  const Evaluation ev = eval_ok(default_catalog(), text);
  CHECK(ev.scenario.weights == WeightFormat::kNative);
  CHECK(ev.canonical.find("weights=native") != std::string::npos);
  // A link that names them keeps them.
  const auto named = nlohmann::json::parse(scenario_decode_json("v=1&model=gpt-oss-120b&weights=fp8"));
  CHECK(named["scenario"].get<std::string>().find("weights=fp8") != std::string::npos);
}
