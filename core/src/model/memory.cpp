#include "gpucalc/memory.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

constexpr long long kMaxContextTokens = 16777216;

int ceil_div(int a, int b) { return (a + b - 1) / b; }

/** Per-token KV bytes one GPU holds for one layer under tensor parallelism `tp`. */
double kv_bytes_per_layer_token_per_gpu(const Model& m, KvFormat kv, int tp) {
  const double b = kv_bytes_per_value(kv);
  if (m.attention == AttentionKind::kMla) {
    return static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) * b;  // replicated per rank
  }
  return 2.0 * ceil_div(m.kv_heads, tp) * m.head_dim * b;
}

struct StageLayers {
  int full = 0;     // full-attention layers on the most loaded stage
  int sliding = 0;  // sliding-window layers on the most loaded stage
};

StageLayers stage_layers(const Model& m, int pp) {
  const int sliding = m.sliding_window_layers;
  return StageLayers{ceil_div(m.layers - sliding, pp), ceil_div(sliding, pp)};
}

}  // namespace

double capacity_bytes(const Gpu& gpu, CapacityBasis basis) {
  if (basis == CapacityBasis::kMarketed) return gpu.hbm_marketed_bytes;
  if (gpu.hbm_device_bytes) return *gpu.hbm_device_bytes;
  return gpu.hbm_marketed_bytes / kBytesPerGB * kBytesPerGiB;
}

bool capacity_is_assumed(const Gpu& gpu, CapacityBasis basis) {
  return basis == CapacityBasis::kDevice && !gpu.hbm_device_bytes;
}

Fp4Encoding fp4_encoding_for(const Gpu& gpu) {
  return gpu.fp4_native ? *gpu.fp4_native : Fp4Encoding::kMxfp4;
}

double weight_bytes(const Model& model, WeightFormat format, const Gpu& gpu) {
  return model.params_total * weight_bytes_per_param(format, fp4_encoding_for(gpu));
}

double kv_bytes_per_token(const Model& model, KvFormat kv) {
  return model.layers * kv_bytes_per_layer_token_per_gpu(model, kv, 1);
}

bool deployment_is_valid(const Model& m, int gpus, int scale_up_gpus) {
  if (gpus < 1) return false;
  const int tp = std::min(gpus, scale_up_gpus);
  if (gpus % tp != 0) return false;
  if (gpus / tp > m.layers) return false;
  if (m.heads % tp != 0) return false;
  if (m.attention == AttentionKind::kGqa && m.kv_heads % tp != 0 && tp % m.kv_heads != 0) {
    return false;
  }
  return true;
}

Deployment make_deployment(const Model& m, int gpus, int scale_up_gpus) {
  (void)m;
  Deployment d;
  d.gpus = std::max(1, gpus);
  d.tensor_parallel = std::min(d.gpus, scale_up_gpus);
  d.pipeline_parallel = std::max(1, d.gpus / d.tensor_parallel);
  return d;
}

double kv_bytes_per_sequence_per_gpu(const Model& m, KvFormat kv, const Deployment& d,
                                     double context_tokens) {
  const double per_layer = kv_bytes_per_layer_token_per_gpu(m, kv, d.tensor_parallel);
  const StageLayers s = stage_layers(m, d.pipeline_parallel);
  const double window_tokens =
      std::min(context_tokens, static_cast<double>(m.sliding_window_tokens));
  return per_layer * (s.full * context_tokens + s.sliding * window_tokens);
}

long long max_context_for(const Model& m, KvFormat kv, const Deployment& d,
                          double free_bytes_per_gpu, long long users) {
  if (free_bytes_per_gpu <= 0 || users < 1) return 0;
  const double per_layer = kv_bytes_per_layer_token_per_gpu(m, kv, d.tensor_parallel);
  const StageLayers s = stage_layers(m, d.pipeline_parallel);
  const double budget = free_bytes_per_gpu / static_cast<double>(users);  // bytes per sequence
  const double full_rate = per_layer * s.full;       // bytes per token past the window
  const double both_rate = per_layer * (s.full + s.sliding);
  const double window = m.sliding_window_tokens;
  double tokens = 0;
  if (s.sliding == 0 || both_rate * window >= budget) {
    tokens = budget / both_rate;
  } else if (full_rate <= 0) {
    tokens = static_cast<double>(kMaxContextTokens);
  } else {
    tokens = (budget - per_layer * s.sliding * window) / full_rate;
  }
  return static_cast<long long>(std::min(std::floor(tokens), static_cast<double>(kMaxContextTokens)));
}

