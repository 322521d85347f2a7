#pragma once
/** The catalog: GPUs, priced offerings, models and calibration records, read from JSON text. */
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucalc/calibration.hpp"
#include "gpucalc/model_constants.hpp"
#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

/** A measured (or, flagged, estimated) figure with its provenance. */
struct SourcedFigure {
  double value = 0.0;  // unit given by the field holding it
  bool estimate = false;
  std::string source;
};

/**
 * Chinese text of an entry's free-text fields: `<field>_zh` beside `<field>` in the catalog (the
 * vendor's own Chinese wording where it gives one, else a translation), and `zh_source` saying
 * which. The page shows the text of its language; the core only carries it.
 */
struct ZhText {
  std::vector<std::pair<std::string, std::string>> fields;  // (field, its Chinese text)
  std::string source;                                       // required when fields is not empty
};

enum class Topology { kSwitch, kFullMesh };

struct Interconnect {
  std::string kind;  // "NVLink 4", "Infinity Fabric"
  Topology topology = Topology::kSwitch;
  int links = 0;                               // 0: unset (a projected part)
  double link_bandwidth_bytes_per_s = 0.0;     // per link, as marketed; 0: unset
  double per_gpu_bandwidth_bytes_per_s = 0.0;  // aggregate per GPU, as marketed
  // GPUs sharing this fabric (the scale-up domain: 8 on an HGX or OAM baseboard, 72 in an
  // NVL72 rack). Tensor and expert parallelism stay inside it; past it the scale-out network.
  int scale_up_gpus = 0;
  std::string scale_up_source;
  // Small-message latency of one all-reduce / one all-to-all over the fabric when no measured
  // curve exists (data/kernels.json); empty: data/performance.json's allreduce_latency_us.
  std::optional<SourcedFigure> allreduce_latency_s;
  std::optional<SourcedFigure> alltoall_latency_s;
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
  std::optional<double> tdp_w;  // unset only on a projected part whose TDP no source gives
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
  ZhText zh;  // form_factor_zh, note_zh
  // Announced, never measured: its figures are the vendor's claims (gpus.json "projected").
  bool projected = false;
  /** GPUs in this GPU's scale-up domain (interconnect.scale_up_gpus, at least 1). */
  int scale_up_gpus() const { return interconnect.scale_up_gpus > 1 ? interconnect.scale_up_gpus : 1; }
  std::string supplied_by;  // the document that gave these figures; empty: gpucalc's data/
};

/**
 * A scale-out (server-to-server) network: `nics_per_server` NICs, one per GPU on an 8-GPU
 * server (rail-aligned), each with its achieved bandwidth and a per-message latency.
 */
/**
 * Expert-parallel dispatch and combine of an EP group spread over servers on this network, as
 * an RDMA all-to-all library measured them (DeepEP on ConnectX-7, MORI-EP on AMD): the time of
 * each at a small batch (`tokens_per_rank` tokens per GPU of `hidden` values, `top_k` experts
 * each) per EP size, and the bandwidth per GPU over the NIC at large batches, with the NIC line
 * rate the figures were measured on. Absent: the plain latency + bytes / bandwidth model.
 */
struct EpAllToAll {
  static constexpr int kSizes = 3;
  static constexpr int kEp[kSizes] = {16, 32, 64};  // EP sizes a figure may be given for
  double tokens_per_rank = 0.0, hidden = 0.0, top_k = 0.0;
  std::optional<SourcedFigure> dispatch_s[kSizes], combine_s[kSizes];  // small batch, per EP size
  SourcedFigure rdma_dispatch_bytes_per_s, rdma_combine_bytes_per_s;   // per GPU, large batch
  double figure_nic_bytes_per_s = 0.0;  // line rate of one GPU's NIC where they were measured
  std::vector<std::string> sources;
};

