// The plain-words verdict: reasons to choose each compared offering, driven by the inputs
// (seed 002's "choose MI355X when / choose H200 when", seed 000's software checklist).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>

#include "gpucalc/evaluate.hpp"
#include "evaluate/invariants.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

using Getter = std::optional<double> (*)(const OfferingResult&);

/** Energy reasons need a difference above the model's precision: more than 10 %. */
constexpr double kEnergyMargin = 0.10;

/** Index of the single best result by `get` (higher or lower is better), if it beats every
 *  other result holding a value by more than `margin` (relative). Only offerings that fit
 *  are compared: a figure of one that cannot hold the model is no alternative. */
std::optional<std::size_t> strict_best(const std::vector<OfferingResult>& rs, Getter get,
                                       bool higher_is_better, double margin,
                                       double& ratio_to_next) {
  std::optional<std::size_t> best;
  double b = 0.0;  // get(rs[*best])
  int with_value = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto v = get(rs[i]);
    if (!v || !std::isfinite(*v) || !rs[i].fit.fits) continue;
    ++with_value;
    if (!best || (higher_is_better ? *v > b : *v < b)) {
      best = i;
      b = *v;
    }
  }
  if (!best || with_value < 2) return std::nullopt;
  double next = 0;
  bool have_next = false;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto v = get(rs[i]);
    if (i == *best || !v || !std::isfinite(*v) || !rs[i].fit.fits) continue;
    if (!have_next || (higher_is_better ? *v > next : *v < next)) next = *v;
    have_next = true;
  }
  if (next <= 0 || b <= 0) return std::nullopt;
  ratio_to_next = higher_is_better ? b / next : next / b;
  if (ratio_to_next <= 1.0 || ratio_to_next < 1.0 + margin) return std::nullopt;
  return best;
}

/** The result field (or, for stack reasons, the scenario key) each verdict code rests on: one
 *  list, so every item names its basis. A code missing here leaves the basis empty, which the
 *  test of every verdict's basis catches. */
const char* basis_of(std::string_view code) {
  // string_view keys: the search compares lengths first instead of measuring every key.
  static constexpr std::pair<std::string_view, const char*> kBases[] = {
      {"more_hbm_per_gpu", "capacity_bytes_per_gpu"},
      {"only_one_fits", "fits"},
      {"fewer_gpus_needed", "gpus_needed"},
      {"native_fp4", "weights"},
      {"cheaper_per_month", "price_month_usd"},
      {"more_hbm_per_dollar", "price_gb_month_usd"},
      {"faster_decode", "decode_tokens_per_s_per_user"},
      {"higher_throughput", "max_throughput_tokens_per_s"},
      {"cheaper_per_million_tokens", "usd_per_million_tokens"},
      {"cheaper_per_million_tokens_than", "usd_per_million_tokens"},
      // At the scenario's speed per user: the curve's point at `interactivity`.
      {"cheaper_per_million_tokens_at_speed", "interactivity"},
      {"cheaper_per_million_tokens_than_at_speed", "interactivity"},
      {"interactivity_unreachable", "interactivity"},
      {"latency_limits_unmet", "max_throughput_tokens_per_s"},
      {"less_energy_per_token", "energy_joules_per_output_token"},
      {"cheaper_run", "run_cost_usd"},
      {"cheaper_run_by_the_hour", "run_cost_usd"},
      {"less_energy_per_run", "energy_kwh_per_run"},
      {"needs_servers", "servers_needed"},
      {"not_stackable", "servers_needed"},
      {"does_not_fit", "gpus_needed"},
      {"single_gpu_enough", "gpu_count"},
      {"cuda_only_stack", "cudaonly"},
      {"custom_kernels_port", "kernels"},
      {"tensorrt_llm_nvidia_only", "trtllm"},
      {"rocm_check_versions", "gpu"},
  };
  for (const auto& [c, basis] : kBases) {
    if (code == c) return basis;
  }
  return "";
}

