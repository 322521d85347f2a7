#include "gpucalc/memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/serving.hpp"
#include "gpucalc/units.hpp"

namespace gpucalc {

namespace {

constexpr long long kMaxContextTokens = 16777216;

int ceil_div(int a, int b) { return (a + b - 1) / b; }

/** Weight groups an explicit 4-bit format quantizes on an MoE model: the routed experts, as
 *  Kimi K2.5 (INT4) and gpt-oss (MXFP4) ship them; the rest stays BF16. */
bool quantized_at_4bit(WeightGroup g) { return g == WeightGroup::kRoutedExperts; }
/** `x` as a count when it is a number in [0, max]; -1 otherwise. A cast of a double beyond the
 *  integer's range is undefined (it showed "GPUs for the weights alone -2,147,483,648"); the
 *  output invariants (core/src/evaluate/invariants.cpp) turn a negative count into an error. */
long long checked_count(double x, double max) {
  return x >= 0.0 && x <= max ? static_cast<long long>(x) : -1;
}
constexpr double kMaxInt = 2147483647.0;
/** fit_memory keeps the KV bytes per sequence of instances up to this many GPUs (inside the
 *  scale-up domain), the sizes its searches ask for again and again. */
constexpr int kMemoisedInstanceSizes = 8;


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

WeightFormat default_weight_format(const Model& model) {
  return model.checkpoint_quantized ? WeightFormat::kNative : WeightFormat::kFp8;
}

WeightFormat math_weight_format(const Model& model, WeightFormat format) {
  if (format != WeightFormat::kNative) return format;
  const WeightGroup main = model.is_moe() ? WeightGroup::kRoutedExperts : WeightGroup::kDenseFfn;
  const StorageFormat& sf = model.checkpoint[static_cast<std::size_t>(main)];
  if (sf.value_bits <= 4.0) return sf.id.rfind("int", 0) == 0 ? WeightFormat::kInt4 : WeightFormat::kFp4;
  if (sf.value_bits <= 6.0) return WeightFormat::kFp6;
  if (sf.value_bits <= 8.0) return WeightFormat::kFp8;
  return WeightFormat::kBf16;
}

GroupParams weight_bytes_by_group(const Model& model, WeightFormat format, const Gpu& gpu) {
  GroupParams bytes{};
  const double bf16 = weight_bytes_per_param(WeightFormat::kBf16, fp4_encoding_for(gpu));
  const double per_param = weight_bytes_per_param(format, fp4_encoding_for(gpu));
  const bool four_bit = format == WeightFormat::kFp4 || format == WeightFormat::kInt4;
  for (std::size_t i = 0; i < kWeightGroupCount; ++i) {
    const auto g = static_cast<WeightGroup>(i);
    const double params = model.param_groups[i];
    if (format == WeightFormat::kNative) {
      bytes[i] = params * model.checkpoint[i].bytes_per_param();
    } else if (four_bit && model.is_moe() && !quantized_at_4bit(g)) {
      bytes[i] = params * bf16;
    } else {
      bytes[i] = params * per_param;
    }
  }
  return bytes;
}

double weight_bytes(const Model& model, WeightFormat format, const Gpu& gpu) {
  double sum = 0.0;
  for (double b : weight_bytes_by_group(model, format, gpu)) sum += b;
  return sum;
}

AttentionLayerBytes attention_layer_bytes(const Model& m, KvFormat kv, int tp) {
  const double b = kv_bytes_per_value(kv);
  AttentionLayerBytes out;
  if (m.attention == AttentionKind::kMla) {
    // The latent and the rotary key are replicated on every tensor-parallel rank.
    out.softmax_per_token = (static_cast<double>(m.kv_lora_rank) + m.qk_rope_head_dim) * b;
  } else if (m.attention == AttentionKind::kCompressed) {
    // One vector serves as key and value (a raw-window or compressed row).
    out.softmax_per_token = ceil_div(m.kv_heads, tp) * static_cast<double>(m.head_dim) * b;
  } else {
    out.softmax_per_token = 2.0 * ceil_div(m.kv_heads, tp) * static_cast<double>(m.head_dim) * b;
  }
  if (m.index_topk > 0) out.indexer_per_token = static_cast<double>(m.index_head_dim) * b;
  if (m.linear_attention_layers > 0) {
    const double kh = ceil_div(m.linear_key_heads, tp);
    const double vh = ceil_div(m.linear_value_heads, tp);
    const double dk = m.linear_key_head_dim;
    const double dv = m.linear_value_head_dim;
    const double recurrent = vh * dk * dv;                                 // one dk x dv state per value head
    const double conv = (2.0 * kh * dk + vh * dv) * (m.linear_conv_kernel - 1);  // last kernel-1 inputs
    out.linear_state = recurrent * m.linear_state_bytes_per_value + conv * m.linear_conv_bytes_per_value;
  }
  return out;
}

StageLayers stage_layers(const Model& m, int pp) {
  return StageLayers{ceil_div(m.full_attention_layers(), pp), ceil_div(m.sliding_window_layers, pp),
                     ceil_div(m.linear_attention_layers, pp),   ceil_div(m.index_key_layers(), pp),
                     ceil_div(m.csa_layers, pp),                ceil_div(m.hca_layers, pp)};
}

CacheRates cache_rates(const Model& m, const AttentionLayerBytes& l, const StageLayers& s) {
  CacheRates r;
  r.per_token = s.full * l.softmax_per_token + s.indexed * l.indexer_per_token;
  if (s.csa > 0) r.per_token += s.csa * (l.softmax_per_token + l.indexer_per_token) / m.csa_ratio;
  if (s.hca > 0) r.per_token += s.hca * l.softmax_per_token / m.hca_ratio;
  r.per_window_token = (s.sliding + s.csa + s.hca) * l.softmax_per_token;
  return r;
}

double kv_bytes_per_token(const Model& model, KvFormat kv) {
  return cache_rates(model, attention_layer_bytes(model, kv, 1), stage_layers(model, 1)).per_token;
}

double state_bytes_per_sequence(const Model& model) {
  return model.linear_attention_layers * attention_layer_bytes(model, KvFormat::kBf16, 1).linear_state;
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
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, d.tensor_parallel);
  const StageLayers s = stage_layers(m, d.pipeline_parallel);
  const CacheRates r = cache_rates(m, l, s);
  const double window_tokens =
      std::min(context_tokens, static_cast<double>(m.sliding_window_tokens));
  return r.per_token * context_tokens + r.per_window_token * window_tokens + s.linear * l.linear_state;
}

long long max_context_for(const Model& m, KvFormat kv, const Deployment& d,
                          double free_bytes_per_gpu, long long users) {
  if (free_bytes_per_gpu <= 0 || users < 1) return 0;
  const AttentionLayerBytes l = attention_layer_bytes(m, kv, d.tensor_parallel);
  const StageLayers s = stage_layers(m, d.pipeline_parallel);
  // Bytes per sequence, less the fixed linear-attention state it holds at any length.
  const double budget = free_bytes_per_gpu / static_cast<double>(users) - s.linear * l.linear_state;
  if (budget <= 0) return 0;
  const CacheRates r = cache_rates(m, l, s);
  const double full_rate = r.per_token;  // past the window
  const double sliding_rate = r.per_window_token;
  const double both_rate = full_rate + sliding_rate;
  const double window = m.sliding_window_tokens;
  double tokens = 0;
  if (both_rate <= 0) {
    tokens = static_cast<double>(kMaxContextTokens);  // nothing grows with the context
  } else if (sliding_rate <= 0 || both_rate * window >= budget) {
    tokens = budget / both_rate;
  } else if (full_rate <= 0) {
    tokens = static_cast<double>(kMaxContextTokens);
  } else {
    tokens = (budget - sliding_rate * window) / full_rate;
  }
  return checked_count(std::min(std::floor(tokens), static_cast<double>(kMaxContextTokens)),
                       static_cast<double>(kMaxContextTokens));
}

namespace {

/** What the fit asks of one offering again and again: the KV that users put on a GPU of an
 *  n-GPU instance and the pool that holds it, for the searches over instance sizes. */
class FitSearch {
 public:
  FitSearch(const Model& model, const Scenario& scenario, const EngineProfile* engine,
            const MemoryFit& fit, int scale_up, double chunk)
      : model_(model), scenario_(scenario), engine_(engine), fit_(fit), scale_up_(scale_up),
        chunk_(chunk), context_(static_cast<double>(scenario.context_tokens)),
        request_(static_cast<double>(fit.request_tokens)) {}

