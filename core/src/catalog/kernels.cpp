// Kernel-level measurements per GPU (data/kernels.json), replaced by a calibration record's
// serving fields where the bench measured them.
#include <algorithm>
#include <cmath>
#include <optional>
#include "catalog/json_value.hpp"

#include "catalog/bounds.hpp"
#include "catalog/json_strict.hpp"
#include "catalog/kernels.hpp"

namespace gpucalc {

namespace {

using Json = detail::JsonValue;

constexpr double kUs = 1e-6;

Error kernels_error(const std::string& field, const std::string& message) {
  return make_error(ErrorCode::kInvalidCatalog, "kernels.json." + field, message);
}

/** Reads parallel arrays `xk` (within `x_bound`) and `yk` (microseconds) into a curve, x
 *  ascending; `keys` are the object's known keys. */
Result<Curve> read_curve(const Json& j, const char* xk, const detail::Bound& x_bound,
                         const char* yk, const std::string& path,
                         std::initializer_list<std::string_view> keys) {
  Curve c;
  if (!j.is_object() || !j.contains(xk) || !j.contains(yk) || !j.at(xk).is_array() ||
      !j.at(yk).is_array() || j.at(xk).size() != j.at(yk).size() || j.at(xk).empty()) {
    return kernels_error(path, std::string("needs arrays ") + xk + " and " + yk + " of one length");
  }
  if (auto e = detail::unknown_key(j, "kernels.json." + path, keys)) return *e;
  for (std::size_t i = 0; i < j.at(xk).size(); ++i) {
    const Json& x = j.at(xk).at(i);
    const Json& y = j.at(yk).at(i);
    const std::string at = "[" + std::to_string(i) + "]";
    if (!x.is_number()) return kernels_error(path + "." + xk + at, "must be a number");
    if (!y.is_number()) return kernels_error(path + "." + yk + at, "must be a number");
    if (auto e = detail::out_of_bound("kernels.json." + path + "." + xk + at, x.get<double>(), x_bound)) return *e;
    if (auto e = detail::out_of_bound("kernels.json." + path + "." + yk + at, y.get<double>(), detail::kLatencyUs)) {
      return *e;
    }
    if (!c.empty() && x.get<double>() <= c.back_x()) return kernels_error(path, "x must ascend");
    if (!c.push(x.get<double>(), y.get<double>() * kUs)) return kernels_error(path, "has more than 16 points");
  }
  return c;
}

/** A fused FP4 MoE kernel's figures (kernels.json fp4_fused_moe) into `k`. */
std::optional<Error> read_fused_moe(const Json& j, const std::string& path, GpuKernels& k) {
  if (!j.is_object()) return kernels_error(path, "must be an object");
  if (auto e = detail::unknown_key(j, "kernels.json." + path,
                                   {"latency_us", "fused_small_kernels", "source", "note"})) {
    return *e;
  }
  const std::pair<const char*, const detail::Bound*> fields[] = {
      {"latency_us", &detail::kLatencyUs}, {"fused_small_kernels", &detail::kPerLayerCount}};
  double v[2] = {0.0, 0.0};
  for (std::size_t i = 0; i < 2; ++i) {
    const char* key = fields[i].first;
    if (!j.contains(key) || !j.at(key).is_number()) return kernels_error(path + "." + key, "must be a number");
    v[i] = j.at(key).get<double>();
    if (auto e = detail::out_of_bound("kernels.json." + path + "." + key, v[i], *fields[i].second)) return *e;
  }
  k.fp4_moe_latency_s = v[0] * kUs;
  k.fp4_moe_fused_small_kernels = v[1];
  return std::nullopt;
}

}  // namespace

double curve_at(const Curve& c, double x) {
  if (c.n == 0) return 0.0;
  if (x <= c.x[0]) return c.y[0];
  for (std::size_t i = 1; i < static_cast<std::size_t>(c.n); ++i) {
    if (x <= c.x[i]) {
      const double t = std::log(x / c.x[i - 1]) / std::log(c.x[i] / c.x[i - 1]);
      return c.y[i - 1] + (c.y[i] - c.y[i - 1]) * t;
    }
  }
  // Beyond the last point: the last point's bandwidth (time grows with size).
  const std::size_t last = static_cast<std::size_t>(c.n - 1);
  return c.y[last] * x / c.x[last];
}

namespace {

bool add_curve(GpuKernels& k, std::string_view name, const Curve& c, int gpus, bool front) {
  if (k.allreduce_count >= kMaxAllreduceImpls || name.size() >= 24) return false;
  NamedCurve nc;
  std::copy(name.begin(), name.end(), nc.name.begin());
  nc.curve = c;
  nc.gpus = gpus;
  if (front) {
    for (int i = k.allreduce_count; i > 0; --i) {
      k.allreduce[static_cast<std::size_t>(i)] = k.allreduce[static_cast<std::size_t>(i - 1)];
    }
    k.allreduce[0] = nc;
  } else {
    k.allreduce[static_cast<std::size_t>(k.allreduce_count)] = nc;
  }
  ++k.allreduce_count;
  return true;
}

}  // namespace

const GpuKernels* KernelCatalog::find(std::string_view gpu_id) const {
  for (const auto& [id, k] : gpus) {
    if (id == gpu_id) return &k;
  }
  return nullptr;
}

Result<KernelCatalog> parse_kernels(std::string_view json_text) {
  auto parsed = detail::parse_json_strict(json_text, "kernels.json");
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  if (!j.is_object()) return make_error(ErrorCode::kInvalidJson, "kernels.json", "is not a JSON object");
  if (auto e = detail::unknown_key(j, "kernels.json", {"schema", "gpus", "note", "sources"})) return *e;
  if (!j.contains("gpus") || !j.at("gpus").is_object()) return kernels_error("gpus", "must be an object");
  KernelCatalog cat;
  for (const auto& [id, g] : j.at("gpus").items()) {
    const std::string path = "gpus." + id;
    GpuKernels k;
    if (!g.is_object()) return kernels_error(path, "must be an object");
    if (auto e = detail::unknown_key(g, "kernels.json." + path,
                                     {"gemm_latency_us", "allreduce_gpus", "allreduce_us", "alltoall_us", "fp4_fused_moe",
                                      "source", "note"})) {
      return *e;
    }
    if (!g.contains("gemm_latency_us") || !g.at("gemm_latency_us").is_object() ||
        !g.at("gemm_latency_us").contains("value") || !g.at("gemm_latency_us").at("value").is_number()) {
      return kernels_error(path + ".gemm_latency_us", "needs a value (a number of microseconds)");
    }
    const Json& gemm = g.at("gemm_latency_us");
    if (auto e = detail::unknown_key(gemm, "kernels.json." + path + ".gemm_latency_us", {"value", "source", "note"})) {
      return *e;
    }
    if (auto e = detail::out_of_bound("kernels.json." + path + ".gemm_latency_us.value",
                                      gemm.at("value").get<double>(), detail::kLatencyUs)) {
      return *e;
    }
    k.gemm_latency_s = gemm.at("value").get<double>() * kUs;
    if (g.contains("allreduce_us")) {
      if (!g.at("allreduce_us").is_object()) return kernels_error(path + ".allreduce_us", "must be an object");
      const Json* gpus = g.contains("allreduce_gpus") ? &g.at("allreduce_gpus") : nullptr;
      if (gpus == nullptr || !gpus->is_number_integer() || gpus->get<long long>() < 2 ||
          gpus->get<long long>() > 1024) {
        return kernels_error(path + ".allreduce_gpus", "needs the GPUs the all-reduce tables were measured over (2 to 1024)");
      }
      const int measured_gpus = static_cast<int>(gpus->get<long long>());
      for (const auto& [impl, t] : g.at("allreduce_us").items()) {
        auto c = read_curve(t, "bytes", detail::kMessageBytes, "us", path + ".allreduce_us." + impl,
                            {"bytes", "us", "source", "note"});
        if (!c) return c.error();
        if (!add_curve(k, impl, c.value(), measured_gpus, false)) {
          return kernels_error(path + ".allreduce_us", "holds at most 6 implementations with names under 24 characters");
        }
      }
    }
    if (g.contains("alltoall_us")) {
      const std::initializer_list<std::string_view> keys = {"tokens", "dispatch_us", "combine_us", "source",
                                                            "note"};
      auto d = read_curve(g.at("alltoall_us"), "tokens", detail::kTokens, "dispatch_us", path + ".alltoall_us", keys);
      if (!d) return d.error();
      auto c = read_curve(g.at("alltoall_us"), "tokens", detail::kTokens, "combine_us", path + ".alltoall_us", keys);
      if (!c) return c.error();
      k.alltoall_dispatch = std::move(d).value();
      k.alltoall_combine = std::move(c).value();
    }
    if (g.contains("fp4_fused_moe")) {
      if (auto e = read_fused_moe(g.at("fp4_fused_moe"), path + ".fp4_fused_moe", k)) return *e;
    }
    cat.gpus.emplace_back(id, std::move(k));
  }
  return cat;
}

const KernelCatalog& default_kernels() {
  static const KernelCatalog kernels = 
      detail::parse_embedded("kernels.json", [](std::string_view text) { return parse_kernels(text); });
  return kernels;
}

const KernelCatalog& catalog_kernels(const Catalog& catalog) {
  return catalog.kernels ? *catalog.kernels : default_kernels();
}

GpuKernels resolve_kernels(const Catalog& catalog, const KernelCatalog& kernels, const Gpu& gpu) {
  GpuKernels k;
  if (const GpuKernels* d = kernels.find(gpu.id)) k = *d;
  const CalibrationRecord* cal = catalog.find_calibration(gpu.id);
  if (cal == nullptr) return k;
  // Small-M GEMM: intercept of t = a + bytes / B over the record's FP8 (else BF16) points with
  // M <= 16 (least squares; bytes = N x K x bytes per value).
  for (Precision p : {Precision::kFp8, Precision::kBf16}) {
    const auto& pts = cal->gemm_small[index_of(p)];
    const double bpv = p == Precision::kFp8 ? 1.0 : 2.0;
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& g : pts) {
      if (g.m > 16 || !(g.flops_per_s > 0.0)) continue;
      const double x = g.n * g.k * bpv;
      const double y = 2.0 * g.m * g.n * g.k / g.flops_per_s;
      n += 1;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double den = n * sxx - sx * sx;
    if (n >= 2 && den > 0.0) {
      const double slope = (n * sxy - sx * sy) / den;
      const double a = (sy - slope * sx) / n;
      if (a > 0.0 && slope > 0.0) {
        k.gemm_latency_s = a;
        k.calibrated = true;
        break;
      }
    }
  }
  if (!cal->allreduce.empty() && cal->allreduce_gpus >= 2) {
    Curve c;
    for (const auto& a : cal->allreduce) {
      if (a.bytes > 0.0 && a.latency_s > 0.0 && (c.empty() || a.bytes > c.back_x())) {
        if (!c.push(a.bytes, a.latency_s)) break;
      }
    }
    if (!c.empty()) {
      // The measured collective stands for every engine's implementation on this GPU.
      if (k.allreduce_count >= kMaxAllreduceImpls) --k.allreduce_count;
      add_curve(k, "calibrated", c, cal->allreduce_gpus, true);
      k.calibrated = true;
    }
  }
  if (cal->graph_launch_latency_s && *cal->graph_launch_latency_s > 0.0) {
    k.small_kernel_latency_s = *cal->graph_launch_latency_s;
    k.calibrated = true;
  }
  return k;
}

}  // namespace gpucalc
