#pragma once
/**
 * Calibration records written by the microbenchmark (bench/), schema in
 * data/calibration/README.md. A record for a GPU replaces the default achieved rates.
 */
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr std::string_view kCalibrationSchema = "gpucalc-calibration/1";

/** Small-batch measurements for the serving model. Rates are medians of the runs. */
struct GemmPoint {
  double m = 0, n = 0, k = 0;  // tokens x output features x input features
  double flops_per_s = 0;      // 2 m n k / median time
};
struct GroupedGemmPoint {
  double experts = 0, tokens_per_expert = 0, n = 0, k = 0;
  double flops_per_s = 0;  // 2 experts tokens_per_expert n k / median time
};
struct AttentionDecodePoint {
  double batch = 0, context_tokens = 0;
  double kv_bytes_per_s = 0;  // paged KV bytes read / median time
};
struct AllreducePoint {
  double bytes = 0;            // message size per GPU
  double latency_s = 0;        // median time of one all-reduce
  double bus_bytes_per_s = 0;  // 2 (g - 1) / g x bytes / latency_s
};

struct CalibrationRecord {
  std::string gpu_id;       // catalog GPU id, e.g. "h200-sxm"
  std::string device_name;  // as the runtime reports it
  std::string arch_target;  // "sm_90", "gfx942"
  std::string date;         // ISO 8601 date of the run
  std::string source_name;  // file the record came from
  bool dry_run = false;     // host backend: never used to calibrate
  // Best achieved figures (decimal units); empty when not measured.
  std::optional<double> hbm_copy_bytes_per_s;
  std::optional<double> hbm_triad_bytes_per_s;
  std::optional<double> hbm_dot_bytes_per_s;
  PerPrecision<std::optional<double>> matmul_best_flops_per_s{};
  PerPrecision<std::optional<double>> matmul_median_flops_per_s{};
  std::optional<double> p2p_unidirectional_bytes_per_s;
  std::optional<double> p2p_bidirectional_bytes_per_s;
  // Serving-model figures; empty vectors / nullopt when not measured.
  PerPrecision<std::vector<GemmPoint>> gemm_small{};         // M sweep per math precision
  PerPrecision<std::vector<GroupedGemmPoint>> grouped_gemm{};  // MoE expert GEMMs
  std::vector<AttentionDecodePoint> attention_decode;          // BF16 paged KV
  int allreduce_gpus = 0;                                      // GPUs in the all-reduce
  std::vector<AllreducePoint> allreduce;                       // sorted by bytes
  std::optional<double> launch_latency_s;        // empty kernel, launch to completion
  std::optional<double> graph_launch_latency_s;  // per kernel inside a CUDA/HIP graph
};

/** Parses and validates one record; errors name `source_name` and the field. */
Result<CalibrationRecord> parse_calibration_record(std::string_view json_text,
                                                   std::string_view source_name);

struct Gpu;

/**
 * Holds every figure of a record to its catalog GPU's datasheet: no rate above the
 * peak it is measured against (HBM `memory_bandwidth_bytes_per_s`, GEMM dense `peak_flops_per_s`
 * of its precision, P2P and all-reduce bus bandwidth the per-GPU interconnect figure, halved one
 * way), none below 1 % of it. GEMMs at small M and grouped GEMMs are held to their roofline
 * instead (max of FLOP/s / peak and operand bytes/s / HBM peak, at least 1 %); all-reduce points
 * are latency-bound at small sizes, so only those of 16 MiB and more must reach 1 % of the link.
 * A figure for a precision the GPU has no peak for is refused. Dry-run records are not checked
 * (they are never used). Errors name the record's file and "measurements(<id>)...".
 */
Result<bool> check_calibration_against_gpu(const CalibrationRecord& record, const Gpu& gpu);

}  // namespace gpucalc
