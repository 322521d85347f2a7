#include "record.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "stats.hpp"

namespace gpucalc::bench {
namespace {

JsonValue num(double v) { return JsonValue::number(v); }
JsonValue str(const std::string& s) { return JsonValue::string(s); }
JsonValue integer(std::uint64_t v) { return JsonValue::integer(static_cast<std::int64_t>(v)); }

/** Sets peak, its source and efficiency; null when the catalog has no peak. */
void set_peak(JsonValue& m, double value, double peak, const std::string& source) {
  if (peak > 0) {
    m.set("peak", num(peak));
    m.set("peak_source", str(source));
    m.set("efficiency", num(value / peak));
  } else {
    m.set("peak", JsonValue::null());
    m.set("efficiency", JsonValue::null());
  }
}

JsonValue range_of(const std::vector<EnvSample>& samples, std::optional<double> EnvSample::*field) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& s : samples) {
    const auto v = s.*field;
    if (!v) continue;
    lo = any ? std::min(lo, *v) : *v;
    hi = any ? std::max(hi, *v) : *v;
    any = true;
  }
  if (!any) return JsonValue::null();
  JsonValue r = JsonValue::object();
  r.set("min", num(lo));
  r.set("max", num(hi));
  return r;
}

JsonValue environment(const RecordInput& in) {
  const DeviceInfo& d = in.device;
  JsonValue env = JsonValue::object();
  env.set("device_name", str(d.name));
  env.set("arch", str(d.arch));
  env.set("vendor", str(d.vendor));
  env.set("device_index", JsonValue::integer(d.index));
  env.set("device_count", JsonValue::integer(d.device_count));
  if (!d.pci_bus_id.empty()) env.set("pci_bus_id", str(d.pci_bus_id));
  env.set("multiprocessors", JsonValue::integer(d.multiprocessors));
  env.set("memory_bytes", integer(d.memory_bytes));
  env.set("l2_cache_bytes", integer(d.l2_cache_bytes));
  env.set("sm_clock_max_mhz", d.sm_clock_max_mhz > 0 ? num(d.sm_clock_max_mhz) : JsonValue::null());
  env.set("memory_clock_max_mhz",
          d.memory_clock_max_mhz > 0 ? num(d.memory_clock_max_mhz) : JsonValue::null());
  env.set("memory_bus_width_bits", JsonValue::integer(d.memory_bus_width_bits));
  env.set("driver_version", str(d.driver_version));
  env.set("runtime_version", str(d.runtime_version));
  env.set("blas_version", d.blas_version.empty() ? JsonValue::null() : str(d.blas_version));
  env.set("telemetry", str(d.telemetry));
  JsonValue during = JsonValue::object();
  during.set("samples", JsonValue::integer(static_cast<std::int64_t>(in.env.samples.size())));
  during.set("sm_clock_mhz", range_of(in.env.samples, &EnvSample::sm_clock_mhz));
  during.set("memory_clock_mhz", range_of(in.env.samples, &EnvSample::memory_clock_mhz));
  during.set("power_w", range_of(in.env.samples, &EnvSample::power_w));
  during.set("temperature_c", range_of(in.env.samples, &EnvSample::temperature_c));
  env.set("during_run", during);
  return env;
}

JsonValue stream_measurement(const RecordInput& in, StreamKernel kernel, const StreamRun& run) {
  const RateSummary s = summarize_rates(rates_from_seconds(run.seconds_per_launch,
                                                           static_cast<double>(run.bytes_per_launch)));
  JsonValue m = JsonValue::object();
  m.set("id", str(std::string("hbm_") + stream_kernel_name(kernel)));
  m.set("status", str(run.verified ? "ok" : "failed"));
  m.set("value", num(s.best));
  m.set("unit", str("B/s"));
  m.set("statistic", str("best"));
  m.set("median", num(s.median));
  m.set("worst", num(s.worst));
  m.set("spread", num(s.spread));
  m.set("samples", integer(s.samples));
  const double peak = in.catalog != nullptr ? in.catalog->memory_bytes_per_s : 0;
  set_peak(m, s.best, peak, "data/gpus.json memory_bandwidth_tbps");
  const char* formula = kernel == StreamKernel::kCopy    ? "c[i] = a[i]"
                        : kernel == StreamKernel::kTriad ? "a[i] = b[i] + s * c[i]"
                                                         : "sum += a[i] * b[i]";
  m.set("method", str(std::string("BabelStream ") + stream_kernel_name(kernel) + " (" + formula +
                      ") on doubles with 16-byte accesses; device events around back-to-back "
                      "launches after warm-up; bytes = arrays touched x array bytes per launch, "
                      "decimal; kernel variant " + run.variant));
  JsonValue sizes = JsonValue::object();
  sizes.set("array_bytes", integer(in.stream_config.array_bytes));
  sizes.set("elements", integer(run.elements));
  sizes.set("arrays_moved", JsonValue::integer(stream_arrays_moved(kernel)));
  sizes.set("bytes_per_launch", integer(run.bytes_per_launch));
  sizes.set("launches_per_sample", JsonValue::integer(in.stream_config.launches_per_sample));
  sizes.set("warmup_launches", JsonValue::integer(in.stream_config.warmup_launches));
  m.set("sizes", sizes);
  m.set("verified", JsonValue::boolean(run.verified));
  m.set("check", str(run.check));
  return m;
}

