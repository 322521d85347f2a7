#pragma once
/**
 * The serving-model tests of the GPU back end: paged decode attention
 * (gpu_attention.cu), all-reduce through NCCL/RCCL loaded at run time (gpu_allreduce.cu) and
 * kernel launch latency (gpu_launch.cu). Small-M and grouped GEMMs reuse gpu_gemm.cu.
 */
#include "backend.hpp"

namespace gpucalc::bench {

Status gpu_run_attention_decode(const DeviceInfo& device, const AttentionConfig& cfg, AttentionRun& out);
Status gpu_run_allreduce(const DeviceInfo& device, const AllreduceConfig& cfg, AllreduceRun& out);
Status gpu_run_launch(const DeviceInfo& device, const LaunchConfig& cfg, LaunchRun& out);

}  // namespace gpucalc::bench