MemoryFit fit_memory(const Model& model, const Gpu& gpu, const Offering& offering,
                     const Scenario& scenario, const ServerSpan& span) {
  MemoryFit fit;
  fit.capacity_bytes_per_gpu = capacity_bytes(gpu, scenario.capacity);
  fit.reserve_bytes_per_gpu = scenario.reserve_gb_per_gpu * kBytesPerGB;
  fit.weights_bytes = weight_bytes(model, scenario.weights, gpu);
  fit.kv_bytes_per_token = kv_bytes_per_token(model, scenario.kv);
  const auto context = static_cast<double>(scenario.context_tokens);
  const auto users = static_cast<double>(scenario.users);
  fit.kv_bytes_per_context =
      kv_bytes_per_sequence_per_gpu(model, scenario.kv, Deployment{}, context);
  // Seed 002's rule: weights only, no reserve, no KV. The epsilon keeps 140/140 at 1, not 2.
  fit.gpus_needed_weights_only = static_cast<int>(
      std::ceil(fit.weights_bytes / fit.capacity_bytes_per_gpu - 1e-9));

  const double usable = fit.capacity_bytes_per_gpu - fit.reserve_bytes_per_gpu;
  auto holds = [&](int n) {
    const Deployment d = make_deployment(model, n, kScaleUpGpus);
    return fit.weights_bytes / n +
               users * kv_bytes_per_sequence_per_gpu(model, scenario.kv, d, context) <=
           usable;
  };
  fit.gpus_needed = 0;
  for (int n = 1; n <= kMaxInstanceGpus; n = n < kScaleUpGpus ? n + 1 : n + kScaleUpGpus) {
    if (deployment_is_valid(model, n, kScaleUpGpus) && holds(n)) {
      fit.gpus_needed = n;
      break;
    }
  }

  const int unit = offering.gpu_count;
  fit.servers = std::max(1, span.servers);
  fit.servers_needed = fit.gpus_needed > 0 ? ceil_div(fit.gpus_needed, unit) : 0;
  const int g = unit * fit.servers;
  // One instance spans servers only over a scale-out network; an automatic one spans the
  // fewest servers that hold it, replicas filling the rest.
  const int instance_cap = span.stackable ? g : unit;
  const int auto_top = std::min(instance_cap, std::max(unit, fit.servers_needed * unit));
  // Auto: one copy of the weights spread over the largest legal instance the offering holds,
  // which leaves the most room for KV (seed 002 counts DeepSeek on a server this way). A set
  // `tp` models replicas of a smaller instance instead.
  int n = scenario.tp > 0 ? scenario.tp : fit.gpus_needed;
  if (scenario.tp == 0 && fit.gpus_needed > 0 && fit.gpus_needed <= auto_top) {
    for (int candidate = auto_top; candidate >= fit.gpus_needed; --candidate) {
      if (deployment_is_valid(model, candidate, kScaleUpGpus) && holds(candidate)) {
        n = candidate;
        break;
      }
    }
  }
  if (n == 0) {
    fit.reason = "no_legal_split";
    n = g;
  } else if (n > g) {
    fit.reason = "needs_more_gpus";
  } else if (n > instance_cap) {
    fit.reason = "not_stackable";  // separate VMs: one model is never split across them
  } else if (scenario.tp > 0 && !holds(n)) {
    fit.reason = "does_not_fit";
  } else {
    fit.fits = true;
  }
  const int shown = fit.fits ? n : std::min(n, instance_cap);
  fit.deployment = make_deployment(model, shown, kScaleUpGpus);
  fit.weights_bytes_per_gpu = fit.weights_bytes / shown;
  fit.kv_free_bytes_per_gpu = usable - fit.weights_bytes_per_gpu;
  const double seq_bytes =
      kv_bytes_per_sequence_per_gpu(model, scenario.kv, fit.deployment, context);
  if (fit.fits) {
    fit.replicas = g / n;
    fit.kv_free_bytes = fit.replicas * static_cast<double>(n) * fit.kv_free_bytes_per_gpu;
    fit.full_contexts_per_instance =
        seq_bytes > 0 ? static_cast<long long>(std::floor(fit.kv_free_bytes_per_gpu / seq_bytes)) : 0;
    fit.full_contexts = fit.replicas * fit.full_contexts_per_instance;
    fit.max_context_tokens = max_context_for(model, scenario.kv, fit.deployment,
                                             fit.kv_free_bytes_per_gpu, scenario.users);
    // The users are spread evenly over the replicas (the busiest takes the remainder).
    const long long users_per_instance = (scenario.users + fit.replicas - 1) / fit.replicas;
    fit.kv_used_bytes_per_gpu = static_cast<double>(users_per_instance) * seq_bytes;
  } else {
    // The shortfall (negative) or slack of spreading one copy over the whole offering.
    fit.kv_free_bytes = g * (usable - fit.weights_bytes / g);
    fit.kv_used_bytes_per_gpu = users * seq_bytes;
  }
  fit.headroom_bytes_per_gpu = fit.kv_free_bytes_per_gpu - fit.kv_used_bytes_per_gpu;
  return fit;
}

}  // namespace gpucalc
