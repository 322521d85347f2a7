// gpucalc-bench: measures HBM, matrix and GPU-to-GPU rates and writes a calibration record.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

#include "backend.hpp"
#include "catalog.hpp"
#include "options.hpp"
#include "record.hpp"
#include "stats.hpp"

namespace {

using namespace gpucalc::bench;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int fail(const std::string& message, int code = kExitFailure) {
  std::cerr << "gpucalc-bench: " << message << "\n";
  return code;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string join_args(int argc, const char* const* argv) {
  std::string s = "gpucalc-bench";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

struct Progress {
  bool quiet;
  void say(const std::string& line) const {
    if (!quiet) std::cerr << line << std::endl;
  }
};

std::string fmt(double v, const char* unit, double scale) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", v / scale, unit);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (const auto error = parse_options(argc, argv, opt)) return fail(*error, kExitUsage);
  if (opt.help) {
    std::cout << usage_text();
    return 0;
  }
  if (opt.version) {
    std::cout << "gpucalc-bench " << GPUCALC_BENCH_VERSION << " (" << GPUCALC_BENCH_BACKEND_NAME
              << " build)\n";
    return 0;
  }
  const Progress progress{opt.quiet};

  std::unique_ptr<Backend> backend;
  if (opt.dry_run) {
    backend = make_host_backend();
  } else {
    std::string error;
    backend = make_gpu_backend(opt.device, error);
    if (!backend) return fail(error + " (use --dry-run to test the pipeline without a GPU)");
  }
  const DeviceInfo& device = backend->info();

  std::string gpu_id = opt.gpu_id;
  if (gpu_id.empty()) gpu_id = opt.dry_run ? "h200-sxm" : match_catalog_gpu(device.name, device.arch);
  if (gpu_id.empty()) {
    return fail("device \"" + device.name + "\" (" + device.arch +
                ") matches no GPU in data/gpus.json; name its catalog entry with --gpu-id ID");
  }
  const CatalogGpu* catalog = find_catalog_gpu(gpu_id);
  if (catalog == nullptr) return fail("\"" + gpu_id + "\" is not a GPU id in data/gpus.json", kExitUsage);
  progress.say("device " + std::to_string(device.index) + ": " + device.name + " (" + device.arch +
               ", " + device.backend + "), catalog id " + gpu_id +
               (opt.dry_run ? ", DRY RUN on the host" : ""));

  RecordInput in;
  in.gpu_id = gpu_id;
  in.date = opt.date.empty() ? today_utc() : opt.date;
  in.dry_run = opt.dry_run;
  in.note = opt.note;
  in.command_line = join_args(argc, argv);
  in.catalog = catalog;
  in.stream_config = opt.stream;
  in.gemm_config = opt.gemm;
  in.p2p_config = opt.p2p;
  if (in.gemm_config.shapes.empty()) {
    in.gemm_config.shapes = opt.dry_run ? default_host_shapes() : default_gpu_shapes();
  }
  if (opt.dry_run) {
    // The host back end is a pipeline test: keep it to a fraction of a second.
    if (in.stream_config.array_bytes > (std::uint64_t{16} << 20)) in.stream_config.array_bytes = 16u << 20;
    in.gemm_config.warmup_s = std::min(in.gemm_config.warmup_s, 0.05);
    in.gemm_config.seconds_per_sample = std::min(in.gemm_config.seconds_per_sample, 0.01);
    in.stream_config.samples = std::min(in.stream_config.samples, 5);
  }

  // Precisions: named ones must exist on the device; by default run those it has.
  std::vector<GemmPrecision> precisions = opt.precisions;
  if (precisions.empty()) precisions = {GemmPrecision::kBf16, GemmPrecision::kFp8, GemmPrecision::kFp4};
  if (opt.run_gemm) {
    for (GemmPrecision p : precisions) {
      const GemmSupport support = backend->gemm_support(p);
      if (opt.precisions_explicit && !support.supported) {
        return fail(std::string(gemm_precision_name(p)) + " GEMM is not supported on " + device.name +
                    " (" + device.arch + "): " + support.reason);
      }
    }
  }

  in.env.samples.push_back(backend->sample_environment());
  if (opt.run_hbm) {
    for (StreamKernel k : {StreamKernel::kCopy, StreamKernel::kTriad, StreamKernel::kDot}) {
      StreamRun run;
      const Status st = backend->run_stream(k, in.stream_config, run);
      if (!st.ok) return fail(st.message);
      in.env.samples.push_back(backend->sample_environment());
      const RateSummary s =
          summarize_rates(rates_from_seconds(run.seconds_per_launch, static_cast<double>(run.bytes_per_launch)));
      progress.say(std::string("hbm ") + stream_kernel_name(k) + ": best " + fmt(s.best, "GB/s", 1e9) +
                   ", median " + fmt(s.median, "GB/s", 1e9) + (run.verified ? "" : "  CHECK FAILED: " + run.check));
      in.stream_kernels.push_back(k);
      in.stream_runs.push_back(std::move(run));
    }
  }
  if (opt.run_gemm) {
    for (GemmPrecision p : precisions) {
      const GemmSupport support = backend->gemm_support(p);
      GemmRun run;
      if (support.supported) {
        GemmConfig cfg = in.gemm_config;
        cfg.precision = p;
        const Status st = backend->run_gemm(cfg, run);
        if (!st.ok) return fail(st.message);
        in.env.samples.push_back(backend->sample_environment());
        const GemmSummary g = summarize_gemm(run);
        progress.say(std::string("gemm ") + gemm_precision_name(p) + " (" + run.format + "): best " +
                     fmt(g.best_flops_per_s, "TFLOP/s", 1e12) + " at " + std::to_string(g.best_shape.m) +
                     "x" + std::to_string(g.best_shape.n) + "x" + std::to_string(g.best_shape.k) +
                     ", median over shapes " + fmt(g.median_flops_per_s, "TFLOP/s", 1e12) +
                     (run.verified ? "" : "  CHECK FAILED: " + run.check));
      } else {
        progress.say(std::string("gemm ") + gemm_precision_name(p) + ": unsupported (" + support.reason + ")");
      }
      in.gemm_precisions.push_back(p);
      in.gemm_support.push_back(support);
      in.gemm_runs.push_back(std::move(run));
    }
  }
  if (opt.run_p2p) {
    in.p2p_requested = true;
    const Status st = backend->run_p2p(in.p2p_config, in.p2p_runs);
    if (!st.ok) return fail(st.message);
    if (in.p2p_runs.empty()) progress.say("p2p: skipped (fewer than two GPUs that reach each other)");
  }
  in.device = backend->info();

  const std::string text = build_record(in).dump() + "\n";
  if (opt.out_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(opt.out_path);
    out << text;
    out.close();
    if (!out) return fail("cannot write " + opt.out_path);
    progress.say("record written to " + opt.out_path);
  }
  if (!all_checks_passed(in)) return fail("a result failed its check; the record marks it \"failed\"");
  return 0;
}
