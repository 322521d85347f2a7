#include "model/training.hpp"

#include <algorithm>
#include <cmath>

#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

/** Smallest tensor-parallel degree (inside the scale-up domain) whose state and activations
 *  fit; the scenario's tp when it sets one. */
int training_tp(const Model& m, const Gpu& gpu, const Scenario& scenario, double trainable,
                int gpu_count, double capacity_bytes_per_gpu) {
  if (scenario.tp > 0 && std::min(scenario.tp, gpu_count) != 0) return std::min(scenario.tp, gpu_count);
  const int scale_up = gpu.scale_up_gpus();
  const double reserve = scenario.reserve_gb_per_gpu * kBytesPerGB;
  int tp = 0;
  for (int n = 1; n <= std::min(gpu_count, scale_up); n *= 2) {
    if (!deployment_is_valid(m, n, scale_up) || gpu_count % n != 0) continue;
    const TrainingMemoryParts p = state_bytes(m, gpu, scenario, trainable, n, gpu_count / n);
    const double need = p.weights + p.gradients + p.optimizer + p.adapters +
                        m.layers * activation_bytes_per_layer(m, scenario, n) + reserve;
    tp = n;
    if (need <= capacity_bytes_per_gpu) break;
  }
  return tp == 0 ? 1 : tp;
}

/** HBM traffic per token, whole cluster: activations written then read, weights read per
 *  micro-batch (forward, backward; + weight gradients when training the base), optimizer. */
double bytes_per_token(const Model& m, const Gpu& gpu, const Scenario& scenario,
                       const ModelConstants& k, int data_parallel) {
  const bool lora = trains_adapters(scenario.workload);
  const double seq = static_cast<double>(scenario.seq_tokens);
  const double mb = std::max(1, scenario.micro_batch);
  const double stored_activation_per_token =
      m.layers * activation_bytes_per_layer(m, scenario, 1.0) / (seq * mb);
  const double weights_per_replica =
      lora ? weight_bytes(m, scenario.workload == Workload::kQlora ? WeightFormat::kInt4 : scenario.weights, gpu)
           : m.params_total * kWeightBytes16;
  const double weight_passes = lora ? 2.0 : 3.0;
  double bytes = k.activation_traffic_factor * stored_activation_per_token +
                 weight_passes * weights_per_replica / (seq * mb);
  if (!lora) {
    bytes += 2.0 * m.params_total * (kWeightBytes16 + kGradBytes16 + kOptimizerBytes) /
             (seq * mb * data_parallel);
  }
  return bytes;
}

/** Communication seconds per token: TP all-reduces (4 per layer per micro-batch: 2 forward, 2
 *  backward) and the data-parallel gradient reduction once per step, over `bus` bytes/s and
 *  the scale-out network across servers. */
double comm_s_per_token(const Model& m, const Scenario& scenario, const ModelConstants& k,
                        double trainable, int tp, int data_parallel, double bus,
                        const ScaleOutLink& scale_out) {
  const double seq = static_cast<double>(scenario.seq_tokens);
  const double mb = std::max(1, scenario.micro_batch);
  double comm_per_microbatch_s = 0.0;
  if (tp > 1) {
    const double msg = seq * mb * m.hidden_size * kActivationBytes;
    comm_per_microbatch_s = 4.0 * m.layers * (2.0 * (tp - 1) / tp * msg / bus + k.allreduce_latency_s);
  }
  double grad_sync_s = 0.0;
  if (data_parallel > 1) {
    const int dp = data_parallel;
    grad_sync_s = 2.0 * (dp - 1) / dp * trainable / tp * kGradBytes16 / bus;
    grad_sync_s += cross_server_allreduce_s(scale_out, trainable / tp * kGradBytes16);
  }
  // Per-replica tokens per micro-batch: seq x mb; all replicas run in parallel.
  const double tokens_per_step = seq * mb * data_parallel;
  return (comm_per_microbatch_s + grad_sync_s) / tokens_per_step;
}

}  // namespace

bool trains_adapters(Workload workload) {
  return workload == Workload::kLora || workload == Workload::kQlora;
}

double trainable_params(const Model& m, const Scenario& scenario) {
  if (!trains_adapters(scenario.workload)) return m.params_total;
  const double h = m.hidden_size;
  const double q = static_cast<double>(m.heads) * m.head_dim;
  const double kvd = static_cast<double>(m.kv_heads) * m.head_dim;
  double per_layer = (h + q) + 2.0 * (h + kvd) + (q + h);
  if (!m.is_moe()) per_layer += 3.0 * (h + m.intermediate_size);
  return scenario.lora_rank * per_layer * m.layers;
}

