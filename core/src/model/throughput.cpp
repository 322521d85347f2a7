#include "model/throughput.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "model/attention.hpp"
#include "model/serving.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

using Json = nlohmann::json;

bool has_peak(const Gpu& gpu, Precision p) {
  const auto& v = gpu.peak_flops_per_s[index_of(p)];
  return v.has_value() && *v > 0.0;
}

double peak_or_zero(const Gpu& gpu, Precision p) {
  const auto& v = gpu.peak_flops_per_s[index_of(p)];
  return v ? *v : 0.0;
}

}  // namespace

Precision inference_math_precision(const Gpu& gpu, WeightFormat weights) {
  const Precision fp8_or_bf16 = has_peak(gpu, Precision::kFp8) ? Precision::kFp8 : Precision::kBf16;
  switch (weights) {
    case WeightFormat::kBf16:
      return Precision::kBf16;
    case WeightFormat::kFp8:
      return fp8_or_bf16;
    case WeightFormat::kFp6:
      return has_peak(gpu, Precision::kFp6) ? Precision::kFp6 : fp8_or_bf16;
    case WeightFormat::kFp4:
      return has_peak(gpu, Precision::kFp4) && gpu.fp4_native ? Precision::kFp4 : fp8_or_bf16;
    case WeightFormat::kInt4:
      return Precision::kBf16;  // W4A16: AWQ/GPTQ dequantise to BF16
    case WeightFormat::kNative:
      break;  // callers resolve it with math_weight_format (memory.hpp)
  }
  return Precision::kBf16;
}

Precision training_math_precision(const Gpu& gpu, WeightFormat weights, Workload workload) {
  if (workload == Workload::kQlora) return Precision::kBf16;
  const bool narrow = weights == WeightFormat::kFp8 || weights == WeightFormat::kFp6 ||
                      weights == WeightFormat::kFp4;
  return narrow && has_peak(gpu, Precision::kFp8) ? Precision::kFp8 : Precision::kBf16;
}

std::string missing_gpu_figure(const Gpu& gpu, const Model& model, const Scenario& scenario) {
  const WeightFormat weights = math_weight_format(model, scenario.weights);
  const Precision math = scenario.workload == Workload::kInference
                             ? inference_math_precision(gpu, weights)
                             : training_math_precision(gpu, weights, scenario.workload);
  if (has_peak(gpu, math)) return {};
  return std::string("peak_tflops.") + precision_name(math);
}

namespace {

std::string label_of(const Rates& r, const CalibrationRecord* cal) {
  std::string label;
  if (r.calibrated) {
    if (cal != nullptr) label = "calibrated on " + cal->device_name + ", " + cal->date;
  } else if (r.measured) {
    label = r.estimate ? "public measurements (some figures estimate)" : "public measurements";
  } else {
    label = "datasheet peak";
  }
  if (r.overridden) label += "; scenario override of the achieved fraction";
  return label;
}

}  // namespace

std::string rates_label(const Rates& rates, const Catalog& catalog, const Gpu& gpu) {
  return label_of(rates, catalog.find_calibration(gpu.id));
}