struct Network {
  std::string id, name, kind;
  int nics_per_server = 0;
  double nic_line_rate_bytes_per_s = 0.0;  // as marketed (400 Gbit/s = 50 GB/s)
  SourcedFigure achieved_bytes_per_s_per_nic;
  SourcedFigure latency_s;
  std::optional<EpAllToAll> ep_all_to_all;  // RDMA all-to-all figures of wide expert parallelism
  std::vector<std::string> sources;
  std::string note;
  std::string supplied_by;  // the document that gave these figures; empty: gpucalc's data/
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
  ZhText zh;  // name_zh, cpu_zh, ram_zh, storage_zh, network_zh, availability_zh, note_zh
};

/** Kind of the softmax-attention layers: GQA (MHA is GQA with kv_heads = heads), MLA, or
 *  DeepSeek-V4's compressed attention (one shared K=V vector of head_dim per KV head, a raw
 *  window of recent tokens, and compressed rows on CSA and HCA layers). */
enum class AttentionKind { kGqa, kMla, kCompressed };
const char* attention_kind_name(AttentionKind kind);  // "gqa", "mla", "compressed"

/** Kind of the linear-attention layers: Gated DeltaNet (Qwen3-Next, Qwen3.5) or Kimi Delta
 *  Attention (Kimi K3: separate q/k/v projections, low-rank forget and output gates). Both keep
 *  a fixed state of value heads x key_dim x value_dim per layer and sequence. */
enum class LinearAttentionKind { kGatedDeltaNet, kKda };

/** Weight groups that checkpoints and engines store at different precisions. */
enum class WeightGroup {
  kEmbedding = 0,   // input token embedding
  kLmHead,          // output projection (0 when tied to the embedding)
  kAttention,       // softmax, linear (Gated DeltaNet) and DSA indexer projections
  kDenseFfn,        // dense FFN layers (dense models, leading dense layers of MoE models)
  kSharedExperts,   // always-active experts of an MoE layer
  kRoutedExperts,   // routed experts
  kRouter,          // expert router (gate)
  kNorms,           // norms, biases and small projections kept in BF16 (MTP eh_proj)
};
constexpr std::size_t kWeightGroupCount = 8;
const char* weight_group_name(WeightGroup g);  // "embedding", "lm_head", "attention", ...
using GroupParams = std::array<double, kWeightGroupCount>;  // parameters per group

/** How one weight group is stored: value bits plus one scale per `values_per_scale` values. */
struct StorageFormat {
  std::string id = "bf16";
  double value_bits = 16.0;
  double scale_bits = 0.0;
  double values_per_scale = 1.0;
  /** value_bits / 8 + scale_bits / 8 / values_per_scale (e.g. FP8 with one FP32 scale per
   *  128x128 block: 1 + 4 / 16384). */
  double bytes_per_param() const { return value_bits / 8.0 + scale_bits / 8.0 / values_per_scale; }
};

