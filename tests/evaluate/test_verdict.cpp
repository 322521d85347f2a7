// Verdict rules: no pro for an offering that does not fit, which gets a does_not_fit
// con instead; no recommendation by a figure missing for a compared offering; every item names
// the figure it rests on.
#include <algorithm>

#include "gpucalc/result_fields.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

namespace {

std::vector<const VerdictItem*> items_of(const Evaluation& ev, const std::string& offering) {
  std::vector<const VerdictItem*> out;
  for (const auto& v : ev.verdict) {
    if (v.offering_id == offering) out.push_back(&v);
  }
  return out;
}

using test::param;

bool is_scenario_key(std::string_view name) {
  for (const auto& k : scenario_keys()) {
    if (name == k.key) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("an offering that does not fit gets no pro, and a does_not_fit con saying what it needs") {
  // The verdict read "Choose NVIDIA H200 when: budget matters, $3,090 a month" for a 1x H200 that cannot
  // hold DeepSeek-V3 at BF16.
  const Catalog& c = default_catalog();
  const Evaluation ev =
      eval_ok(c, "v=1&model=deepseek-v3&weights=bf16&compare=fullgpu-8x-mi355x,fullgpu-1x-h200");
  const OfferingResult& h200 = ev.results[1];
  REQUIRE_FALSE(h200.fit.fits);
  REQUIRE(h200.price_usd_per_month.has_value());  // the cheaper one, by price alone
  int cons = 0;
  for (const VerdictItem* v : items_of(ev, "fullgpu-1x-h200")) {
    CAPTURE(v->code);
    CHECK(v->kind != "pro");
    if (v->code == "does_not_fit") {
      ++cons;
      CHECK(v->kind == "con");
      CHECK(v->basis == "gpus_needed");
      CHECK(param(*v, "gpu_count") == 1);
      CHECK(param(*v, "gpus_needed") == h200.fit.gpus_needed);
      CHECK(param(*v, "servers") == h200.fit.gpus_needed);  // one GPU per offering
    }
  }
  CHECK(cons == 1);
  CHECK(ev.recommended_offering_id != "fullgpu-1x-h200");

  // A pro compares the offerings that fit: the 1x H200 is the cheapest per month but cannot hold
  // DeepSeek-V3 at FP8, so the MI355X, cheaper than the 8x H200, gets cheaper_per_month.
  const Evaluation three = eval_ok(
      c, "v=1&model=deepseek-v3&weights=fp8&context=8192&compare=fullgpu-1x-h200,fullgpu-8x-mi355x,fullgpu-8x-h200");
  REQUIRE_FALSE(three.results[0].fit.fits);
  REQUIRE(three.results[1].fit.fits);
  REQUIRE(three.results[2].fit.fits);
  bool cheaper = false;
  for (const VerdictItem* v : items_of(three, "fullgpu-8x-mi355x")) cheaper = cheaper || v->code == "cheaper_per_month";
  CHECK(cheaper);
  for (const VerdictItem* v : items_of(three, "fullgpu-1x-h200")) CHECK(v->kind != "pro");
}

TEST_CASE("no recommendation by a figure missing for a compared offering that fits") {
  // The verdict read "Recommended: lowest cost per million tokens" against an unpriced B200 that is
  // faster.
  const Catalog c = test::catalog_with_unpriced_b200();
  const Evaluation ev = eval_ok(c, "v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,test-unpriced-8x-b200");
  const OfferingResult& b200 = ev.results[2];
  REQUIRE(b200.fit.fits);
  REQUIRE_FALSE(b200.usd_per_million_tokens.has_value());
  CHECK(ev.recommendation_basis != "usd_per_million_tokens");
  CHECK(ev.recommendation_basis != "price_month_usd");  // unpriced: missing too
  CHECK(ev.recommended_offering_id.empty());
  std::vector<std::string> missing;
  for (const VerdictItem* v : items_of(ev, "test-unpriced-8x-b200")) {
    if (v->code == "recommendation_missing_figure") {
      CHECK(v->kind == "note");
      missing.emplace_back(v->basis);
    }
  }
  CHECK(std::find(missing.begin(), missing.end(), "usd_per_million_tokens") != missing.end());
  CHECK(std::find(missing.begin(), missing.end(), "price_month_usd") != missing.end());

  // Priced through the scenario, every fitting offering has the figure and it recommends.
  const Evaluation priced =
      eval_ok(c, "v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,test-unpriced-8x-b200&price=-,-,40000");
  CHECK(priced.recommendation_basis == "usd_per_million_tokens");
  CHECK_FALSE(priced.recommended_offering_id.empty());
  for (const auto& v : priced.verdict) CHECK(v.code != "recommendation_missing_figure");

  // An offering that does not fit is no candidate, so its missing figure does not block.
  const Evaluation small = eval_ok(c, "v=1&compare=fullgpu-8x-mi355x,fullgpu-1x-h200&model=deepseek-v3&weights=bf16");
  CHECK(small.recommended_offering_id == "fullgpu-8x-mi355x");

  // A single fitting offering without a price is still named, as the one that fits.
  const Evaluation alone = eval_ok(c, "v=1&compare=test-unpriced-8x-b200");
  CHECK(alone.recommended_offering_id == "test-unpriced-8x-b200");
  CHECK(alone.recommendation_basis == "fits");
}

TEST_CASE("every verdict item names its basis: a result field or a scenario key") {
  const Catalog c = test::catalog_with_unpriced_b200();
  const char* scenarios[] = {
      "v=1",
      "v=1&model=deepseek-v3&weights=bf16&compare=fullgpu-8x-mi355x,fullgpu-1x-h200",
      "v=1&weights=fp4&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,server-8x-b200,fullgpu-1x-h200",
      "v=1&cudaonly=1&kernels=1&trtllm=1",
      "v=1&compare=fullgpu-8x-mi355x,test-unpriced-8x-b200",
      "v=1&workload=pretrain&model=llama-3.1-8b",
      "v=1&model=llama-3.1-8b&compare=fullgpu-1x-h200,fullgpu-8x-h200",
      "v=1&interactivity=100",
      "v=1&interactivity=140",
  };
  std::size_t items = 0;
  for (const char* text : scenarios) {
    const Evaluation ev = eval_ok(c, text);
    for (const auto& v : ev.verdict) {
      CAPTURE(text);
      CAPTURE(v.code);
      ++items;
      REQUIRE_FALSE(v.basis.empty());
      CHECK((find_result_field(v.basis) != nullptr || is_scenario_key(v.basis)));
    }
    // The JSON carries it.
    const auto j = nlohmann::json::parse(evaluation_to_json(ev, false), nullptr, false);
    for (const auto& v : j["verdict"]) CHECK(v["basis"].is_string());
  }
  CHECK(items > 10);
}

TEST_CASE("verdict: no cost-per-token comparison against an offering that does not fit") {
  // 16 users of 121K-token requests of DeepSeek-V3 MLA KV (replicated on every rank) do not
  // fit 8x H200.
  auto ev = gpucalc::evaluate_text(gpucalc::default_catalog(),
                                   "v=1&model=deepseek-v3&weights=fp8&users=16&input=120000&output=1024", false);
  REQUIRE(ev.ok());
  const auto& rs = ev.value().results;
  REQUIRE(rs.size() == 2);
  REQUIRE(rs[0].fit.fits);
  REQUIRE_FALSE(rs[1].fit.fits);
  for (const auto& v : ev.value().verdict) CHECK(v.code != "cheaper_per_million_tokens_than");
}

TEST_CASE("verdict: with a speed per user chosen, the cost reasons compare the cost at that speed") {
  const Catalog& c = default_catalog();
  auto codes_of = [](const Evaluation& ev, const std::string& code) {
    std::vector<const VerdictItem*> out;
    for (const auto& v : ev.verdict) {
      if (v.code == code) out.push_back(&v);
    }
    return out;
  };
  // Both offerings reach 100 tokens/s per user: the reasons and the recommendation rest on each
  // one's interactivity point, not on the cost at the highest throughput.
  const Evaluation ev = eval_ok(c, "v=1&interactivity=100");
  REQUIRE(ev.results.size() == 2);
  REQUIRE(ev.results[0].interactivity_point.has_value());
  REQUIRE(ev.results[1].interactivity_point.has_value());
  const double mi355x = ev.results[0].interactivity_point->usd_per_million_tokens;
  const double h200 = ev.results[1].interactivity_point->usd_per_million_tokens;
  REQUIRE(mi355x > 0.0);
  REQUIRE(h200 > mi355x * 1.05);  // the MI355X is the cheaper at this speed by more than 5 %
  CHECK(mi355x != doctest::Approx(*ev.results[0].usd_per_million_tokens));  // another figure
  CHECK(codes_of(ev, "cheaper_per_million_tokens").empty());
  CHECK(codes_of(ev, "cheaper_per_million_tokens_than").empty());
  const auto best = codes_of(ev, "cheaper_per_million_tokens_at_speed");
  REQUIRE(best.size() == 1);
  CHECK(best[0]->offering_id == "fullgpu-8x-mi355x");
  CHECK(best[0]->kind == "pro");
  CHECK(best[0]->basis == "interactivity");
  CHECK(param(*best[0], "interactivity") == 100);
  CHECK(param(*best[0], "usd_per_million_tokens") == doctest::Approx(mi355x));
  CHECK(param(*best[0], "ratio") == doctest::Approx(h200 / mi355x));
  const auto pair = codes_of(ev, "cheaper_per_million_tokens_than_at_speed");
  REQUIRE(pair.size() == 1);
  CHECK(pair[0]->offering_id == "fullgpu-8x-mi355x");
  CHECK(param(*pair[0], "other_usd_per_million_tokens") == doctest::Approx(h200));
  CHECK(param(*pair[0], "other_index") == 1);
  CHECK(param(*pair[0], "interactivity") == 100);
  CHECK(ev.recommended_offering_id == "fullgpu-8x-mi355x");
  CHECK(ev.recommendation_basis == "interactivity");
  CHECK(codes_of(ev, "interactivity_unreachable").empty());

  // 140 tokens/s per user: within the MI355X's reach, beyond the 8x H200's. The H200 gets a con
  // saying so; with its figure missing no cost reason compares the two; the too-slow H200 is no
  // candidate, so the one offering that reaches the speed is recommended on the cost at it.
  const Evaluation fast = eval_ok(c, "v=1&interactivity=140");
  REQUIRE(fast.results[0].interactivity_point.has_value());
  REQUIRE_FALSE(fast.results[1].interactivity_point.has_value());
  const auto unreachable = codes_of(fast, "interactivity_unreachable");
  REQUIRE(unreachable.size() == 1);
  CHECK(unreachable[0]->offering_id == "fullgpu-8x-h200");
  CHECK(unreachable[0]->kind == "con");
  CHECK(unreachable[0]->basis == "interactivity");
  CHECK(param(*unreachable[0], "interactivity") == 140);
  for (const auto& v : fast.verdict) CHECK(v.code.find("per_million_tokens") == std::string::npos);
  CHECK(fast.recommended_offering_id == "fullgpu-8x-mi355x");
  CHECK(fast.recommendation_basis == "interactivity");
  CHECK(codes_of(fast, "recommendation_missing_figure").empty());

  // A speed neither reaches: both get the con and nothing is recommended (not the cheaper
  // monthly price of an offering too slow for the job).
  const Evaluation none = eval_ok(c, "v=1&interactivity=5000");
  REQUIRE_FALSE(none.results[0].interactivity_point.has_value());
  REQUIRE_FALSE(none.results[1].interactivity_point.has_value());
  CHECK(codes_of(none, "interactivity_unreachable").size() == 2);
  CHECK(none.recommended_offering_id.empty());
  CHECK(none.recommendation_basis.empty());

  // Without the curve search no interactivity point is computed: that is no unreachable speed.
  auto s = decode_scenario("v=1&interactivity=140");
  REQUIRE(s.ok());
  EvaluateOptions no_curve;
  no_curve.with_curve = false;
  auto quick = evaluate(c, s.value(), no_curve);
  REQUIRE(quick.ok());
  CHECK(codes_of(quick.value(), "interactivity_unreachable").empty());
}

TEST_CASE("verdict items stay valid copied out of their evaluation, params held inline") {
  // offering_id views a text the items share (VerdictItem::offering_ids): the copies must keep
  // it, not the evaluation (ASan in make test catches a view of freed text).
  std::vector<VerdictItem> items;
  std::string first_id;
  {
    const Evaluation ev = eval_ok(default_catalog(), "v=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200");
    REQUIRE(!ev.verdict.empty());
    items = ev.verdict;
    first_id = ev.results.front().offering_id;
  }
  bool saw_first = false;
  for (const auto& v : items) {
    CHECK((v.offering_id == "fullgpu-8x-mi355x" || v.offering_id == "fullgpu-8x-h200"));
    saw_first = saw_first || v.offering_id == first_id;
  }
  CHECK(saw_first);
  VerdictParams p = {{"a", 1.0}, {"b", 2.0}};
  p.emplace_back("c", 3.0);
  REQUIRE(p.size() == 3);
  CHECK(p[2].first == "c");
  CHECK(p[2].second == 3.0);
  double sum = 0.0;
  for (const auto& [name, x] : p) sum += x + static_cast<double>(name.size());
  CHECK(sum == 9.0);
}
