// The verdict reasons that prices and energy drive: cost per million tokens for every pair,
// energy beyond 10 %.
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;
using gpucalc::test::find_item;

namespace {

using test::param;

}  // namespace

TEST_CASE("verdict: cost per million tokens for every pair, energy beyond 10 %") {
  const Evaluation ev = eval_ok(default_catalog(),
                                "v=1&model=llama-3.1-70b&weights=fp8&context=8192&compare=ref-8x-h100-neocloud,ref-8x-b200-neocloud,ref-8x-mi300x-neocloud");
  int pairs = 0;
  for (const auto& v : ev.verdict) {
    if (v.code != "cheaper_per_million_tokens_than") continue;
    ++pairs;
    CHECK(param(v, "ratio") == doctest::Approx(param(v, "other_usd_per_million_tokens") / param(v, "usd_per_million_tokens")));
    CHECK(param(v, "ratio") > 1.0);
    const auto other = static_cast<std::size_t>(param(v, "other_index"));
    CHECK(*ev.results[other].usd_per_million_tokens == param(v, "other_usd_per_million_tokens"));
  }
  CHECK(pairs == 3);
  // Energy: the lowest J/token gets the reason only when it leads the next by more than 10 %.
  double best = 1e30, next = 1e30;
  std::string best_id;
  for (const auto& r : ev.results) {
    const double j = *r.energy_joules_per_output_token;
    if (j < best) {
      next = best;
      best = j;
      best_id = r.offering_id;
    } else if (j < next) {
      next = j;
    }
  }
  const VerdictItem* energy = find_item(ev, best_id, "less_energy_per_token");
  CHECK((energy != nullptr) == (next / best > 1.10));
  if (energy != nullptr) CHECK(param(*energy, "ratio") == doctest::Approx(next / best));
}

TEST_CASE("verdict: a run billed by the hour is compared with a monthly plan priced alike by the hour") {
  // fullgpu-8x-h200 bills whole months, ref-8x-h200-neocloud the hours: a 100M-token LoRA run
  // takes a few hours, so their bills differ by the month's idle hours, not by the GPUs.
  const Evaluation ev = eval_ok(default_catalog(),
                                "v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud");
  REQUIRE(ev.results.size() == 2);
  const OfferingResult& monthly = ev.results[0];
  const OfferingResult& hourly = ev.results[1];
  REQUIRE(monthly.billed_months);
  REQUIRE_FALSE(hourly.billed_months);
  for (const auto& v : ev.verdict) CHECK(v.code != "cheaper_run");  // a month against a few hours
  // Each run's hours at each offering's price per hour: the same H200 run, so the ratio is the
  // ratio of the prices per GPU-hour.
  const double a = *monthly.train_hours * *monthly.price_usd_per_month / kHoursPerMonth;
  const double b = *hourly.train_hours * *hourly.price_usd_per_month / kHoursPerMonth;
  REQUIRE(a > b);
  const VerdictItem* v = find_item(ev, "ref-8x-h200-neocloud", "cheaper_run_by_the_hour");
  REQUIRE(v != nullptr);
  CHECK(param(*v, "ratio") == doctest::Approx(a / b));
  CHECK(param(*v, "ratio") < 3.0);
  CHECK(param(*v, "run_usd_by_the_hour") == doctest::Approx(b));
  CHECK(v->basis == "run_cost_usd");
  // Both billed by the month: the runs' bills compare as they are.
  const Evaluation same = eval_ok(default_catalog(),
                                  "v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,fullgpu-8x-mi355x");
  for (const auto& item : same.verdict) CHECK(item.code != "cheaper_run_by_the_hour");
}
