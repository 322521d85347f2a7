#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace gpucalc::bench {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::optional<double> parse_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int> parse_int(const std::string& text, int min_value, int max_value) {
  const auto v = parse_double(text);
  if (!v || *v != std::floor(*v) || *v < min_value || *v > max_value) return std::nullopt;
  return static_cast<int>(*v);
}

/** "1,2,4" to whole numbers in [min_value, max_value]; empty on a malformed list. */
std::optional<std::vector<int>> parse_int_list(const std::string& text, int min_value, int max_value) {
  std::vector<int> out;
  for (const auto& item : split(text, ',')) {
    const auto v = parse_int(item, min_value, max_value);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  struct Suffix {
    const char* name;
    double factor;
  };
  static const Suffix kSuffixes[] = {{"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0},
                                     {"GB", 1e9},           {"MB", 1e6},        {"KB", 1e3},
                                     {"B", 1.0}};
  std::string number = text;
  double factor = 1.0;
  for (const auto& s : kSuffixes) {
    const std::string suffix = s.name;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number = text.substr(0, text.size() - suffix.size());
      factor = s.factor;
      break;
    }
  }
  const auto v = parse_double(number);
  if (!v || *v <= 0 || *v * factor > 1e15) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*v * factor));
}

std::optional<std::vector<GemmShape>> parse_shapes(const std::string& text) {
  std::vector<GemmShape> shapes;
  for (const auto& item : split(text, ',')) {
    const auto dims = split(item, 'x');
    if (dims.size() != 3) return std::nullopt;
    GemmShape s;
    std::int64_t* fields[] = {&s.m, &s.n, &s.k};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto v = parse_int(dims[i], 16, 1 << 20);
      if (!v || *v % 16 != 0) return std::nullopt;  // FP4 packs two per byte, scales per 16
      *fields[i] = *v;
    }
    shapes.push_back(s);
  }
  if (shapes.empty()) return std::nullopt;
  return shapes;
}

std::vector<GemmShape> default_gpu_shapes() {
  // Square sizes where matrix units saturate, plus the tall/wide shapes of LLM layers
  // (MAMF finder sweeps similar ranges); all multiples of 256.
  return {{4096, 4096, 4096},   {6144, 6144, 6144},   {8192, 8192, 8192},
          {10240, 10240, 10240}, {12288, 12288, 12288}, {16384, 16384, 16384},
          {8192, 8192, 16384},  {16384, 8192, 8192},  {8192, 16384, 8192},
          {4096, 16384, 8192},  {16384, 4096, 16384}, {8192, 28672, 8192}};
}

std::vector<GemmShape> default_host_shapes() { return {{64, 64, 64}, {96, 64, 128}, {128, 128, 64}}; }

std::string usage_text() {
  return R"(gpucalc-bench: measures what a GPU delivers and writes a gpucalc calibration record.

Usage: gpucalc-bench [options]

  --tests LIST          tests to run, comma separated (default: all):
                          hbm               HBM bandwidth (BabelStream)
                          gemm              best-shape GEMM throughput
                          p2p               GPU-to-GPU copies
                          gemm-small        GEMM at M = 1..512 tokens over the catalog models'
                                            layer shapes (N x K)
                          grouped-gemm      MoE expert GEMMs: experts x tokens per expert
                          attention-decode  paged decode attention, achieved KV-read bandwidth
                          allreduce         NCCL/RCCL all-reduce over all GPUs, 8 KiB..256 MiB
                          launch            empty-kernel and CUDA/HIP-graph launch latency
  --precisions LIST     GEMM precisions: bf16, fp8, fp4 (default: those the device has;
                        naming one the device lacks is an error)
  --device N            GPU index (default 0)
  --gpu-id ID           catalog id of the device (default: matched from its name and arch)
  --out FILE            write the record to FILE (default: standard output)
  --dry-run             run the whole pipeline on the host back end (no GPU); the record is
                        marked dry_run and is never used to calibrate
  --date YYYY-MM-DD     date written into the record (default: today, UTC)
  --note TEXT           free text copied into the record
  --quiet               no progress on standard error

HBM (BabelStream copy, triad, dot; 16-byte accesses):
  --hbm-bytes SIZE      bytes per array, e.g. 2GiB, 4GiB (default 2GiB; three arrays)
  --hbm-samples N       timed samples per kernel (default 20)
  --hbm-launches N      back-to-back launches per sample (default 5)

GEMM (cuBLASLt / hipBLASLt, normal random inputs, rotating buffers):
  --gemm-shapes LIST    MxNxK,... (default: a fixed set of 12 shapes up to 16384)
  --gemm-warmup-s S     warm-up seconds per precision (default 5)
  --gemm-samples N      timed samples per shape (default 5)
  --gemm-sample-s S     seconds per sample (default 0.05)
  --gemm-rotate SIZE    least total bytes of rotating operand sets (default 4x the L2 cache)

Serving-model tests (same precisions as --precisions):
  --small-m LIST        tokens per GEMM for gemm-small (default 1,2,4,...,512)
  --models LIST         catalog models whose layer shapes gemm-small and grouped-gemm use
                        (default: every model in data/models.json)
  --experts LIST        experts per grouped GEMM (default 8,32; at most a model's experts)
  --tokens-per-expert LIST  (default 1,4,16,64,256)
  --small-warmup-s S    warm-up seconds per precision (default 2)
  --small-samples N     timed samples per point (default 5)
  --small-sample-s S    seconds per sample (default 0.01)
  --attn-batches LIST   sequences per decode step (default 1,8,32,128)
  --attn-contexts LIST  context tokens per sequence (default 1024,4096,16384)
  --allreduce-max-bytes SIZE  largest message (default 256MiB; sizes double from 8KiB)
  --launch-samples N    launch round trips (default 2000)

GPU to GPU (two or more GPUs):
  --p2p-bytes SIZE      bytes per copy (default 1GiB)
  --p2p-samples N       samples per pair and direction (default 10)

  --help, --version

Exit status: 0 success; 1 no usable GPU, too little memory or a failed check; 2 bad usage.
)";
}

