// The host back end: the GPU back end's pipeline on the CPU, for dry runs and CI.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <vector>

#include "backend.hpp"
#include "formats.hpp"
#include "paged_kv.hpp"

namespace gpucalc::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// BabelStream's start values; triad's scalar.
constexpr double kStartA = 0.1, kStartB = 0.2, kStartC = 0.3, kScalar = 0.4;

/** Rounds a draw through a precision's format, as the GPU back end stores it. */
float quantize(GemmPrecision p, float x) {
  switch (p) {
    case GemmPrecision::kBf16: return decode_bf16(encode_bf16(x));
    case GemmPrecision::kFp8: return decode_e4m3(encode_e4m3(x, false), false);
    case GemmPrecision::kFp4: return decode_e2m1(encode_e2m1(x));
  }
  return x;
}

class HostBackend final : public Backend {
 public:
  HostBackend() {
    info_.backend = "host";
    info_.vendor = "host";
    info_.name = "host CPU (dry run)";
    info_.arch = "host";
    info_.driver_version = "none";
    info_.runtime_version = "C++17";
    info_.telemetry = "none";
  }

  const DeviceInfo& info() const override { return info_; }
  EnvSample sample_environment() override { return {}; }

  Status run_stream(StreamKernel kernel, const StreamConfig& cfg, StreamRun& out) override {
    const std::size_t n = static_cast<std::size_t>(cfg.array_bytes / sizeof(double));
    std::vector<double> a(n, kStartA), b(n, kStartB), c(n, kStartC);
    double sum = 0;
    auto launch = [&] {
      switch (kernel) {
        case StreamKernel::kCopy:
          for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
          break;
        case StreamKernel::kTriad:
          for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + kScalar * c[i];
          break;
        case StreamKernel::kDot:
          sum = 0;
          for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
          break;
      }
    };
    for (int i = 0; i < cfg.warmup_launches; ++i) launch();
    out.variant = "host loop";
    out.elements = n;
    out.bytes_per_launch = static_cast<std::uint64_t>(stream_arrays_moved(kernel)) * n * sizeof(double);
    for (int s = 0; s < cfg.samples; ++s) {
      const auto t0 = Clock::now();
      for (int i = 0; i < cfg.launches_per_sample; ++i) launch();
      out.seconds_per_launch.push_back(seconds_since(t0) / cfg.launches_per_sample);
    }
    std::size_t bad = 0;
    switch (kernel) {
      case StreamKernel::kCopy:
        for (std::size_t i = 0; i < n; ++i) bad += c[i] != kStartA;
        break;
      case StreamKernel::kTriad:
        for (std::size_t i = 0; i < n; ++i) bad += std::fabs(a[i] - (kStartB + kScalar * kStartC)) > 1e-12;
        break;
      case StreamKernel::kDot: {
        const double expected = kStartA * kStartB * static_cast<double>(n);
        bad = std::fabs(sum - expected) > 1e-8 * expected;
        break;
      }
    }
    out.verified = bad == 0;
    out.check = bad == 0 ? "every element equals the expected value"
                         : std::to_string(bad) + " elements differ from the expected value";
    return Status::success();
  }

  GemmSupport gemm_support(GemmPrecision p) const override {
    GemmSupport s;
    s.supported = true;
    s.format = p == GemmPrecision::kBf16 ? "bf16" : (p == GemmPrecision::kFp8 ? "e4m3" : "e2m1");
    return s;
  }

