// Key `pd` on a result: the disaggregated layout's figures where they are asked for (pd=1) or
// where they beat the aggregated ones (pd=auto); disagg.hpp.
#include <algorithm>
#include <cmath>

#include "model/disagg.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/throughput.hpp"

namespace gpucalc {

namespace {

PoolShape pool_of(int workers, const Parallel& p) {
  return PoolShape{workers, p.gpus(), p.ep * p.servers, p.dpa};
}

/** The point's figures per deployed GPU (idle GPUs of the offering are paid for too). */
ServingCurveEntry entry_of(const DisaggPoint& p, int deployed_gpus, double price, double utilization) {
  const double share = static_cast<double>(p.layout.gpus()) / deployed_gpus;
  ServingCurveEntry e;
  e.tokens_per_s_per_user = p.tokens_per_s_per_user;
  e.total_tokens_per_s_per_gpu = p.total_tokens_per_s_per_gpu * share;
  e.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu * share;
  e.ttft_s = p.ttft_s;
  e.ttft_median_s = p.ttft_s;  // the disaggregated model has no first wave apart: median = its TTFT
  e.tpot_s = p.tpot_s;
  e.usd_per_million_tokens = price > 0.0 ? usd_per_million_tokens(price, p.output_tokens_per_s, utilization) : 0.0;
  e.tp = p.layout.decode.gpus();
  e.ep = p.layout.decode.ep * p.layout.decode.servers;
  e.dpa = p.layout.decode.dpa;
  e.users = p.concurrency;
  e.gpus = p.layout.gpus();
  e.disaggregated = true;
  e.layout = disagg_layout_code(p.layout);
  e.prefill = pool_of(p.layout.prefill_workers, p.layout.prefill);
  e.decode = pool_of(p.layout.decode_workers, p.layout.decode);
  return e;
}

/** Whether a point of `front` has at least `x` tokens/s per user and `y` throughput per GPU. */
bool dominated(const std::vector<ServingCurveEntry>& front, double x, double y) {
  return std::any_of(front.begin(), front.end(), [&](const ServingCurveEntry& e) {
    return e.tokens_per_s_per_user >= x && e.total_tokens_per_s_per_gpu >= y;
  });
}

/** The points no other beats on both axes, by tokens/s per user descending: serving_curve's
 *  rule (a point stays when it has more throughput per GPU than every faster one). A
 *  disaggregated point must beat them by kSweepGain: the layouts that differ by an idle GPU or
 *  the prefill shape give near-copies of one point, and the curve keeps the fastest of them. */
std::vector<ServingCurveEntry> front_of(std::vector<ServingCurveEntry> points) {
  std::stable_sort(points.begin(), points.end(), [](const ServingCurveEntry& a, const ServingCurveEntry& b) {
    return a.tokens_per_s_per_user > b.tokens_per_s_per_user;
  });
  std::vector<ServingCurveEntry> front;
  double best = -1.0;
  for (ServingCurveEntry& e : points) {
    if (e.total_tokens_per_s_per_gpu <= (e.disaggregated ? best * (1.0 + kSweepGain) : best)) continue;
    best = e.total_tokens_per_s_per_gpu;
    front.push_back(std::move(e));
  }
  return front;
}

/** What one sweep of the disaggregated layouts gives the curve and its two named points. */
struct DisaggSearch {
  std::optional<DisaggPoint> best;      // most throughput within ttft_max / tpot_max
  std::optional<DisaggPoint> at_speed;  // most throughput at >= the interactivity target
  std::vector<ServingCurveEntry> front;  // per deployed GPU
};

DisaggSearch search_disaggregated(const ServingContext& c, const Scenario& s,
                                  const std::vector<DisaggLayout>& layouts, int deployed_gpus,
                                  double price) {
  DisaggSearch out;
  const auto more = [](const std::optional<DisaggPoint>& b, const DisaggPoint& pt) {
    return !b || pt.output_tokens_per_s > b->output_tokens_per_s;  // the same deployed GPUs
  };
  sweep_disaggregated(c, layouts, 0.0, [&](const DisaggPoint& pt) {
    if (meets_limits(pt, 0.0, s.ttft_max_s, s.tpot_max_s) && more(out.best, pt)) out.best = pt;
    // A point queueing its prompts past ttft_max is no operating point: neither the one at the
    // interactivity target (as the aggregated one, performance.cpp) nor one on the curve.
    if (!meets_limits(pt, 0.0, s.ttft_max_s, 0.0)) return;
    if (s.interactivity > 0.0 && meets_limits(pt, s.interactivity, 0.0, 0.0) && more(out.at_speed, pt)) {
      out.at_speed = pt;
    }
    const double y = pt.total_tokens_per_s_per_gpu * pt.layout.gpus() / deployed_gpus;
    if (dominated(out.front, pt.tokens_per_s_per_user, y)) return;
    out.front.erase(std::remove_if(out.front.begin(), out.front.end(),
                                   [&](const ServingCurveEntry& e) {
                                     return e.tokens_per_s_per_user <= pt.tokens_per_s_per_user &&
                                            e.total_tokens_per_s_per_gpu <= y;
                                   }),
                    out.front.end());
    out.front.push_back(entry_of(pt, deployed_gpus, price, s.utilization));
  });
  return out;
}

}  // namespace

void apply_disaggregated(const ServingContext& c, const Scenario& s, int deployed_gpus,
                         bool with_curve, OfferingResult& r) {
  if (s.pd == PdMode::kAggregated || deployed_gpus < 2) return;
  const bool forced = s.pd == PdMode::kDisaggregated;
  const DisaggRequest q{s.prefill_workers, s.prefill_tp, s.prefill_ep, s.prefill_dpa ? 1 : 0,
                        s.decode_workers,  s.decode_tp,  s.decode_ep,  s.decode_dpa ? 1 : 0};
  const std::vector<DisaggLayout> layouts = disagg_layouts(c, deployed_gpus, q);
  if (layouts.empty()) {
    if (forced) r.warnings.emplace_back("pd_no_layout");
    return;
  }
  const double price = r.price_usd_per_month.value_or(0.0);
  const double gpus = deployed_gpus;
  if (const auto at = best_disaggregated(c, layouts, static_cast<double>(s.users), 0.0, 0.0, 0.0)) {
    const ServingCurveEntry e = entry_of(*at, deployed_gpus, price, s.utilization);
    if (forced || !r.total_tokens_per_s_per_gpu || e.total_tokens_per_s_per_gpu > *r.total_tokens_per_s_per_gpu) {
      r.ttft_s = at->ttft_s;
      r.ttft_median_s = at->ttft_s;  // as entry_of(): no separate median on this path
      r.tpot_s = at->tpot_s;
      r.decode_tokens_per_s_per_user = at->tokens_per_s_per_user;
      r.total_tokens_per_s_per_gpu = e.total_tokens_per_s_per_gpu;
      r.output_tokens_per_s_per_gpu = e.output_tokens_per_s_per_gpu;
      r.e2e_latency_s = at->e2e_s;
      r.serving_tensor_parallel = at->layout.decode.gpus();
      r.expert_parallel = c.model->is_moe() ? at->layout.decode.ep * at->layout.decode.servers : 0;
      r.data_parallel_attention = at->layout.decode.dpa;
      r.pd_layout = disagg_layout_code(at->layout);
      r.prefill_gpus = at->layout.prefill_gpus();
      r.decode_gpus = at->layout.decode_gpus();
      const DisaggLayout& l = at->layout;
      const bool moe = c.model->is_moe();
      r.prefill_workers = l.prefill_workers;
      r.prefill_tp = l.prefill.gpus();
      r.prefill_ep = moe ? l.prefill.ep * l.prefill.servers : 0;
      r.prefill_dpa = l.prefill.dpa;
      r.decode_workers = l.decode_workers;
      r.decode_tp = l.decode.gpus();
      r.decode_ep = moe ? l.decode.ep * l.decode.servers : 0;
      r.decode_dpa = l.decode.dpa;
      r.serving_replicas = 0;
      r.kv_transfer_s = at->kv_transfer_s;
      r.prefill_utilization = at->prefill_utilization;
      r.kv_transfer_fabric = at->kv_over_scale_up ? "scale_up" : "scale_out";
      // The aggregated figures' band does not describe this layout: set_disaggregated_bands()
      // (evaluate/performance.cpp) gives it the disaggregated one (validation-disagg.json's folds).
      r.error_band = ErrorBandList();
    }
  } else if (forced) {
    r.warnings.emplace_back("pd_no_layout");
    return;
  }
  if (!with_curve) return;
  // One sweep of the layouts gives the curve, the highest-throughput point within the latency
  // limits and the point at the interactivity target (each point computed once).
  DisaggSearch found = search_disaggregated(c, s, layouts, deployed_gpus, price);
  // The curve: pd=1 the disaggregated points alone; pd=auto the front of both, so a
  // disaggregated point shows only where it beats every aggregated one at its interactivity.
  if (forced) r.curve.clear();
  for (ServingCurveEntry& e : found.front) r.curve.push_back(std::move(e));
  r.curve = front_of(std::move(r.curve));
  if (found.best) {
    const ServingCurveEntry e = entry_of(*found.best, deployed_gpus, price, s.utilization);
    if (forced || !r.max_throughput_point ||
        e.total_tokens_per_s_per_gpu > r.max_throughput_point->total_tokens_per_s_per_gpu) {
      r.max_throughput_tokens_per_s = e.output_tokens_per_s_per_gpu * gpus;
      r.max_throughput_point = e;
      r.warnings.emplace_back("pd_max_throughput");  // the point is a disaggregated layout
    }
  }
  if (found.at_speed) {
    const ServingCurveEntry e = entry_of(*found.at_speed, deployed_gpus, price, s.utilization);
    if (forced || !r.interactivity_point ||
        e.total_tokens_per_s_per_gpu > r.interactivity_point->total_tokens_per_s_per_gpu) {
      r.interactivity_point = e;
      r.warnings.emplace_back("pd_at_speed");  // the point is a disaggregated layout
      const auto it = std::find(r.warnings.begin(), r.warnings.end(), "interactivity_unreachable");
      if (it != r.warnings.end()) r.warnings.erase(it);
    }
  }
}

}  // namespace gpucalc
