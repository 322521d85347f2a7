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

/** Median, fastest, slowest and spread of repeated latencies (seconds). */
struct LatencySummary {
  double median = 0, best = 0, worst = 0, spread = 0;
  std::size_t samples = 0;
};

LatencySummary summarize_latencies(const std::vector<double>& seconds) {
  LatencySummary l;
  if (seconds.empty()) return l;
  l.median = median_of(seconds);
  l.best = *std::min_element(seconds.begin(), seconds.end());
  l.worst = *std::max_element(seconds.begin(), seconds.end());
  l.spread = l.median > 0 ? (l.worst - l.best) / l.median : 0;
  l.samples = seconds.size();
  return l;
}

JsonValue int_list(const std::vector<int>& values) {
  JsonValue a = JsonValue::array();
  for (int v : values) a.push(JsonValue::integer(v));
  return a;
}

std::string layers_of(const std::vector<LayerShape>& shapes, std::int64_t n, std::int64_t k) {
  for (const auto& s : shapes) {
    if (s.n == n && s.k == k) return s.layers;
  }
  return "";
}

/** Fields common to gemm-small and grouped-gemm; `points` filled by the caller. */
JsonValue small_gemm_common(const RecordInput& in, const std::string& id, GemmPrecision p,
                            const GemmSupport& support, const std::vector<const GemmRun*>& runs,
                            bool& ran) {
  JsonValue m = JsonValue::object();
  m.set("id", str(id));
  std::size_t shapes = 0;
  bool verified = true;
  double rel = 0;
  std::string check;
  for (const GemmRun* r : runs) {
    shapes += r->shapes.size();
    verified = verified && r->verified;
    rel = std::max(rel, r->check_rel_error);
    if (check.empty()) check = r->check;
  }
  ran = support.supported && shapes > 0;
  if (!ran) {
    m.set("status", str("unsupported"));
    m.set("note", str(support.supported ? "no shape ran: " + check : support.reason));
    return m;
  }
  m.set("status", str(verified ? "ok" : "failed"));
  m.set("unit", str("FLOP/s"));
  m.set("statistic", str("median"));
  m.set("format", str(runs.front()->format));
  m.set("library", str(runs.front()->library));
  const double peak = catalog_flops(in.catalog, p);
  if (peak > 0) {
    m.set("peak", num(peak));
    m.set("peak_source", str(std::string("data/gpus.json peak_tflops.") + gemm_precision_name(p) + " (dense)"));
  } else {
    m.set("peak", JsonValue::null());
  }
  m.set("verified", JsonValue::boolean(verified));
  m.set("check_rel_error", num(rel));
  m.set("check", str(check));
  return m;
}

JsonValue gemm_small_measurement(const RecordInput& in, std::size_t i) {
  const GemmPrecision p = in.small_precisions[i];
  bool ran = false;
  JsonValue m = small_gemm_common(in, std::string("gemm_small_") + gemm_precision_name(p), p,
                                  in.small_support[i], {&in.small_runs[i]}, ran);
  if (!ran) return m;
  m.set("method",
        str("Y = X W^T for M tokens (the library's TN GEMM with the weight W as its N x K operand "
            "A and the activations as B, as a framework's linear layer runs it), FLOP = 2MNK; N x K "
            "from the catalog models' layers at tensor parallelism 1; normal random inputs rounded "
            "to the format; weights rotated past the last-level cache, as in a decode step; "
            "fastest of the library's first heuristics; device events around back-to-back GEMMs "
            "launched without a graph, so where the library's host cost per call exceeds the GPU "
            "time (the smallest shapes) the figure includes the launch gap; value = median over "
            "samples; 24 output entries checked against a double-precision reference"));
  JsonValue points = JsonValue::array();
  for (const auto& sr : in.small_runs[i].shapes) {
    const RateSummary s = summarize_rates(rates_from_seconds(sr.seconds_per_gemm, sr.shape.flops()));
    JsonValue j = JsonValue::object();
    j.set("m", JsonValue::integer(sr.shape.n));
    j.set("n", JsonValue::integer(sr.shape.m));
    j.set("k", JsonValue::integer(sr.shape.k));
    j.set("value", num(s.median));
    j.set("best", num(s.best));
    j.set("spread", num(s.spread));
    j.set("samples", integer(s.samples));
    j.set("seconds", num(median_of(sr.seconds_per_gemm)));
    if (!sr.algorithm.empty()) j.set("algorithm", str(sr.algorithm));
    const std::string layers = layers_of(in.dense_shapes, sr.shape.m, sr.shape.k);
    if (!layers.empty()) j.set("layers", str(layers));
    points.push(j);
  }
  m.set("points", points);
  JsonValue sizes = JsonValue::object();
  sizes.set("m_sweep", int_list(in.small_m));
  sizes.set("samples_per_point", JsonValue::integer(in.small_config.samples));
  sizes.set("seconds_per_sample", num(in.small_config.seconds_per_sample));
  sizes.set("warmup_s", num(in.small_runs[i].warmup_s));
  sizes.set("rotating_sets", JsonValue::integer(in.small_runs[i].rotating_sets));
  sizes.set("rotating_bytes", integer(in.small_runs[i].rotating_bytes));
  m.set("sizes", sizes);
  return m;
}

