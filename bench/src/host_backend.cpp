// The host back end: the GPU back end's pipeline on the CPU, for dry runs and CI.
#include <chrono>
#include <cmath>
#include <vector>

#include "backend.hpp"
#include "formats.hpp"

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
      // Two operand sets, A stored transposed (k fastest) like the GPU's TN layout.
      std::vector<std::vector<float>> as(2, std::vector<float>(m * k)), bs(2, std::vector<float>(k * n));
      for (std::size_t set = 0; set < 2; ++set) {
        for (std::size_t i = 0; i < m * k; ++i) as[set][i] = quantize(cfg.precision, normal_draw(2 * set + 1, i));
        for (std::size_t i = 0; i < k * n; ++i) bs[set][i] = quantize(cfg.precision, normal_draw(2 * set + 2, i));
      }
      out.rotating_bytes = std::max<std::uint64_t>(out.rotating_bytes, 2 * (m * k + k * n + m * n) * sizeof(float));
      std::vector<float> d(m * n);
      auto gemm = [&](std::size_t set) {
        for (std::size_t j = 0; j < n; ++j) {
          for (std::size_t i = 0; i < m; ++i) {
            float acc = 0;
            const float* arow = &as[set][i * k];
            const float* bcol = &bs[set][j * k];
            for (std::size_t p = 0; p < k; ++p) acc += arow[p] * bcol[p];
            d[j * m + i] = acc;
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
      for (std::size_t j = 0; j < n; j += 7) {
        for (std::size_t i = 0; i < m; i += 5) {
          double ref = 0;
          for (std::size_t p = 0; p < k; ++p) ref += double(as[last][i * k + p]) * double(bs[last][j * k + p]);
          err2 += (d[j * m + i] - ref) * (d[j * m + i] - ref);
          ref2 += ref * ref;
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

 private:
  DeviceInfo info_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace gpucalc::bench
