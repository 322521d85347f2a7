// The output invariants (gpucalc/invariants.hpp): what no evaluation may ever show.
#include "evaluate/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucalc {

namespace {

constexpr const char* kNotComputable = "rate_not_computable";
constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool usable_rate(const std::optional<double>& x, double ceiling = kInfinity) {
  return x && std::isfinite(*x) && *x >= kMinReportedTokensPerS && *x <= ceiling;
}
bool positive_finite(const std::optional<double>& x) {
  return x && std::isfinite(*x) && *x > 0.0 && std::isnormal(*x);
}
/** A latency a client could wait for: more than 0, at most a day. */
bool usable_latency(const std::optional<double>& x) {
  return positive_finite(x) && *x <= kMaxLatencyS;
}
bool finite_non_negative(double x) { return std::isfinite(x) && x >= 0.0; }

/** Token rates per GPU above this pass the GPU's peak: each token costs at least
 *  2 x active parameters FLOPs. Infinite when the peak or the model is unknown. */
double tokens_per_s_per_gpu_ceiling(const OfferingResult& r, const Model& m) {
  if (!(r.gpu_peak_flops_per_s > 0.0) || !(m.params_active > 0.0)) return kInfinity;
  return r.gpu_peak_flops_per_s / (2.0 * m.params_active);
}

/** The first figure of a curve point that is out of range, or null. `ceiling`: per GPU. */
const char* point_violation(const ServingCurveEntry& p, double ceiling, int gpus) {
  const double offering_ceiling = ceiling * std::max(1, gpus);
  if (!usable_rate(p.tokens_per_s_per_user, offering_ceiling)) return "tokens_per_s_per_user";
  if (!usable_rate(p.total_tokens_per_s_per_gpu, ceiling)) return "total_tokens_per_s_per_gpu";
  if (!usable_rate(p.output_tokens_per_s_per_gpu, ceiling)) return "output_tokens_per_s_per_gpu";
  if (!usable_latency(p.ttft_s)) return "ttft_s";
  if (!usable_latency(p.ttft_median_s)) return "ttft_median_s";
  if (!usable_latency(p.tpot_s)) return "tpot_s";
  if (!finite_non_negative(p.usd_per_million_tokens)) return "usd_per_million_tokens";
  if (!finite_non_negative(p.users)) return "users";
  return nullptr;
}

/** Where the serving curve or one of its named points is out of range: "curve[3].ttft_s",
 *  "max_throughput_point.tpot_s"; empty when all hold. */
std::string curve_violation(const OfferingResult& r, double ceiling) {
  for (std::size_t i = 0; i < r.curve.size(); ++i) {
    if (const char* f = point_violation(r.curve[i], ceiling, r.deployed_gpus)) {
      return "curve[" + std::to_string(i) + "]." + f;
    }
  }
  if (r.max_throughput_point) {
    if (const char* f = point_violation(*r.max_throughput_point, ceiling, r.deployed_gpus)) {
      return std::string("max_throughput_point.") + f;
    }
  }
  if (r.interactivity_point) {
    if (const char* f = point_violation(*r.interactivity_point, ceiling, r.deployed_gpus)) {
      return std::string("interactivity_point.") + f;
    }
  }
  return {};
}

/** The figures at the scenario's users: decode rate, latencies, rates per GPU. */
const char* latency_violation(const OfferingResult& r, double ceiling) {
  const double offering_ceiling = ceiling * std::max(1, r.deployed_gpus);
  if (r.decode_tokens_per_s_per_user && !usable_rate(r.decode_tokens_per_s_per_user, offering_ceiling)) {
    return "decode_tokens_per_s_per_user";
  }
  if (r.tpot_s && !usable_latency(r.tpot_s)) return "tpot_s";
  if (r.ttft_s && !usable_latency(r.ttft_s)) return "ttft_s";
  if (r.ttft_median_s && !usable_latency(r.ttft_median_s)) return "ttft_median_s";
  if (r.e2e_latency_s && !positive_finite(r.e2e_latency_s)) return "e2e_latency_s";
  if (r.total_tokens_per_s_per_gpu && !usable_rate(r.total_tokens_per_s_per_gpu, ceiling)) {
    return "total_tokens_per_s_per_gpu";
  }
  if (r.output_tokens_per_s_per_gpu && !usable_rate(r.output_tokens_per_s_per_gpu, ceiling)) {
    return "output_tokens_per_s_per_gpu";
  }
  return nullptr;
}

class InvariantChecker {
 public:
  /** `path` names what is checked; it is built only when a check fails (most never do). */
  explicit InvariantChecker(std::string_view path) : name_(path) {}
  /** `list[index](id)`, e.g. results[0](fullgpu-8x-h200). */
  InvariantChecker(std::string_view list, std::size_t index, std::string_view id)
      : name_(list), id_(id), index_(index), indexed_(true) {}
  /** Sizes, counts, times, prices: finite and >= 0. */
  void size(std::string_view field, double x) {
    if (!(std::isfinite(x) && x >= 0.0)) fail(field, x);  // the check inline, the error apart
  }
  void size(std::string_view field, const std::optional<double>& x) {
    if (x) size(field, *x);
  }
  void count(std::string_view field, long long x) { size(field, static_cast<double>(x)); }
  void at_least_one(std::string_view field, long long x) {
    if (x < 1) size(field, -1.0);
  }
  /** Differences: finite, any sign. */
  void signed_value(std::string_view field, double x) {
    if (!std::isfinite(x)) size(field, x);
  }
  void signed_value(std::string_view field, const std::optional<double>& x) {
    if (x) signed_value(field, *x);
  }
  const std::optional<Error>& error() const { return error_; }
  std::string path() const {
    std::string p(name_);
    if (indexed_) p += "[" + std::to_string(index_) + "](" + std::string(id_) + ")";
    return p;
  }