/** US$ per million output tokens at the scenario's speed per user (the curve's
 *  interactivity point); none when the speed is out of reach or the offering is unpriced. */
std::optional<double> usd_per_million_tokens_at_speed(const OfferingResult& r) {
  if (!r.interactivity_point || !(r.interactivity_point->usd_per_million_tokens > 0.0)) return std::nullopt;
  return r.interactivity_point->usd_per_million_tokens;
}

/** Which workloads a rule speaks to. */
enum class AppliesTo { kAll, kInference, kTraining };

/** A "best of" rule: the offering whose figure (`get`) beats every other fitting offering's by
 *  more than `margin` (relative; higher or lower is better) gets the pro `code`, with the figure
 *  as `value_param` (divided by `value_divisor`; none when null) and the ratio to the next best. */
struct BestRule {
  const char* code;
  Getter get;
  bool higher_is_better;
  double margin;
  AppliesTo applies;
  const char* value_param;
  double value_divisor;
};

/** The simple "best of" rules, in the order their items appear in the verdict (rules with
 *  params of their own, such as the cost pairs, are the builder's member functions between them;
 *  kRuleOrder below interleaves both). Margins: 5 % where the model's figures carry about that
 *  precision (memory, decode, throughput, cost), 2 % for a training run's cost, 10 % for energy
 *  (kEnergyMargin); none for counts and prices, which are exact. */
constexpr BestRule kBestRules[] = {
    {"more_hbm_per_gpu", [](const OfferingResult& r) -> std::optional<double> { return r.fit.capacity_bytes_per_gpu; },
     true, 0.05, AppliesTo::kAll, "capacity_gb", kBytesPerGB},
    {"more_hbm_per_dollar", [](const OfferingResult& r) { return r.price_usd_per_gb_month; },
     false, 0.05, AppliesTo::kAll, "price_gb_month_usd", 1.0},
    {"faster_decode", [](const OfferingResult& r) { return r.decode_tokens_per_s_per_user; },
     true, 0.05, AppliesTo::kInference, nullptr, 1.0},
    {"higher_throughput", [](const OfferingResult& r) { return r.max_throughput_tokens_per_s; },
     true, 0.05, AppliesTo::kInference, nullptr, 1.0},
    {"less_energy_per_token", [](const OfferingResult& r) { return r.energy_joules_per_output_token; },
     false, kEnergyMargin, AppliesTo::kInference, "energy_joules_per_output_token", 1.0},
    {"cheaper_run", [](const OfferingResult& r) { return r.run_cost_usd; },
     false, 0.02, AppliesTo::kTraining, "run_cost_usd", 1.0},
    {"less_energy_per_run", [](const OfferingResult& r) { return r.energy_kwh_per_run; },
     false, kEnergyMargin, AppliesTo::kTraining, "energy_kwh_per_run", 1.0},
};

/** The table's rule of `code`; null for a code it lacks (the verdict tests of each code catch
 *  a rule dropped that way). */
const BestRule* best_rule(std::string_view code) {
  for (const BestRule& rule : kBestRules) {
    if (code == rule.code) return &rule;
  }
  return nullptr;
}

}  // namespace

namespace {

/** The verdict of one evaluation: pros, cons and notes per offering, then the recommendation.
 *  Each group of rules is one member function; every item names the figure it rests on. */
class VerdictBuilder {
 public:
  explicit VerdictBuilder(Evaluation& ev)
      : ev_(ev), rs(ev.results), out(ev.verdict), s(ev.scenario),
        inference(s.workload == Workload::kInference),
        // A speed per user chosen and the curve searched (evaluate without the curve leaves every
        // interactivity point empty, which is no sign of an unreachable speed).
        searched(std::any_of(rs.begin(), rs.end(), [](const OfferingResult& r) { return !r.curve.empty(); })),
        at_speed(inference && s.interactivity > 0.0 && searched),
        // The buyer's limits, one rule for all three: TTFT and TPOT bound the throughput search
        // (max_throughput_tokens_per_s holds only a point within them), interactivity the speed
        // per user. An offering that fits but has no point within a limit misses it.
        latency_limited(inference && searched && (s.ttft_max_s > 0.0 || s.tpot_max_s > 0.0)) {
    out.clear();
    out.reserve(8 * rs.size());  // a few reasons per offering: no regrowth, no moved items
    // Every offering's id written once into one shared text; the items view into it.
    auto ids = std::make_shared<std::string>();
    for (const auto& r : rs) *ids += r.offering_id;
    shared_ids = std::move(ids);  // complete: views stay
  }

