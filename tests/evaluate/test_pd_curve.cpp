// The serving curve with key pd: disaggregated (and wide expert-parallel) points join the curve
// where they beat the aggregated ones at the same interactivity, and every point says its layout.
#include <algorithm>
#include <string>
#include <vector>

#include "gpucalc/result_fields.hpp"
#include "test_support.hpp"

using namespace gpucalc;

namespace {

const OfferingResult& first_result(const Result<Evaluation>& ev) {
  REQUIRE(ev);
  REQUIRE_FALSE(ev.value().results.empty());
  return ev.value().results[0];
}

/** The most throughput per GPU of `curve` at `x` tokens/s per user or more (0: none that fast). */
double best_at(const std::vector<ServingCurveEntry>& curve, double x) {
  double best = 0.0;
  for (const ServingCurveEntry& e : curve) {
    if (e.tokens_per_s_per_user >= x) best = std::max(best, e.total_tokens_per_s_per_gpu);
  }
  return best;
}

/** The point's layout is whole: a code, and pools (disaggregated) or replicas (aggregated) that
 *  use no more GPUs than are deployed. */
void check_layout(const ServingCurveEntry& e, int deployed_gpus) {
  CAPTURE(e.layout);
  CHECK_FALSE(e.layout.empty());
  CHECK(e.gpus >= 1);
  CHECK(e.gpus <= deployed_gpus);
  if (e.disaggregated) {
    CHECK(e.layout.find('+') != std::string::npos);
    CHECK(e.replicas == 0);
    CHECK(e.prefill.workers >= 1);
    CHECK(e.decode.workers >= 1);
    CHECK(e.prefill.workers * e.prefill.tp + e.decode.workers * e.decode.tp == e.gpus);
    CHECK(e.decode.tp == e.tp);
  } else {
    CHECK(e.layout.find('+') == std::string::npos);
    CHECK(e.replicas >= 1);
    CHECK(e.prefill.workers == 0);
    CHECK(e.replicas * e.tp == e.gpus);
  }
}

}  // namespace

TEST_CASE("pd curve: a pd=auto point is never below the pd=0 curve at its interactivity") {
  const char* const bases[] = {
      "v=1&model=deepseek-r1&weights=fp4&compare=ref-nvl72-gb200-hyperscaler",
      "v=1&model=deepseek-v3&weights=fp8&compare=ref-8x-mi355x-hyperscaler&servers=2",
      "v=1&model=qwen3-235b-a22b&weights=fp8&compare=ref-8x-b200-hyperscaler&servers=2",
      "v=1&model=llama-3.1-70b&weights=fp8&compare=ref-8x-h200-hyperscaler",
  };
  int disaggregated_points = 0;
  for (const char* base : bases) {
    for (const char* extra : {"&users=8", "&users=512&interactivity=30"}) {
      const std::string text = std::string(base) + extra + "&context=4096&input=1024&output=1024";
      CAPTURE(text);
      const auto agg_ev = evaluate_text(default_catalog(), text, false);
      const auto auto_ev = evaluate_text(default_catalog(), text + "&pd=auto", false);
      const OfferingResult& agg = first_result(agg_ev);
      const OfferingResult& aut = first_result(auto_ev);
      REQUIRE_FALSE(agg.curve.empty());
      REQUIRE_FALSE(aut.curve.empty());
      for (const ServingCurveEntry& q : aut.curve) {
        CAPTURE(q.tokens_per_s_per_user);
        CHECK(q.total_tokens_per_s_per_gpu >= best_at(agg.curve, q.tokens_per_s_per_user) * (1.0 - 1e-12));
        check_layout(q, aut.deployed_gpus);
        disaggregated_points += q.disaggregated ? 1 : 0;
      }
      // And every pd=0 point is matched or beaten on the pd=auto curve.
      for (const ServingCurveEntry& p : agg.curve) {
        CHECK(best_at(aut.curve, p.tokens_per_s_per_user) >= p.total_tokens_per_s_per_gpu * (1.0 - 1e-12));
        check_layout(p, agg.deployed_gpus);
      }
    }
  }
  MESSAGE("disaggregated points on the pd=auto curves: " << disaggregated_points);
}