struct Model {
  std::string id, name;
  int layers = 0;        // decoder layers of the main model (MTP layers not included)
  int dense_layers = 0;  // leading dense layers in an MoE model (DeepSeek: 3, Kimi K2.5: 1)
  int hidden_size = 0;
  int intermediate_size = 0;      // dense FFN width
  int moe_intermediate_size = 0;  // per expert
  int shared_expert_intermediate_size = 0;  // 0: experts_shared x moe_intermediate_size
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int vocab_size = 0;
  bool tied_embeddings = false;  // the output head reuses the embedding (Gemma 3)
  int experts_routed = 0;  // 0: dense model
  int experts_active = 0;
  int experts_shared = 0;
  int moe_layer_interval = 1;  // 2: every second layer is MoE (Llama 4 Maverick)
  // Latent MoE (Kimi K3): tokens are projected to this width, the routed experts work there
  // (moe_latent_size -> moe_intermediate_size -> moe_latent_size), then projected back; 0: none.
  int moe_latent_size = 0;
  double params_total = 0.0;   // count, main model (MTP layers not included)
  double params_active = 0.0;  // count, used per token (embedding and head included)
  double params_mtp = 0.0;     // count, multi-token-prediction layers (resident, not active)
  GroupParams param_groups{};  // resident parameters per weight group (main + MTP)
  double card_params_total = 0.0;   // count the model card or id states (0: none)
  double card_params_active = 0.0;  // count, as the card states it (its own convention)
  std::string card_source;
  // Softmax attention (full and sliding layers).
  AttentionKind attention = AttentionKind::kGqa;
  bool attention_output_gate = false;  // Qwen3-Next/3.5: q_proj also yields a sigmoid gate;
                                       // MLA (Kimi K3): a separate gate projection, hidden -> heads x v
  int kv_lora_rank = 0;      // MLA: compressed KV width
  int qk_rope_head_dim = 0;  // MLA: rotary key width, cached beside the latent
  int q_lora_rank = 0;       // MLA: for the parameter count only
  int qk_nope_head_dim = 0;  // MLA
  int v_head_dim = 0;        // MLA
  // DeepSeek Sparse Attention (MLA + DSA): a lightning indexer keeps one key of
  // index_head_dim values per token per layer and picks the index_topk tokens attended.
  int index_heads = 0;
  int index_head_dim = 0;
  int index_topk = 0;  // 0: no DSA
  // Sparse attention on part of the full layers (data: 0 = all of them). index_layers keep index
  // keys and run the indexer (GLM-5.2's IndexCache: 21 of 78, the rest reuse the last
  // selection); sparse_layers attend only the index_topk tokens picked (MiniMax-M3's block-sparse
  // attention: 57 of 60, the first 3 attend the whole context). GQA or MLA.
  int index_layers = 0;
  int sparse_layers = 0;
  // Compressed attention (DeepSeek-V4): every CSA and HCA layer keeps the raw window of
  // sliding_window_tokens rows plus one compressed row per csa_ratio tokens (CSA: with index
  // keys at the same ratio, attends the indexer's index_topk rows) or per hca_ratio tokens
  // (HCA: attends all of them). The window-only layers are sliding_window_layers.
  int csa_layers = 0;
  int csa_ratio = 0;
  int hca_layers = 0;
  int hca_ratio = 0;
  int o_groups = 0;     // grouped low-rank output projection: groups
  int o_lora_rank = 0;  // and the rank of each
  // Layer kinds: sliding_window_layers + linear_attention_layers + csa_layers + hca_layers +
  // full layers = layers.
  int sliding_window_tokens = 0;
  int sliding_window_layers = 0;
  // Gated DeltaNet linear attention: a fixed state per sequence (no per-token KV).
  int linear_attention_layers = 0;
  int linear_key_heads = 0;
  int linear_value_heads = 0;
  int linear_key_head_dim = 0;
  int linear_value_head_dim = 0;
  LinearAttentionKind linear_kind = LinearAttentionKind::kGatedDeltaNet;
  int linear_conv_kernel = 0;                    // short causal convolution width
  double linear_state_bytes_per_value = 2.0;     // recurrent state (mamba_ssm_dtype: float32 = 4)
  double linear_conv_bytes_per_value = 2.0;      // convolution state, the model dtype (BF16)
  int mtp_layers = 0;  // multi-token-prediction layers (num_nextn_predict_layers)
  int max_context_tokens = 0;
  std::string native_weights;  // dominant checkpoint format: "bf16", "fp8", "fp4", "int4"
  // The release's storage per weight group; all BF16 unless the release is quantized.
  std::array<StorageFormat, kWeightGroupCount> checkpoint{};
  bool checkpoint_quantized = false;  // some group is not BF16: weights=native is the default
  std::string checkpoint_note;        // which modules stay BF16, from the release's config
  std::vector<std::string> sources;
  std::string note;
  std::string supplied_by;  // the document that gave these dimensions; empty: gpucalc's data/
  // Other names users type for the model (an older id, the -instruct name, the Hugging Face repo
  // id); Catalog::find_model resolves them, ASCII case aside.
  std::vector<std::string> aliases;
  bool is_moe() const { return experts_routed > 0; }
  /** Width the routed experts read and write: moe_latent_size, else hidden_size. */
  double expert_io_width() const { return moe_latent_size > 0 ? moe_latent_size : hidden_size; }
  int full_attention_layers() const {
    return layers - sliding_window_layers - linear_attention_layers - csa_layers - hca_layers;
  }
  /** Full layers keeping index keys (index_layers, else all full layers when index_topk is set). */
  int index_key_layers() const {
    if (index_topk <= 0) return 0;
    return index_layers > 0 ? index_layers : full_attention_layers();
  }
  /** Full layers attending only the index_topk tokens (sparse_layers, else all full layers). */
  int sparse_attention_layers() const {
    if (index_topk <= 0) return 0;
    return sparse_layers > 0 ? sparse_layers : full_attention_layers();
  }
  /** Layers with routed experts: after the `dense_layers` leading dense ones, every
   *  `moe_layer_interval`-th layer (Hugging Face's convention: layer i is MoE when
   *  (i - dense + 1) % interval == 0), so floor((layers - dense) / interval). 0 if dense. */
  int moe_layer_count() const;
};

