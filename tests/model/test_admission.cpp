// The engine's admission rule (data/engines.json "admission"): how much KV a running request
// holds back, and where the wait for the KV pool lands (TTFT or, preempted, TPOT).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"
#include "model/serving.hpp"

using namespace gpucalc;

namespace {

/** Llama 3.3 70B FP8 on one H200 at 1k/8k (InferenceX's shape, 0.9 x nominal), with `engine`. */
ServingContext llama_1k8k(const EngineProfile& engine) {
  const Catalog& cat = default_catalog();
  auto s = decode_scenario("v=1&model=llama-3.1-70b&weights=fp8&kv=bf16&input=922&output=7373&engine=vllm");
  REQUIRE(s);
  return make_serving_context(cat, s.value(), *cat.find_model("llama-3.1-70b"), *cat.find_gpu("h200-sxm"),
                              engine, "");
}

/** vLLM's profile with TensorRT-LLM's rule: the whole output reserved, never evicted. */
EngineProfile no_evict_vllm() {
  EngineProfile e = *default_engines().find("vllm");
  e.admission_output_fraction = 1.0;
  e.preempts = false;
  return e;
}

}  // namespace

TEST_CASE("admission: each engine's rule is data, and a bad rule names its field") {
  const EngineCatalog& e = default_engines();
  CHECK(e.find("trtllm")->admission_output_fraction == 1.0);  // GUARANTEED_NO_EVICT
  CHECK(!e.find("trtllm")->preempts);
  CHECK(e.find("vllm")->admission_output_fraction == 0.0);  // blocks on demand, preempt (recompute)
  CHECK(e.find("vllm")->preempts);
  CHECK(e.find("atom")->admission_output_fraction == 0.0);
  CHECK(e.find("atom")->preempts);
  CHECK(e.find("sglang")->admission_output_fraction == doctest::Approx(0.7 * 0.14));  // new_token_ratio floor
  CHECK(e.find("sglang")->preempts);
  const auto field_of = [](const char* admission) {
    const std::string doc = std::string(R"({"engines": [{"id": "x", "vendors": ["amd"], "admission": )") +
                            admission + "}]}";
    auto r = parse_engines(doc);
    REQUIRE(!r);
    return r.error().field;
  };
  CHECK(field_of(R"({"kind": "magic"})").find("admission.kind") != std::string::npos);
  CHECK(field_of(R"({"kind": "on_demand", "output_fraction": 0.5})").find("admission.output_fraction") !=
        std::string::npos);
  CHECK(field_of(R"({"kind": "estimated_reservation"})").find("admission.output_fraction") != std::string::npos);
  CHECK(field_of(R"({"kind": "estimated_reservation", "output_fraction": 2})").find("admission.output_fraction") !=
        std::string::npos);
  CHECK(field_of(R"("on_demand")").find("admission") != std::string::npos);
}

TEST_CASE("admission: a no-evict engine holds KV for the whole output, an on-demand one for what it wrote") {
  const EngineProfile& vllm = *default_engines().find("vllm");
  const EngineProfile no_evict = no_evict_vllm();
  const ServingContext od = llama_1k8k(vllm);
  const ServingContext ne = llama_1k8k(no_evict);
  const Parallel p{1, 1, false};
  const double pool = kv_pool_bytes_per_gpu(vllm, od.capacity_bytes_per_gpu, od.weight_bytes, 1, od.chunk_tokens);
  // K and V of 80 layers x 8 KV heads x 128 at the engine's BF16 cache: the mean context
  // (input + output / 2) on demand, input + output when the whole output is held back.
  const double per_token = 2.0 * 80 * 8 * 128 * 2.0;
  CHECK(max_sequences(od, p) == doctest::Approx(std::floor(pool / (per_token * (922 + 7373 / 2.0)))));
  CHECK(max_sequences(ne, p) == doctest::Approx(std::floor(pool / (per_token * (922 + 7373.0)))));
}

