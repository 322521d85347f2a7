#pragma once
/**
 * The scenario codec: one canonical text form, `key=value` pairs joined by `&`, versioned
 * (`v=1`). The page keeps it in its URL fragment; the CLI takes it as its argument.
 * The key table (names, defaults, ranges) lives in scenario.cpp and is documented in README.md.
 */
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr int kScenarioVersion = 1;
/** Longest scenario string accepted (bytes). */
constexpr std::size_t kMaxScenarioBytes = 4096;
constexpr std::size_t kMaxCompared = 4;

enum class CapacityBasis { kDevice, kMarketed };
enum class Workload { kInference, kPretrain, kFinetune, kLora, kQlora };
enum class Recompute { kNone, kSelective, kFull };

const char* capacity_basis_name(CapacityBasis b);
const char* workload_name(Workload w);
const char* recompute_name(Recompute r);

struct Scenario {
  // Fit (issue 2)
  std::string model = "llama-3.1-70b";
  WeightFormat weights = WeightFormat::kFp8;
  KvFormat kv = KvFormat::kFp8;
  long long context_tokens = 131072;
  long long users = 1;  // concurrent sequences
  std::vector<std::string> compare = {"fullgpu-8x-mi355x", "fullgpu-8x-h200"};
  CapacityBasis capacity = CapacityBasis::kDevice;
  double reserve_gb_per_gpu = 5.0;  // runtime + communication buffers + activation workspace
  // Price overrides, aligned with `compare`; a negative value keeps the catalog price.
  std::vector<double> price_usd_per_month;
  // Throughput, training and cost (issue 3)
  Workload workload = Workload::kInference;
  long long input_tokens = 1024;
  long long output_tokens = 1024;
  int tp = 0;  // GPUs per model instance; 0 = auto (one copy spread over the offering)
  long long seq_tokens = 4096;                // training sequence length
  double train_tokens = 1e9;                  // training budget (tokens)
  double utilization = 0.7;                   // fraction of the month the offering serves
  int zero_stage = 1;                         // 0..3 (3 = FSDP full sharding)
  Recompute recompute = Recompute::kSelective;
  int lora_rank = 16;
  int micro_batch = 1;                        // sequences per GPU per step (training)
  double storage_usd = 0.0, network_usd = 0.0, software_usd = 0.0, engineering_usd = 0.0;
  double porting_usd = 0.0;    // one-off cost to move a CUDA stack to ROCm: AMD offerings only
  double recovery_fraction = 0.0;  // extra compute lost to failures and restarts, e.g. 0.05
  double flops_efficiency = 0.0;   // override of the achieved matmul fraction; 0 = calibrated
  double bandwidth_efficiency = 0.0;  // override of the achieved HBM fraction; 0 = calibrated
  // Serving (issue 16)
  double ttft_max_s = 0.0;     // TTFT limit for max_throughput; 0 = none
  double tpot_max_s = 0.0;     // TPOT limit for max_throughput; 0 = none
  double interactivity = 0.0;  // tokens/s per user: operating point on the curve; 0 = none
  int ep = 0;                  // expert-parallel degree inside an instance; 0 = auto
  int dpa = 0;                 // 1 = data-parallel attention over the instance's GPUs
  std::string engine = "auto";  // auto | vllm | sglang | trtllm | atom
  int mtp = 0;                  // speculative (MTP) draft tokens per step; 0 = off
  // Software stack (drives the verdict)
  bool cuda_only = false;       // depends on CUDA-only libraries
  bool custom_kernels = false;  // custom CUDA kernels to port to HIP
  bool tensorrt_llm = false;    // uses TensorRT-LLM (no AMD version)
};

/** Two scenarios are equal when their canonical strings are. */
bool operator==(const Scenario& a, const Scenario& b);

/** Parses a scenario string; missing keys take defaults. Errors name the key. */
Result<Scenario> decode_scenario(std::string_view text);

/** The canonical string: `v=1` then keys in schema order; keys at their default are kept for the
 *  fit keys (model .. reserve) and omitted for the rest. decode(encode(s)) == s. */
std::string encode_scenario(const Scenario& scenario);

/** One row of the key table, for documentation and the page's controls. */
struct ScenarioKeyInfo {
  const char* key;
  const char* default_text;
  const char* description;
};
const std::vector<ScenarioKeyInfo>& scenario_keys();

}  // namespace gpucalc