 private:
  /** Records the first failed check. */
  void fail(std::string_view field, double x) {
    if (error_) return;
    error_ = make_error(ErrorCode::kOutOfRange, path() + "." + std::string(field),
                        "cannot be computed from these inputs (got " + show(x) +
                            "): a dimension or figure is beyond what the model handles");
  }
  static std::string show(double x) {
    if (std::isnan(x)) return "not a number";
    if (std::isinf(x)) return x > 0 ? "infinity" : "-infinity";
    return std::to_string(x);
  }
  std::string_view name_, id_;
  std::size_t index_ = 0;
  bool indexed_ = false;
  std::optional<Error> error_;
};

void check_fit(InvariantChecker& c, const MemoryFit& f) {
  c.size("capacity_bytes_per_gpu", f.capacity_bytes_per_gpu);
  c.size("reserve_bytes_per_gpu", f.reserve_bytes_per_gpu);
  c.size("weights_bytes", f.weights_bytes);
  c.size("weights_bytes_per_gpu", f.weights_bytes_per_gpu);
  c.size("kv_bytes_per_token", f.kv_bytes_per_token);
  c.size("kv_bytes_per_context", f.kv_bytes_per_context);
  c.count("gpus_needed_weights_only", f.gpus_needed_weights_only);
  c.count("gpus_needed", f.gpus_needed);
  c.at_least_one("instance_gpus", f.deployment.gpus);
  c.at_least_one("tensor_parallel", f.deployment.tensor_parallel);
  c.at_least_one("pipeline_parallel", f.deployment.pipeline_parallel);
  c.count("replicas", f.replicas);
  c.size("kv_used_bytes_per_gpu", f.kv_used_bytes_per_gpu);
  c.count("full_contexts_per_instance", f.full_contexts_per_instance);
  c.count("full_contexts", f.full_contexts);
  c.count("max_context_tokens", f.max_context_tokens);
  c.at_least_one("servers", f.servers);
  c.count("servers_needed", f.servers_needed);
  c.signed_value("kv_free_bytes_per_gpu", f.kv_free_bytes_per_gpu);
  c.signed_value("kv_free_bytes", f.kv_free_bytes);
  c.signed_value("headroom_bytes_per_gpu", f.headroom_bytes_per_gpu);
}

void check_result(InvariantChecker& c, const OfferingResult& r) {
  c.at_least_one("gpu_count", r.gpu_count);
  check_fit(c, r.fit);
  c.at_least_one("deployed_gpus", r.deployed_gpus);
  c.size("scale_out_s", r.scale_out_s);
  c.size("unit_price_month_usd", r.unit_price_usd_per_month);
  c.size("all_in_power_w_per_gpu", r.all_in_power_w_per_gpu);
  c.size("energy_joules_per_output_token", r.energy_joules_per_output_token);
  c.size("output_tokens_per_s_per_mw", r.output_tokens_per_s_per_mw);
  c.size("energy_usd_per_million_tokens", r.energy_usd_per_million_tokens);
  c.size("energy_kwh_per_run", r.energy_kwh_per_run);
  c.size("energy_usd_per_run", r.energy_usd_per_run);
  c.size("price_month_usd", r.price_usd_per_month);
  c.size("price_gpu_hour_usd", r.price_usd_per_gpu_hour);
  c.size("price_gb_month_usd", r.price_usd_per_gb_month);
  c.signed_value("price_delta_month_usd", r.price_delta_usd_per_month);
  c.size("train_memory_bytes_per_gpu", r.train_memory_bytes_per_gpu);
}

/** Invariant 1 as a predicate on the figures a result holds (after enforcement). */
std::optional<std::string> rate_violation(const OfferingResult& r, double ceiling) {
  const double offering_ceiling = ceiling * std::max(1, r.deployed_gpus);
  if (r.max_throughput_tokens_per_s && !usable_rate(r.max_throughput_tokens_per_s, offering_ceiling)) {
    return "max_throughput_tokens_per_s";
  }
  if (const char* f = latency_violation(r, ceiling)) return f;
  std::string curve = curve_violation(r, ceiling);
  if (!curve.empty()) return curve;
  if (r.train_tokens_per_s && !usable_rate(r.train_tokens_per_s, offering_ceiling)) return "train_tokens_per_s";
  if (r.train_hours && !positive_finite(r.train_hours)) return "train_hours";
  if (r.train_steps && !positive_finite(r.train_steps)) return "train_steps";
  if (r.gpu_hours && !positive_finite(r.gpu_hours)) return "gpu_hours";
  if (r.usd_per_million_tokens) {
    if (!r.max_throughput_tokens_per_s) return "usd_per_million_tokens";
    const double x = *r.usd_per_million_tokens;
    const bool priced = r.price_usd_per_month && *r.price_usd_per_month > 0.0;
    if (!std::isfinite(x) || x < 0.0 || (priced && !positive_finite(x)))
      return "usd_per_million_tokens";
  }
  if (r.usd_per_million_total_tokens && !r.usd_per_million_tokens) return "usd_per_million_total_tokens";
  if (!r.max_throughput_tokens_per_s) {
    if (r.energy_joules_per_output_token) return "energy_joules_per_output_token";
    if (r.output_tokens_per_s_per_mw) return "output_tokens_per_s_per_mw";
    if (r.energy_usd_per_million_tokens) return "energy_usd_per_million_tokens";
  }
  if (!r.train_tokens_per_s) {
    if (r.energy_kwh_per_run) return "energy_kwh_per_run";
    if (r.energy_usd_per_run) return "energy_usd_per_run";
  }
  if (r.run_cost_usd) {
    if (!r.train_tokens_per_s) return "run_cost_usd";
    const double x = *r.run_cost_usd;
    if (!std::isfinite(x) || x < 0.0) return "run_cost_usd";
  }
  return std::nullopt;
}

}  // namespace

