// Disaggregated prefill/decode serving (disagg.hpp): the serving step model's prefill and
// decode costs on two pools, the KV moved between them, and the closed loop over both.
#include "model/disagg.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "catalog/decimal.hpp"
#include "gpucalc/memory.hpp"

namespace gpucalc {

namespace {

/** Fixed-point rounds of the closed loop (arrivals -> prefill batch -> latency -> arrivals);
 *  the aggregated loop (serving.cpp) takes three, the queueing term here a few more. */
constexpr int kLoopRounds = 8;
/** ... or until TTFT moves by under 0.1 % in a round (the loop has settled; the decode rounds
 *  below stop at the same share). */
constexpr double kLoopTolerance = 1e-3;
/** Prefill worker sizes the layout search tries (disagg_layouts). */
constexpr int kPrefillSizes = 1;
/** Rounds of the decode batch against the loop's rate (Little's law, serve_disaggregated): they
 *  stop once the step moves by under 0.1 %, or after this many. */
constexpr int kDecodeRounds = 3;

}  // namespace

double prefill_worker_fraction(const ServingContext& c) {
  const double own = c.engine != nullptr ? c.engine->disagg_prefill_fraction : -1.0;
  return own > 0.0 ? own : c.constants->prefill_worker_fraction;
}

ServingContext unmixed(const ServingContext& c) {
  ServingContext u = c;
  u.mixes_prefill = false;
  return u;
}

ShapeTerms shape_terms(const ServingContext& c, const Parallel& p) {
  ShapeTerms t;
  t.shape = p;
  t.max_sequences = max_sequences(c, p);
  if (t.max_sequences >= 1.0) t.fit = prefill_fit(c, p);
  return t;
}

const ShapeTerms& ShapeCache::get(const ServingContext& c, const Parallel& p) {
  for (const ShapeTerms& t : shapes) {
    if (t.shape.tp == p.tp && t.shape.ep == p.ep && t.shape.dpa == p.dpa && t.shape.servers == p.servers) return t;
  }
  shapes.push_back(shape_terms(c, p));
  return shapes.back();
}

std::string pool_code(int workers, const Parallel& p) {
  // Written into a buffer (catalog/decimal.hpp) and made a string once: in the WASM module
  // std::to_string goes through printf, and each std::string append is a call into libc++; this
  // code, once per serving curve point, took 7 % of the page's call there.
  char buf[96];
  char* end = detail::format_integer(buf, workers);
  const auto put = [&end](const char* text, std::size_t n) {
    std::memcpy(end, text, n);
    end += n;
  };
  put("x(tp", 4);
  end = detail::format_integer(end, p.gpus());
  put(",ep", 3);
  end = detail::format_integer(end, static_cast<long long>(p.ep) * p.servers);
  if (p.dpa) put(",dpa", 4);
  if (p.rdma) put(",rdma)", 6);
  else put(")", 1);
  return std::string(buf, static_cast<std::size_t>(end - buf));
}

std::string disagg_layout_code(const DisaggLayout& l) {
  return pool_code(l.prefill_workers, l.prefill) + '+' + pool_code(l.decode_workers, l.decode);
}

KvLink kv_link(const ServingContext& c, const DisaggLayout& l) {
  KvLink k;
  // Every GPU of the prefill worker sends its share; the slower side sets the pace.
  const double senders = std::max(1, std::min(l.prefill.gpus(), l.decode.gpus()));
  if (l.gpus() <= c.gpu->scale_up_gpus()) {
    // The marketed per-GPU figure counts both directions (data/gpus.json note).
    k.bytes_per_s = 0.5 * c.gpu->interconnect.per_gpu_bandwidth_bytes_per_s * senders;
    k.latency_s = c.allreduce_latency_s;
    k.scale_up = true;
  } else if (c.scale_out.bytes_per_s_per_gpu > 0.0) {
    k.bytes_per_s = c.scale_out.bytes_per_s_per_gpu * senders;
    k.latency_s = c.scale_out.latency_s;
  }
  k.bytes_per_s *= c.constants->kv_transfer_fraction;
  return k;
}

DisaggTerms disagg_terms(const ServingContext& c, const DisaggLayout& l, ShapeCache* cache) {
  DisaggTerms t;
  t.link = kv_link(c, l);
  if (!(t.link.bytes_per_s > 0.0)) return t;
  const ShapeTerms* pre = cache != nullptr ? &cache->get(c, l.prefill) : nullptr;
  const ShapeTerms own_pre = pre != nullptr ? ShapeTerms{} : shape_terms(c, l.prefill);
  if (pre == nullptr) pre = &own_pre;
  if (pre->max_sequences < 1.0) return t;  // the prefill worker holds the weights
  t.fit = pre->fit;
  t.slots = cache != nullptr ? cache->get(c, l.decode).max_sequences : max_sequences(c, l.decode);
  if (t.slots < 1.0) return t;
  Deployment whole;  // one request's KV over the whole model (every head, every layer)
  t.kv_bytes_per_request = kv_bytes_per_sequence_per_gpu(*c.model, c.kv, whole, c.input_tokens);
  t.usable = true;
  return t;
}

DisaggPoint serve_disaggregated(const ServingContext& given, const DisaggLayout& l,
                                double concurrency) {
  const ServingContext c = unmixed(given);
  return serve_disaggregated(c, l, concurrency, disagg_terms(c, l, nullptr));
}

DisaggPoint serve_disaggregated(const ServingContext& c, const DisaggLayout& l, double concurrency,
                                const DisaggTerms& terms) {
  DisaggPoint pt;
  pt.layout = l;
  pt.concurrency = concurrency;
  if (concurrency < 1.0 || l.prefill_workers < 1 || l.decode_workers < 1 || !terms.usable) return pt;
  const KvLink& link = terms.link;
  const double slots = terms.slots;

  const double in = c.input_tokens, out = std::max(1.0, c.output_tokens);
  const double per_decoder = concurrency / l.decode_workers;
  // The requests a decode worker holds (its KV slots); fewer of them decode at once (below).
  const double running = std::min(per_decoder, slots);
  const double query = 1.0 + c.mtp_draft_tokens, context = in + out / 2.0;
  pt.decode = step_cost(c, l.decode, running, query, context, true);
  double step = pt.decode.total_s;
  double tpot = step / c.mtp_tokens_per_step;

  pt.kv_bytes_per_request = terms.kv_bytes_per_request;
  pt.kv_transfer_s = link.latency_s + pt.kv_bytes_per_request / link.bytes_per_s;
  pt.kv_over_scale_up = link.scale_up;

  const PrefillFit& fit = terms.fit;
  // A dedicated prefill worker runs at prefill_worker_fraction of the step model's prefill
  // (data/performance.json; validation-disagg.json re-sets it in every fold).
  const double slowdown = 1.0 / std::max(1e-3, prefill_worker_fraction(c));
  const auto prefill_s = [&](double prompts) { return prefill_time_s(c, fit, prompts) * slowdown; };
  const double workers = l.prefill_workers;
  // Saturated prefill: each worker prefills its share of the requests in flight at once.
  const double full_batch = std::max(1.0, std::ceil(std::min(concurrency, running * l.decode_workers) / workers));
  const double prefill_capacity = workers * full_batch / prefill_s(full_batch);  // requests/s

  double decode_s = (out - 1.0) * tpot;
  double batch = 1.0, pre = prefill_s(batch), wait = 0.0, rate = 0.0;
  double ttft = c.request_overhead_s + pre + pt.kv_transfer_s + step;
  for (int round = 0; round < kDecodeRounds; ++round) {
    for (int it = 0; it < kLoopRounds; ++it) {
      // Closed loop: the requests decoding finish and return as new prompts.
      rate = std::min(running * l.decode_workers / (ttft + decode_s), prefill_capacity);
      const double per_worker = rate / workers;
      batch = std::clamp(1.0 + per_worker * pre, 1.0, full_batch);
      pre = prefill_s(batch);
      const double busy = std::min(0.99, per_worker * pre / batch);
      // A prompt waits for the step in progress and for the steps queued before its own (M/D/1).
      wait = busy * pre / 2.0 + busy * busy / (2.0 * (1.0 - busy)) * pre;
      pt.prefill_utilization = busy;
      const double before = ttft;
      ttft = c.request_overhead_s + wait + pre + pt.kv_transfer_s + step;
      if (std::fabs(ttft - before) <= kLoopTolerance * ttft) break;  // settled
    }
    // Little's law: a decode worker's batch is the completions per second times the time a
    // request spends decoding. The rest of the requests it holds are waiting for a prefill
    // worker, being prefilled or moving their KV, outside the batch; so a prefill-bound
    // deployment decodes smaller batches, at shorter steps.
    const double decoding = std::clamp(rate * (decode_s + step) / l.decode_workers, 1.0, running);
    const StepBreakdown b = step_cost(c, l.decode, decoding, query, context, true);
    const bool settled = std::fabs(b.total_s - step) <= 1e-3 * step;
    pt.decode = b;
    step = b.total_s;
    tpot = step / c.mtp_tokens_per_step;
    decode_s = (out - 1.0) * tpot;
    if (settled) break;
  }
  pt.first_decode_step_s = step;
  // When the prefill pool is the bottleneck the loop runs at its capacity: the rest of each
  // request's cycle is spent waiting for a prefill worker.
  const double cycle = running * l.decode_workers / rate;
  if (cycle > ttft + decode_s) wait += cycle - (ttft + decode_s);
  ttft = c.request_overhead_s + wait + pre + pt.kv_transfer_s + step;
  if (per_decoder > running) pt.slot_queue_s = (per_decoder - running) / running * (ttft + decode_s);

  pt.prefill_s = pre;
  pt.prefill_batch = batch;
  pt.prefill_queue_s = wait;
  pt.tpot_s = tpot;
  pt.ttft_s = ttft + pt.slot_queue_s;
  pt.e2e_s = pt.ttft_s + decode_s;
  pt.tokens_per_s_per_user = 1.0 / tpot;
  const double gpus = l.gpus();
  pt.output_tokens_per_s = rate * out;
  pt.output_tokens_per_s_per_gpu = rate * out / gpus;
  pt.total_tokens_per_s_per_gpu = rate * (in + out) / gpus;
  pt.fits = true;
  return pt;
}

namespace {

/** Of one worker size's variants (expert split, DP attention), the ones the search keeps, picked
 *  as the aggregated search picks its split (the lowest step, serve_at_users): for prefill the
 *  shortest prefill of a full chunk; for decode the shortest step at one sequence and the most
 *  sequences per second at the worker's KV slots (the two ends of its curve). */
std::vector<Parallel> keep_variants(const ServingContext& u, const std::vector<Parallel>& v, bool prefill) {
  if (v.size() <= 1) return v;
  const double query = 1.0 + u.mtp_draft_tokens, context = u.input_tokens + u.output_tokens / 2.0;
  std::size_t first = 0, second = 0;
  double best_first = 0.0, best_second = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double a = 0.0, b = 0.0;  // lower is better, higher is better
    if (prefill) {
      const double prompts = std::max(1.0, u.chunk_tokens / std::max(1.0, u.input_tokens));
      a = prefill_time_s(u, prefill_fit(u, v[i]), prompts);
    } else {
      const double slots = std::max(1.0, max_sequences(u, v[i]));
      a = step_cost(u, v[i], 1.0, query, context, true).total_s;
      b = slots / step_cost(u, v[i], slots, query, context, true).total_s;
    }
    if (i == 0 || a < best_first) best_first = a, first = i;
    if (i == 0 || b > best_second) best_second = b, second = i;
  }
  if (prefill || first == second) return {v[first]};
  return {v[first], v[second]};
}

/** One pool's worker shapes: legal_layouts' instances of n GPUs for n = 1, 2, 4 ... inside the
 *  domain (or the asked tp), with data-parallel attention both ways when `search_dpa`, each
 *  size's variants narrowed by keep_variants; at most `sizes` sizes from the smallest that holds
 *  the model (0: all). */
std::vector<Parallel> pool_shapes(const ServingContext& u, int domain, int tp, int ep, int dpa,
                                  bool search_dpa, int sizes, bool prefill) {
  std::vector<Parallel> out;
  int smallest = 0;
  auto add = [&](int n) {
    std::vector<Parallel> v = legal_layouts(u, n, n, ep, dpa);
    if (search_dpa && dpa == 0) {
      for (const Parallel& p : legal_layouts(u, n, n, ep, 1)) v.push_back(p);
    }
    for (const Parallel& p : keep_variants(u, v, prefill)) out.push_back(p);
  };
  if (tp > 0) {
    if (tp <= domain) add(tp);
  } else {
    for (int n = 1; n <= domain; n *= 2) {
      if (sizes > 0 && smallest > 0 && n >= smallest << sizes) break;
      const std::size_t before = out.size();
      add(n);
      if (smallest == 0 && out.size() > before) smallest = n;
    }
  }
  return out;
}

}  // namespace

