// The engine's new-request gate (data/engines.json new_request_gate, scenario key `gate`): how
// long an arriving request waits before the engine takes it in, and what it leaves untouched.
#include <doctest/doctest.h>

#include <string>

#include "gpucalc/catalog.hpp"
#include "gpucalc/scenario.hpp"
#include "model/serving.hpp"

using namespace gpucalc;

namespace {

/** DeepSeek-V3 on 8 B200 at 1k/1k (0.9 x nominal), `extra` appended to the scenario. */
ServingPoint deepseek_b200(const std::string& engine, const std::string& extra, double users,
                           const Parallel& p) {
  const Catalog& cat = default_catalog();
  auto s = decode_scenario("v=1&model=deepseek-v3&weights=fp8&input=922&output=922&engine=" + engine + extra);
  REQUIRE(s);
  const ServingContext c = make_serving_context(cat, s.value(), *cat.find_model("deepseek-v3"),
                                                *cat.find_gpu("b200"), *default_engines().find(engine), "");
  return serve(c, p, 1, users);
}

}  // namespace

TEST_CASE("request gate: each engine's gate is data, and a bad one names its field") {
  const EngineCatalog& e = default_engines();
  CHECK(e.find("sglang")->gate == RequestGate::kRecvInterval);
  CHECK(e.find("sglang")->gate_steps == 1.0);  // --scheduler-recv-interval default
  CHECK(e.find("trtllm")->gate == RequestGate::kAttentionDpBalance);
  CHECK(e.find("trtllm")->gate_steps == 0.0);  // enable_balance off by default
  CHECK(e.find("vllm")->gate == RequestGate::kNone);
  const auto field_of = [](const std::string& gate) {
    const std::string doc = R"({"engines": [{"id": "x", "vendors": ["amd"], "new_request_gate": )" + gate + "}]}";
    auto r = parse_engines(doc);
    REQUIRE(!r);
    return r.error().field;
  };
  CHECK(field_of(R"({"kind": "sometimes", "steps": 1})").find("new_request_gate.kind") != std::string::npos);
  CHECK(field_of(R"({"kind": "recv_interval"})").find("new_request_gate.steps") != std::string::npos);
  CHECK(field_of(R"({"kind": "recv_interval", "steps": -3})").find("new_request_gate.steps") != std::string::npos);
  CHECK(field_of(R"({"kind": "recv_interval", "steps": 1e9})").find("new_request_gate.steps") != std::string::npos);
  CHECK(field_of("30").find("new_request_gate") != std::string::npos);
  // The scenario key refuses what no engine takes.
  CHECK(!decode_scenario("v=1&model=deepseek-v3&gate=-1"));
  CHECK(!decode_scenario("v=1&model=deepseek-v3&gate=20000"));
}

TEST_CASE("request gate: SGLang's receive interval makes a request wait R / 2 decode steps") {
  const Parallel tp8{8, 1, false};
  const ServingPoint every = deepseek_b200("sglang", "", 64, tp8);
  const ServingPoint one = deepseek_b200("sglang", "&gate=1", 64, tp8);
  const ServingPoint r30 = deepseek_b200("sglang", "&gate=30", 64, tp8);
  REQUIRE(every.fits);
  REQUIRE(r30.fits);
  CHECK(one.ttft_median_s == every.ttft_median_s);  // 1 is the default: every step
  // At 64 users the engine prefills a small share of the time, so an arrival waits for most
  // of the 30-step window (15 steps on average against half a step), and the prompts of a
  // window are prefilled together.
  const double step_s = r30.tpot_step_s;
  const double extra_s = r30.ttft_median_s - every.ttft_median_s;
  CHECK(extra_s > 10.0 * step_s);
  CHECK(extra_s < 14.5 * step_s + r30.prefill_s);
  CHECK(r30.prefill_batch > every.prefill_batch);
  // Fewer, larger prefills pause decode no more per token.
  CHECK(r30.tpot_prefill_pause_s <= every.tpot_prefill_pause_s * 1.05);
  // One user: the engine is idle when the request arrives and takes it at once.
  CHECK(deepseek_b200("sglang", "&gate=30", 1, tp8).ttft_median_s == deepseek_b200("sglang", "", 1, tp8).ttft_median_s);
  // An engine without such a gate ignores the key.
  CHECK(deepseek_b200("vllm", "&gate=30", 64, tp8).ttft_median_s == deepseek_b200("vllm", "", 64, tp8).ttft_median_s);
}

TEST_CASE("request gate: TensorRT-LLM's attention-DP balance holds context requests at most its timeout") {
  const Parallel dpa8{8, 8, true};
  const ServingPoint off = deepseek_b200("trtllm", "", 128, dpa8);
  const ServingPoint t60 = deepseek_b200("trtllm", "&gate=60", 128, dpa8);
  const ServingPoint t2 = deepseek_b200("trtllm", "&gate=2", 128, dpa8);
  REQUIRE(off.fits);
  REQUIRE(t60.fits);
  const double step_s = t60.tpot_step_s;
  // A request waits half the cycle: until all 8 ranks hold a new request, at most 60 steps.
  CHECK(t60.ttft_median_s > off.ttft_median_s + 5.0 * step_s);
  CHECK(t60.ttft_median_s < off.ttft_median_s + 30.0 * step_s + t60.prefill_s);
  // A 2-step timeout: one step on average against half a step without the hold.
  CHECK(t2.ttft_median_s - off.ttft_median_s < 1.0 * t2.tpot_step_s + t2.prefill_s - off.prefill_s + 1e-9);
  // Without attention DP there is nothing to balance.
  const Parallel tp8{8, 8, false};
  CHECK(deepseek_b200("trtllm", "&gate=60", 128, tp8).ttft_median_s == deepseek_b200("trtllm", "", 128, tp8).ttft_median_s);
}