TEST_CASE("pd curve: DeepSeek-R1 FP4 on an NVL72 rack, its curve has disaggregated points and they say so") {
  const std::string text =
      "v=1&model=deepseek-r1&weights=fp4&compare=ref-nvl72-gb200-hyperscaler&context=4096&input=1024"
      "&output=1024&users=256&interactivity=50";
  const auto ev = evaluate_text(default_catalog(), text + "&pd=auto", false);
  const OfferingResult& r = first_result(ev);
  const auto disaggregated = std::count_if(r.curve.begin(), r.curve.end(),
                                           [](const ServingCurveEntry& e) { return e.disaggregated; });
  CHECK(disaggregated >= 1);
  // The operating point chosen for the target says its layout.
  REQUIRE(r.interactivity_point);
  check_layout(*r.interactivity_point, r.deployed_gpus);
  CHECK(r.interactivity_point->tokens_per_s_per_user >= 50.0);

  // JSON: every curve point and the named points carry the layout and, disaggregated, the pools.
  const auto j = nlohmann::json::parse(evaluation_to_json(ev.value(), false), nullptr, false);
  REQUIRE(j.is_object());
  const auto& jr = j["results"][0];
  REQUIRE(jr["curve"].size() == r.curve.size());
  for (std::size_t i = 0; i < r.curve.size(); ++i) {
    const auto& p = jr["curve"][i];
    CHECK(p["layout"] == r.curve[i].layout);
    CHECK(p["disaggregated"] == r.curve[i].disaggregated);
    CHECK(p["gpus"] == r.curve[i].gpus);
    if (r.curve[i].disaggregated) {
      CHECK(p["prefill"]["workers"] == r.curve[i].prefill.workers);
      CHECK(p["decode"]["tp"] == r.curve[i].decode.tp);
    } else {
      CHECK(p["prefill"].is_null());
      CHECK(p["replicas"] == r.curve[i].replicas);
    }
  }
  CHECK(jr["interactivity_point"]["layout"] == r.interactivity_point->layout);
  CHECK(jr["at_speed_layout"] == r.interactivity_point->layout);
  CHECK(jr["at_speed_output_tokens_per_s"].get<double>() ==
        doctest::Approx(r.interactivity_point->output_tokens_per_s_per_gpu * 72));
  CHECK(jr["at_speed_usd_per_million_tokens"].get<double>() == doctest::Approx(r.interactivity_point->usd_per_million_tokens));
  // CSV: the operating point's layout is a column.
  const std::string csv = evaluation_to_csv(ev.value());
  CHECK(csv.find(",at_speed_layout,") != std::string::npos);
  CHECK(csv.find(r.interactivity_point->layout) != std::string::npos);

  // pd=1: the curve is the disaggregated layouts' alone.
  const auto forced = evaluate_text(default_catalog(), text + "&pd=1", false);
  const OfferingResult& f = first_result(forced);
  REQUIRE_FALSE(f.curve.empty());
  for (const ServingCurveEntry& e : f.curve) CHECK(e.disaggregated);
  // pd=0: none is.
  const auto agg = evaluate_text(default_catalog(), text, false);
  for (const ServingCurveEntry& e : first_result(agg).curve) CHECK_FALSE(e.disaggregated);
}

TEST_CASE("pd curve: a point whose TTFT breaks ttft_max is neither on the disaggregated curve nor the operating point") {
  // Disaggregated points that queue their prompts for the prefill pool reach TTFTs of many
  // seconds; without ttft_max they stay on the curve (the check below can fail).
  const std::string base =
      "v=1&model=deepseek-r1&weights=fp4&compare=ref-nvl72-gb200-hyperscaler&context=4096&input=1024"
      "&output=1024&users=256&interactivity=20&pd=1";
  const auto loose_ev = evaluate_text(default_catalog(), base, false);
  const OfferingResult& loose = first_result(loose_ev);
  double slowest = 0.0;
  for (const ServingCurveEntry& e : loose.curve) slowest = std::max(slowest, e.ttft_s);
  REQUIRE(loose.interactivity_point);
  const double limit = 2.0;
  CAPTURE(slowest);
  REQUIRE(slowest > limit);  // some point breaks the limit we set below
  const auto ev = evaluate_text(default_catalog(), base + "&ttft_max=2", false);
  const OfferingResult& r = first_result(ev);
  REQUIRE_FALSE(r.curve.empty());
  for (const ServingCurveEntry& e : r.curve) {
    CAPTURE(e.layout);
    CHECK(e.ttft_s <= limit);
  }
  REQUIRE(r.interactivity_point);
  CHECK(r.interactivity_point->ttft_s <= limit);
  CHECK(r.interactivity_point->tokens_per_s_per_user >= 20.0);
  if (r.max_throughput_point) CHECK(r.max_throughput_point->ttft_s <= limit);

  // The aggregated operating point at the target keeps within ttft_max the same way.
  const std::string agg = "v=1&model=deepseek-r1&weights=fp4&compare=ref-8x-b200-hyperscaler&context=4096"
                          "&input=1024&output=1024&users=256&interactivity=20";
  const auto a_loose_ev = evaluate_text(default_catalog(), agg, false);
  const OfferingResult& a_loose = first_result(a_loose_ev);
  REQUIRE(a_loose.interactivity_point);
  const double a_limit = a_loose.interactivity_point->ttft_s * 0.5;
  const auto a_ev = evaluate_text(default_catalog(), agg + "&ttft_max=" + std::to_string(a_limit), false);
  const OfferingResult& a = first_result(a_ev);
  if (a.interactivity_point) {
    CHECK(a.interactivity_point->ttft_s <= a_limit);
  } else {
    CHECK(std::find(a.warnings.begin(), a.warnings.end(), "interactivity_unreachable") != a.warnings.end());
  }
}