  Status run_gemm(const GemmConfig& cfg, GemmRun& out) override {
    out.format = gemm_support(cfg.precision).format;
    out.library = "host reference loop";
    out.rotating_sets = 2;
    const auto warm0 = Clock::now();
    bool first = true;
    double worst_rel = 0;
    for (const GemmShape& shape : cfg.shapes) {
      const std::size_t m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
                        k = static_cast<std::size_t>(shape.k);
      const std::size_t batch = static_cast<std::size_t>(std::max(1, cfg.batch));
      // Two operand sets of `batch` GEMMs each, A stored transposed (k fastest) like the GPU's TN layout.
      std::vector<std::vector<float>> as(2, std::vector<float>(batch * m * k)), bs(2, std::vector<float>(batch * k * n));
      for (std::size_t set = 0; set < 2; ++set) {
        for (std::size_t i = 0; i < batch * m * k; ++i) as[set][i] = quantize(cfg.precision, normal_draw(2 * set + 1, i));
        for (std::size_t i = 0; i < batch * k * n; ++i) bs[set][i] = quantize(cfg.precision, normal_draw(2 * set + 2, i));
      }
      out.rotating_bytes =
          std::max<std::uint64_t>(out.rotating_bytes, 2 * batch * (m * k + k * n + m * n) * sizeof(float));
      std::vector<float> d(batch * m * n);
      auto gemm = [&](std::size_t set) {
        for (std::size_t g = 0; g < batch; ++g) {
          for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t i = 0; i < m; ++i) {
              float acc = 0;
              const float* arow = &as[set][(g * m + i) * k];
              const float* bcol = &bs[set][(g * n + j) * k];
              for (std::size_t p = 0; p < k; ++p) acc += arow[p] * bcol[p];
              d[(g * n + j) * m + i] = acc;
            }
          }
        }
      };
      if (first) {
        while (seconds_since(warm0) < cfg.warmup_s) gemm(0);
        out.warmup_s = seconds_since(warm0);
        first = false;
      }
      GemmShapeRun sr;
      sr.shape = shape;
      sr.batch = static_cast<int>(batch);
      std::size_t set = 0;
      for (int s = 0; s < cfg.samples; ++s) {
        int count = 0;
        const auto t0 = Clock::now();
        do {
          gemm(set);
          set ^= 1;
          ++count;
        } while (seconds_since(t0) < cfg.seconds_per_sample);
        sr.seconds_per_gemm.push_back(seconds_since(t0) / count);
      }
      // Spot check the last product against double precision.
      const std::size_t last = set ^ 1;
      double err2 = 0, ref2 = 0;
      for (std::size_t g = 0; g < batch; g += std::max<std::size_t>(1, batch - 1)) {
        for (std::size_t j = 0; j < n; j += 7) {
          for (std::size_t i = 0; i < m; i += 5) {
            double ref = 0;
            for (std::size_t p = 0; p < k; ++p) {
              ref += double(as[last][(g * m + i) * k + p]) * double(bs[last][(g * n + j) * k + p]);
            }
            const double got = d[(g * n + j) * m + i];
            err2 += (got - ref) * (got - ref);
            ref2 += ref * ref;
          }
        }
      }
      worst_rel = std::max(worst_rel, ref2 > 0 ? std::sqrt(err2 / ref2) : 1.0);
      sr.algorithm = "naive triple loop";
      out.shapes.push_back(std::move(sr));
    }
    out.check_rel_error = worst_rel;
    out.verified = worst_rel < 1e-4;
    out.check = "||D - ref|| / ||ref|| over sampled entries of every shape, float accumulation";
    return Status::success();
  }

  Status run_p2p(const P2pConfig& /*cfg*/, std::vector<P2pPairRun>& /*out*/) override {
    return Status::success();
  }

  /** The GPU kernel's algorithm (online softmax per chunk, then a merge) on the CPU. */
  Status run_attention_decode(const AttentionConfig& cfg, AttentionRun& out) override {
    out.kernel = "host loop: split-context online softmax, then a merge (the GPU kernel's algorithm)";
    double worst = 0;
    for (int batch : cfg.batches) {
      for (int context : cfg.contexts) {
        PagedKvGeometry g;
        g.batch = batch;
        g.context_tokens = context;
        g.q_heads = cfg.q_heads;
        g.kv_heads = cfg.kv_heads;
        g.head_dim = cfg.head_dim;
        g.page_tokens = cfg.page_tokens;
        const std::size_t values = g.pool_pages() * g.page_values();
        std::vector<std::uint16_t> k(values), v(values);
        for (std::size_t i = 0; i < values; ++i) {
          k[i] = encode_bf16(normal_draw(3, i));
          v[i] = encode_bf16(normal_draw(4, i));
        }
        const std::vector<std::int32_t> pages = shuffled_page_table(g, 7);
        const int chunk = 256;
        const int splits = (context + chunk - 1) / chunk;
        const int pps = g.pages_per_sequence();
        const int group = g.q_heads / g.kv_heads;
        const std::size_t hd = static_cast<std::size_t>(g.head_dim);
        std::vector<float> outv(static_cast<std::size_t>(batch) * static_cast<std::size_t>(g.q_heads) * hd);
        auto call = [&] {
          const float scale = 1.0f / std::sqrt(static_cast<float>(g.head_dim));
          std::vector<float> acc(hd), total(hd);
          for (int b = 0; b < batch; ++b) {
            for (int h = 0; h < g.q_heads; ++h) {
              const int kvh = h / group;
              std::vector<float> q(hd);
              for (std::size_t d = 0; d < hd; ++d) q[d] = query_value(b, h, static_cast<int>(d), g) * scale;
              float big = -INFINITY, sum = 0;
              std::fill(total.begin(), total.end(), 0.0f);
              for (int s = 0; s < splits; ++s) {
                float m = -INFINITY, l = 0;
                std::fill(acc.begin(), acc.end(), 0.0f);
                for (int t = s * chunk; t < std::min(context, (s + 1) * chunk); ++t) {
                  const std::size_t row =
                      static_cast<std::size_t>(pages[static_cast<std::size_t>(b * pps + t / g.page_tokens)]) *
                          g.page_values() +
                      (static_cast<std::size_t>(kvh) * static_cast<std::size_t>(g.page_tokens) +
                       static_cast<std::size_t>(t % g.page_tokens)) * hd;
                  float score = 0;
                  for (std::size_t d = 0; d < hd; ++d) {
                    score += q[d] * decode_bf16(k[row + d]);
                  }
                  const float m_new = std::max(m, score);
                  const float rescale = std::exp(m - m_new), w = std::exp(score - m_new);
                  l = l * rescale + w;
                  for (std::size_t d = 0; d < hd; ++d) acc[d] = acc[d] * rescale + w * decode_bf16(v[row + d]);
                  m = m_new;
                }
                const float b_new = std::max(big, m);
                const float f_old = std::exp(big - b_new), f_new = std::exp(m - b_new);
                sum = sum * f_old + l * f_new;
                for (std::size_t d = 0; d < hd; ++d) total[d] = total[d] * f_old + acc[d] * f_new;
                big = b_new;
              }
              for (std::size_t d = 0; d < hd; ++d) {
                outv[(static_cast<std::size_t>(b) * static_cast<std::size_t>(g.q_heads) + static_cast<std::size_t>(h)) * hd + d] =
                    total[d] / sum;
              }
            }
          }
        };
        call();  // warm-up
        AttentionPointRun pr;
        pr.batch = batch;
        pr.context_tokens = context;
        pr.splits = splits;
        pr.kv_bytes = g.kv_bytes_per_call();
        for (int s = 0; s < cfg.samples; ++s) {
          const auto t0 = Clock::now();
          call();
          pr.seconds_per_call.push_back(seconds_since(t0));
        }
        double err2 = 0, ref2 = 0;
        std::vector<double> ref;
        for (int b : {0, batch - 1}) {
          for (int h = 0; h < g.q_heads; h += std::max(1, g.q_heads / 8)) {
            attention_reference(k.data(), v.data(), pages.data() + static_cast<std::size_t>(b * pps), b, h, g, ref);
            for (std::size_t d = 0; d < hd; ++d) {
              const double x = outv[(static_cast<std::size_t>(b) * static_cast<std::size_t>(g.q_heads) + static_cast<std::size_t>(h)) * hd + d];
              err2 += (x - ref[d]) * (x - ref[d]);
              ref2 += ref[d] * ref[d];
            }
          }
        }
        worst = std::max(worst, ref2 > 0 ? std::sqrt(err2 / ref2) : 1.0);
        out.points.push_back(std::move(pr));
      }
    }
    out.check_rel_error = worst;
    out.verified = !out.points.empty() && worst <= 1e-3;
    out.check = "||out - ref|| / ||ref|| over 8 query heads of the first and last sequence of every point "
                "against a double-precision reference, tolerance 0.001; worst " + std::to_string(worst);
    return Status::success();
  }

  /** Two simulated ranks summed on the CPU: the pipeline of the GPU test, no collective library. */
  Status run_allreduce(const AllreduceConfig& cfg, AllreduceRun& out) override {
    constexpr int kRanks = 2;
    out.gpus = kRanks;
    out.library = "host simulation (two ranks in one process)";
    bool ok = true;
    for (std::uint64_t bytes = cfg.min_bytes; bytes <= cfg.max_bytes; bytes *= 2) {
      const std::size_t count = static_cast<std::size_t>(bytes / sizeof(float));
      std::vector<std::vector<float>> send(kRanks, std::vector<float>(count));
      std::vector<std::vector<float>> recv(kRanks, std::vector<float>(count));
      for (int r = 0; r < kRanks; ++r) {
        for (std::size_t i = 0; i < count; ++i) {
          send[static_cast<std::size_t>(r)][i] =
              static_cast<float>(static_cast<int>(mix64((static_cast<std::uint64_t>(r) << 40) ^ i) % 7) - 3);
        }
      }
      auto op = [&] {
        for (std::size_t i = 0; i < count; ++i) {
          float sum = 0;
          for (int r = 0; r < kRanks; ++r) sum += send[static_cast<std::size_t>(r)][i];
          for (int r = 0; r < kRanks; ++r) recv[static_cast<std::size_t>(r)][i] = sum;
        }
      };
      for (int w = 0; w < cfg.warmup; ++w) op();
      AllreducePointRun pr;
      pr.bytes = bytes;
      for (int s = 0; s < cfg.samples; ++s) {
        const auto t0 = Clock::now();
        op();
        pr.seconds_per_op.push_back(std::max(seconds_since(t0), 1e-9));
      }
      for (std::size_t i = 0; i < count; ++i) {
        ok = ok && recv[1][i] == send[0][i] + send[1][i];
      }
      out.points.push_back(std::move(pr));
    }
    out.verified = ok;
    out.check = ok ? "every element equals the exact sum of the ranks' random whole numbers"
                   : "some elements differ from the exact sum";
    return Status::success();
  }

  /** A "kernel" is a call through a function pointer that bumps a counter 64 times. */
  Status run_launch(const LaunchConfig& cfg, LaunchRun& out) override {
    static std::atomic<unsigned long long> counter{0};
    counter = 0;
    void (*volatile kernel)() = [] {
      for (int i = 0; i < 64; ++i) counter.fetch_add(1, std::memory_order_relaxed);
    };
    unsigned long long launched = 0;
    for (int i = 0; i < cfg.warmup; ++i, ++launched) kernel();
    for (int s = 0; s < cfg.samples; ++s, ++launched) {
      const auto t0 = Clock::now();
      kernel();
      (void)counter.load(std::memory_order_acquire);
      out.launch_seconds.push_back(std::max(seconds_since(t0), 1e-9));
    }
    for (int s = 0; s < 10; ++s) {
      const auto t0 = Clock::now();
      for (int i = 0; i < 100; ++i, ++launched) kernel();
      out.queued_seconds_per_launch.push_back(std::max(seconds_since(t0) / 100, 1e-9));
    }
    void (*const captured)() = kernel;
    std::vector<void (*)()> graph(static_cast<std::size_t>(cfg.graph_kernels), captured);
    for (int s = 0; s < cfg.graph_samples; ++s) {
      const auto t0 = Clock::now();
      for (auto* f : graph) f();
      launched += graph.size();
      out.graph_seconds_per_kernel.push_back(std::max(seconds_since(t0) / cfg.graph_kernels, 1e-9));
    }
    out.verified = counter.load() == 64 * launched;
    out.check = out.verified ? "the counter equals 64 x the kernels called"
                             : "the counter does not match the kernels called";
    return Status::success();
  }

 private:
  DeviceInfo info_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace gpucalc::bench