  void build() {
    if (rs.size() >= 2) {
      // The pros, in the order the verdict lists them: a "best of" rule of kBestRules by its
      // code, or a rule with params of its own (a member function).
      using Rule = void (VerdictBuilder::*)();
      struct Step {
        const char* best;  // a kBestRules code, or null
        Rule rule;         // else this member function
      };
      static constexpr Step kRuleOrder[] = {
          {"more_hbm_per_gpu", nullptr},
          {nullptr, &VerdictBuilder::add_only_one_fits},
          {nullptr, &VerdictBuilder::add_fewer_gpus_needed},
          {nullptr, &VerdictBuilder::add_native_fp4},
          {nullptr, &VerdictBuilder::add_cheaper_per_month},
          {"more_hbm_per_dollar", nullptr},
          {"faster_decode", nullptr},
          {"higher_throughput", nullptr},
          {nullptr, &VerdictBuilder::add_cost_pros},
          {"less_energy_per_token", nullptr},
          {nullptr, &VerdictBuilder::add_cheaper_run},
          {"less_energy_per_run", nullptr},
      };
      for (const Step& step : kRuleOrder) {
        if (step.best != nullptr) apply(best_rule(step.best));
        else (this->*step.rule)();
      }
    }
    add_cons_and_notes();
    recommend();
  }

 private:
  std::string_view id_of(const OfferingResult& r) const {
    std::size_t at = 0;
    for (const OfferingResult* q = rs.data(); q != &r; ++q) at += q->offering_id.size();
    return std::string_view(*shared_ids).substr(at, r.offering_id.size());
  }

  void add_item(const OfferingResult& r, std::string_view code, std::string_view kind,
                std::string_view basis, const VerdictParams& params) {
    // A ratio past kMaxVerdictRatio compares figures outside the model's range: no reason.
    for (const auto& [name, x] : params) {
      if (name == "ratio" && !(x <= kMaxVerdictRatio)) return;
    }
    VerdictItem& item = out.emplace_back();  // built in place
    item.offering_id = id_of(r);
    item.code = code;
    item.kind = kind;
    item.basis = basis;
    item.params = params;
    item.offering_ids = shared_ids;
  }

  /** No reason to choose an offering that cannot hold the model: its pros are dropped here, and
   *  it gets a does_not_fit con. */
  void add(const OfferingResult& r, std::string_view code, std::string_view kind,
           const VerdictParams& params) {
    if (kind == "pro" && !r.fit.fits) return;
    add_item(r, code, kind, basis_of(code), params);
  }

  bool misses_latency(const OfferingResult& r) const {
    return latency_limited && r.fit.fits &&
           std::find(r.warnings.begin(), r.warnings.end(), "latency_limits_unmet") != r.warnings.end();
  }
  bool misses_limits(const OfferingResult& r) const {
    return misses_latency(r) || (at_speed && r.fit.fits && !r.interactivity_point);
  }

  /** A "best of" rule of the table, where it applies to the workload. */
  void apply(const BestRule* found) {
    if (found == nullptr) return;
    const BestRule& rule = *found;
    if ((rule.applies == AppliesTo::kInference && !inference) ||
        (rule.applies == AppliesTo::kTraining && inference)) {
      return;
    }
    if (auto i = strict_best(rs, rule.get, rule.higher_is_better, rule.margin, ratio)) {
      VerdictParams params;
      if (rule.value_param != nullptr) params.emplace_back(rule.value_param, *rule.get(rs[*i]) / rule.value_divisor);
      params.emplace_back("ratio", ratio);
      add(rs[*i], rule.code, "pro", params);
    }
  }

