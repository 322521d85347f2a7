#pragma once
/**
 * Training and fine-tuning: memory per GPU by part (weights, gradients, optimizer, adapters as
 * sharded by ZeRO; activations after Korthikanti et al. 2022), FLOPs and HBM traffic per token,
 * and the run's time from the achieved rates. Each part is a named function of the model and
 * the scenario; estimate_training() puts them together for an offering.
 */
#include "gpucalc/catalog.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/model_constants.hpp"
#include "gpucalc/scenario.hpp"
#include "model/scale_out.hpp"
#include "model/throughput.hpp"

namespace gpucalc {

/** Mixed-precision Adam: BF16 weights 2 + BF16 gradients 2 + FP32 master, m, v 12 bytes. */
constexpr double kWeightBytes16 = 2.0;
constexpr double kGradBytes16 = 2.0;
constexpr double kOptimizerBytes = 12.0;

/** True for LoRA and QLoRA (adapters trained, the base frozen). */
bool trains_adapters(Workload workload);

/** Parameters trained: LoRA adapters of rank `lora_rank` on the attention projections (and the
 *  dense MLP of dense models), or every parameter. */
double trainable_params(const Model& model, const Scenario& scenario);

/** Activation bytes per layer per micro-batch on one GPU at tensor parallel `tp` (sequence
 *  parallel splits them over TP), by the scenario's recomputation (Korthikanti et al. 2022,
 *  16-bit): none 34 h + 5 a s, selective 34 h, full 2 h bytes per token. */
double activation_bytes_per_layer(const Model& model, const Scenario& scenario, double tp);

/** Weights, gradients, optimizer state and adapters per GPU at tensor parallel `tp` and data
 *  parallel `dp`, sharded by the scenario's ZeRO stage (1: optimizer, 2: + gradients, 3: +
 *  weights); a frozen base (LoRA: the scenario's format; QLoRA: INT4) has no gradients. */
TrainingMemoryParts state_bytes(const Model& model, const Gpu& gpu, const Scenario& scenario,
                                double trainable, int tp, int dp);

/** FLOPs per token: 6 x active parameters (4 for adapters: no weight gradients of the frozen
 *  base), + 2 with full recomputation; attention 3 x forward, + 1 forward recomputed. */
double flops_per_token(const Model& model, const Scenario& scenario);

/** Training and fine-tuning estimate for an offering of `gpu_count` GPUs. */
struct TrainingEstimate {
  Deployment deployment;  // tensor parallel x pipeline per replica
  int data_parallel = 1;
  double trainable_params = 0.0;
  TrainingMemoryParts parts;              // memory_bytes_per_gpu by part
  double state_bytes_per_gpu = 0.0;       // weights + gradients + optimizer
  double activation_bytes_per_gpu = 0.0;  // Korthikanti et al. 2022
  double memory_bytes_per_gpu = 0.0;      // state + activations + reserve
  bool fits = false;
  double flops_per_token = 0.0;
  double bytes_per_token = 0.0;           // HBM traffic, whole cluster
  double comm_s_per_token = 0.0;
  double tokens_per_s = 0.0;
  double hours = 0.0;
  double gpu_hours = 0.0;
  Rates rates;
};
/** `scale_out`: data parallel across its servers adds the cross-server gradient all-reduce. */
TrainingEstimate estimate_training(const Catalog& catalog, const Scenario& scenario,
                                   const Model& model, const Gpu& gpu, int gpu_count,
                                   double capacity_bytes_per_gpu, const ModelConstants& constants,
                                   const ScaleOutLink& scale_out = {});

}  // namespace gpucalc