  /** Attention data parallel (MoE): each rank holds its own sequences at TP 1, so MLA's latent
   *  is no longer replicated over the instance. */
  bool split_attention(int n) const {
    return engine_ != nullptr && scenario_.dpa && model_.is_moe() && n > 1;
  }

  /** KV bytes per sequence per GPU of an n-GPU instance (at the context and at one request):
   *  the searches and the chosen deployment ask for the same few n, so those inside one
   *  scale-up domain are kept. */
  struct SeqBytes {
    double context = 0.0, request = 0.0;
  };
  SeqBytes seq_bytes_at(int n) {
    if (n < 1 || n > std::min(scale_up_, kMemoisedInstanceSizes)) return compute_seq_bytes(n);
    const auto i = static_cast<std::size_t>(n);
    if (!seq_bytes_known_[i]) {
      seq_bytes_of_[i] = compute_seq_bytes(n);
      seq_bytes_known_[i] = true;
    }
    return seq_bytes_of_[i];
  }

  /** Sequences `u` users put on the most loaded GPU of an n-GPU instance. */
  long long users_per_gpu(int n, long long u) const { return split_attention(n) ? (u + n - 1) / n : u; }

  /** The KV `u` users hold per GPU: without an engine every user at the full context; with one,
   *  the requests as the engine holds them, one of them at the full context. */
  double kv_of(int n, long long u) {
    const SeqBytes b = seq_bytes_at(n);
    const auto k = static_cast<double>(users_per_gpu(n, u));
    if (engine_ == nullptr) return k * b.context;
    return std::max(0.0, k - 1.0) * b.request + b.context;
  }

