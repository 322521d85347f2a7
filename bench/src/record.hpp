#pragma once
/**
 * Builds the calibration record (schema gpucalc-calibration/1, data/calibration/README.md) from
 * the back end's raw timings: statistics, the datasheet peak each figure is compared with and
 * the efficiency value / peak.
 */
#include <string>
#include <vector>

#include "backend.hpp"
#include "catalog.hpp"
#include "json_writer.hpp"
#include "serving_shapes.hpp"

namespace gpucalc::bench {

/** Environment readings gathered over the run (min and max of each). */
struct EnvRange {
  std::vector<EnvSample> samples;
};

struct RecordInput {
  std::string gpu_id;
  std::string date;
  bool dry_run = false;
  std::string note;
  std::string command_line;
  DeviceInfo device;
  const CatalogGpu* catalog = nullptr;
  EnvRange env;
  StreamConfig stream_config;
  std::vector<StreamRun> stream_runs;        // with StreamKernel in the same order as kernels
  std::vector<StreamKernel> stream_kernels;
  GemmConfig gemm_config;
  std::vector<GemmPrecision> gemm_precisions;
  std::vector<GemmRun> gemm_runs;            // parallel to gemm_precisions
  std::vector<GemmSupport> gemm_support;     // parallel to gemm_precisions
  bool p2p_requested = false;
  P2pConfig p2p_config;
  std::vector<P2pPairRun> p2p_runs;
  // Serving-model tests.
  GemmConfig small_config;                  // timing of gemm-small and grouped-gemm
  std::vector<int> small_m;
  std::vector<LayerShape> dense_shapes;     // gemm-small's N x K, with the layers they come from
  std::vector<LayerShape> moe_shapes;       // grouped-gemm's
  std::vector<GemmPrecision> small_precisions;
  std::vector<GemmSupport> small_support;   // parallel to small_precisions
  std::vector<GemmRun> small_runs;          // parallel to small_precisions
  std::vector<GemmPrecision> grouped_precisions;
  std::vector<GemmSupport> grouped_support;
  std::vector<std::vector<GemmRun>> grouped_runs;  // per precision, one run per expert count
  bool attention_requested = false;
  AttentionConfig attention_config;
  AttentionRun attention_run;
  bool allreduce_requested = false;
  AllreduceConfig allreduce_config;
  AllreduceRun allreduce_run;
  bool launch_requested = false;
  LaunchConfig launch_config;
  LaunchRun launch_run;
};

/** Summary of one GEMM run over its shape set. */
struct GemmSummary {
  double best_flops_per_s = 0;   // best sample of the best shape
  double median_flops_per_s = 0; // median over shapes of each shape's median
  GemmShape best_shape;
};
GemmSummary summarize_gemm(const GemmRun& run);

/** The record as a JSON tree. */
JsonValue build_record(const RecordInput& in);

/** Whether every measurement that ran passed its check. */
bool all_checks_passed(const RecordInput& in);

}  // namespace gpucalc::bench
