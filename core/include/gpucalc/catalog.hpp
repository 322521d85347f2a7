#pragma once
/** The catalog: GPUs, priced offerings, models and calibration records, read from JSON text. */
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/calibration.hpp"
#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

/** A measured (or, flagged, estimated) figure with its provenance. */
struct SourcedFigure {
  double value = 0.0;  // unit given by the field holding it
  bool estimate = false;
  std::string source;
};

enum class Topology { kSwitch, kFullMesh };

struct Interconnect {
  std::string kind;  // "NVLink 4", "Infinity Fabric"
  Topology topology = Topology::kSwitch;
  int links = 0;
  double link_bandwidth_bytes_per_s = 0.0;     // per link, as marketed
  double per_gpu_bandwidth_bytes_per_s = 0.0;  // aggregate per GPU, as marketed
};

struct Gpu {
  std::string id, name, vendor, architecture, memory_type, form_factor;
  std::string arch_target;  // "sm_90", "gfx942": for calibration records
  double hbm_marketed_bytes = 0.0;             // decimal, as sold ("141 GB" = 141e9)
  std::optional<double> hbm_device_bytes;      // as the device reports it (binary MiB x 2^20)
  double memory_bandwidth_bytes_per_s = 0.0;   // datasheet peak
  PerPrecision<std::optional<double>> peak_flops_per_s{};  // dense; empty = no native path
  std::string fp8_format;                      // "e4m3" or "e4m3fnuz"
  std::optional<Fp4Encoding> fp4_native;       // empty: FP4 is weight-only here
  double tdp_w = 0.0;
  // All-in power per GPU in watts: the GPU, its share of the server, networking and cooling
  // (InferenceX's figure, shared/reference/prices.md), for the energy figures.
  std::optional<SourcedFigure> all_in_power_w;
  std::string cooling;  // "air" | "liquid" | ""
  Interconnect interconnect;
  // Public measurements (shared/reference/measured.md) the throughput model uses by default.
  PerPrecision<std::optional<SourcedFigure>> achieved_matmul_flops_per_s{};
  std::optional<SourcedFigure> achieved_hbm_bytes_per_s;
  std::optional<SourcedFigure> achieved_allreduce_bus_bytes_per_s;
  std::vector<std::string> sources;
  std::string note;
};

/**
 * A scale-out (server-to-server) network: `nics_per_server` NICs, one per GPU on an 8-GPU
 * server (rail-aligned), each with its achieved bandwidth and a per-message latency.
 */
struct Network {
  std::string id, name, kind;
  int nics_per_server = 0;
  double nic_line_rate_bytes_per_s = 0.0;  // as marketed (400 Gbit/s = 50 GB/s)
  SourcedFigure achieved_bytes_per_s_per_nic;
  SourcedFigure latency_s;
  std::vector<std::string> sources;
  std::string note;
};

struct Offering {
  std::string id, name, provider, gpu_id, kind;  // kind: "server" | "single"
  int gpu_count = 1;
  std::optional<double> price_usd_per_month;     // empty: unpriced, the user supplies it
  // Where the price comes from: tier "provider" (a provider's list price) or an InferenceX
  // reference tier ("hyperscaler", "neocloud", "rental-3y"); "" for an unpriced platform.
  std::string tier, price_source, price_date;
  bool price_estimate = false;                   // an estimated price, flagged (MI350X)
  std::optional<double> listed_usd_per_gpu_hour;  // the listed rate when priced per GPU-hour
  std::string scale_out_id;  // a Network id; empty: cannot join others into one deployment
  std::string cpu, ram, storage, network, availability;
  std::vector<std::string> sources;
  std::string note;
};

enum class AttentionKind { kGqa, kMla };

struct Model {
  std::string id, name;
  int layers = 0;
  int dense_layers = 0;  // leading dense layers in an MoE model (DeepSeek: 3)
  int hidden_size = 0;
  int intermediate_size = 0;      // dense FFN width
  int moe_intermediate_size = 0;  // per expert
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int vocab_size = 0;
  int experts_routed = 0;  // 0: dense model
  int experts_active = 0;
  int experts_shared = 0;
  int moe_layer_interval = 1;  // 2: every second layer is MoE (Llama 4 Maverick)
  double params_total = 0.0;   // count, resident in memory
  double params_active = 0.0;  // count, used per token
  AttentionKind attention = AttentionKind::kGqa;
  int kv_lora_rank = 0;      // MLA: compressed KV width
  int qk_rope_head_dim = 0;  // MLA: rotary key width, cached beside the latent
  int q_lora_rank = 0;       // MLA: for the parameter count only
  int qk_nope_head_dim = 0;  // MLA
  int v_head_dim = 0;        // MLA
  int sliding_window_tokens = 0;
  int sliding_window_layers = 0;
  int max_context_tokens = 0;
  std::string native_weights;  // "bf16", "fp8", "fp4"
  std::vector<std::string> sources;
  std::string note;
  bool is_moe() const { return experts_routed > 0; }
};

struct Catalog {
  std::vector<Gpu> gpus;
  std::vector<Network> networks;
  std::vector<Offering> offerings;
  std::vector<Model> models;
  std::vector<CalibrationRecord> calibrations;

  const Gpu* find_gpu(std::string_view id) const;
  const Offering* find_offering(std::string_view id) const;
  const Network* find_network(std::string_view id) const;
  /** The offering's scale-out network, or nullptr when it has none (separate VMs). */
  const Network* scale_out_of(const Offering& offering) const;
  const Model* find_model(std::string_view id) const;
  /** Latest non-dry-run calibration record for a GPU, or nullptr. */
  const CalibrationRecord* find_calibration(std::string_view gpu_id) const;
};

/** Largest JSON text the core parses (bytes). */
constexpr std::size_t kMaxJsonTextBytes = 16u << 20;

/**
 * Parses one JSON document into a partial catalog. The document may hold any of the arrays
 * "gpus", "networks", "offerings", "models", or be a calibration record ("schema": "gpucalc-calibration/1").
 * Every entry is validated; an error names `source_name`, the entry and the field.
 */
Result<Catalog> parse_catalog_json(std::string_view json_text, std::string_view source_name);

/**
 * Returns `base` extended by the entries of `json_text`: an entry whose id exists replaces it,
 * a new id is appended. Cross references (offering -> GPU) are checked on the result.
 */
Result<Catalog> extend_catalog(const Catalog& base, std::string_view json_text,
                               std::string_view source_name);

/** Checks cross references and uniqueness of ids. */
Result<bool> validate_catalog(const Catalog& catalog);

/** The catalog compiled from data/ JSON files and data/calibration/ records (empty if that data is
 *  invalid, which build_default_catalog() reports and the tests check). */
const Catalog& default_catalog();
Result<Catalog> build_default_catalog();

/** Embedded data files by name ("gpus.json"), for tools that show the sources. */
struct EmbeddedFile {
  const char* name;
  const char* text;
};
const std::vector<EmbeddedFile>& embedded_data_files();

/**
 * Turns a Hugging Face config.json (Llama, Qwen, Mixtral, DeepSeek-V3, gpt-oss, Llama 4 layouts)
 * into a Model. Parameter counts are computed from the architecture (embeddings, attention,
 * dense or expert FFN, norms). `id` becomes the model id.
 */
Result<Model> import_hf_config(std::string_view config_json, std::string_view id);

/** Total and active parameter counts from the architecture fields of `model`. */
struct ParamCount {
  double total = 0.0;
  double active = 0.0;
};
ParamCount count_params(const Model& model, bool tied_embeddings);

}  // namespace gpucalc