  /** The only offering that holds the model. */
  void add_only_one_fits() {
    int fitting = 0;
    for (const auto& r : rs) fitting += r.fit.fits ? 1 : 0;
    if (fitting != 1) return;
    for (const auto& r : rs) {
      if (r.fit.fits) add(r, "only_one_fits", "pro", {{"gpus_needed", r.fit.gpus_needed}});
    }
  }

  /** Fewer GPUs needed, against the most any offering needs. */
  void add_fewer_gpus_needed() {
    if (auto i = strict_best(rs, [](const OfferingResult& r) -> std::optional<double> {
          if (r.fit.gpus_needed <= 0) return std::nullopt;
          return static_cast<double>(r.fit.gpus_needed); }, false, 0.0, ratio)) {
      int other = 0;
      for (const auto& r : rs) other = std::max(other, r.fit.gpus_needed);
      add(rs[*i], "fewer_gpus_needed", "pro",
          {{"gpus_needed", rs[*i].fit.gpus_needed}, {"other_gpus_needed", other}});
    }
  }

  /** FP4/FP6 math where another compared GPU runs those weights weight-only. */
  void add_native_fp4() {
    const WeightFormat math = math_weight_format(ev_.model, s.weights);  // native: the experts' format
    if (math != WeightFormat::kFp4 && math != WeightFormat::kFp6) return;
    bool any_weight_only = false;
    for (const auto& r : rs) any_weight_only = any_weight_only || !r.fp4_native;
    for (const auto& r : rs) {
      if (r.fp4_native && any_weight_only) add(r, "native_fp4", "pro", {});
    }
  }

  /** Cheaper per month, with the saving against the dearest. */
  void add_cheaper_per_month() {
    if (auto i = strict_best(rs, [](const OfferingResult& r) { return r.price_usd_per_month; },
                             false, 0.0, ratio)) {
      double most = 0;
      for (const auto& r : rs) most = std::max(most, r.price_usd_per_month.value_or(0.0));
      add(rs[*i], "cheaper_per_month", "pro",
          {{"price_month_usd", *rs[*i].price_usd_per_month},
           {"saving_usd", most - *rs[*i].price_usd_per_month}});
    }
  }

  /** Cost per million tokens (at the chosen speed, or at the highest throughput): the best, then
   *  every pair. */
  void add_cost_pros() {
  if (!inference) return;
  // With a speed per user chosen, the cost reasons compare the cost at that speed (the
  // curve's interactivity point), not at the highest throughput.
  const Getter cost = at_speed ? usd_per_million_tokens_at_speed
                               : static_cast<Getter>([](const OfferingResult& r) { return r.usd_per_million_tokens; });
  // Every cost names the speed per user it is priced at (the chosen speed, or the speed of
  // the highest-throughput point) and the latency limits that point meets.
  auto speed_of = [&](const OfferingResult& r) -> std::optional<double> {
    if (at_speed) return s.interactivity;
    if (r.max_throughput_point) return r.max_throughput_point->tokens_per_s_per_user;
    return std::nullopt;
  };
  auto with_speed = [&](VerdictParams params, const OfferingResult& r, const OfferingResult* other) {
    if (at_speed) params.emplace_back("interactivity", s.interactivity);
    if (!at_speed) {
      if (const auto v = speed_of(r)) params.emplace_back("tokens_per_s_per_user", *v);
      if (other != nullptr) {
        if (const auto v = speed_of(*other)) params.emplace_back("other_tokens_per_s_per_user", *v);
      }
    }
    if (s.ttft_max_s > 0.0) params.emplace_back("ttft_max_s", s.ttft_max_s);
    if (s.tpot_max_s > 0.0) params.emplace_back("tpot_max_s", s.tpot_max_s);
    return params;
  };
  if (auto i = strict_best(rs, cost, false, 0.05, ratio)) {
    add(rs[*i], at_speed ? "cheaper_per_million_tokens_at_speed" : "cheaper_per_million_tokens", "pro",
        with_speed({{"usd_per_million_tokens", *cost(rs[*i])}, {"ratio", ratio}}, rs[*i], nullptr));
  }
  // Every pair, now that every GPU has a price: the cheaper per million tokens, by how much.
  for (std::size_t a = 0; a < rs.size(); ++a) {
    for (std::size_t b = a + 1; b < rs.size(); ++b) {
      // A cost against an offering that cannot hold the scenario is no comparison.
      if (!rs[a].fit.fits || !rs[b].fit.fits) continue;
      const auto x = cost(rs[a]);
      const auto y = cost(rs[b]);
      if (!x || !y || !(*x > 0.0) || !(*y > 0.0) || *x == *y) continue;
      const std::size_t lo = *x < *y ? a : b, hi = *x < *y ? b : a;
      const double cheap = std::min(*x, *y), dear = std::max(*x, *y);
      add(rs[lo], at_speed ? "cheaper_per_million_tokens_than_at_speed" : "cheaper_per_million_tokens_than", "pro",
          with_speed({{"usd_per_million_tokens", cheap}, {"other_usd_per_million_tokens", dear},
                      {"ratio", dear / cheap}, {"other_index", static_cast<double>(hi)}},
                     rs[lo], &rs[hi]));
    }
  }
  }