double catalog_flops(const CatalogGpu* g, GemmPrecision p) {
  if (g == nullptr) return 0;
  switch (p) {
    case GemmPrecision::kBf16: return g->bf16_flops_per_s;
    case GemmPrecision::kFp8: return g->fp8_flops_per_s;
    case GemmPrecision::kFp4: return g->fp4_flops_per_s;
  }
  return 0;
}

JsonValue shape_json(const GemmShape& s) {
  JsonValue j = JsonValue::object();
  j.set("m", JsonValue::integer(s.m));
  j.set("n", JsonValue::integer(s.n));
  j.set("k", JsonValue::integer(s.k));
  return j;
}

JsonValue gemm_measurement(const RecordInput& in, GemmPrecision p, const GemmSupport& support,
                           const GemmRun* run) {
  JsonValue m = JsonValue::object();
  m.set("id", str(std::string("matmul_") + gemm_precision_name(p)));
  if (!support.supported || run == nullptr) {
    m.set("status", str("unsupported"));
    m.set("note", str(support.reason));
    return m;
  }
  const GemmSummary g = summarize_gemm(*run);
  m.set("status", str(run->verified ? "ok" : "failed"));
  m.set("value", num(g.best_flops_per_s));
  m.set("unit", str("FLOP/s"));
  m.set("statistic", str("best_shape"));
  m.set("median", num(g.median_flops_per_s));
  m.set("median_statistic", str("median over the shape set of each shape's median"));
  m.set("best_shape", shape_json(g.best_shape));
  m.set("format", str(run->format));
  m.set("library", str(run->library));
  set_peak(m, g.best_flops_per_s, catalog_flops(in.catalog, p),
           std::string("data/gpus.json peak_tflops.") + gemm_precision_name(p) + " (dense)");
  m.set("method",
        str("D = A^T B (TN, column-major), FLOP = 2MNK; inputs drawn from a standard normal "
            "distribution and rounded to the format; operand sets rotated so the working set "
            "exceeds the last-level cache; warm-up before timing; device events around back-to-"
            "back GEMMs; one product spot-checked against a double-precision reference"));
  JsonValue sizes = JsonValue::object();
  JsonValue shapes = JsonValue::array();
  for (const auto& sr : run->shapes) {
    const RateSummary s = summarize_rates(rates_from_seconds(sr.seconds_per_gemm, sr.shape.flops()));
    JsonValue j = shape_json(sr.shape);
    j.set("best", num(s.best));
    j.set("median", num(s.median));
    j.set("spread", num(s.spread));
    if (!sr.algorithm.empty()) j.set("algorithm", str(sr.algorithm));
    shapes.push(j);
  }
  sizes.set("shapes", shapes);
  sizes.set("samples_per_shape", JsonValue::integer(in.gemm_config.samples));
  sizes.set("seconds_per_sample", num(in.gemm_config.seconds_per_sample));
  sizes.set("warmup_s", num(run->warmup_s));
  sizes.set("rotating_sets", JsonValue::integer(run->rotating_sets));
  sizes.set("rotating_bytes", integer(run->rotating_bytes));
  m.set("sizes", sizes);
  m.set("verified", JsonValue::boolean(run->verified));
  m.set("check_rel_error", num(run->check_rel_error));
  m.set("check", str(run->check));
  return m;
}