Rates resolve_rates(const Catalog& catalog, const Gpu& gpu, Precision math,
                    const Scenario& scenario, bool with_label) {
  Rates r;
  r.math = math;
  const CalibrationRecord* cal = catalog.find_calibration(gpu.id);
  const double peak = peak_or_zero(gpu, math);

  // Matrix rate.
  const auto& achieved = gpu.achieved_matmul_flops_per_s[index_of(math)];
  if (scenario.flops_efficiency > 0.0 && peak > 0.0) {
    r.matmul_flops_per_s = scenario.flops_efficiency * peak;
    r.overridden = true;
  } else if (cal != nullptr && cal->matmul_best_flops_per_s[index_of(math)]) {
    r.matmul_flops_per_s = *cal->matmul_best_flops_per_s[index_of(math)];
    r.calibrated = true;
  } else if (achieved) {
    r.matmul_flops_per_s = achieved->value;
    r.measured = true;
    r.estimate = r.estimate || achieved->estimate;
  } else {
    // Another precision's measured fraction of peak, nearest first (an estimate).
    const Precision order[] = {Precision::kFp8, Precision::kBf16, Precision::kFp4,
                               Precision::kFp6, Precision::kTf32};
    for (Precision q : order) {
      const auto& a = gpu.achieved_matmul_flops_per_s[index_of(q)];
      const double qpeak = peak_or_zero(gpu, q);
      if (q != math && a && qpeak > 0.0 && peak > 0.0) {
        r.matmul_flops_per_s = a->value / qpeak * peak;
        r.measured = true;
        r.estimate = true;
        break;
      }
    }
    if (r.matmul_flops_per_s <= 0.0) r.matmul_flops_per_s = peak;
  }
  if (r.matmul_flops_per_s <= 0.0) r.matmul_flops_per_s = peak_or_zero(gpu, Precision::kBf16);
  r.matmul_fraction_of_peak = peak > 0.0 ? r.matmul_flops_per_s / peak : 1.0;

  // HBM rate: the read-dominated Dot kernel first (decode streams weights and KV).
  const double bw_peak = gpu.memory_bandwidth_bytes_per_s;
  std::optional<double> cal_bw;
  if (cal != nullptr) {
    cal_bw = cal->hbm_dot_bytes_per_s ? cal->hbm_dot_bytes_per_s
             : cal->hbm_triad_bytes_per_s ? cal->hbm_triad_bytes_per_s
                                          : cal->hbm_copy_bytes_per_s;
  }
  if (scenario.bandwidth_efficiency > 0.0) {
    r.hbm_bytes_per_s = scenario.bandwidth_efficiency * bw_peak;
    r.overridden = true;
  } else if (cal_bw) {
    r.hbm_bytes_per_s = *cal_bw;
    r.calibrated = true;
  } else if (gpu.achieved_hbm_bytes_per_s) {
    r.hbm_bytes_per_s = gpu.achieved_hbm_bytes_per_s->value;
    r.measured = true;
    r.estimate = r.estimate || gpu.achieved_hbm_bytes_per_s->estimate;
  } else {
    r.hbm_bytes_per_s = bw_peak;
  }
  r.hbm_fraction_of_peak = bw_peak > 0.0 ? r.hbm_bytes_per_s / bw_peak : 1.0;

  // Collective bus bandwidth: measured all-reduce, else half the marketed per-GPU link figure.
  if (gpu.achieved_allreduce_bus_bytes_per_s) {
    r.allreduce_bus_bytes_per_s = gpu.achieved_allreduce_bus_bytes_per_s->value;
    r.measured = true;
    r.estimate = r.estimate || gpu.achieved_allreduce_bus_bytes_per_s->estimate;
  } else {
    r.allreduce_bus_bytes_per_s = 0.5 * gpu.interconnect.per_gpu_bandwidth_bytes_per_s;
    r.estimate = true;
  }
  if (r.allreduce_bus_bytes_per_s <= 0.0) r.allreduce_bus_bytes_per_s = 1e11;

  if (with_label) r.label = label_of(r, cal);
  return r;
}

ParamSplit split_params(const Model& m) {
  ParamSplit s;
  if (m.is_moe() && m.moe_intermediate_size > 0 && m.experts_active > 0) {
    const int moe_layers = m.moe_layer_count();
    // SwiGLU expert: gate, up and down projections.
    s.per_expert = static_cast<double>(moe_layers) * 3.0 * m.expert_io_width() * m.moe_intermediate_size;
    s.expert_total = std::min(s.per_expert * m.experts_routed, 0.98 * m.params_total);
    s.per_expert = s.expert_total / m.experts_routed;
    s.expert_active = std::min(s.per_expert * m.experts_active, 0.98 * m.params_active);
  }
  s.dense_active = std::max(0.0, m.params_active - s.expert_active);
  if (m.attention == AttentionKind::kMla) {
    // Absorbed MLA: scores over the latent + rotary key, values over the latent.
    s.attention_flops_per_layer_ctx_token =
        2.0 * m.heads * (2.0 * m.kv_lora_rank + m.qk_rope_head_dim);
  } else {
    s.attention_flops_per_layer_ctx_token = 4.0 * m.heads * m.head_dim;  // QK^T and PV
  }
  return s;
}

InferenceContext make_inference_context(const Catalog& catalog, const Scenario& scenario,
                                        const Model& model, const Gpu& gpu,
                                        const ModelConstants& constants) {
  InferenceContext c;
  c.model = &model;
  c.gpu = &gpu;
  c.kv = scenario.kv;
  c.weight_bytes = weight_bytes(model, scenario.weights, gpu);
  c.capacity_bytes_per_gpu = capacity_bytes(gpu, scenario.capacity);
  c.reserve_bytes_per_gpu = scenario.reserve_gb_per_gpu * kBytesPerGB;
  c.input_tokens = static_cast<double>(scenario.input_tokens);
  c.output_tokens = static_cast<double>(scenario.output_tokens);
  c.split = split_params(model);
  // The scenario's engine admits at most its profile's max_running_requests per instance.
  if (auto engine = select_engine(catalog_engines(catalog), serving_engine_name(scenario.engine), gpu, model)) {
    c.max_batch_sequences = engine.value()->max_running_requests;
  }
  c.constants = constants;
  c.rates = resolve_rates(catalog, gpu, inference_math_precision(gpu, math_weight_format(model, scenario.weights)), scenario);
  c.matmul_flops_per_s = c.rates.matmul_flops_per_s * constants.matmul_fraction;
  c.hbm_bytes_per_s = c.rates.hbm_bytes_per_s * constants.hbm_fraction;
  return c;
}

