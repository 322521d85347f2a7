// Key `pd` on a result: the disaggregated layout's figures where they are asked for (pd=1) or
// where they beat the aggregated ones (pd=auto); disagg.hpp.
#include <algorithm>
#include <cmath>

#include "model/disagg.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/throughput.hpp"

namespace gpucalc {

namespace {

/** The point's figures per deployed GPU (idle GPUs of the offering are paid for too). */
ServingCurveEntry entry_of(const DisaggPoint& p, int deployed_gpus, double price, double utilization) {
  const double share = static_cast<double>(p.layout.gpus()) / deployed_gpus;
  ServingCurveEntry e;
  e.tokens_per_s_per_user = p.tokens_per_s_per_user;
  e.total_tokens_per_s_per_gpu = p.total_tokens_per_s_per_gpu * share;
  e.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu * share;
  e.ttft_s = p.ttft_s;
  e.tpot_s = p.tpot_s;
  e.usd_per_million_tokens = price > 0.0 ? usd_per_million_tokens(price, p.output_tokens_per_s, utilization) : 0.0;
  e.tp = p.layout.decode.gpus();
  e.ep = p.layout.decode.ep * p.layout.decode.servers;
  e.dpa = p.layout.decode.dpa;
  e.users = p.concurrency;
  return e;
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
      // The aggregated table's band does not describe this layout (validation-disagg.json does).
      r.error_band = ErrorBandList();
    }
  } else if (forced) {
    r.warnings.emplace_back("pd_no_layout");
    return;
  }
  if (!with_curve) return;
  if (const auto best = best_disaggregated(c, layouts, 0.0, 0.0, s.ttft_max_s, s.tpot_max_s)) {
    const ServingCurveEntry e = entry_of(*best, deployed_gpus, price, s.utilization);
    if (forced || !r.max_throughput_point ||
        e.total_tokens_per_s_per_gpu > r.max_throughput_point->total_tokens_per_s_per_gpu) {
      r.max_throughput_tokens_per_s = e.output_tokens_per_s_per_gpu * gpus;
      r.max_throughput_point = e;
      r.warnings.emplace_back("pd_max_throughput");  // the point is a disaggregated layout
    }
  }
  if (s.interactivity > 0.0) {
    const auto at = best_disaggregated(c, layouts, 0.0, s.interactivity, 0.0, 0.0);
    if (at) {
      const ServingCurveEntry e = entry_of(*at, deployed_gpus, price, s.utilization);
      if (forced || !r.interactivity_point ||
          e.total_tokens_per_s_per_gpu > r.interactivity_point->total_tokens_per_s_per_gpu) {
        r.interactivity_point = e;
        r.warnings.emplace_back("pd_at_speed");  // the point is a disaggregated layout
        const auto it = std::find(r.warnings.begin(), r.warnings.end(), "interactivity_unreachable");
        if (it != r.warnings.end()) r.warnings.erase(it);
      }
    }
  }
}

}  // namespace gpucalc