std::vector<DisaggLayout> disagg_layouts(const ServingContext& c, int gpus, const DisaggRequest& q) {
  std::vector<DisaggLayout> out;
  const int domain = std::min(gpus, c.gpu->scale_up_gpus());
  // Prefill is compute-bound: its GPUs, not its workers' size, set its rate, so prefill workers
  // take the smallest size that holds the model (the search's bound; prefill_tp asks for another).
  const ServingContext u = unmixed(c);
  const std::vector<Parallel> prefill =
      pool_shapes(u, domain, q.prefill_tp, q.prefill_ep, q.prefill_dpa, false, kPrefillSizes, true);
  const std::vector<Parallel> decode =
      pool_shapes(u, domain, q.decode_tp, q.decode_ep, q.decode_dpa, u.model->is_moe(), 0, false);
  for (const Parallel& p : prefill) {
    for (const Parallel& d : decode) {
      const int pw_max = q.prefill_workers > 0 ? q.prefill_workers : gpus / p.gpus();
      // Prefill worker counts 1, 2, 4, 8 ...: the P:D split searched coarsely.
      for (int pw = q.prefill_workers > 0 ? q.prefill_workers : 1; pw <= pw_max; pw *= 2) {
        const int left = gpus - pw * p.gpus();
        if (left < d.gpus()) break;
        // Decode takes the GPUs prefill leaves (or the workers asked for).
        const int dw = q.decode_workers > 0 ? q.decode_workers : left / d.gpus();
        if (dw < 1 || pw * p.gpus() + dw * d.gpus() > gpus) continue;
        out.push_back(DisaggLayout{p, pw, d, dw});
      }
    }
  }
  return out;
}

