#include "evaluate/performance.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "model/disagg.hpp"
#include "model/serving.hpp"
#include "gpucalc/error_bands.hpp"
#include "gpucalc/serving_calibration.hpp"
#include "model/throughput.hpp"
#include "model/training.hpp"
#include "gpucalc/units.hpp"
#include "evaluate/markers.hpp"
#include "evaluate/provenance.hpp"

namespace gpucalc {

namespace {

using Inputs = std::vector<std::pair<std::string, double>>;

/** An offering as deployed: its catalog entry and the GPUs of all its servers. */
struct Deployed {
  const Offering& unit;
  int gpu_count;
};

void trace(OfferingResult& r, const char* field, const char* formula, Inputs inputs,
           std::string note = {}) {
  r.trace.push_back(TraceEntry{field, formula, std::move(inputs), std::move(note)});
}

void trace_rates(OfferingResult& r, const Rates& rates, const ModelConstants& k,
                 const std::string& label) {
  trace(r, "rates",
        "matmul_flops_per_s = achieved x matmul_fraction; hbm_bytes_per_s = achieved x hbm_fraction",
        {{"math_precision_index", static_cast<double>(index_of(rates.math))},
         {"achieved_matmul_flops_per_s", rates.matmul_flops_per_s},
         {"achieved_matmul_fraction_of_peak", rates.matmul_fraction_of_peak},
         {"matmul_fraction", k.matmul_fraction},
         {"achieved_hbm_bytes_per_s", rates.hbm_bytes_per_s},
         {"achieved_hbm_fraction_of_peak", rates.hbm_fraction_of_peak},
         {"hbm_fraction", k.hbm_fraction},
         {"allreduce_bus_bytes_per_s", rates.allreduce_bus_bytes_per_s}},
        std::string("math in ") + precision_name(rates.math) + "; rates: " + label);
}

/** US$ per million output tokens at the offering's maximum throughput. */
void set_usd_per_million_tokens(const Scenario& s, bool with_trace, OfferingResult& r) {
  if (r.price_usd_per_month && r.max_throughput_tokens_per_s) {
    r.usd_per_million_tokens =
        usd_per_million_tokens(*r.price_usd_per_month, *r.max_throughput_tokens_per_s, s.utilization);
    if (with_trace) {
      trace(r, "usd_per_million_tokens",
            "usd_per_million_tokens = price_usd_per_month / (max_throughput_tokens_per_s x 3600 x "
            "730 x utilization) x 1e6",
            {{"price_usd_per_month", *r.price_usd_per_month},
             {"max_throughput_tokens_per_s", *r.max_throughput_tokens_per_s},
             {"utilization", s.utilization}});
    }
  }
}

/** A projected part was never measured: its band says so (no points, no percentiles) instead of
 *  borrowing a measured group's error. */
std::shared_ptr<const std::vector<ErrorBand>> no_measurement_bands(const Gpu& gpu) {
  auto bands = std::make_shared<std::vector<ErrorBand>>();
  for (const char* metric : {"interactivity", "throughput_per_gpu", "ttft"}) {
    ErrorBand b;
    b.metric = metric;
    b.group = gpu.id + " (projected)";
    b.basis = "no measurement: " + gpu.id + " is a projected part (vendor claims only); no error can be stated";
    b.gpu_unmeasured = true;
    bands->push_back(std::move(b));
  }
  return bands;
}

ServingCurveEntry curve_entry(const ServingPoint& p, double usd_per_mtok) {
  ServingCurveEntry e;
  e.tokens_per_s_per_user = p.tokens_per_s_per_user;
  e.total_tokens_per_s_per_gpu = p.total_tokens_per_s_per_gpu;
  e.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu;
  e.ttft_s = p.ttft_s;
  e.ttft_median_s = p.ttft_median_s;
  e.tpot_s = p.tpot_s;
  e.usd_per_million_tokens = usd_per_mtok;
  e.tp = p.par.gpus();
  e.ep = p.par.ep * p.par.servers;
  e.dpa = p.par.dpa;
  e.users = p.users_per_instance * p.replicas;
  e.replicas = p.replicas;
  e.gpus = p.par.gpus() * p.replicas;
  e.layout = pool_code(p.replicas, p.par);
  return e;
}

void trace_step(OfferingResult& r, const char* field, const StepBreakdown& b, const char* what) {
  trace(r, field,
        "step_s = gemm_latency + weights + experts + compute + attention + small_kernels + "
        "allreduce + alltoall + engine + mtp_draft; engine = step overhead + per-request work (with "
        "data-parallel attention: dpa_sequence_overhead_s per token each rank verifies); gemm = kernels "
        "x latency + max(weight bytes / stream rate, FLOPs / matmul rate) per layer",
        {{"gemm_latency_s", b.gemm_latency_s},
         {"weights_s", b.weights_s},
         {"experts_s", b.experts_s},
         {"compute_s", b.compute_s},
         {"attention_s", b.attention_s},
         {"small_kernels_s", b.small_kernels_s},
         {"allreduce_s", b.allreduce_s},
         {"alltoall_s", b.alltoall_s},
         {"scale_out_s", b.scale_out_s},
         {"engine_s", b.engine_s},
         {"mtp_draft_s", b.mtp_draft_s},
         {"step_s", b.total_s},
         {"weight_bytes_per_gpu", b.weight_bytes_per_gpu},
         {"kv_bytes_per_gpu", b.kv_bytes_per_gpu},
         {"flops_per_gpu", b.flops_per_gpu},
         {"experts_touched_per_layer", b.experts_touched_per_layer}},
        what);
}

/** The client's view at the scenario's users: the layout the serving search picks for them (of
 *  those whose KV slots hold the users per instance, the lowest decode step: at a fixed number
 *  of users the fastest step is also the most tokens per second), then the closed loop once;
 *  empty when it does not fit. Instances beyond the users' count stay idle: the per-GPU figures
 *  count the busy ones only (one user on nine replicas is one user's tokens). */
std::optional<ServingPoint> serve_at_users(const ServingContext& c, const std::vector<Parallel>& layouts,
                                           int gpu_count, long long users) {
  const Parallel* pick = nullptr;
  double per_instance = 0.0, pick_sequences = 0.0;
  bool pick_holds = false;
  StepBreakdown pick_step;  // computed only when there are layouts to compare
  for (const Parallel& p : layouts) {
    const int replicas = gpu_count / p.gpus();
    const double u = std::ceil(static_cast<double>(users) / replicas);
    const double seqs = max_sequences(c, p);
    const bool holds = u <= seqs;
    if (pick != nullptr && pick_holds && !holds) continue;
    // One layout is the pick whatever its step costs.
    const StepBreakdown step =
        layouts.size() == 1
            ? StepBreakdown{}
            : step_cost(c, p, std::max(1.0, std::min(u, seqs)), 1.0 + c.mtp_draft_tokens,
                        c.input_tokens + c.output_tokens / 2.0, true);
    if (pick == nullptr || (holds && !pick_holds) || step.total_s < pick_step.total_s) {
      pick = &p;
      pick_step = step;
      per_instance = u;
      pick_sequences = seqs;
      pick_holds = holds;
    }
  }
  if (pick != nullptr) {
    const int replicas = gpu_count / pick->gpus();
    const PrefillFit fit = prefill_fit(c, *pick);
    // serve() would take the same step again (the same sequences, query and context) where
    // the engine does not mix prefill rows into it.
    const bool same_step = layouts.size() > 1 && !c.mixes_prefill && c.output_tokens >= 1.0;
    ServingPoint pt =
        same_step ? serve(c, *pick, replicas, per_instance, fit, pick_sequences, pick_step)
                  : serve(c, *pick, replicas, per_instance, fit, pick_sequences);
    if (pt.fits) {
      count_deployed_gpus(pt, gpu_count);  // idle GPUs of a wide instance are paid for
      if (users < replicas) {              // replicas without a user serve nothing
        const double busy = static_cast<double>(users) / replicas;
        pt.output_tokens_per_s_per_gpu *= busy;
        pt.total_tokens_per_s_per_gpu *= busy;
        pt.output_tokens_per_s *= busy;
      }
      return pt;
    }
  }
  return std::nullopt;
}

/** The time a step spends across servers and how the result says it: wide expert parallelism
 *  over RDMA (the network's all-to-all figures), the plain expert all-to-all, or pipeline. */
void set_scale_out(const Model& model, const ServingContext& c, const ServingPoint& u, bool with_trace,
                   OfferingResult& r) {
  const bool rdma = rdma_wide_ep(c, u.par);
  r.scale_out_s = rdma ? u.decode.alltoall_s : u.decode.scale_out_s;
  r.scale_out_strategy = model.is_moe() ? "expert_parallel" : "pipeline";
  if (!with_trace) return;
  const char* formula =
      rdma ? "wide expert parallelism, all-to-all across servers over RDMA (DeepEP / MORI-EP "
             "figures of the network): moe_layers x (dispatch + combine), each the measured time "
             "at EP n and 128 tokens per GPU (hidden 7168, top-8), scaled down to half below that "
             "batch, plus (tokens x experts_active x hidden - the figure's) x 1 B (dispatch) or 2 B "
             "(combine) x (servers - 1) / servers / RDMA bandwidth per GPU above it"
      : model.is_moe()
          ? "expert parallel across servers: moe_layers x 2 (dispatch, combine) x (latency + running x experts_active x (servers - 1) / servers / servers x hidden x 2 B / gpus_per_server / bandwidth_per_gpu)"
          : "pipeline across servers: (servers - 1) x (latency + running x hidden x 2 B / tensor_parallel / bandwidth_per_gpu)";
  trace(r, "scale_out_s", formula,
        {{"servers_spanned", static_cast<double>(u.par.servers)},
         {"running_per_instance", u.running_per_instance},
         {"hidden_size", static_cast<double>(model.hidden_size)},
         {"tensor_parallel", static_cast<double>(u.par.tp)},
         {"bandwidth_per_gpu_bytes_per_s", c.scale_out.bytes_per_s_per_gpu},
         {"latency_s", c.scale_out.latency_s}},
        std::string(rdma ? "included in tpot_s and ttft_s; the all-to-all crosses servers (network "
                         : "included in tpot_s and ttft_s (network ") +
            r.scale_out_network + ")");
}

/** The catalog's band of a figure at `users_per_instance` under its flags (and `extra_flags`),
 *  shared with the catalog's table; empty without an error-bands document. */
ErrorBandList flagged_band(const Catalog& catalog, const Scenario& s, const Model& model, const Gpu& gpu,
                           const EngineProfile& e, double users_per_instance, unsigned extra_flags) {
  if (!catalog.error_bands) return ErrorBandList();
  const unsigned flags =
      band_flags(*catalog.error_bands, model.id, e.id, gpu.vendor, gpu.id, users_per_instance) | extra_flags;
  return catalog_error_band_list(catalog, gpu.vendor, s.weights, users_per_instance, flags, gpu.architecture);
}

/** The result's figures at the scenario's users (point `u`), its error band and traces. */
void set_at_users(const Catalog& catalog, const Scenario& s, const Model& model, const Gpu& gpu,
                  const EngineProfile& e, const ServingContext& c, const ServingPoint& u,
                  bool with_trace, OfferingResult& r) {
  r.ttft_s = u.ttft_s;
  r.ttft_median_s = u.ttft_median_s;
  r.tpot_s = u.tpot_s;
  r.decode_tokens_per_s_per_user = u.tokens_per_s_per_user;
  r.total_tokens_per_s_per_gpu = u.total_tokens_per_s_per_gpu;
  r.output_tokens_per_s_per_gpu = u.output_tokens_per_s_per_gpu;
  r.e2e_latency_s = u.e2e_s;
  r.serving_tensor_parallel = u.par.gpus();
  r.expert_parallel = model.is_moe() ? u.par.ep * u.par.servers : 0;
  r.serving_replicas = u.replicas;
  r.data_parallel_attention = u.par.dpa;
  if (u.par.servers > 1) set_scale_out(model, c, u, with_trace, r);
  if (u.users_per_instance > u.running_per_instance) r.warnings.emplace_back("users_exceed_kv_slots");
  if (u.running_per_instance > e.graph_max_batch) r.warnings.emplace_back("batch_exceeds_cuda_graph");
  r.error_band = c.serving_calibration
                     ? ErrorBandList(c.serving_calibration->band)
                     : flagged_band(catalog, s, model, gpu, e, u.users_per_instance, 0);
  if (gpu.projected && !c.serving_calibration) r.error_band = ErrorBandList(no_measurement_bands(gpu));
  if (with_trace) {
    trace_step(r, "tpot_s", u.decode,
               "decode step at the users per instance, mean context input + output / 2; "
               "tpot = step / MTP tokens per step + prefill pauses: (running / prefill "
               "batch) x prefill_s / output");
    trace(r, "tpot_terms",
          "tpot_s = step_s / tokens per step + prefill pauses ((running / prefill batch) x "
          "prefill_s / output) + recompute of preempted prompts + preempted wait / (output - 1)",
          {{"step_s", u.decode.total_s},
           {"tokens_per_step", c.mtp_tokens_per_step},
           {"step_per_token_s", u.tpot_step_s},
           {"prefill_pause_s", u.tpot_prefill_pause_s},
           {"recompute_s", u.tpot_recompute_s},
           {"preempted_wait_s", u.preempted_s},
           {"preempted_s", u.tpot_preempted_s},
           {"tpot_s", u.tpot_s}});
    trace(r, "ttft_s",
          "ttft = request overhead + intake wait (the engine takes a new request in after the "
          "running step: half a step; gate_steps R > 1: R / 2 decode steps, or half a prefill) + "
          "prefill of the prompts that arrived meanwhile + wait for a KV slot; arrivals = running / "
          "max(arrival_spread_fraction x e2e, running x prefill per prompt)",
          {{"users_per_instance", u.users_per_instance},
           {"running_per_instance", u.running_per_instance},
           {"max_sequences_per_instance", u.max_sequences},
           {"request_overhead_s", c.request_overhead_s},
           {"intake_wait_s", u.intake_wait_s},
           {"gate_steps", c.gate_steps},
           {"prefill_batch_prompts", u.prefill_batch},
           {"prefill_s", u.prefill_s},
           {"queue_s", u.queue_s},
           {"arrival_spread_fraction", c.constants->arrival_spread_fraction},
           {"tensor_parallel", static_cast<double>(u.par.tp)},
           {"servers_spanned", static_cast<double>(u.par.servers)},
           {"expert_parallel", static_cast<double>(u.par.ep * u.par.servers)},
           {"data_parallel_attention", u.par.dpa ? 1.0 : 0.0},
           {"ttft_median_s", u.ttft_median_s}},  // a steady-state request: the band's statistic
          std::string("engine ") + e.name + " " + e.version + ", all-reduce " + c.allreduce_impl);
    trace(r, "decode_tokens_per_s_per_user", "decode_tokens_per_s_per_user = 1 / tpot_s",
          {{"tpot_s", u.tpot_s}});
    trace(r, "total_tokens_per_s_per_gpu",
          "running x (input + output) / e2e / instance GPUs (closed loop)",
          {{"running_per_instance", u.running_per_instance},
           {"input_tokens", c.input_tokens},
           {"output_tokens", c.output_tokens},
           {"e2e_latency_s", u.e2e_s},
           {"instance_gpus", static_cast<double>(u.par.gpus())}});
  }
}

/** The index into r.curve_error_bands of the band of a point at `users_per_instance` (users per
 *  decode worker for a disaggregated one, `extra_flags` kBandDisaggregated), added there once:
 *  a projected GPU's rests on no measurement, a serving calibration's is its own cross-validated
 *  error (aggregated runs: a disaggregated point gets none, -1), else flagged_band(). -1: none. */
int curve_band_index(const Catalog& catalog, const Scenario& s, const Model& model, const Gpu& gpu,
                     const EngineProfile& e, const ServingContext& c, double users_per_instance,
                     unsigned extra_flags, OfferingResult& r) {
  if (gpu.projected && !c.serving_calibration) {
    if (r.curve_error_bands.empty()) r.curve_error_bands.emplace_back(no_measurement_bands(gpu));
    return 0;
  }
  if (c.serving_calibration) {  // the calibration's cross-validated error, one band for all
    if (extra_flags != 0) return -1;
    if (r.curve_error_bands.empty()) r.curve_error_bands.emplace_back(c.serving_calibration->band);
    return 0;
  }
  ErrorBandList b = flagged_band(catalog, s, model, gpu, e, users_per_instance, extra_flags);
  if (b.empty()) return -1;
  for (std::size_t i = 0; i < r.curve_error_bands.size(); ++i) {
    if (&r.curve_error_bands[i].items() == &b.items()) return static_cast<int>(i);
  }
  r.curve_error_bands.push_back(std::move(b));
  return static_cast<int>(r.curve_error_bands.size()) - 1;
}

/** The serving curve over every legal layout, the highest throughput within the latency
 *  limits, the point at the chosen speed per user, each with the band of its users per
 *  instance, and the measured runs drawn beside them. */
void set_curve(const Catalog& catalog, const Scenario& s, const Model& model, const Gpu& gpu,
               const EngineProfile& e, const ServingContext& c, const Deployed& offering,
               std::vector<Parallel> layouts, bool with_trace, OfferingResult& r) {
  r.measured_points = detail::measured_markers(catalog, s, model, gpu.id, e.id, c.serving_calibration.get());
  const double price = r.price_usd_per_month ? *r.price_usd_per_month : 0.0;
  // Each point's band by its own users per instance; the few distinct bands are kept once.
  auto band_index = [&](double users_per_instance) {
    return curve_band_index(catalog, s, model, gpu, e, c, users_per_instance, 0, r);
  };
  const std::vector<LayoutTerms> terms = layout_terms(c, layouts);  // shared by the searches
  const auto best = best_within(c, offering.gpu_count, layouts, terms,
                                ServingTargets{s.ttft_max_s, s.tpot_max_s, 0.0});
  if (best) {
    r.max_throughput_tokens_per_s = best->output_tokens_per_s;
    r.max_throughput_point = curve_entry(
        *best, price > 0.0 ? usd_per_million_tokens(price, best->output_tokens_per_s, s.utilization) : 0.0);
    r.max_throughput_point->error_band_index = band_index(best->users_per_instance);
    if (with_trace) {
      trace(r, "max_throughput_tokens_per_s",
            "largest replicas x running x output / e2e over legal layouts (tp, ep, dpa) and "
            "users per instance (up to the engine's KV pool) whose TTFT <= ttft_max and TPOT "
            "<= tpot_max",
            {{"gpus_per_instance", static_cast<double>(best->par.gpus())},
             {"expert_parallel", static_cast<double>(best->par.ep * best->par.servers)},
             {"replicas", static_cast<double>(best->replicas)},
             {"users_per_instance", best->users_per_instance},
             {"max_sequences_per_instance", best->max_sequences},
             {"ttft_s", best->ttft_s},
             {"tpot_s", best->tpot_s},
             {"ttft_max_s", s.ttft_max_s},
             {"tpot_max_s", s.tpot_max_s}});
      trace_step(r, "max_throughput_step", best->decode, "decode step at the best point");
    }
  } else {
    r.warnings.emplace_back(s.ttft_max_s > 0.0 || s.tpot_max_s > 0.0 ? "latency_limits_unmet"
                                                                      : "no_split_fits_for_throughput");
  }
  for (const CurvePoint& cp :
       serving_curve(c, offering.gpu_count, layouts, terms, price, s.utilization)) {
    r.curve.push_back(curve_entry(cp.point, cp.usd_per_million_tokens));
    r.curve.back().error_band_index = band_index(cp.point.users_per_instance);
  }
  if (s.interactivity > 0.0) {
    // The operating point at the target keeps within ttft_max (a point whose first token
    // comes later than the scenario allows is not one to run at).
    const auto at = best_within(c, offering.gpu_count, layouts, terms,
                                ServingTargets{s.ttft_max_s, 0.0, s.interactivity});
    if (at) {
      r.interactivity_point = curve_entry(
          *at, price > 0.0 ? usd_per_million_tokens(price, at->output_tokens_per_s, s.utilization) : 0.0);
      r.interactivity_point->error_band_index = band_index(at->users_per_instance);
    } else {
      r.warnings.emplace_back("interactivity_unreachable");
    }
  }
}

/** The bands of the result's disaggregated figures (key pd): each its cell at the users one
 *  decode worker holds, widened by the disaggregated flag (validation-disagg.json's folds, on
 *  the GPU's architecture) on top of the scenario's own flags (curve_band_index). */
void set_disaggregated_bands(const Catalog& catalog, const Scenario& s, const Model& model, const Gpu& gpu,
                             const EngineProfile& e, const ServingContext& c, OfferingResult& r) {
  const auto index_of = [&](double users, int decode_workers) {
    return curve_band_index(catalog, s, model, gpu, e, c, users / std::max(1, decode_workers),
                            kBandDisaggregated, r);
  };
  if (!r.pd_layout.empty() && !c.serving_calibration) {
    r.error_band = gpu.projected ? ErrorBandList(no_measurement_bands(gpu))
                                 : flagged_band(catalog, s, model, gpu, e,
                                                static_cast<double>(s.users) / std::max(1, r.decode_workers),
                                                kBandDisaggregated);
  }
  for (ServingCurveEntry& p : r.curve) {
    if (p.disaggregated) p.error_band_index = index_of(p.users, p.decode.workers);
  }
  for (auto* p : {&r.max_throughput_point, &r.interactivity_point}) {
    if (*p && (*p)->disaggregated) (*p)->error_band_index = index_of((*p)->users, (*p)->decode.workers);
  }
}

void estimate_inference(const Catalog& catalog, const Scenario& s, const Model& model,
                        const Gpu& gpu, const Deployed& offering, bool with_trace, bool with_curve,
                        const EngineProfile* selected, OfferingResult& r) {
  if (selected == nullptr) {
    auto engine = select_engine(catalog_engines(catalog), s.engine, gpu, model);
    if (!engine) {  // evaluate() rejects this before; keep the figures empty if it slips through
      r.warnings.emplace_back("engine_unavailable");
      return;
    }
    selected = engine.value();
  }
  const EngineProfile& e = *selected;
  // The fit (evaluate) summed the same weights, weight_bytes(model, s.weights, gpu): its
  // figure, not a second sum; a result without a fit gets the sum.
  const double weights_bytes = r.fit.weights_bytes > 0.0 ? r.fit.weights_bytes
                                                         : weight_bytes(model, s.weights, gpu);
  ServingContext c = make_serving_context(catalog, s, model, gpu, e, "", weights_bytes);
  const Network* network = catalog.scale_out_of(offering.unit);
  if (network != nullptr) c.scale_out = make_scale_out_link(*network, std::max(1, r.gpu_count), r.servers);
  detail::set_rates_provenance(r, c.rates, catalog, gpu);
  if (c.serving_calibration) {  // measured runs of this GPU and engine corrected the model
    r.rates_source = RatesSource::kCalibratedServing;
    r.calibration_device = c.serving_calibration->id;
    r.calibration_date = c.serving_calibration->date;
  }
  r.engine = e.id;
  r.engine_version = e.version;
  if (!(c.matmul_flops_per_s > 0.0) || !(c.dense_stream_bytes_per_s > 0.0) ||
      model.hidden_size <= 0) {
    r.warnings.emplace_back("no_rates");
    return;
  }
  // The curve and the searches range over every legal layout (or the scenario's tp).
  std::vector<Parallel> layouts = legal_layouts(c, offering.gpu_count, s.tp, s.ep, s.dpa ? 1 : 0);
  // The client's view at the scenario's users: the fit's instance where its replicas fill the
  // offering (one copy over the largest legal instance, seed 002); where it would leave GPUs
  // idle (a wide instance on a 72-GPU domain) or holds no layout, the layout the serving search
  // picks of every legal one. The fit then describes that deployment (evaluate.cpp).
  const int fit_gpus = std::max(1, r.fit.deployment.gpus);
  std::vector<Parallel> at_users_layouts;
  if (s.tp == 0 && offering.gpu_count % fit_gpus == 0) {
    at_users_layouts = legal_layouts(c, offering.gpu_count, r.fit.deployment.tensor_parallel, s.ep, s.dpa ? 1 : 0);
  }
  const std::vector<Parallel>& at_users_from = at_users_layouts.empty() ? layouts : at_users_layouts;
  if (layouts.empty()) {
    // Nothing fits even across the offering's servers (separate VMs without a network, or a
    // model larger than every unit): no figure; the warnings say why (the fit says by how much).
    if (with_trace) trace_rates(r, c.rates, *c.constants, rates_label(c.rates, catalog, gpu));
    r.warnings.emplace_back("no_split_fits_for_throughput");
    r.warnings.emplace_back("latency_needs_fit");
    return;
  }
  if (with_trace) trace_rates(r, c.rates, *c.constants, rates_label(c.rates, catalog, gpu));
  if (c.kernels_estimated) r.warnings.emplace_back("kernel_latency_estimated");

  // The layout with the lowest decode step that holds the users, then the closed loop once.
  const std::optional<ServingPoint> at_users = serve_at_users(c, at_users_from, offering.gpu_count, s.users);
  if (at_users) {
    set_at_users(catalog, s, model, gpu, e, c, *at_users, with_trace, r);
  } else {
    r.warnings.emplace_back("latency_needs_fit");
  }

  if (!with_curve) {
    apply_disaggregated(c, s, offering.gpu_count, false, r);  // key pd
    set_disaggregated_bands(catalog, s, model, gpu, e, c, r);
    return;
  }
  set_curve(catalog, s, model, gpu, e, c, offering, std::move(layouts), with_trace, r);
  apply_disaggregated(c, s, offering.gpu_count, true, r);  // key pd
  set_disaggregated_bands(catalog, s, model, gpu, e, c, r);
  set_usd_per_million_tokens(s, with_trace, r);
}

void estimate_training_result(const Catalog& catalog, const Scenario& s, const Model& model,
                              const Gpu& gpu, const Deployed& offering, bool with_trace,
                              OfferingResult& r) {
  const ModelConstants& k = *catalog.constants;  // evaluate() checked it is there
  const Network* network = catalog.scale_out_of(offering.unit);
  if (network == nullptr && r.servers > 1) {
    r.warnings.emplace_back("not_stackable");  // no network between the units to train over
    return;
  }
  ScaleOutLink link;
  if (network != nullptr) link = make_scale_out_link(*network, std::max(1, r.gpu_count), r.servers);
  const TrainingEstimate t = estimate_training(catalog, s, model, gpu, offering.gpu_count,
                                               r.fit.capacity_bytes_per_gpu, k, link);
  detail::set_rates_provenance(r, t.rates, catalog, gpu);
  if (!(t.tokens_per_s > 0.0) || !std::isfinite(t.tokens_per_s)) {
    r.warnings.emplace_back("no_rates");
    return;
  }
  r.train_memory_bytes_per_gpu = t.memory_bytes_per_gpu;
  r.train_memory_parts = t.parts;
  r.train_tokens_per_s = t.tokens_per_s;
  r.train_hours = t.hours;
  // One optimizer step per global batch: micro-batch sequences of `seq` tokens on each
  // data-parallel replica (no gradient accumulation key).
  const double tokens_per_step =
      static_cast<double>(s.seq_tokens) * std::max(1, s.micro_batch) * std::max(1, t.data_parallel);
  r.train_steps = std::ceil(s.train_tokens / tokens_per_step);
  r.gpu_hours = t.gpu_hours;
  if (!t.fits) r.warnings.emplace_back("training_does_not_fit");
  if (with_trace) {
    trace_rates(r, t.rates, k, t.rates.label);
    trace(r, "train_memory_bytes_per_gpu",
          "state (mixed-precision Adam 16 B/param: weights 2 + gradients 2 + optimizer 12, sharded "
          "by ZeRO stage over data parallel, split by TP; LoRA: frozen base + adapters) + "
          "activations (Korthikanti et al.: s x b x h x (34 + 5 a s / h) per layer, 34 with "
          "selective, 2 with full recomputation, / TP) + reserve",
          {{"tensor_parallel", static_cast<double>(t.deployment.tensor_parallel)},
           {"data_parallel", static_cast<double>(t.data_parallel)},
           {"zero_stage", static_cast<double>(s.zero_stage)},
           {"trainable_params", t.trainable_params},
           {"state_bytes_per_gpu", t.state_bytes_per_gpu},
           {"activation_bytes_per_gpu", t.activation_bytes_per_gpu},
           {"reserve_bytes_per_gpu", s.reserve_gb_per_gpu * kBytesPerGB},
           {"capacity_bytes_per_gpu", r.fit.capacity_bytes_per_gpu}});
    trace(r, "train_tokens_per_s",
          "1 / (flops_per_token / (gpus x matmul_rate) + bytes_per_token / (gpus x hbm_rate) + "
          "comm_s_per_token); flops_per_token = 6 x active params (4 for LoRA, +2 with full "
          "recomputation) + attention 3x forward (+1 recomputed)",
          {{"gpus", static_cast<double>(offering.gpu_count)},
           {"flops_per_token", t.flops_per_token},
           {"bytes_per_token", t.bytes_per_token},
           {"comm_s_per_token", t.comm_s_per_token},
           {"matmul_rate_flops_per_s", t.rates.matmul_flops_per_s * k.matmul_fraction},
           {"hbm_rate_bytes_per_s", t.rates.hbm_bytes_per_s * k.hbm_fraction}});
    trace(r, "train_hours", "train_hours = train_tokens / train_tokens_per_s / 3600",
          {{"train_tokens", s.train_tokens}, {"train_tokens_per_s", t.tokens_per_s}});
    trace(r, "train_steps", "train_steps = ceil(train_tokens / (seq x micro_batch x data_parallel))",
          {{"train_tokens", s.train_tokens}, {"seq_tokens", static_cast<double>(s.seq_tokens)},
           {"micro_batch", static_cast<double>(std::max(1, s.micro_batch))},
           {"data_parallel", static_cast<double>(std::max(1, t.data_parallel))}});
    trace(r, "gpu_hours", "gpu_hours = train_hours x gpus",
          {{"train_hours", t.hours}, {"gpus", static_cast<double>(offering.gpu_count)}});
  }
  if (r.price_usd_per_month) {
    const double usd_per_hour = *r.price_usd_per_month / kHoursPerMonth;
    RunCostInputs in;
    in.recovery_fraction = s.recovery_fraction;
    in.storage_usd = s.storage_usd;
    in.network_usd = s.network_usd;
    in.software_usd = s.software_usd;
    in.engineering_usd = s.engineering_usd;
    in.porting_usd = s.porting_usd;
    in.porting_applies = gpu.vendor == "amd";
    // A catalog price listed per GPU-hour bills the hours; any other price is a monthly plan.
    const bool price_overridden = r.unit_price_usd_per_month != offering.unit.price_usd_per_month;
    in.billed_monthly = !offering.unit.listed_usd_per_gpu_hour || price_overridden;
    r.run_cost_usd = run_cost_usd(t.hours, usd_per_hour, in);
    if (in.billed_monthly) r.billed_months = billed_months(t.hours, in.recovery_fraction);
    if (with_trace) {
      trace(r, "run_cost_usd",
            "run_cost_usd = train_hours x usd_per_hour x (1 + recovery) + storage + network + "
            "software + engineering (+ porting on AMD) (seed 000)",
            {{"train_hours", t.hours},
             {"usd_per_hour", usd_per_hour},
             {"recovery_fraction", s.recovery_fraction},
             {"storage_usd", s.storage_usd},
             {"network_usd", s.network_usd},
             {"software_usd", s.software_usd},
             {"engineering_usd", s.engineering_usd},
             {"porting_usd", in.porting_applies ? s.porting_usd : 0.0}},
            in.billed_monthly ? "billed by the month: train_hours x usd_per_hour x (1 + recovery) becomes "
                                "ceil(train_hours x (1 + recovery) / 730) months x price_usd_per_month; "
                                "usd_per_hour = price_usd_per_month / 730"
                              : "usd_per_hour = price_usd_per_month / 730");
    }
  }
}

}  // namespace

void estimate_performance(const Catalog& catalog, const Scenario& scenario, const Model& model,
                          const Gpu& gpu, const Offering& unit, int deployed_gpus, bool with_trace,
                          bool with_curve, OfferingResult& result) {
  estimate_performance(catalog, scenario, model, gpu, unit, deployed_gpus, with_trace, with_curve,
                       nullptr, result);
}

void estimate_performance(const Catalog& catalog, const Scenario& scenario, const Model& model,
                          const Gpu& gpu, const Offering& unit, int deployed_gpus, bool with_trace,
                          bool with_curve, const EngineProfile* engine, OfferingResult& result) {
  const Deployed offering{unit, deployed_gpus};
  if (model.layers <= 0 || model.hidden_size <= 0 || offering.gpu_count < 1) return;
  if (scenario.workload == Workload::kInference) {
    estimate_inference(catalog, scenario, model, gpu, offering, with_trace, with_curve, engine,
                       result);
  } else {
    estimate_training_result(catalog, scenario, model, gpu, offering, with_trace, result);
  }
}

}  // namespace gpucalc
