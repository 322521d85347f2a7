// Energy per token and per run, by hand from the all-in kW per GPU and the throughput.
#include "model/energy.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

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