JsonValue p2p_measurement(const RecordInput& in, bool bidirectional) {
  JsonValue m = JsonValue::object();
  m.set("id", str(bidirectional ? "p2p_bidirectional" : "p2p_unidirectional"));
  std::vector<double> pair_best;
  JsonValue pairs = JsonValue::array();
  for (const auto& r : in.p2p_runs) {
    if (r.bidirectional != bidirectional) continue;
    const RateSummary s = summarize_rates(r.bytes_per_s);
    pair_best.push_back(s.best);
    JsonValue j = JsonValue::object();
    j.set("src", JsonValue::integer(r.src));
    j.set("dst", JsonValue::integer(r.dst));
    j.set("best", num(s.best));
    j.set("median", num(s.median));
    pairs.push(j);
  }
  if (pair_best.empty()) {
    m.set("status", str("skipped"));
    m.set("note", str(in.device.device_count < 2 ? "one GPU: no pair to measure"
                                                 : "no pair of GPUs can access each other"));
    return m;
  }
  const double value = median_of(pair_best);
  m.set("status", str("ok"));
  m.set("value", num(value));
  m.set("unit", str("B/s"));
  m.set("statistic", str("median over pairs of each pair's best"));
  // The catalog's interconnect figure counts both directions.
  const double peak = in.catalog != nullptr ? in.catalog->interconnect_bytes_per_s : 0;
  set_peak(m, value, bidirectional ? peak : peak / 2,
           bidirectional ? "data/gpus.json interconnect.per_gpu_gbps"
                         : "data/gpus.json interconnect.per_gpu_gbps / 2");
  m.set("method", str(bidirectional
                          ? "copy-engine peer copies both ways at once (nvbandwidth-style); "
                            "bytes = both directions"
                          : "copy-engine peer copy one way (nvbandwidth-style)"));
  JsonValue sizes = JsonValue::object();
  sizes.set("bytes_per_copy", integer(in.p2p_config.bytes));
  sizes.set("samples", JsonValue::integer(in.p2p_config.samples));
  m.set("sizes", sizes);
  m.set("pairs", pairs);
  return m;
}

}  // namespace

GemmSummary summarize_gemm(const GemmRun& run) {
  GemmSummary g;
  std::vector<double> shape_medians;
  for (const auto& sr : run.shapes) {
    const RateSummary s = summarize_rates(rates_from_seconds(sr.seconds_per_gemm, sr.shape.flops()));
    shape_medians.push_back(s.median);
    if (s.best > g.best_flops_per_s) {
      g.best_flops_per_s = s.best;
      g.best_shape = sr.shape;
    }
  }
  g.median_flops_per_s = median_of(shape_medians);
  return g;
}

bool all_checks_passed(const RecordInput& in) {
  for (const auto& r : in.stream_runs) {
    if (!r.verified) return false;
  }
  for (std::size_t i = 0; i < in.gemm_runs.size(); ++i) {
    if (in.gemm_support[i].supported && !in.gemm_runs[i].verified) return false;
  }
  return true;
}

JsonValue build_record(const RecordInput& in) {
  JsonValue r = JsonValue::object();
  r.set("schema", str("gpucalc-calibration/1"));
  r.set("gpu_id", str(in.gpu_id));
  r.set("date", str(in.date));
  r.set("dry_run", JsonValue::boolean(in.dry_run));
  if (!in.note.empty()) r.set("note", str(in.note));
  JsonValue tool = JsonValue::object();
  tool.set("name", str("gpucalc-bench"));
  tool.set("version", str(GPUCALC_BENCH_VERSION));
  tool.set("backend", str(in.device.backend));
  tool.set("command_line", str(in.command_line));
  r.set("tool", tool);
  r.set("environment", environment(in));
  JsonValue ms = JsonValue::array();
  for (std::size_t i = 0; i < in.stream_runs.size(); ++i) {
    ms.push(stream_measurement(in, in.stream_kernels[i], in.stream_runs[i]));
  }
  for (std::size_t i = 0; i < in.gemm_precisions.size(); ++i) {
    const GemmRun* run = i < in.gemm_runs.size() ? &in.gemm_runs[i] : nullptr;
    ms.push(gemm_measurement(in, in.gemm_precisions[i], in.gemm_support[i], run));
  }
  if (in.p2p_requested) {
    ms.push(p2p_measurement(in, false));
    ms.push(p2p_measurement(in, true));
  }
  r.set("measurements", ms);
  return r;
}

}  // namespace gpucalc::bench