double activation_bytes_per_layer(const Model& m, const Scenario& scenario, double tp) {
  const double seq = static_cast<double>(scenario.seq_tokens);
  const double mb = std::max(1, scenario.micro_batch);
  const double h = m.hidden_size;
  double per_token;  // bytes per token per layer
  switch (scenario.recompute) {
    case Recompute::kNone:
      per_token = h * 34.0 + 5.0 * m.heads * seq;  // s x b x h x (34 + 5 a s / h) / (s x b)
      break;
    case Recompute::kSelective:
      per_token = 34.0 * h;
      break;
    case Recompute::kFull:
    default:
      per_token = 2.0 * h;
      break;
  }
  return seq * mb * per_token / tp;  // sequence parallel splits the rest over TP
}

TrainingMemoryParts state_bytes(const Model& m, const Gpu& gpu, const Scenario& scenario,
                                double trainable, int tp, int dp) {
  const double shard = 1.0 / dp;
  TrainingMemoryParts parts;
  if (trains_adapters(scenario.workload)) {
    const WeightFormat frozen = scenario.workload == Workload::kQlora ? WeightFormat::kInt4 : scenario.weights;
    const double frozen_bytes = weight_bytes(m, frozen, gpu) / tp;
    parts.weights = frozen_bytes * (scenario.zero_stage >= 3 ? shard : 1.0);
    const double p = trainable / tp;
    parts.adapters = p * (kWeightBytes16 + kGradBytes16 + kOptimizerBytes);  // adapters: tiny
  } else {
    const double p = m.params_total / tp;
    parts.weights = p * kWeightBytes16 * (scenario.zero_stage >= 3 ? shard : 1.0);
    parts.gradients = p * kGradBytes16 * (scenario.zero_stage >= 2 ? shard : 1.0);
    parts.optimizer = p * kOptimizerBytes * (scenario.zero_stage >= 1 ? shard : 1.0);
  }
  return parts;
}

double flops_per_token(const Model& m, const Scenario& scenario) {
  const ParamSplit split = split_params(m);
  const double attn_fwd = split.attention_flops_per_layer_ctx_token * m.layers *
                          static_cast<double>(scenario.seq_tokens);
  const double linear = (trains_adapters(scenario.workload) ? 4.0 : 6.0) * m.params_active +
                        (scenario.recompute == Recompute::kFull ? 2.0 * m.params_active : 0.0);
  const double attn = attn_fwd * (3.0 + (scenario.recompute == Recompute::kNone ? 0.0 : 1.0));
  return linear + attn;
}

TrainingEstimate estimate_training(const Catalog& catalog, const Scenario& scenario,
                                   const Model& m, const Gpu& gpu, int gpu_count,
                                   double capacity_bytes_per_gpu, const ModelConstants& k,
                                   const ScaleOutLink& scale_out) {
  TrainingEstimate t;
  const double reserve = scenario.reserve_gb_per_gpu * kBytesPerGB;
  t.rates = resolve_rates(catalog, gpu,
                          training_math_precision(gpu, math_weight_format(m, scenario.weights), scenario.workload),
                          scenario);
  t.trainable_params = trainable_params(m, scenario);
  const int tp = training_tp(m, gpu, scenario, t.trainable_params, gpu_count, capacity_bytes_per_gpu);
  t.deployment = make_deployment(m, tp, gpu.scale_up_gpus());
  t.data_parallel = std::max(1, gpu_count / tp);
  t.parts = state_bytes(m, gpu, scenario, t.trainable_params, tp, t.data_parallel);
  t.state_bytes_per_gpu = t.parts.weights + t.parts.gradients + t.parts.optimizer + t.parts.adapters;
  t.activation_bytes_per_gpu = m.layers * activation_bytes_per_layer(m, scenario, tp);
  t.parts.activations = t.activation_bytes_per_gpu;
  t.parts.reserve = reserve;
  t.memory_bytes_per_gpu = t.state_bytes_per_gpu + t.activation_bytes_per_gpu + reserve;
  t.fits = t.memory_bytes_per_gpu <= capacity_bytes_per_gpu;

  t.flops_per_token = flops_per_token(m, scenario);
  t.bytes_per_token = bytes_per_token(m, gpu, scenario, k, t.data_parallel);
  const double bus = resolve_rates(catalog, gpu, t.rates.math, scenario).allreduce_bus_bytes_per_s;
  t.comm_s_per_token = comm_s_per_token(m, scenario, k, t.trainable_params, tp, t.data_parallel, bus, scale_out);

  const double n = gpu_count;
  const double rate = t.rates.matmul_flops_per_s * k.matmul_fraction;
  const double bw = t.rates.hbm_bytes_per_s * k.hbm_fraction;
  const double s_per_token =
      t.flops_per_token / (n * rate) + t.bytes_per_token / (n * bw) + t.comm_s_per_token;
  t.tokens_per_s = s_per_token > 0.0 ? 1.0 / s_per_token : 0.0;
  t.hours = t.tokens_per_s > 0.0 ? scenario.train_tokens / t.tokens_per_s / kSecondsPerHour : 0.0;
  t.gpu_hours = t.hours * n;
  return t;
}

}  // namespace gpucalc
