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
#include "serving_shapes.hpp"
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
  std::snprintf(buf, sizeof buf, scale < 1 ? "%.2f %s" : "%.1f %s", v / scale, unit);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (const auto error = parse_options(argc, argv, opt)) return fail(*error, kExitUsage);
  if (const auto unknown = unknown_models(opt.models); !unknown.empty()) {
    return fail("--models: \"" + unknown.front() + "\" is not a model in data/models.json", kExitUsage);
  }
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
  if (opt.run_gemm || opt.run_gemm_small || opt.run_grouped_gemm) {
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

  // Serving-model tests.
  in.small_config = opt.small_gemm;
  in.small_config.min_rotating_bytes = opt.gemm.min_rotating_bytes;
  in.small_m = opt.small_m;
  std::vector<int> experts = opt.experts, tokens = opt.tokens_per_expert;
  std::vector<int> shape_experts;
  in.attention_config = opt.attention;
  in.allreduce_config = opt.allreduce;
  in.launch_config = opt.launch;
  if (opt.dry_run) {
    // Stand-in shapes the host loop runs in a fraction of a second; the GPU takes the catalog's.
    in.small_m = {1, 8, 64};
    in.dense_shapes = {{128, 64, "dry run: stand-in for a model layer"}, {64, 128, "dry run: stand-in"}};
    in.moe_shapes = {{128, 64, "dry run: stand-in for an expert"}};
    shape_experts = {4};
    experts = {2, 4};
    tokens = {1, 4};
    in.small_config.warmup_s = std::min(in.small_config.warmup_s, 0.02);
    in.small_config.seconds_per_sample = std::min(in.small_config.seconds_per_sample, 0.002);
    in.small_config.samples = std::min(in.small_config.samples, 3);
    in.attention_config.batches = {1, 2};
    in.attention_config.contexts = {64, 300};
    in.attention_config.samples = 3;
    in.allreduce_config.max_bytes = std::min<std::uint64_t>(in.allreduce_config.max_bytes, 64u << 10);
    in.allreduce_config.samples = 3;
    in.allreduce_config.warmup = 1;
    in.launch_config.samples = 200;
    in.launch_config.graph_samples = 20;
  } else {
    in.dense_shapes = dense_layer_shapes(opt.models);
    in.moe_shapes = expert_shapes(opt.models, &shape_experts);
  }
  auto run_small = [&](GemmPrecision p, int batch, const std::vector<GemmShape>& shapes, GemmRun& run) -> Status {
    GemmConfig cfg = in.small_config;
    cfg.precision = p;
    cfg.batch = batch;
    cfg.shapes = shapes;
    return backend->run_gemm(cfg, run);
  };
  if (opt.run_gemm_small) {
    std::vector<GemmShape> shapes;
    for (const auto& ls : in.dense_shapes) {
      for (int m : in.small_m) shapes.push_back({ls.n, m, ls.k});  // library m = N, n = tokens
    }
    for (GemmPrecision p : precisions) {
      const GemmSupport support = backend->gemm_support(p);
      GemmRun run;
      if (support.supported) {
        const Status st = run_small(p, 1, shapes, run);
        if (!st.ok) return fail(st.message);
        in.env.samples.push_back(backend->sample_environment());
        progress.say(std::string("gemm-small ") + gemm_precision_name(p) + ": " + std::to_string(run.shapes.size()) +
                     " points over " + std::to_string(in.dense_shapes.size()) + " layer shapes" +
                     (run.verified ? "" : "  CHECK FAILED: " + run.check));
      }
      in.small_precisions.push_back(p);
      in.small_support.push_back(support);
      in.small_runs.push_back(std::move(run));
    }
  }
  if (opt.run_grouped_gemm) {
    for (GemmPrecision p : precisions) {
      const GemmSupport support = backend->gemm_support(p);
      std::vector<GemmRun> runs;
      if (support.supported) {
        for (int e : experts) {
          std::vector<GemmShape> shapes;
          for (std::size_t i = 0; i < in.moe_shapes.size(); ++i) {
            if (i < shape_experts.size() && shape_experts[i] < e) continue;  // more experts than the model has
            for (int t : tokens) shapes.push_back({in.moe_shapes[i].n, t, in.moe_shapes[i].k});
          }
          if (shapes.empty()) continue;
          GemmRun run;
          const Status st = run_small(p, e, shapes, run);
          if (!st.ok) return fail(st.message);
          runs.push_back(std::move(run));
        }
        in.env.samples.push_back(backend->sample_environment());
        std::size_t points = 0;
        for (const auto& r : runs) points += r.shapes.size();
        progress.say(std::string("grouped-gemm ") + gemm_precision_name(p) + ": " + std::to_string(points) + " points");
      }
      in.grouped_precisions.push_back(p);
      in.grouped_support.push_back(support);
      in.grouped_runs.push_back(std::move(runs));
    }
  }
  if (opt.run_attention_decode) {
    in.attention_requested = true;
    const Status st = backend->run_attention_decode(in.attention_config, in.attention_run);
    if (!st.ok) return fail(st.message);
    in.env.samples.push_back(backend->sample_environment());
    double best = 0;
    for (const auto& pr : in.attention_run.points) {
      best = std::max(best, summarize_rates(rates_from_seconds(pr.seconds_per_call, pr.kv_bytes)).median);
    }
    progress.say("attention-decode: " + std::to_string(in.attention_run.points.size()) + " points, highest median " +
                 fmt(best, "GB/s", 1e9) + (in.attention_run.verified ? "" : "  CHECK FAILED: " + in.attention_run.check));
  }
  if (opt.run_allreduce) {
    in.allreduce_requested = true;
    const Status st = backend->run_allreduce(in.allreduce_config, in.allreduce_run);
    if (!st.ok) return fail(st.message);
    if (!in.allreduce_run.skipped.empty()) {
      progress.say("allreduce: skipped (" + in.allreduce_run.skipped + ")");
    } else {
      progress.say("allreduce: " + std::to_string(in.allreduce_run.gpus) + " GPUs, " + in.allreduce_run.library + ", " +
                   std::to_string(in.allreduce_run.points.size()) + " sizes" +
                   (in.allreduce_run.verified ? "" : "  CHECK FAILED: " + in.allreduce_run.check));
    }
  }
  if (opt.run_launch) {
    in.launch_requested = true;
    const Status st = backend->run_launch(in.launch_config, in.launch_run);
    if (!st.ok) return fail(st.message);
    progress.say("launch: median round trip " + fmt(median_of(in.launch_run.launch_seconds), "us", 1e-6) +
                 ", in a graph " + fmt(median_of(in.launch_run.graph_seconds_per_kernel), "us", 1e-6) + " per kernel" +
                 (in.launch_run.verified ? "" : "  CHECK FAILED: " + in.launch_run.check));
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