bool rate_not_computable(const OfferingResult& r) {
  // Lengths first, no strlen per warning.
  constexpr std::string_view code = kNotComputable;
  for (std::string_view w : r.warnings) {
    if (w == code) return true;
  }
  return false;
}

std::optional<Error> check_fit_invariants(const MemoryFit& fit, const std::string& path) {
  InvariantChecker c(path);
  check_fit(c, fit);
  return c.error();
}

Result<bool> enforce_output_invariants(Evaluation& ev) {
  InvariantChecker model("model");
  model.size("params_total", ev.model.params_total);
  model.size("params_active", ev.model.params_active);
  if (model.error()) return *model.error();
  for (std::size_t i = 0; i < ev.results.size(); ++i) {
    OfferingResult& r = ev.results[i];
    bool cleared = false;
    auto clear = [&cleared](std::optional<double>& x) {
      if (x) cleared = true;
      x.reset();
    };
    const double ceiling = tokens_per_s_per_gpu_ceiling(r, ev.model);
    const double offering_ceiling = ceiling * std::max(1, r.deployed_gpus);
    // Serving throughput, the curve it was searched on and the per-token price that follows.
    if ((r.max_throughput_tokens_per_s && !usable_rate(r.max_throughput_tokens_per_s, offering_ceiling)) ||
        !curve_violation(r, ceiling).empty()) {
      clear(r.max_throughput_tokens_per_s);
      cleared = cleared || !r.curve.empty() || r.max_throughput_point || r.interactivity_point;
      r.curve.clear();
      r.max_throughput_point.reset();
      r.interactivity_point.reset();
    }
    if (!r.max_throughput_tokens_per_s) {
      clear(r.usd_per_million_tokens);
      clear(r.energy_joules_per_output_token);  // energy per token follows from the throughput
      clear(r.output_tokens_per_s_per_mw);
      clear(r.energy_usd_per_million_tokens);
    }
    if (r.usd_per_million_tokens) {
      const double x = *r.usd_per_million_tokens;
      const bool priced = r.price_usd_per_month && *r.price_usd_per_month > 0.0;
      if (!std::isfinite(x) || x < 0.0 || (priced && !positive_finite(x))) {
        clear(r.usd_per_million_tokens);
      }
    }
    if (!r.usd_per_million_tokens) clear(r.usd_per_million_total_tokens);
    // The scenario's users: decode rate, TPOT, TTFT, end-to-end latency and the rates per GPU
    // stand or fall together.
    if (latency_violation(r, ceiling) != nullptr) {
      clear(r.decode_tokens_per_s_per_user);
      clear(r.tpot_s);
      clear(r.ttft_s);
      clear(r.ttft_median_s);
      clear(r.e2e_latency_s);
      clear(r.total_tokens_per_s_per_gpu);
      clear(r.output_tokens_per_s_per_gpu);
    }
    // Training: rate, hours, GPU-hours and the run's cost.
    if ((r.train_tokens_per_s && !usable_rate(r.train_tokens_per_s, offering_ceiling)) ||
        (r.train_hours && !positive_finite(r.train_hours)) ||
        (r.train_steps && !positive_finite(r.train_steps)) ||
        (r.gpu_hours && !positive_finite(r.gpu_hours)) ||
        (r.run_cost_usd && !(std::isfinite(*r.run_cost_usd) && *r.run_cost_usd >= 0.0))) {
      clear(r.train_tokens_per_s);
      clear(r.train_hours);
      clear(r.train_steps);
      clear(r.gpu_hours);
      clear(r.run_cost_usd);
    }
    if (!r.train_tokens_per_s) {
      clear(r.run_cost_usd);
      clear(r.energy_kwh_per_run);
      clear(r.energy_usd_per_run);
    }
    if (cleared && !rate_not_computable(r)) r.warnings.emplace_back(kNotComputable);
    InvariantChecker c("results", i, r.offering_id);
    check_result(c, r);
    if (c.error()) return *c.error();
  }
  return true;
}