  /** Training: the cheaper run. A monthly plan bills whole months, an hourly price the hours:
   *  with both kinds compared, the runs are priced alike, each offering's price per hour x the
   *  run's hours x (1 + recovery), not a month against a few hours. */
  void add_cheaper_run() {
    if (inference) return;
    bool monthly = false, hourly = false;
    for (const auto& r : rs) {
      if (!r.run_cost_usd) continue;
      (r.billed_months ? monthly : hourly) = true;
    }
    if (!(monthly && hourly)) {
      apply(best_rule("cheaper_run"));
      return;
    }
    const Getter by_the_hour = [](const OfferingResult& r) -> std::optional<double> {
      if (!r.run_cost_usd || !r.train_hours || !r.price_usd_per_month) return std::nullopt;
      return *r.train_hours * *r.price_usd_per_month / kHoursPerMonth;
    };
    if (auto i = strict_best(rs, by_the_hour, false, 0.02, ratio)) {
      const double usd = *by_the_hour(rs[*i]) * (1.0 + s.recovery_fraction);
      add(rs[*i], "cheaper_run_by_the_hour", "pro", {{"run_usd_by_the_hour", usd}, {"ratio", ratio}});
    }
  }

  /** Cons and notes of each offering: fit, servers, the buyer's limits, the software stack. */
  void add_cons_and_notes() {
    for (const auto& r : rs) {
      if (!r.fit.fits) {
        // gpus_needed 0: no legal split of the model up to the largest instance the model counts.
        VerdictParams params = {{"gpu_count", r.gpu_count}};
        if (r.fit.gpus_needed > 0) {
          params.emplace_back("gpus_needed", r.fit.gpus_needed);
          params.emplace_back("servers", r.fit.servers_needed);  // ceil(gpus_needed / gpu_count)
        }
        add(r, "does_not_fit", "con", params);
      }
      // More than one server: a cost in itself (network, operations), or impossible on separate VMs.
      if (r.fit.servers_needed > 1) {
        add(r, r.stackable ? "needs_servers" : "not_stackable", "con",
            {{"servers_needed", r.fit.servers_needed}, {"gpus_needed", r.fit.gpus_needed},
             {"servers", r.servers}});
      }
      if (at_speed && r.fit.fits && !r.interactivity_point) {
        add(r, "interactivity_unreachable", "con", {{"interactivity", s.interactivity}});
      }
      if (misses_latency(r)) {
        add(r, "latency_limits_unmet", "con", {{"ttft_max_s", s.ttft_max_s}, {"tpot_max_s", s.tpot_max_s}});
      }
      if (r.gpu_count == 1 && r.fit.fits) add(r, "single_gpu_enough", "pro", {{"price_month_usd", r.price_usd_per_month.value_or(0.0)}});
      const bool nvidia = std::string_view(r.gpu_vendor) == "nvidia";
      if (s.cuda_only) add(r, "cuda_only_stack", nvidia ? "pro" : "con", {});
      if (s.custom_kernels && !nvidia) add(r, "custom_kernels_port", "con", {});
      if (s.tensorrt_llm) add(r, "tensorrt_llm_nvidia_only", nvidia ? "pro" : "con", {});
      if (!nvidia) add(r, "rocm_check_versions", "note", {});
    }
  }

