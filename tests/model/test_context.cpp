// One meaning of context: `context` is the longest sequence the deployment holds
// (vLLM's max_model_len) and sizes memory; requests are `input` + `output` tokens and drive
// prefill, decode and cost. A request longer than the context is an error naming both keys.
#include "gpucalc/memory.hpp"
#include "model/pricing.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

namespace {

double param(const Error& e, const std::string& name) {
  for (const auto& [k, v] : e.params) {
    if (k == name) return v;
  }
  FAIL("no param " << name << " in " << e.to_string());
  return 0;
}

using test::has_warning;

}  // namespace

TEST_CASE("a request longer than the context is an error naming input, output and context") {
  auto over = decode_scenario("v=1&context=4096&input=4000&output=1024");
  REQUIRE_FALSE(over.ok());
  const Error& e = over.error();
  CHECK(e.code == ErrorCode::kRequestExceedsContext);
  CHECK(std::string(error_code_name(e.code)) == "request_exceeds_context");
  CHECK(e.field == "input");
  CHECK(param(e, "context") == 4096);
  CHECK(param(e, "output") == 1024);
  CHECK(param(e, "input") == 4000);
  CHECK(param(e, "min") == 1);
  CHECK(param(e, "max") == 4096 - 1024);  // the longest input that fits with this output
  CHECK(e.message.find("context") != std::string::npos);
  CHECK(e.message.find("output") != std::string::npos);

  // The output alone fills the context: the output is what has to give.
  auto out = decode_scenario("v=1&context=2048&input=100&output=4096");
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().field == "output");
  CHECK(param(out.error(), "max") == 2048 - 100);
  // Both fill it: only a longer context helps.
  auto both = decode_scenario("v=1&context=1000&input=1000&output=1000");
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().field == "context");
  CHECK(param(both.error(), "min") == 2000);
  // A one-token context holds no request of at least one token in and one out.
  auto one = decode_scenario("v=1&context=1&input=1&output=1");
  REQUIRE_FALSE(one.ok());
  CHECK(one.error().field == "context");
  CHECK(decode_scenario("v=1&context=2&input=1&output=1").ok());

  // Exactly full is fine: the page's "long context" preset (input 130,048 + output 1,024).
  auto full = decode_scenario("v=1&context=131072&input=130048&output=1024");
  REQUIRE(full.ok());
  CHECK(full.value().input_tokens + full.value().output_tokens == full.value().context_tokens);
  // The defaults hold: 1,024 + 1,024 <= 131,072.
  const Scenario d;
  CHECK(d.input_tokens + d.output_tokens <= d.context_tokens);
  // Training reads seq, not the request: no check there.
  CHECK(decode_scenario("v=1&workload=pretrain&context=1024").ok());
  // Evaluation goes through the same decode.
  auto ev = evaluate_text(default_catalog(), "v=1&context=2048&input=2048", false);
  REQUIRE_FALSE(ev.ok());
  CHECK(ev.error().field == "input");
}

TEST_CASE("lenient decode: a request longer than the context keeps the other keys and fits") {
  auto d = decode_scenario_lenient("v=1&users=32&context=4096&input=8000&output=512");
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].field == "input");
  CHECK(d.errors[0].code == ErrorCode::kRequestExceedsContext);
  CHECK(d.scenario.users == 32);
  CHECK(d.scenario.context_tokens == 4096);
  CHECK(d.scenario.output_tokens == 512);
  CHECK(d.scenario.input_tokens == 4096 - 512);  // held at the longest input that fits
  // What the page then shows evaluates.
  CHECK(decode_scenario(encode_scenario(d.scenario)).ok());

  auto both = decode_scenario_lenient("v=1&context=1000&input=16777215&output=16777215");
  REQUIRE(both.errors.size() == 1);
  CHECK(both.errors[0].field == "context");
  CHECK(both.scenario.input_tokens + both.scenario.output_tokens <= both.scenario.context_tokens);
  CHECK(decode_scenario(encode_scenario(both.scenario)).ok());
}