TEST_CASE("admission: beyond the pool an on-demand engine's wait moves from TTFT into TPOT") {
  const EngineProfile& vllm = *default_engines().find("vllm");
  const EngineProfile no_evict = no_evict_vllm();
  const ServingContext od = llama_1k8k(vllm);
  const ServingContext ne = llama_1k8k(no_evict);
  const Parallel p{1, 1, false};
  const PrefillFit fit = prefill_fit(od, p);
  const double slots = max_sequences(od, p);
  REQUIRE(slots > 4.0);
  REQUIRE(slots < 64.0);
  // The same slots for both, so only the rule differs.
  const ServingPoint a = serve(od, p, 1, 64, fit, slots);
  const ServingPoint b = serve(ne, p, 1, 64, fit, slots);
  REQUIRE(a.fits);
  REQUIRE(b.fits);
  // The no-evict engine waits before the first token only; the on-demand one waits there for
  // its prompt's share of the KV (input / (input + output)) and the rest preempted.
  CHECK(b.preempted_s == 0.0);
  CHECK(a.queue_s + a.preempted_s == doctest::Approx(b.queue_s));
  CHECK(a.queue_s == doctest::Approx(b.queue_s * 922.0 / (922.0 + 7373.0)));
  CHECK(a.ttft_s < b.ttft_s);
  CHECK(a.tpot_s > b.tpot_s + a.preempted_s / 7372.0 * 0.999);
  // Recomputing preempted prompts takes GPU time from the running requests.
  CHECK(a.total_tokens_per_s_per_gpu < b.total_tokens_per_s_per_gpu);
  // Inside the pool the rule changes nothing.
  const ServingPoint c = serve(od, p, 1, 4, fit, slots);
  const ServingPoint d = serve(ne, p, 1, 4, fit, slots);
  CHECK(c.ttft_s == d.ttft_s);
  CHECK(c.tpot_s == d.tpot_s);
  CHECK(c.preempted_s == 0.0);
}

TEST_CASE("property: across the KV pool's edge TPOT never falls and TTFT never falls as users rise") {
  const EngineProfile no_evict = no_evict_vllm();
  for (const EngineProfile* engine : {default_engines().find("vllm"), &no_evict}) {
    const ServingContext c = llama_1k8k(*engine);
    const Parallel p{1, 1, false};
    const PrefillFit fit = prefill_fit(c, p);
    const double slots = max_sequences(c, p);
    REQUIRE(slots > 4.0);
    double last_tpot = 0.0, last_ttft = 0.0;
    for (double users = 1.0; users <= 8.0 * slots; users *= 1.5) {
      const ServingPoint pt = serve(c, p, 1, std::floor(users), fit, slots);
      REQUIRE(pt.fits);
      CAPTURE(users);
      CHECK(pt.tpot_s >= last_tpot);
      CHECK(pt.ttft_s >= last_ttft);
      last_tpot = pt.tpot_s;
      last_ttft = pt.ttft_s;
    }
  }
}

TEST_CASE("explain: the terms of TPOT sum to it, the preempted wait among them") {
  const EngineProfile& vllm = *default_engines().find("vllm");
  const ServingContext od = llama_1k8k(vllm);
  const Parallel p{1, 1, false};
  const PrefillFit fit = prefill_fit(od, p);
  const double slots = max_sequences(od, p);
  REQUIRE(slots < 64.0);
  for (const double users : {4.0, 64.0}) {
    CAPTURE(users);
    const ServingPoint a = serve(od, p, 1, users, fit, slots);
    REQUIRE(a.fits);
    CHECK(a.tpot_step_s + a.tpot_prefill_pause_s + a.tpot_recompute_s + a.tpot_preempted_s ==
          doctest::Approx(a.tpot_s).epsilon(1e-12));
    CHECK(a.tpot_step_s == doctest::Approx(a.decode.total_s / od.mtp_tokens_per_step).epsilon(1e-12));
    CHECK(a.tpot_preempted_s == doctest::Approx(a.preempted_s / (7373.0 - 1.0)).epsilon(1e-12));
    CHECK((users > slots) == (a.tpot_preempted_s > 0.0));
    CHECK((users > slots) == (a.tpot_recompute_s > 0.0));
  }
  // The same terms in --explain: the trace's "tpot_terms" sums to the result's tpot_s.
  auto ev = evaluate_text(default_catalog(),
                          "v=1&model=llama-3.1-70b&weights=fp8&kv=bf16&input=922&output=7373&engine=vllm"
                          "&users=64&tp=1&compare=fullgpu-1x-h200",
                          true);
  REQUIRE_MESSAGE(ev.ok(), (ev.ok() ? "" : ev.error().to_string()));
  const OfferingResult& r = ev.value().results.at(0);
  REQUIRE(r.tpot_s);
  bool found = false;
  for (const TraceEntry& e : r.trace) {
    if (e.field != "tpot_terms") continue;
    found = true;
    double sum = 0.0, preempted = 0.0, tpot = 0.0;
    for (const auto& [name, v] : e.inputs) {
      if (name == "step_per_token_s" || name == "prefill_pause_s" || name == "recompute_s" ||
          name == "preempted_s") {
        sum += v;
      }
      if (name == "preempted_s") preempted = v;
      if (name == "tpot_s") tpot = v;
    }
    CHECK(preempted > 0.0);  // 64 users on one H200 at 1k/8k exceed vLLM's KV pool
    CHECK(tpot == doctest::Approx(*r.tpot_s).epsilon(1e-12));
    CHECK(sum == doctest::Approx(*r.tpot_s).epsilon(1e-12));
  }
  CHECK(found);
}