namespace {

/** Attention FLOPs of one query token over `context` tokens, whole model. */
double attention_flops(const Model& m, const ParamSplit& s, double context) {
  (void)s;
  // By layer kind (attention.hpp): sliding layers capped at the window, linear layers a fixed
  // state update, DSA layers the top-k tokens plus the indexer over the context.
  return attention_step(m, KvFormat::kBf16, context).flops();
}

/** Tensor-parallel all-reduce time for one step: two per layer (attention out, FFN out). */
double allreduce_s(const InferenceContext& c, const Deployment& d, double tokens) {
  const int tp = d.tensor_parallel;
  if (tp <= 1) return 0.0;
  const double layers_per_stage =
      std::ceil(static_cast<double>(c.model->layers) / std::max(1, d.pipeline_parallel));
  const double message_bytes = tokens * c.model->hidden_size * kActivationBytes;
  const double per_call = 2.0 * (tp - 1) / tp * message_bytes / c.rates.allreduce_bus_bytes_per_s +
                          c.constants.allreduce_latency_s;
  return 2.0 * layers_per_stage * per_call;
}

/** Linear-layer FLOPs per token: dense at full rate, experts slowed by the MoE fraction. */
double linear_flops_equivalent(const InferenceContext& c) {
  return 2.0 * c.split.dense_active +
         2.0 * c.split.expert_active / c.constants.moe_expert_gemm_fraction;
}

void finish(StepCost& s, const InferenceContext& c) {
  s.compute_s = s.flops_per_gpu / c.matmul_flops_per_s;
  s.memory_s = s.bytes_per_gpu / c.hbm_bytes_per_s;
  s.overhead_s = c.constants.step_overhead_s;
  s.total_s = std::max(s.compute_s, s.memory_s) + s.comm_s + s.overhead_s;
}

}  // namespace

StepCost decode_step(const InferenceContext& c, const Deployment& d, double batch,
                     double context_tokens) {
  const Model& m = *c.model;
  const double n = d.gpus;
  StepCost s;
  s.flops_per_gpu =
      batch * (linear_flops_equivalent(c) + attention_flops(m, c.split, context_tokens)) / n;
  // Experts a batch touches: E x (1 - (1 - k/E)^batch); dense weights always.
  double weight_share = 1.0;
  if (c.split.expert_total > 0.0 && m.params_total > 0.0 && m.experts_routed > 0) {
    const double e = m.experts_routed;
    const double k = std::min(static_cast<double>(m.experts_active), e);
    const double touched = e * (1.0 - std::pow(1.0 - k / e, batch));
    const double expert_share = c.split.expert_total / m.params_total;
    weight_share = (1.0 - expert_share) + expert_share * touched / e;
  }
  s.bytes_per_gpu = c.weight_bytes * weight_share / n +
                    batch * kv_bytes_per_sequence_per_gpu(m, c.kv, d, context_tokens);
  s.comm_s = allreduce_s(c, d, batch);
  s.scale_out_s = inference_scale_out_cost(c.scale_out, m, d, batch, kActivationBytes).total_s;
  s.comm_s += s.scale_out_s;
  finish(s, c);
  return s;
}

StepCost prefill_step(const InferenceContext& c, const Deployment& d, double batch,
                      double input_tokens) {
  const Model& m = *c.model;
  const double n = d.gpus;
  StepCost s;
  // Causal attention: on average each prompt token sees half the prompt.
  s.flops_per_gpu = batch * input_tokens *
                    (linear_flops_equivalent(c) + attention_flops(m, c.split, input_tokens / 2.0)) / n;
  s.bytes_per_gpu = c.weight_bytes / n +
                    batch * kv_bytes_per_sequence_per_gpu(m, c.kv, d, input_tokens);
  s.comm_s = allreduce_s(c, d, batch * input_tokens);
  s.scale_out_s =
      inference_scale_out_cost(c.scale_out, m, d, batch * input_tokens, kActivationBytes).total_s;
  s.comm_s += s.scale_out_s;
  finish(s, c);
  return s;
}