  /** Bytes per GPU of an n-GPU instance left for KV: the engine's pool, else capacity - reserve. */
  double pool_at(int n) const {
    const double weights = fit_.weights_bytes / n;
    const double plain = fit_.capacity_bytes_per_gpu - fit_.reserve_bytes_per_gpu - weights;
    if (engine_ == nullptr) return plain;
    return std::min(plain, kv_pool_bytes_per_gpu(*engine_, fit_.capacity_bytes_per_gpu, weights,
                                                 std::min(n, scale_up_), chunk_));
  }

  bool holds(int n, long long users) { return kv_of(n, users) <= pool_at(n); }

  /** The smallest legal instance size for which `ok` holds; 0 when none up to the cap. */
  template <class Ok>
  int smallest(Ok&& ok) const {
    for (int n = 1; n <= kMaxInstanceGpus; n = n < scale_up_ ? n + 1 : n + scale_up_) {
      if (deployment_is_valid(model_, n, scale_up_) && ok(n)) return n;
    }
    return 0;
  }

 private:
  SeqBytes compute_seq_bytes(int n) const {
    Deployment d = make_deployment(model_, n, scale_up_);
    if (split_attention(n)) d.tensor_parallel = 1;
    return SeqBytes{kv_bytes_per_sequence_per_gpu(model_, scenario_.kv, d, context_),
                    kv_bytes_per_sequence_per_gpu(model_, scenario_.kv, d, request_)};
  }