TEST_CASE("decode reads what the requests hold: 32 users x 128K requests vs 1K requests on H200") {
  // At 32 users the page showed the 2K answer for 128K. KV read per step follows the
  // requests (input + output), so 128K requests read ~64x the KV of 2K ones per step.
  const Catalog& c = default_catalog();
  const std::string base = "v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200&users=32&context=131072";
  const Evaluation short_req = eval_ok(c, base + "&input=1024&output=1024");
  const Evaluation long_req = eval_ok(c, base + "&input=130048&output=1024");
  const auto& s = short_req.results[0];
  const auto& l = long_req.results[0];
  REQUIRE(s.fit.fits);
  REQUIRE(l.fit.fits);
  // Same deployment: the context, not the request, sizes memory.
  CHECK(s.fit.deployment.gpus == l.fit.deployment.gpus);
  CHECK(s.fit.max_context_tokens == l.fit.max_context_tokens);
  CHECK(s.fit.full_contexts == l.fit.full_contexts);
  REQUIRE(s.tpot_s.has_value());
  REQUIRE(l.tpot_s.has_value());
  CHECK(*l.tpot_s > 2.0 * *s.tpot_s);
  MESSAGE("TPOT 32 users, 1K+1K: " << *s.tpot_s << " s; 130,048+1,024: " << *l.tpot_s << " s");
}

TEST_CASE("longest context for the users stops at the model's maximum, with a warning") {
  // Llama 3.1 70B (max 131,072) on 8x MI355X showed 14,424,750 tokens.
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c, "v=1&model=llama-3.1-70b&compare=fullgpu-8x-mi355x,fullgpu-8x-h200");
  const Model& m = *c.find_model("llama-3.1-70b");
  REQUIRE(m.max_context_tokens == 131072);
  for (const auto& r : ev.results) {
    CAPTURE(r.offering_id);
    const MemoryFit raw = fit_memory(m, *c.find_gpu(r.gpu_id), *c.find_offering(r.offering_id), ev.scenario);
    REQUIRE(raw.max_context_tokens > m.max_context_tokens);  // the memory alone would hold more
    CHECK(r.fit.max_context_tokens == m.max_context_tokens);
    CHECK(has_warning(r, "context_capped_at_model_max"));
  }
  const MemoryFit mi355x = fit_memory(m, *c.find_gpu("mi355x"), *c.find_offering("fullgpu-8x-mi355x"), ev.scenario);
  CHECK(mi355x.max_context_tokens == 14424750);  // the figure the page showed before
  // JSON says the capped figure and the warning code.
  const auto j = nlohmann::json::parse(evaluation_to_json(ev, false), nullptr, false);
  CHECK(j["results"][0]["max_context_tokens"] == 131072);
  CHECK(j["results"][0]["warnings"].dump().find("context_capped_at_model_max") != std::string::npos);

  // Where the memory is the limit, the figure is the memory's and no warning is given.
  const Evaluation busy = eval_ok(c, "v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200&users=256&context=8192");
  REQUIRE(busy.results[0].fit.fits);
  CHECK(busy.results[0].fit.max_context_tokens < m.max_context_tokens);
  CHECK_FALSE(has_warning(busy.results[0], "context_capped_at_model_max"));
}

TEST_CASE("cost per million tokens, output and total, at the same operating point, by hand") {
  // total = output-token cost x output / (input + output): each request's tokens paid once.
  CHECK(usd_per_million_total_tokens(2.0, 3000, 1000) == doctest::Approx(2.0 * 1000 / 4000));
  CHECK(usd_per_million_total_tokens(1.5, 1, 1) == doctest::Approx(0.75));

  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c, "v=1&context=8192&input=3072&output=1024");
  for (const auto& r : ev.results) {
    CAPTURE(r.offering_id);
    REQUIRE(r.usd_per_million_tokens.has_value());
    REQUIRE(r.usd_per_million_total_tokens.has_value());
    CHECK(*r.usd_per_million_total_tokens == doctest::Approx(*r.usd_per_million_tokens * 1024.0 / 4096.0));
  }
  // An unpriced offering has neither (null, never US$0).
  const Evaluation unpriced = eval_ok(test::catalog_with_unpriced_b200(), "v=1&compare=test-unpriced-8x-b200");
  CHECK_FALSE(unpriced.results[0].usd_per_million_tokens.has_value());
  CHECK_FALSE(unpriced.results[0].usd_per_million_total_tokens.has_value());
  auto traced = evaluate_text(c, "v=1&context=8192&input=3072&output=1024", true);
  REQUIRE(traced.ok());
  const auto j = nlohmann::json::parse(evaluation_to_json(traced.value(), true), nullptr, false);
  const auto& r0 = j["results"][0];
  CHECK(r0["usd_per_million_total_tokens"].is_number());
  CHECK(r0["trace"].contains("usd_per_million_total_tokens"));
}