long long max_batch_for(const InferenceContext& c, const Deployment& d) {
  const double free_bytes =
      c.capacity_bytes_per_gpu - c.reserve_bytes_per_gpu - c.weight_bytes / d.gpus;
  if (free_bytes <= 0.0) return 0;
  const double seq_bytes =
      kv_bytes_per_sequence_per_gpu(*c.model, c.kv, d, c.input_tokens + c.output_tokens);
  const double cap = c.max_batch_sequences;
  const double b = seq_bytes > 0.0 ? std::floor(free_bytes / seq_bytes) : cap;
  return static_cast<long long>(std::min(b, cap));
}

InferencePoint operating_point(const InferenceContext& c, const Deployment& d, int replicas,
                               long long batch) {
  InferencePoint p;
  p.deployment = d;
  p.replicas = replicas;
  p.batch = batch;
  const auto b = static_cast<double>(batch);
  const StepCost dec = decode_step(c, d, b, c.input_tokens + c.output_tokens / 2.0);
  const StepCost pre = prefill_step(c, d, b, c.input_tokens);
  p.tpot_s = dec.total_s;
  p.prefill_s = pre.total_s;
  p.ttft_s = prefill_step(c, d, 1.0, c.input_tokens).total_s + dec.total_s;
  const double cycle_s = pre.total_s + c.output_tokens * dec.total_s;
  p.tokens_per_s = cycle_s > 0.0 ? replicas * b * c.output_tokens / cycle_s : 0.0;
  return p;
}

std::optional<InferencePoint> max_throughput(const InferenceContext& c, int gpu_count,
                                             int fixed_gpus_per_instance,
                                             const LatencyLimits& limits) {
  std::optional<InferencePoint> best;
  const int scale_up = c.gpu->scale_up_gpus();
  auto consider = [&](int n) {
    if (n < 1 || n > gpu_count || !deployment_is_valid(*c.model, n, scale_up)) return;
    const Deployment d = make_deployment(*c.model, n, scale_up);
    long long batch = max_batch_for(c, d);
    if (batch < 1) return;
    const int replicas = gpu_count / n;
    auto meets = [&](long long b) {
      if (limits.tpot_s <= 0.0 && limits.ttft_s <= 0.0) return true;
      const InferencePoint p = operating_point(c, d, replicas, b);
      return (limits.tpot_s <= 0.0 || p.tpot_s <= limits.tpot_s) &&
             (limits.ttft_s <= 0.0 || p.ttft_s <= limits.ttft_s);
    };
    if (!meets(batch)) {
      // Step time grows with the batch: bisect for the largest batch meeting the limits.
      long long lo = 0, hi = batch;
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        (meets(mid) ? lo : hi) = mid;
      }
      batch = lo;
      if (batch < 1) return;
    }
    const InferencePoint p = operating_point(c, d, replicas, batch);
    if (!best || p.tokens_per_s > best->tokens_per_s) best = p;
  };
  if (fixed_gpus_per_instance > 0) {
    consider(fixed_gpus_per_instance);
  } else {
    for (int n = 1; n <= std::min(gpu_count, scale_up); ++n) consider(n);
    for (int n = 2 * scale_up; n <= std::min(gpu_count, kMaxInstanceGpus); n += scale_up) {
      consider(n);
    }
  }
  return best;
}

double billed_months(double hours, double recovery_fraction) {
  // The epsilon keeps a run of exactly 730 h at one month.
  return std::max(1.0, std::ceil(hours * (1.0 + recovery_fraction) / kHoursPerMonth - 1e-9));
}

double run_cost_usd(double hours, double usd_per_hour, const RunCostInputs& in) {
  const double compute = hours * usd_per_hour;
  const double billed = in.billed_monthly
                            ? billed_months(hours, in.recovery_fraction) * kHoursPerMonth * usd_per_hour
                            : compute + compute * in.recovery_fraction;
  return billed + in.storage_usd + in.network_usd + in.software_usd + in.engineering_usd +
         (in.porting_applies ? in.porting_usd : 0.0);
}

double usd_per_million_tokens(double price_usd_per_month, double tokens_per_s,
                              double utilization) {
  const double tokens_per_month = tokens_per_s * kSecondsPerHour * kHoursPerMonth * utilization;
  return tokens_per_month > 0.0 ? price_usd_per_month / tokens_per_month * 1e6 : 0.0;
}

}  // namespace gpucalc