std::optional<std::string> parse_options(int argc, const char* const* argv, Options& out) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string& v) -> bool {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      out.help = true;
    } else if (arg == "--version") {
      out.version = true;
    } else if (arg == "--dry-run") {
      out.dry_run = true;
    } else if (arg == "--quiet") {
      out.quiet = true;
    } else if (arg == "--tests") {
      if (!value(v)) return "--tests needs a list, e.g. --tests hbm,gemm";
      out.run_hbm = out.run_gemm = out.run_p2p = false;
      out.run_gemm_small = out.run_grouped_gemm = out.run_attention_decode = false;
      out.run_allreduce = out.run_launch = false;
      for (const auto& t : split(v, ',')) {
        if (t == "hbm") out.run_hbm = true;
        else if (t == "gemm") out.run_gemm = true;
        else if (t == "p2p") out.run_p2p = true;
        else if (t == "gemm-small") out.run_gemm_small = true;
        else if (t == "grouped-gemm") out.run_grouped_gemm = true;
        else if (t == "attention-decode") out.run_attention_decode = true;
        else if (t == "allreduce") out.run_allreduce = true;
        else if (t == "launch") out.run_launch = true;
        else {
          return "unknown test \"" + t +
                 "\" (choose from hbm, gemm, p2p, gemm-small, grouped-gemm, attention-decode, "
                 "allreduce, launch)";
        }
      }
    } else if (arg == "--precisions") {
      if (!value(v)) return "--precisions needs a list, e.g. --precisions bf16,fp8";
      out.precisions.clear();
      out.precisions_explicit = true;
      for (const auto& p : split(v, ',')) {
        const auto parsed = parse_gemm_precision(p);
        if (!parsed) return "unknown precision \"" + p + "\" (choose from bf16, fp8, fp4)";
        out.precisions.push_back(*parsed);
      }
      if (out.precisions.empty()) return "--precisions needs at least one precision";
    } else if (arg == "--device") {
      const auto d = value(v) ? parse_int(v, 0, 1023) : std::nullopt;
      if (!d) return "--device needs a GPU index";
      out.device = *d;
    } else if (arg == "--gpu-id") {
      if (!value(v) || v.empty()) return "--gpu-id needs a catalog id such as h200-sxm";
      out.gpu_id = v;
    } else if (arg == "--out") {
      if (!value(v) || v.empty()) return "--out needs a file name";
      out.out_path = v;
    } else if (arg == "--date") {
      if (!value(v) || v.size() != 10) return "--date needs YYYY-MM-DD";
      out.date = v;
    } else if (arg == "--note") {
      if (!value(v)) return "--note needs a text";
      out.note = v;
    } else if (arg == "--hbm-bytes") {
      const auto b = value(v) ? parse_bytes(v) : std::nullopt;
      if (!b || *b < 1024 * 1024) return "--hbm-bytes needs a size of at least 1MiB, e.g. 2GiB";
      out.stream.array_bytes = *b;
    } else if (arg == "--hbm-samples") {
      const auto n = value(v) ? parse_int(v, 1, 100000) : std::nullopt;
      if (!n) return "--hbm-samples needs a count of at least 1";
      out.stream.samples = *n;
    } else if (arg == "--hbm-launches") {
      const auto n = value(v) ? parse_int(v, 1, 100000) : std::nullopt;
      if (!n) return "--hbm-launches needs a count of at least 1";
      out.stream.launches_per_sample = *n;
    } else if (arg == "--gemm-shapes") {
      const auto s = value(v) ? parse_shapes(v) : std::nullopt;
      if (!s) return "--gemm-shapes needs MxNxK,... with each size a multiple of 16";
      out.gemm.shapes = *s;
    } else if (arg == "--gemm-warmup-s") {
      const auto s = value(v) ? parse_double(v) : std::nullopt;
      if (!s || *s < 0 || *s > 600) return "--gemm-warmup-s needs seconds between 0 and 600";
      out.gemm.warmup_s = *s;
    } else if (arg == "--gemm-samples") {
      const auto n = value(v) ? parse_int(v, 1, 10000) : std::nullopt;
      if (!n) return "--gemm-samples needs a count of at least 1";
      out.gemm.samples = *n;
    } else if (arg == "--gemm-sample-s") {
      const auto s = value(v) ? parse_double(v) : std::nullopt;
      if (!s || *s <= 0 || *s > 60) return "--gemm-sample-s needs seconds between 0 and 60";
      out.gemm.seconds_per_sample = *s;
    } else if (arg == "--gemm-rotate") {
      const auto b = value(v) ? parse_bytes(v) : std::nullopt;
      if (!b) return "--gemm-rotate needs a size, e.g. 1GiB";
      out.gemm.min_rotating_bytes = *b;
    } else if (arg == "--p2p-bytes") {
      const auto b = value(v) ? parse_bytes(v) : std::nullopt;
      if (!b) return "--p2p-bytes needs a size, e.g. 1GiB";
      out.p2p.bytes = *b;
    } else if (arg == "--p2p-samples") {
      const auto n = value(v) ? parse_int(v, 1, 10000) : std::nullopt;
      if (!n) return "--p2p-samples needs a count of at least 1";
      out.p2p.samples = *n;
    } else if (arg == "--small-m") {
      const auto l = value(v) ? parse_int_list(v, 1, 65536) : std::nullopt;
      if (!l) return "--small-m needs token counts from 1 to 65536, e.g. 1,8,64";
      out.small_m = *l;
    } else if (arg == "--models") {
      if (!value(v) || split(v, ',').empty()) return "--models needs catalog model ids, e.g. llama-3.1-70b";
      out.models = split(v, ',');
    } else if (arg == "--experts") {
      const auto l = value(v) ? parse_int_list(v, 1, 1024) : std::nullopt;
      if (!l) return "--experts needs expert counts from 1 to 1024, e.g. 8,32";
      out.experts = *l;
    } else if (arg == "--tokens-per-expert") {
      const auto l = value(v) ? parse_int_list(v, 1, 65536) : std::nullopt;
      if (!l) return "--tokens-per-expert needs token counts from 1 to 65536";
      out.tokens_per_expert = *l;
    } else if (arg == "--small-warmup-s") {
      const auto s2 = value(v) ? parse_double(v) : std::nullopt;
      if (!s2 || *s2 < 0 || *s2 > 600) return "--small-warmup-s needs seconds between 0 and 600";
      out.small_gemm.warmup_s = *s2;
    } else if (arg == "--small-samples") {
      const auto n = value(v) ? parse_int(v, 1, 10000) : std::nullopt;
      if (!n) return "--small-samples needs a count of at least 1";
      out.small_gemm.samples = *n;
    } else if (arg == "--small-sample-s") {
      const auto s2 = value(v) ? parse_double(v) : std::nullopt;
      if (!s2 || *s2 <= 0 || *s2 > 60) return "--small-sample-s needs seconds between 0 and 60";
      out.small_gemm.seconds_per_sample = *s2;
    } else if (arg == "--attn-batches") {
      const auto l = value(v) ? parse_int_list(v, 1, 4096) : std::nullopt;
      if (!l) return "--attn-batches needs sequence counts from 1 to 4096";
      out.attention.batches = *l;
    } else if (arg == "--attn-contexts") {
      const auto l = value(v) ? parse_int_list(v, 16, 1 << 20) : std::nullopt;
      if (!l) return "--attn-contexts needs token counts from 16 to 1048576";
      out.attention.contexts = *l;
    } else if (arg == "--allreduce-max-bytes") {
      const auto b = value(v) ? parse_bytes(v) : std::nullopt;
      if (!b || *b < out.allreduce.min_bytes || *b > (std::uint64_t{4} << 30)) {
        return "--allreduce-max-bytes needs a size from 8KiB to 4GiB, e.g. 256MiB";
      }
      out.allreduce.max_bytes = *b;
    } else if (arg == "--launch-samples") {
      const auto n = value(v) ? parse_int(v, 10, 1000000) : std::nullopt;
      if (!n) return "--launch-samples needs a count of at least 10";
      out.launch.samples = *n;
    } else {
      return "unknown option \"" + arg + "\" (see --help)";
    }
  }
  return std::nullopt;
}

}  // namespace gpucalc::bench
