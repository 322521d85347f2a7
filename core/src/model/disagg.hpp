#pragma once
/**
 * Disaggregated prefill/decode serving: prefill and decode run on separate pools of engine
 * workers and each request's KV moves from its prefill worker to a decode worker (NVIDIA
 * Dynamo with NIXL, SGLang with AMD's MoRI-IO). The physics are the serving step model's
 * (serving.hpp), not a copy:
 *
 * - the prefill pool runs the step model's prefill (prefill_fit, prefill_time_s) at the batch
 *   the arrivals form, never mixed with decode, at prefill_worker_fraction of its rate
 *   (data/performance.json, set against validation-disagg.json and re-set in every fold);
 * - the decode pool runs the step model's decode step, with no prefill pauses, at the batch
 *   Little's law gives: completions per second x the time a request decodes. The requests a
 *   decode worker holds beyond it wait for (or are in) prefill, so a prefill-bound deployment
 *   decodes smaller batches;
 * - the KV of a request crosses the scale-up fabric when both pools sit in one scale-up domain
 *   (half the GPU's marketed per-GPU figure, one direction, per sending GPU; the fabric's
 *   latency), else the offering's scale-out network (its achieved bandwidth per GPU and latency,
 *   data/offerings.json `networks`);
 * - TTFT = request overhead + queueing for a prefill worker + prefill + KV transfer + the first
 *   decode step; throughput per GPU divides by ALL GPUs of both pools (InferenceX's rule).
 */
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/serving.hpp"