JsonValue grouped_gemm_measurement(const RecordInput& in, std::size_t i) {
  const GemmPrecision p = in.grouped_precisions[i];
  std::vector<const GemmRun*> runs;
  for (const auto& r : in.grouped_runs[i]) runs.push_back(&r);
  bool ran = false;
  JsonValue m = small_gemm_common(in, std::string("grouped_gemm_") + gemm_precision_name(p), p,
                                  in.grouped_support[i], runs, ran);
  if (!ran) return m;
  m.set("method",
        str("MoE expert GEMMs as one strided batched GEMM: `experts` independent Y_e = X_e W_e^T, "
            "each with its own weight and the same tokens per expert (the equal-load proxy of a "
            "grouped GEMM, as DeepGEMM's masked layout), FLOP = 2 x experts x tokens x N x K; "
            "expert shapes from the catalog's MoE models; weights rotated past the last-level "
            "cache; value = median over samples; entries of the first and last expert checked "
            "against a double-precision reference"));
  JsonValue points = JsonValue::array();
  double warmup = 0;
  for (const GemmRun* r : runs) {
    warmup += r->warmup_s;
    for (const auto& sr : r->shapes) {
      const double flops = sr.shape.flops() * sr.batch;
      const RateSummary s = summarize_rates(rates_from_seconds(sr.seconds_per_gemm, flops));
      JsonValue j = JsonValue::object();
      j.set("experts", JsonValue::integer(sr.batch));
      j.set("tokens_per_expert", JsonValue::integer(sr.shape.n));
      j.set("n", JsonValue::integer(sr.shape.m));
      j.set("k", JsonValue::integer(sr.shape.k));
      j.set("value", num(s.median));
      j.set("best", num(s.best));
      j.set("spread", num(s.spread));
      j.set("samples", integer(s.samples));
      j.set("seconds", num(median_of(sr.seconds_per_gemm)));
      const std::string layers = layers_of(in.moe_shapes, sr.shape.m, sr.shape.k);
      if (!layers.empty()) j.set("layers", str(layers));
      points.push(j);
    }
  }
  m.set("points", points);
  JsonValue sizes = JsonValue::object();
  sizes.set("samples_per_point", JsonValue::integer(in.small_config.samples));
  sizes.set("seconds_per_sample", num(in.small_config.seconds_per_sample));
  sizes.set("warmup_s", num(warmup));
  m.set("sizes", sizes);
  return m;
}