struct EngineCatalog;
struct KernelCatalog;
struct ErrorBandTable;
struct ServingCalibration;

/** Names of the documents that replaced gpucalc's model constants, engine and kernel data and
 *  error bands; empty: gpucalc's own data/ file. */
struct SuppliedDocuments {
  std::string constants, engines, kernels, error_bands;
};

/**
 * Who supplied a catalog document, and so what it may change:
 * - kBuiltIn: gpucalc's own data/ files.
 * - kUser: the user's own file (`--catalog`, the page's file input): it may replace anything,
 *   and every GPU, model, network or model-constant document it gives is named as supplied
 *   (`supplied_by`), so results built on it say so (`rates_source` "supplied").
 * - kPriceList: a list another party supplied (the page's `catalog=` link, an embedding host's
 *   message): offerings with their prices and names only. GPU, model and network figures, the
 *   model constants, engine, kernel and calibration data (serving calibrations too) and the
 *   error bands are refused.
 * - kServingCalibration: a serving calibration another party supplied (the embed's
 *   `calibration=`, an embedding host's message): one "gpucalc-serving-calibration/1" document
 *   and nothing else; its corrections stay within their physical bounds, and every result
 *   built on it names the supplier (`supplied_by`). Anything else is refused.
 */
enum class CatalogTrust { kBuiltIn, kUser, kPriceList, kServingCalibration };

struct Catalog {
  std::vector<Gpu> gpus;
  std::vector<Network> networks;
  std::vector<Offering> offerings;
  std::vector<Model> models;
  std::vector<CalibrationRecord> calibrations;
  std::optional<ModelConstants> constants;  // data/performance.json; evaluate() needs it
  std::shared_ptr<const EngineCatalog> engines;  // data/engines.json (serving.hpp)
  std::shared_ptr<const KernelCatalog> kernels;  // data/kernels.json (serving.hpp)
  std::shared_ptr<const ErrorBandTable> error_bands;  // data/error-bands.json (error_bands.hpp)
  SuppliedDocuments supplied;  // which of the four documents above are not gpucalc's
  // Serving calibrations ("gpucalc-serving-calibration/1", serving_calibration.hpp): one per
  // (GPU, engine); a later document for the same pair replaces the earlier one.
  std::vector<std::shared_ptr<const ServingCalibration>> serving_calibrations;

