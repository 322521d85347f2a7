#include "model/throughput.hpp"

#include <algorithm>
#include <cmath>

#include "model/attention.hpp"
#include "model/serving.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {


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