namespace gpucalc {

struct OfferingResult;

/** One disaggregated deployment: `prefill_workers` instances of `prefill` and
 *  `decode_workers` instances of `decode`. */
struct DisaggLayout {
  Parallel prefill;
  int prefill_workers = 1;
  Parallel decode;
  int decode_workers = 1;
  int prefill_gpus() const { return prefill_workers * prefill.gpus(); }
  int decode_gpus() const { return decode_workers * decode.gpus(); }
  int gpus() const { return prefill_gpus() + decode_gpus(); }
};

/** A dedicated prefill worker's rate as a share of the step model's prefill: the engine's own
 *  (data/engines.json disagg.prefill_worker_fraction) where it states one, else the pooled
 *  data/performance.json prefill_worker_fraction. */
double prefill_worker_fraction(const ServingContext& c);

/** The layout as a code the edges word: "<P>x(tp<g>,ep<e>[,dpa])+<D>x(tp<g>,ep<e>[,dpa])",
 *  tp = GPUs per worker, ep = expert-parallel degree over them (1: experts split by TP). */
std::string disagg_layout_code(const DisaggLayout& layout);
/** One pool (or the aggregated instances) in those words: "<workers>x(tp<g>,ep<e>[,dpa][,rdma])"; rdma:
 *  a wide expert-parallel instance whose all-to-all crosses servers over RDMA (Parallel::rdma). */
std::string pool_code(int workers, const Parallel& p);

/** How a request's KV moves from prefill to decode. */
struct KvLink {
  double bytes_per_s = 0.0;  // 0: no path (the pools share no fabric and no network)
  double latency_s = 0.0;
  bool scale_up = false;     // over the scale-up fabric (else the scale-out network)
};
KvLink kv_link(const ServingContext& c, const DisaggLayout& layout);

/** What a client sees at `concurrency` requests in flight over the whole deployment. */
struct DisaggPoint {
  DisaggLayout layout;
  double concurrency = 0.0;
  double ttft_s = 0.0, tpot_s = 0.0, e2e_s = 0.0;
  double tokens_per_s_per_user = 0.0;       // 1 / tpot
  double total_tokens_per_s_per_gpu = 0.0;  // (input + output) x requests/s / ALL GPUs
  double output_tokens_per_s_per_gpu = 0.0;
  double output_tokens_per_s = 0.0;         // whole deployment
  double prefill_s = 0.0;                   // one prefill step at the batch that forms
  double prefill_batch = 0.0;
  double prefill_queue_s = 0.0;             // waiting for a prefill worker
  double kv_transfer_s = 0.0;
  double kv_bytes_per_request = 0.0;
  double first_decode_step_s = 0.0;
  double slot_queue_s = 0.0;                // waiting for a decode KV slot
  double prefill_utilization = 0.0;         // busy fraction of the prefill pool, <= 1
  bool kv_over_scale_up = false;
  StepBreakdown decode;
  bool fits = false;
};

DisaggPoint serve_disaggregated(const ServingContext& c, const DisaggLayout& layout,
                                double concurrency);

/** The same context with no prefill mixed into decode steps: a prefill worker only prefills
 *  (it pays its own weight streaming), a decode worker only decodes. */
ServingContext unmixed(const ServingContext& c);

/** What one worker shape's points share: its KV slots and its prefill fit. */
struct ShapeTerms {
  Parallel shape;
  double max_sequences = 0.0;
  PrefillFit fit;  // computed where max_sequences >= 1
};
ShapeTerms shape_terms(const ServingContext& c, const Parallel& p);
/** The shapes met so far in a search (the pools' shapes repeat over its layouts). */
struct ShapeCache {
  std::vector<ShapeTerms> shapes;
  const ShapeTerms& get(const ServingContext& c, const Parallel& p);
};

/** What one layout's points share: the KV link, the prefill fit, the decode worker's KV
 *  slots and a request's KV bytes. `usable` false: no point of the layout fits. */
struct DisaggTerms {
  bool usable = false;
  KvLink link;
  PrefillFit fit;
  double slots = 0.0;
  double kv_bytes_per_request = 0.0;
};
/** `c` already unmixed; `cache` may be null. */
DisaggTerms disagg_terms(const ServingContext& c, const DisaggLayout& layout, ShapeCache* cache);
/** serve_disaggregated on an unmixed context with the layout's terms computed once. */
DisaggPoint serve_disaggregated(const ServingContext& c, const DisaggLayout& layout,
                                double concurrency, const DisaggTerms& terms);

/** The pool shapes a scenario fixes (0 = chosen by the search). */
struct DisaggRequest {
  int prefill_workers = 0, prefill_tp = 0, prefill_ep = 0, prefill_dpa = 0;
  int decode_workers = 0, decode_tp = 0, decode_ep = 0, decode_dpa = 0;
};

/** Legal disaggregated layouts on `gpus` GPUs, restricted by `request`. Worker shapes are
 *  legal_layouts' instances of 1, 2, 4, ... GPUs inside one scale-up domain; a worker need not
 *  divide the domain (an NVL72 rack holds 8 prefill GPUs beside a 64-GPU wide-EP decode worker).
 *  Decode workers of a MoE model are tried with and without data-parallel attention unless
 *  decode_dpa is asked for; prefill workers use it only when asked. The P:D split is searched
 *  coarsely: 1, 2, 4, 8 ... prefill workers, decode taking the GPUs they leave. */
std::vector<DisaggLayout> disagg_layouts(const ServingContext& c, int gpus, const DisaggRequest& request);

/** Every point of the search over `layouts`: at `concurrency` when > 0, else at 1, 4, 16 ...
 *  (kSweepStep, twice the aggregated curve's step: the layouts are many) up to the decode pools'
 *  KV slots, stopping at the first step of the requests that adds under kSweepGain of
 *  throughput per GPU (that point and those past it serve fewer tokens/s per
 *  user, later first tokens and barely more throughput: the requests queue for a prefill worker
 *  or a KV slot). A bound on the search, not a figure of the model. Each layout's terms and each
 *  worker shape's are computed once. Calls `visit(point)` for each point kept that fits. */
constexpr double kSweepGain = 0.01;
constexpr double kSweepStep = 4.0;
void sweep_disaggregated(const ServingContext& c, const std::vector<DisaggLayout>& layouts,
                         double concurrency, const std::function<void(const DisaggPoint&)>& visit);

/** The best point over `layouts` and the concurrencies of sweep_disaggregated: the most
 *  throughput per GPU with tokens/s per user >= `min_tokens_per_s_per_user`, TTFT <=
 *  `ttft_max_s` and TPOT <= `tpot_max_s` (0 = no limit); `concurrency` > 0 fixes it. */
std::optional<DisaggPoint> best_disaggregated(const ServingContext& c,
                                              const std::vector<DisaggLayout>& layouts,
                                              double concurrency, double min_tokens_per_s_per_user,
                                              double ttft_max_s, double tpot_max_s);
/** Whether `pt` meets those limits. */
bool meets_limits(const DisaggPoint& pt, double min_tokens_per_s_per_user, double ttft_max_s,
                  double tpot_max_s);

/** Key `pd` on one result (disagg_result.cpp): with pd=1 the serving figures at the users, the
 *  highest-throughput point within the latency limits and the point at the interactivity
 *  target become the best disaggregated layout's on `deployed_gpus` GPUs; with pd=auto each
 *  becomes it only where it serves more tokens per deployed GPU. Per-GPU figures divide by the
 *  deployed GPUs (what is paid for); `r.pd_layout` names the layout of the figures at the users,
 *  and the warnings pd_max_throughput / pd_at_speed say that those points are disaggregated.
 *  A scenario whose pools fit no layout gets the warning pd_no_layout (pd=1). */
void apply_disaggregated(const ServingContext& c, const Scenario& s, int deployed_gpus,
                         bool with_curve, OfferingResult& r);

}  // namespace gpucalc