std::optional<Error> check_output_invariants(const Evaluation& ev) {
  InvariantChecker model("model");
  model.size("params_total", ev.model.params_total);
  model.size("params_active", ev.model.params_active);
  if (model.error()) return model.error();
  for (std::size_t i = 0; i < ev.results.size(); ++i) {
    const OfferingResult& r = ev.results[i];
    InvariantChecker c("results", i, r.offering_id);
    check_result(c, r);
    if (c.error()) return c.error();
    if (auto field = rate_violation(r, tokens_per_s_per_gpu_ceiling(r, ev.model))) {
      return make_error(ErrorCode::kOutOfRange, c.path() + "." + *field,
                        "is a zero, tiny, non-finite or beyond-physics figure (a rate above the "
                        "GPU's peak, a latency above a day), or follows from one");
    }
    if (rate_not_computable(r) && ev.recommended_offering_id == r.offering_id) {
      return make_error(ErrorCode::kOutOfRange, "recommended",
                        "is " + r.offering_id + ", whose rates cannot be computed");
    }
  }
  for (std::size_t i = 0; i < ev.verdict.size(); ++i) {
    InvariantChecker c("verdict", i, ev.verdict[i].code);
    for (const auto& [name, x] : ev.verdict[i].params) {
      c.size(name, x);
      if (name == "ratio" && x > kMaxVerdictRatio) c.size(name, -x);
    }
    if (c.error()) return c.error();
  }
  return std::nullopt;
}

}  // namespace gpucalc