  const Model& model_;
  const Scenario& scenario_;
  const EngineProfile* engine_;
  const MemoryFit& fit_;
  int scale_up_;
  double chunk_, context_, request_;
  std::array<SeqBytes, kMemoisedInstanceSizes + 1> seq_bytes_of_{};
  std::array<bool, kMemoisedInstanceSizes + 1> seq_bytes_known_{};
};

/** The instance size the fit deploys and why it does not fit (fit.reason, fit.fits): the
 *  scenario's tp, else one copy of the weights spread over the largest legal instance the
 *  offering holds, which leaves the most room for KV (seed 002 counts DeepSeek on a server this
 *  way); an automatic instance spans the fewest servers that hold it, replicas filling the rest.
 *  One instance spans servers only over a scale-out network. */
int choose_instance(const Model& model, const Scenario& scenario, FitSearch& search, int unit,
                    int scale_up, bool stackable, long long users, MemoryFit& fit) {
  const int g = unit * fit.servers;
  const int instance_cap = stackable ? g : unit;
  const int auto_top = std::min(instance_cap, std::max(unit, fit.servers_needed * unit));
  int n = scenario.tp > 0 ? scenario.tp : fit.gpus_needed;
  if (scenario.tp == 0 && fit.gpus_needed > 0 && fit.gpus_needed <= auto_top) {
    for (int candidate = auto_top; candidate >= fit.gpus_needed; --candidate) {
      if (deployment_is_valid(model, candidate, scale_up) && search.holds(candidate, users)) {
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
  } else if (scenario.tp > 0 && !search.holds(n, (users + g / n - 1) / (g / n))) {
    // The scenario's instance, replicated over the deployment's GPUs: each replica holds its
    // share of the users (as the fit then reports them, fit_memory).
    fit.reason = "does_not_fit";
  } else {
    fit.fits = true;
  }
  return n;
}

}  // namespace

MemoryFit fit_memory(const Model& model, const Gpu& gpu, const Offering& offering,
                     const Scenario& scenario, const ServerSpan& span, const EngineProfile* engine) {
  MemoryFit fit;
  fit.capacity_bytes_per_gpu = capacity_bytes(gpu, scenario.capacity);
  fit.reserve_bytes_per_gpu = scenario.reserve_gb_per_gpu * kBytesPerGB;
  fit.weights_bytes = weight_bytes(model, scenario.weights, gpu);
  fit.kv_bytes_per_token = kv_bytes_per_token(model, scenario.kv);
  fit.state_bytes_per_sequence = state_bytes_per_sequence(model);
  // reserve=0 is the seeds' weights-only arithmetic (capacity - weights); any other reserve is
  // a floor under what the engine itself keeps back.
  if (fit.reserve_bytes_per_gpu <= 0.0) engine = nullptr;
  fit.engine_pool = engine != nullptr;
  const auto context = static_cast<double>(scenario.context_tokens);
  fit.request_tokens = std::min(scenario.input_tokens + scenario.output_tokens, scenario.context_tokens);
  const long long users = std::max(1LL, scenario.users);
  // Tensor parallelism stays inside the GPU's scale-up domain; pipeline stages span domains.
  const int scale_up = gpu.scale_up_gpus();
  fit.kv_bytes_per_context = kv_bytes_per_sequence_per_gpu(model, scenario.kv, Deployment{}, context);
  // Seed 002's rule: weights only, no reserve, no KV. The epsilon keeps 140/140 at 1, not 2.
  fit.gpus_needed_weights_only = static_cast<int>(
      checked_count(std::ceil(fit.weights_bytes / fit.capacity_bytes_per_gpu - 1e-9), kMaxInt));

  FitSearch search(model, scenario, engine, fit, scale_up,
                   engine != nullptr ? engine_chunk_tokens(*engine, gpu) : 0.0);
  fit.gpus_needed = search.smallest([&](int n) { return search.holds(n, users); });
  fit.gpus_needed_full_context = engine == nullptr ? fit.gpus_needed : search.smallest([&](int n) {
    return static_cast<double>(search.users_per_gpu(n, users)) * search.seq_bytes_at(n).context <=
           search.pool_at(n);
  });

  const int unit = offering.gpu_count;
  fit.servers = std::max(1, span.servers);
  fit.servers_needed = fit.gpus_needed > 0 ? ceil_div(fit.gpus_needed, unit) : 0;
  const int g = unit * fit.servers;
  const int instance_cap = span.stackable ? g : unit;
  const int n = choose_instance(model, scenario, search, unit, scale_up, span.stackable, users, fit);
  const int shown = fit.fits ? n : std::min(n, instance_cap);
  fit.deployment = make_deployment(model, shown, scale_up);
  fit.weights_bytes_per_gpu = fit.weights_bytes / shown;
  fit.kv_free_bytes_per_gpu = search.pool_at(shown);
  // What the engine keeps back besides weights and its pool (its activations, graphs, buffers).
  if (engine != nullptr) {
    fit.reserve_bytes_per_gpu = fit.capacity_bytes_per_gpu - fit.weights_bytes_per_gpu - fit.kv_free_bytes_per_gpu;
  }
  const double seq_bytes = search.seq_bytes_at(shown).context;
  const long long per_gpu_sequences = search.split_attention(shown) ? shown : 1;  // sequences per full slot
  Deployment storage = fit.deployment;
  if (search.split_attention(shown)) storage.tensor_parallel = 1;
  if (fit.fits) {
    fit.replicas = g / n;
    fit.kv_free_bytes = fit.replicas * static_cast<double>(n) * fit.kv_free_bytes_per_gpu;
    fit.full_contexts_per_instance =
        seq_bytes > 0
            ? checked_count(std::floor(fit.kv_free_bytes_per_gpu / seq_bytes) * static_cast<double>(per_gpu_sequences), 1e18)
            : 0;
    fit.full_contexts = fit.replicas * fit.full_contexts_per_instance;
    // The users are spread evenly over the replicas (the busiest takes the remainder).
    const long long users_per_instance = (users + fit.replicas - 1) / fit.replicas;
    fit.max_context_tokens = max_context_for(model, scenario.kv, storage, fit.kv_free_bytes_per_gpu,
                                             search.users_per_gpu(shown, scenario.users));
    fit.kv_used_bytes_per_gpu = search.kv_of(shown, users_per_instance);
  } else {
    // The shortfall (negative) or slack of spreading one copy over the whole offering.
    fit.kv_free_bytes = g * search.pool_at(g);
    fit.kv_used_bytes_per_gpu = search.kv_of(shown, users);
  }
  fit.headroom_bytes_per_gpu = fit.kv_free_bytes_per_gpu - fit.kv_used_bytes_per_gpu;
  return fit;
}

}  // namespace gpucalc