  const Gpu* find_gpu(std::string_view id) const;
  const Offering* find_offering(std::string_view id) const;
  const Network* find_network(std::string_view id) const;
  /** The offering's scale-out network, or nullptr when it has none (separate VMs). */
  const Network* scale_out_of(const Offering& offering) const;
  /** The model with this id, else the one with this alias (ASCII case ignored); null if none. */
  const Model* find_model(std::string_view id_or_alias) const;
  /** Latest non-dry-run calibration record for a GPU, or nullptr. */
  const CalibrationRecord* find_calibration(std::string_view gpu_id) const;
};

/** Largest JSON text the core parses (bytes). */
constexpr std::size_t kMaxJsonTextBytes = 16u << 20;
/** Largest Hugging Face config.json import_hf_config reads (bytes): 1 MiB. */
constexpr std::size_t kMaxHfConfigBytes = 1u << 20;

/**
 * Parses one JSON document into a partial catalog. The document may hold any of the arrays
 * "gpus", "networks", "offerings", "models", or be a document of a kind named by its "schema":
 * a calibration record ("gpucalc-calibration/1"), the model constants ("gpucalc-performance/1").
 * Every entry is validated; an error names `source_name`, the entry and the field.
 */
Result<Catalog> parse_catalog_json(std::string_view json_text, std::string_view source_name);

/**
 * Returns `base` extended by the entries of `json_text`: an entry whose id exists replaces it,
 * a new id is appended; a constants document replaces the constants whole. Cross references
 * (offering -> GPU) are checked on the result. `trust` says what the document may change
 * (CatalogTrust): what it may not is an error naming the field; what it supplies is named.
 */
Result<Catalog> extend_catalog(const Catalog& base, std::string_view json_text,
                               std::string_view source_name,
                               CatalogTrust trust = CatalogTrust::kUser);

/** Checks cross references and uniqueness of ids. */
Result<bool> validate_catalog(const Catalog& catalog);

/** The catalog compiled from every data/ JSON file except the validation tables, and the
 *  data/calibration/ records (empty if that data is invalid, which build_default_catalog()
 *  reports and the tests check). */
const Catalog& default_catalog();
/** The same, built anew; `skip_file` names an embedded file to leave out (the error-bands
 *  generator leaves out the file it rewrites, which may be stale or invalid). */
Result<Catalog> build_default_catalog(std::string_view skip_file = {});

/** Embedded catalog files by name ("gpus.json"), for tools that show the sources. */
struct EmbeddedFile {
  const char* name;
  const char* text;
};
const std::vector<EmbeddedFile>& embedded_data_files();
/** The validation tables ("validation.json", "validation-serving.json"), kept apart so that a
 *  program that never reads them (the page's module) does not carry them. */
const std::vector<EmbeddedFile>& embedded_validation_files();

/**
 * Turns a Hugging Face config.json (Llama, Qwen 2/3/3-Next/3.5, Mixtral, DeepSeek-V3/V3.2,
 * Kimi K2.5, GLM-5, MiniMax-M2, gpt-oss, Gemma 3, Llama 4 layouts; a multimodal wrapper's
 * text_config) into a Model. Field types are strict and every count is bounded before use
 * (docs/memory-and-models.md lists the limits); an error names the field. Parameter counts are computed from the
 * architecture; the release's quantization_config gives the per-group checkpoint precision.
 */
Result<Model> import_hf_config(std::string_view config_json, std::string_view id);

/** Parameter counts from the architecture fields of `model` (tied: the head reuses the
 *  embedding). active counts the embedding, the head and the experts used per token. */
struct ParamCount {
  double total = 0.0;   // main model
  double active = 0.0;  // per token
  double mtp = 0.0;     // multi-token-prediction layers
  GroupParams groups{};      // main model per weight group
  GroupParams mtp_groups{};  // MTP layers per weight group
};
ParamCount count_params(const Model& model, bool tied_embeddings);

/** Fills params_total/active/mtp and param_groups from the architecture where the catalog gives
 *  no totals; where it does, the groups are scaled to the given totals. */
void fill_param_counts(Model& model, std::optional<double> total, std::optional<double> active);

}  // namespace gpucalc
