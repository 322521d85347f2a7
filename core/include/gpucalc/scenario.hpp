#pragma once
/**
 * The scenario codec: one canonical text form, `key=value` pairs joined by `&`, versioned
 * (`v=1`). The page keeps it in its URL fragment; the CLI takes it as its argument.
 * The key table (names, defaults, ranges) lives in scenario.cpp and is documented in docs/scenario.md.
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
/** Offerings one scenario compares (the page draws a series colour for each). */
constexpr std::size_t kMaxCompared = 8;
/** Largest token count a scenario accepts (context, input, output): 2^24 tokens. */
constexpr long long kMaxScenarioTokens = 16777216;

enum class CapacityBasis { kDevice, kMarketed };
enum class Workload { kInference, kPretrain, kFinetune, kLora, kQlora };
enum class Recompute { kNone, kSelective, kFull };

/** Prefill and decode (key `pd`): on the same workers (aggregated, "0"), on separate pools with
 *  the KV moved between them (disaggregated, "1"), or the better of both for the target
 *  ("auto"). */
enum class PdMode { kAggregated, kDisaggregated, kAuto };
const char* pd_mode_name(PdMode m);  // "0", "1", "auto"

const char* capacity_basis_name(CapacityBasis b);
const char* workload_name(Workload w);
const char* recompute_name(Recompute r);

struct Scenario {
  // Fit
  std::string model = "llama-3.1-70b";
  WeightFormat weights = WeightFormat::kFp8;
  // Set by decode_scenario when the string names no weights: evaluate then takes the model's
  // default (default_weight_format: native for a quantized release, else fp8).
  bool weights_from_model = false;
  KvFormat kv = KvFormat::kFp8;
  long long context_tokens = 131072;
  long long users = 1;  // concurrent sequences
  std::vector<std::string> compare = {"fullgpu-8x-mi355x", "fullgpu-8x-h200"};
  CapacityBasis capacity = CapacityBasis::kDevice;
  double reserve_gb_per_gpu = 5.0;  // runtime + communication buffers + activation workspace
  // Price overrides, aligned with `compare`; a negative value keeps the catalog price.
  std::vector<double> price_usd_per_month;
  // Servers (units of the offering) per compared offering, aligned with `compare`; missing
  // entries are 1; 0 = as many as the fit needs.
  std::vector<int> servers;
  // Energy price, US$ per kWh: about the US industrial-sector average retail price (EIA
  // Electric Power Monthly, table 5.6.A, 2024: about 8 cents); docs/scenario.md.
  double usd_per_kwh = 0.08;
  // Throughput, training and cost
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
  // Serving
  double ttft_max_s = 0.0;     // TTFT limit for max_throughput; 0 = none
  double tpot_max_s = 0.0;     // TPOT limit for max_throughput; 0 = none
  double interactivity = 0.0;  // tokens/s per user: operating point on the curve; 0 = none
  int ep = 0;                  // expert-parallel degree inside an instance; 0 = auto
  bool dpa = false;            // data-parallel attention over the instance's GPUs
  std::string engine = "auto";  // "auto" or an engine id of the catalog (data/engines.json)
  int mtp = 0;                  // speculative (MTP) draft tokens per step; 0 = off
  int gate_steps = 0;           // the engine's new-request gate in decode steps; 0 = its default
  // Disaggregated prefill/decode (core/src/model/disagg.cpp): the pools' shapes, 0 = chosen.
  PdMode pd = PdMode::kAggregated;
  int prefill_workers = 0, prefill_tp = 0, prefill_ep = 0;
  bool prefill_dpa = false;  // 1 = data-parallel attention; 0 = chosen
  int decode_workers = 0, decode_tp = 0, decode_ep = 0;
  bool decode_dpa = false;
  // Software stack (drives the verdict)
  bool cuda_only = false;       // depends on CUDA-only libraries
  bool custom_kernels = false;  // custom CUDA kernels to port to HIP
  bool tensorrt_llm = false;    // uses TensorRT-LLM (no AMD version)
};

/** Two scenarios are equal when their canonical strings are. */
bool operator==(const Scenario& a, const Scenario& b);

/** Parses a scenario string; missing keys take defaults. The first error names the key. */
Result<Scenario> decode_scenario(std::string_view text);

/** What the lenient decode returns: the valid keys applied over the defaults, and one error
 *  per key that could not be read (that key keeps its default). */
struct ScenarioDecode {
  Scenario scenario;
  std::vector<Error> errors;
};

/** Decodes what it can: a bad key, a duplicate, a newer `v=` or a price list longer than
 *  `compare` is reported in `errors` and the other keys are kept (the page's fragment). */
ScenarioDecode decode_scenario_lenient(std::string_view text);

/** The canonical string: `v=1` then keys in schema order; the fit keys (model .. reserve) are
 *  always written, the others only when they differ from their default. Every number is
 *  written with the fewest digits that read back to the same double: decode(encode(s)) == s. */
std::string encode_scenario(const Scenario& scenario);

/** `x` as the codec writes it: the shortest plain decimal (no exponent) that reads back to
 *  exactly `x`. */
std::string format_scenario_number(double x);

/** What a scenario key holds; the page picks its control by it. */
enum class KeyKind { kInteger, kNumber, kBoolean, kChoice, kId, kIdList, kNumberList };
/** "integer" | "number" | "boolean" | "choice" | "id" | "id_list" | "number_list" */
const char* key_kind_name(KeyKind kind);

/**
 * One row of the scenario schema (core/src/scenario/scenario.cpp holds the table, one row per key):
 * decode, encode, `gpucalc --keys`, the binding and the key table in docs/scenario.md all read it.
 */
struct ScenarioKey {
  const char* key = "";
  KeyKind kind = KeyKind::kInteger;
  double min = 0, max = 0;     // integer / number / number_list items; id_list: max entries
  bool min_exclusive = false;  // the value must be more than `min`
  std::vector<std::string> choices;  // choice: the accepted names in schema order
  std::string default_text;          // the default in canonical text (from Scenario{})
  const char* description = "";
  bool fit_key = false;  // always written in the canonical string
};
const std::vector<ScenarioKey>& scenario_keys();

/** {"key": value, ...} for every schema key: the decoded value with defaults applied, typed by
 *  kind (numbers, strings, booleans, arrays; `price` aligned with `compare`, null = catalog). */
std::string scenario_inputs_json(const Scenario& scenario);

/** The schema as JSON: [{"key", "kind", "min", "max", "min_exclusive", "choices", "default",
 *  "default_text", "description", "fit_key"}] in schema order. */
std::string scenario_schema_json();

/** {"scenario": canonical, "inputs": {...}, "errors": [{"code", "field", "message",
 *  "params"}]} from decode_scenario_lenient. The scenario text leaves out `weights` when the
 *  link named none, so evaluating it gives the model's default (its release format). */
std::string scenario_decode_json(std::string_view text);

}  // namespace gpucalc