  /** Recommendation: cheapest per unit of work among offerings that fit and that the stack can
   *  run on. */
  void recommend() {
    // run on; CUDA-only stacks and TensorRT-LLM rule AMD out.
    const bool amd_ruled_out = s.cuda_only || s.tensorrt_llm;
    // Never an offering whose rates cannot be computed (core/src/evaluate/invariants.cpp), nor one that
    // misses the buyer's limits (TTFT, TPOT, speed per user; its con says so): a cheaper offering
    // that is too slow does not do the job. When none meets them, none is recommended.
    // A projected part (vendor claims) is recommended only once the user has priced it.
    auto eligible = [&](const OfferingResult& r) {
      return r.fit.fits && !(r.projected && !r.price_usd_per_month) && !(amd_ruled_out && std::string_view(r.gpu_vendor) != "nvidia") && !rate_not_computable(r) &&
             !misses_limits(r);
    };
    struct Basis {
      const char* name;
      Getter get;
    };
    const Basis bases[] = {
        {at_speed ? "interactivity" : inference ? "usd_per_million_tokens" : "run_cost_usd",
         at_speed    ? usd_per_million_tokens_at_speed
         : inference ? static_cast<Getter>([](const OfferingResult& r) { return r.usd_per_million_tokens; })
                     : static_cast<Getter>([](const OfferingResult& r) { return r.run_cost_usd; })},
        {"price_month_usd", [](const OfferingResult& r) { return r.price_usd_per_month; }},
    };
    ev_.recommended_offering_id.clear();
    ev_.recommendation_basis = {};
    // A figure recommends only when every eligible offering has it: an unpriced or unrated
    // offering may be the cheaper one, so the verdict says what is missing instead (one note per
    // offering and figure) and tries the next basis.
    int eligible_count = 0;
    for (const auto& r : rs) eligible_count += eligible(r) ? 1 : 0;
    for (const auto& basis : bases) {
      const OfferingResult* best = nullptr;
      bool missing = false;
      for (const auto& r : rs) {
        if (!eligible(r)) continue;
        const auto v = basis.get(r);
        if (!v) {
          missing = true;
          if (eligible_count > 1) {
            add_item(r, "recommendation_missing_figure", "note", basis.name, {});
          }
          continue;
        }
        if (best == nullptr || *v < *basis.get(*best)) best = &r;
      }
      if (best != nullptr && !missing) {
        ev_.recommended_offering_id = best->offering_id;
        ev_.recommendation_basis = basis.name;
        return;
      }
    }
    // Without a figure every eligible offering has, only a single eligible offering is named.
    if (eligible_count == 1) {
      for (const auto& r : rs) {
        if (eligible(r)) {
          ev_.recommended_offering_id = r.offering_id;
          ev_.recommendation_basis = "fits";
          return;
        }
      }
    }
  }

  Evaluation& ev_;
  std::vector<OfferingResult>& rs;
  std::vector<VerdictItem>& out;
  const Scenario& s;
  std::shared_ptr<const std::string> shared_ids;
  const bool inference, searched, at_speed, latency_limited;
  double ratio = 0;
};

}  // namespace

void build_verdict(Evaluation& ev) { VerdictBuilder(ev).build(); }

}  // namespace gpucalc