JsonValue attention_measurement(const RecordInput& in) {
  const AttentionRun& run = in.attention_run;
  const AttentionConfig& c = in.attention_config;
  JsonValue m = JsonValue::object();
  m.set("id", str("attention_decode"));
  if (run.points.empty()) {
    m.set("status", str("skipped"));
    m.set("note", str("no (batch, context) point fitted in memory"));
    return m;
  }
  m.set("status", str(run.verified ? "ok" : "failed"));
  m.set("unit", str("B/s"));
  m.set("statistic", str("median"));
  JsonValue points = JsonValue::array();
  for (const auto& pr : run.points) {
    const RateSummary s = summarize_rates(rates_from_seconds(pr.seconds_per_call, pr.kv_bytes));
    JsonValue j = JsonValue::object();
    j.set("batch", JsonValue::integer(pr.batch));
    j.set("context_tokens", JsonValue::integer(pr.context_tokens));
    j.set("value", num(s.median));
    j.set("best", num(s.best));
    j.set("spread", num(s.spread));
    j.set("samples", integer(s.samples));
    j.set("seconds", num(median_of(pr.seconds_per_call)));
    j.set("kv_bytes", num(pr.kv_bytes));
    j.set("splits", JsonValue::integer(pr.splits));
    points.push(j);
  }
  m.set("points", points);
  const double peak = in.catalog != nullptr ? in.catalog->memory_bytes_per_s : 0;
  if (peak > 0) {
    m.set("peak", num(peak));
    m.set("peak_source", str("data/gpus.json memory_bandwidth_tbps"));
  }
  m.set("method", str("one decode step of GQA attention (one query token per sequence) over a "
                      "paged BF16 KV cache whose pages are shuffled over the pool; " + run.kernel +
                      "; value = K and V bytes read (batch x context x kv_heads x head_dim x 2 x "
                      "2 B) / median time of the call; page tables rotated past the last-level "
                      "cache"));
  JsonValue sizes = JsonValue::object();
  sizes.set("q_heads", JsonValue::integer(c.q_heads));
  sizes.set("kv_heads", JsonValue::integer(c.kv_heads));
  sizes.set("head_dim", JsonValue::integer(c.head_dim));
  sizes.set("page_tokens", JsonValue::integer(c.page_tokens));
  sizes.set("kv_format", str("bf16"));
  sizes.set("batches", int_list(c.batches));
  sizes.set("contexts", int_list(c.contexts));
  sizes.set("samples_per_point", JsonValue::integer(c.samples));
  sizes.set("rotating_sets", JsonValue::integer(run.rotating_sets));
  m.set("sizes", sizes);
  m.set("verified", JsonValue::boolean(run.verified));
  m.set("check_rel_error", num(run.check_rel_error));
  m.set("check", str(run.check));
  return m;
}

JsonValue allreduce_measurement(const RecordInput& in) {
  const AllreduceRun& run = in.allreduce_run;
  JsonValue m = JsonValue::object();
  m.set("id", str("allreduce"));
  if (!run.skipped.empty() || run.points.empty()) {
    m.set("status", str("skipped"));
    m.set("note", str(run.skipped.empty() ? "no message size ran" : run.skipped));
    return m;
  }
  m.set("status", str(run.verified ? "ok" : "failed"));
  m.set("unit", str("s"));
  m.set("statistic", str("median"));
  m.set("gpus", JsonValue::integer(run.gpus));
  m.set("library", str(run.library));
  const double g = run.gpus;
  JsonValue points = JsonValue::array();
  for (const auto& pr : run.points) {
    const LatencySummary l = summarize_latencies(pr.seconds_per_op);
    JsonValue j = JsonValue::object();
    j.set("bytes", integer(pr.bytes));
    j.set("value", num(l.median));
    j.set("best", num(l.best));
    j.set("spread", num(l.spread));
    j.set("samples", integer(l.samples));
    j.set("bus_bytes_per_s", num(2.0 * (g - 1) / g * static_cast<double>(pr.bytes) / l.median));
    points.push(j);
  }
  m.set("points", points);
  const double peak = in.catalog != nullptr ? in.catalog->interconnect_bytes_per_s : 0;
  if (peak > 0) {
    m.set("peak", num(peak));
    m.set("peak_source", str("data/gpus.json interconnect.per_gpu_gbps (bus bandwidth compared with it)"));
  }
  m.set("method", str("out-of-place float32 sum over every GPU of the machine, one process driving "
                      "all (ncclCommInitAll), the library loaded at run time; value = median time "
                      "of one all-reduce (host clock around back-to-back all-reduces, all streams "
                      "synchronised, as nccl-tests); bus_bytes_per_s = 2 (gpus - 1) / gpus x bytes "
                      "/ value (nccl-tests' busbw)"));
  JsonValue sizes = JsonValue::object();
  sizes.set("min_bytes", integer(in.allreduce_config.min_bytes));
  sizes.set("max_bytes", integer(in.allreduce_config.max_bytes));
  sizes.set("samples_per_size", JsonValue::integer(in.allreduce_config.samples));
  sizes.set("warmup_per_size", JsonValue::integer(in.allreduce_config.warmup));
  m.set("sizes", sizes);
  m.set("verified", JsonValue::boolean(run.verified));
  m.set("check", str(run.check));
  return m;
}