bool meets_limits(const DisaggPoint& pt, double min_tokens_per_s_per_user, double ttft_max_s,
                  double tpot_max_s) {
  return pt.fits && (min_tokens_per_s_per_user <= 0.0 || pt.tokens_per_s_per_user >= min_tokens_per_s_per_user) &&
         (ttft_max_s <= 0.0 || pt.ttft_s <= ttft_max_s) && (tpot_max_s <= 0.0 || pt.tpot_s <= tpot_max_s);
}

void sweep_disaggregated(const ServingContext& given, const std::vector<DisaggLayout>& layouts,
                         double concurrency, const std::function<void(const DisaggPoint&)>& visit) {
  const ServingContext c = unmixed(given);
  ShapeCache cache;  // the pools' shapes repeat over the layouts
  for (const DisaggLayout& l : layouts) {
    const DisaggTerms terms = disagg_terms(c, l, &cache);
    if (!terms.usable) continue;
    if (concurrency > 0.0) {
      const DisaggPoint pt = serve_disaggregated(c, l, concurrency, terms);
      if (pt.fits) visit(pt);
      continue;
    }
    double last = 0.0;
    for (double n = 1.0; n <= terms.slots * l.decode_workers; n *= kSweepStep) {
      const DisaggPoint pt = serve_disaggregated(c, l, n, terms);
      if (!pt.fits) continue;
      if (last > 0.0 && pt.total_tokens_per_s_per_gpu <= last * (1.0 + kSweepGain)) break;
      visit(pt);
      last = pt.total_tokens_per_s_per_gpu;
    }
  }
}

std::optional<DisaggPoint> best_disaggregated(const ServingContext& c,
                                              const std::vector<DisaggLayout>& layouts,
                                              double concurrency, double min_tokens_per_s_per_user,
                                              double ttft_max_s, double tpot_max_s) {
  std::optional<DisaggPoint> best;
  sweep_disaggregated(c, layouts, concurrency, [&](const DisaggPoint& pt) {
    if (!meets_limits(pt, min_tokens_per_s_per_user, ttft_max_s, tpot_max_s)) return;
    // The layouts share the deployed GPUs: the most tokens over them (per GPU of the layout
    // would favour one that leaves GPUs idle).
    if (!best || pt.output_tokens_per_s > best->output_tokens_per_s) best = pt;
  });
  return best;
}

}  // namespace gpucalc