JsonValue latency_measurement(const char* id, const std::vector<double>& seconds, bool verified,
                              const std::string& check, const std::string& method, JsonValue sizes) {
  const LatencySummary l = summarize_latencies(seconds);
  JsonValue m = JsonValue::object();
  m.set("id", str(id));
  if (seconds.empty()) {
    m.set("status", str("failed"));
    m.set("note", str("no sample"));
    return m;
  }
  m.set("status", str(verified ? "ok" : "failed"));
  m.set("value", num(l.median));
  m.set("unit", str("s"));
  m.set("statistic", str("median"));
  m.set("best", num(l.best));
  m.set("worst", num(l.worst));
  m.set("spread", num(l.spread));
  m.set("samples", integer(l.samples));
  m.set("method", str(method));
  m.set("sizes", sizes);
  m.set("verified", JsonValue::boolean(verified));
  m.set("check", str(check));
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
  for (std::size_t i = 0; i < in.small_runs.size(); ++i) {
    const GemmRun& r = in.small_runs[i];
    if (in.small_support[i].supported && !r.shapes.empty() && !r.verified) return false;
  }
  for (std::size_t i = 0; i < in.grouped_runs.size(); ++i) {
    for (const auto& r : in.grouped_runs[i]) {
      if (in.grouped_support[i].supported && !r.shapes.empty() && !r.verified) return false;
    }
  }
  if (in.attention_requested && !in.attention_run.points.empty() && !in.attention_run.verified) return false;
  if (in.allreduce_requested && in.allreduce_run.skipped.empty() && !in.allreduce_run.verified) return false;
  if (in.launch_requested && !in.launch_run.verified) return false;
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
  for (std::size_t i = 0; i < in.small_precisions.size(); ++i) ms.push(gemm_small_measurement(in, i));
  for (std::size_t i = 0; i < in.grouped_precisions.size(); ++i) ms.push(grouped_gemm_measurement(in, i));
  if (in.attention_requested) ms.push(attention_measurement(in));
  if (in.allreduce_requested) ms.push(allreduce_measurement(in));
  if (in.launch_requested) {
    const LaunchRun& l = in.launch_run;
    JsonValue direct = JsonValue::object();
    direct.set("round_trips", JsonValue::integer(in.launch_config.samples));
    direct.set("warmup_launches", JsonValue::integer(in.launch_config.warmup));
    direct.set("queued_launch_s", num(median_of(l.queued_seconds_per_launch)));
    ms.push(latency_measurement(
        "launch_latency", l.launch_seconds, l.verified, l.check,
        "one empty kernel (one thread, one counter increment) launched on a stream and waited for "
        "(host clock around launch + stream synchronize); value = median round trip. "
        "sizes.queued_launch_s = host time per launch of 1000 back-to-back launches",
        direct));
    JsonValue graph = JsonValue::object();
    graph.set("kernels_per_graph", JsonValue::integer(in.launch_config.graph_kernels));
    graph.set("graph_launches", JsonValue::integer(in.launch_config.graph_samples));
    ms.push(latency_measurement(
        "graph_launch_latency", l.graph_seconds_per_kernel, l.verified, l.check,
        "the same empty kernel captured kernels_per_graph times into one CUDA/HIP graph; value = "
        "median over graph launches of (graph launch + stream synchronize) / kernels_per_graph",
        graph));
  }
  r.set("measurements", ms);
  return r;
}

}  // namespace gpucalc::bench
