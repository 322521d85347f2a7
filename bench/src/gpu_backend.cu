// The GPU back end: BabelStream kernels, peer copies and device queries, for CUDA and HIP alike.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "gpu_gemm.hpp"
#include "gpu_portability.hpp"
#include "gpu_serving.hpp"
#include "telemetry.hpp"

namespace gpucalc::bench {
namespace {

constexpr int kBlock = 256;
// BabelStream's start values and triad scalar.
constexpr double kStartA = 0.1, kStartB = 0.2, kStartC = 0.3, kScalar = 0.4;
// Left free for the runtime, the BLAS workspace and the partial sums.
constexpr std::uint64_t kMemoryMarginBytes = std::uint64_t{512} << 20;

/** Owns one device allocation. */
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) (void)gpuFree(ptr_);
  }
  gpuError_t allocate(std::size_t bytes) { return gpuMalloc(&ptr_, bytes); }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

/** Owns a start/stop event pair. */
class EventPair {
 public:
  EventPair() {
    (void)gpuEventCreate(&start);
    (void)gpuEventCreate(&stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    (void)gpuEventDestroy(start);
    (void)gpuEventDestroy(stop);
  }
  gpuEvent_t start{}, stop{};
};

// 16-byte accesses: each thread moves double2 vectors; U independent loads in flight per thread.
template <unsigned U>
__global__ void copy_kernel(const double2* __restrict__ a, double2* __restrict__ c, std::size_t n2) {
  const std::size_t span = static_cast<std::size_t>(blockDim.x) * U;
  for (std::size_t base = blockIdx.x * span + threadIdx.x; base < n2; base += gridDim.x * span) {
    double2 v[U];
#pragma unroll
    for (unsigned u = 0; u < U; ++u) v[u] = a[base + u * blockDim.x];
#pragma unroll
    for (unsigned u = 0; u < U; ++u) c[base + u * blockDim.x] = v[u];
  }
}

template <unsigned U>
__global__ void triad_kernel(double2* __restrict__ a, const double2* __restrict__ b,
                             const double2* __restrict__ c, double scalar, std::size_t n2) {
  const std::size_t span = static_cast<std::size_t>(blockDim.x) * U;
  for (std::size_t base = blockIdx.x * span + threadIdx.x; base < n2; base += gridDim.x * span) {
    double2 vb[U], vc[U];
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
      vb[u] = b[base + u * blockDim.x];
      vc[u] = c[base + u * blockDim.x];
    }
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
      a[base + u * blockDim.x] = make_double2(vb[u].x + scalar * vc[u].x, vb[u].y + scalar * vc[u].y);
    }
  }
}

template <unsigned U>
__global__ void dot_kernel(const double2* __restrict__ a, const double2* __restrict__ b,
                           double* __restrict__ partial, std::size_t n2) {
  __shared__ double sums[kBlock];
  const std::size_t span = static_cast<std::size_t>(blockDim.x) * U;
  double sum = 0;
  for (std::size_t base = blockIdx.x * span + threadIdx.x; base < n2; base += gridDim.x * span) {
    double2 va[U], vb[U];
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
      va[u] = a[base + u * blockDim.x];
      vb[u] = b[base + u * blockDim.x];
    }
#pragma unroll
    for (unsigned u = 0; u < U; ++u) sum += va[u].x * vb[u].x + va[u].y * vb[u].y;
  }
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset) sums[threadIdx.x] += sums[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void fill_kernel(double* p, double value, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = value;
}

/** Counts elements farther than `tolerance` from `expected`. */
__global__ void count_mismatches(const double* p, double expected, double tolerance, std::size_t n,
                                 unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    local += fabs(p[i] - expected) > tolerance ? 1ull : 0ull;
  }
  if (local != 0) atomicAdd(bad, local);
}

/** A kernel variant: vectors in flight per thread and whether the grid is persistent. */
struct Variant {
  const char* name;
  unsigned unroll;
  bool persistent;
};
constexpr Variant kVariants[] = {
    {"one 16-byte vector per thread, one pass", 1, false},
    {"four 16-byte vectors per thread, one pass", 4, false},
    {"four 16-byte vectors per thread, persistent grid-stride", 4, true},
};

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(DeviceInfo info) : info_(std::move(info)) {
    telemetry_ = open_nvml_telemetry(info_.pci_bus_id);
    info_.telemetry = telemetry_ ? telemetry_->name() : "none";
    if (telemetry_) {
      const std::string v = telemetry_->driver_version();
      if (!v.empty()) info_.driver_version += " (driver " + v + ")";
    }
  }

  const DeviceInfo& info() const override { return info_; }

  EnvSample sample_environment() override { return telemetry_ ? telemetry_->sample() : EnvSample{}; }

  Status run_stream(StreamKernel kernel, const StreamConfig& cfg, StreamRun& out) override {
    GPU_TRY(gpuSetDevice(info_.index));
    // Whole vectors for every variant: a multiple of kBlock * 4 double2 per array.
    const std::size_t granule = kBlock * 4;
    const std::size_t n2 = static_cast<std::size_t>(cfg.array_bytes / 16) / granule * granule;
    if (n2 == 0) return Status::failure("--hbm-bytes is too small");
    const std::uint64_t array_bytes = static_cast<std::uint64_t>(n2) * 16;
    std::size_t free_bytes = 0, total_bytes = 0;
    GPU_TRY(gpuMemGetInfo(&free_bytes, &total_bytes));
    const std::uint64_t need = 3 * array_bytes + kMemoryMarginBytes;
    if (need > free_bytes) {
      return Status::failure("too little GPU memory for the HBM test: it needs " +
                             std::to_string(need >> 20) + " MiB, " + std::to_string(free_bytes >> 20) +
                             " MiB are free (lower --hbm-bytes)");
    }
    DeviceBuffer a, b, c, partial, bad;
    GPU_TRY(a.allocate(array_bytes));
    GPU_TRY(b.allocate(array_bytes));
    GPU_TRY(c.allocate(array_bytes));
    const std::size_t max_blocks = n2 / kBlock;
    GPU_TRY(partial.allocate(max_blocks * sizeof(double)));
    GPU_TRY(bad.allocate(sizeof(unsigned long long)));
    const std::size_t n = n2 * 2;
    const unsigned fill_blocks = static_cast<unsigned>(info_.multiprocessors * 8);
    auto fill_all = [&]() -> Status {
      fill_kernel<<<fill_blocks, kBlock>>>(a.as<double>(), kStartA, n);
      fill_kernel<<<fill_blocks, kBlock>>>(b.as<double>(), kStartB, n);
      fill_kernel<<<fill_blocks, kBlock>>>(c.as<double>(), kStartC, n);
      GPU_TRY(gpuGetLastError());
      GPU_TRY(gpuDeviceSynchronize());
      return Status::success();
    };

    out.elements = n;
    out.bytes_per_launch = static_cast<std::uint64_t>(stream_arrays_moved(kernel)) * array_bytes;
    double best_median = -1;
    for (const Variant& v : kVariants) {
      const std::size_t one_pass = n2 / (static_cast<std::size_t>(kBlock) * v.unroll);
      const std::size_t blocks =
          v.persistent ? std::min<std::size_t>(one_pass, static_cast<std::size_t>(info_.multiprocessors) * 8u)
                       : one_pass;
      auto launch = [&] {
        const unsigned grid = static_cast<unsigned>(blocks);
        switch (kernel) {
          case StreamKernel::kCopy:
            if (v.unroll == 1) copy_kernel<1><<<grid, kBlock>>>(a.as<double2>(), c.as<double2>(), n2);
            else copy_kernel<4><<<grid, kBlock>>>(a.as<double2>(), c.as<double2>(), n2);
            break;
          case StreamKernel::kTriad:
            if (v.unroll == 1)
              triad_kernel<1><<<grid, kBlock>>>(a.as<double2>(), b.as<double2>(), c.as<double2>(), kScalar, n2);
            else
              triad_kernel<4><<<grid, kBlock>>>(a.as<double2>(), b.as<double2>(), c.as<double2>(), kScalar, n2);
            break;
          case StreamKernel::kDot:
            if (v.unroll == 1) dot_kernel<1><<<grid, kBlock>>>(a.as<double2>(), b.as<double2>(), partial.as<double>(), n2);
            else dot_kernel<4><<<grid, kBlock>>>(a.as<double2>(), b.as<double2>(), partial.as<double>(), n2);
            break;
        }
      };
      const Status filled = fill_all();
      if (!filled.ok) return filled;
      for (int i = 0; i < cfg.warmup_launches; ++i) launch();
      GPU_TRY(gpuGetLastError());
      GPU_TRY(gpuDeviceSynchronize());
      std::vector<double> seconds;
      EventPair ev;
      for (int s = 0; s < cfg.samples; ++s) {
        GPU_TRY(gpuEventRecord(ev.start, 0));
        for (int i = 0; i < cfg.launches_per_sample; ++i) launch();
        GPU_TRY(gpuEventRecord(ev.stop, 0));
        GPU_TRY(gpuEventSynchronize(ev.stop));
        GPU_TRY(gpuGetLastError());
        float ms = 0;
        GPU_TRY(gpuEventElapsedTime(&ms, ev.start, ev.stop));
        seconds.push_back(static_cast<double>(ms) * 1e-3 / cfg.launches_per_sample);
      }
      std::vector<double> sorted = seconds;
      std::sort(sorted.begin(), sorted.end());
      const double median = sorted[sorted.size() / 2];
      if (best_median < 0 || median < best_median) {
        best_median = median;
        out.variant = v.name;
        out.seconds_per_launch = seconds;
      }
      // Verify this variant's result before moving on.
      const Status checked = verify(kernel, a, b, c, partial, bad, n, blocks);
      if (!checked.ok) return checked;
      if (!verified_) {
        out.verified = false;
        out.check = check_ + " (variant: " + v.name + ")";
        return Status::success();
      }
    }
    out.verified = true;
    out.check = check_ + " (every variant)";
    return Status::success();
  }

  GemmSupport gemm_support(GemmPrecision p) const override { return gpu_gemm_support(info_, p); }

  Status run_gemm(const GemmConfig& cfg, GemmRun& out) override {
    GPU_TRY(gpuSetDevice(info_.index));
    return gpu_run_gemm(info_, cfg, out);
  }

  Status run_attention_decode(const AttentionConfig& cfg, AttentionRun& out) override {
    GPU_TRY(gpuSetDevice(info_.index));
    return gpu_run_attention_decode(info_, cfg, out);
  }

  Status run_allreduce(const AllreduceConfig& cfg, AllreduceRun& out) override {
    return gpu_run_allreduce(info_, cfg, out);
  }

  Status run_launch(const LaunchConfig& cfg, LaunchRun& out) override {
    return gpu_run_launch(info_, cfg, out);
  }

  Status run_p2p(const P2pConfig& cfg, std::vector<P2pPairRun>& out) override {
    const int count = info_.device_count;
    for (int i = 0; i < count; ++i) {
      for (int j = 0; j < count; ++j) {
        if (i == j) continue;
        int can_ij = 0, can_ji = 0;
        GPU_TRY(gpuDeviceCanAccessPeer(&can_ij, i, j));
        GPU_TRY(gpuDeviceCanAccessPeer(&can_ji, j, i));
        if (can_ij == 0 || can_ji == 0) continue;
        P2pPairRun uni;
        uni.src = i;
        uni.dst = j;
        const Status s1 = peer_copy(cfg, i, j, false, uni);
        if (!s1.ok) return s1;
        out.push_back(uni);
        if (i < j) {
          P2pPairRun bi;
          bi.src = i;
          bi.dst = j;
          bi.bidirectional = true;
          const Status s2 = peer_copy(cfg, i, j, true, bi);
          if (!s2.ok) return s2;
          out.push_back(bi);
        }
      }
    }
    GPU_TRY(gpuSetDevice(info_.index));
    return Status::success();
  }

 private:
  Status verify(StreamKernel kernel, DeviceBuffer& a, DeviceBuffer& b, DeviceBuffer& c, DeviceBuffer& partial,
                DeviceBuffer& bad, std::size_t n, std::size_t blocks) {
    (void)b;
    const unsigned grid = static_cast<unsigned>(info_.multiprocessors * 8);
    if (kernel == StreamKernel::kDot) {
      std::vector<double> host(blocks);
      GPU_TRY(gpuMemcpy(host.data(), partial.as<double>(), blocks * sizeof(double), gpuMemcpyDeviceToHost));
      double sum = 0;
      for (double v : host) sum += v;
      const double expected = kStartA * kStartB * static_cast<double>(n);
      verified_ = std::fabs(sum - expected) <= 1e-8 * expected;
      check_ = verified_ ? "dot sum equals a*b*n to 1e-8"
                         : "dot sum " + std::to_string(sum) + " differs from " + std::to_string(expected);
      return Status::success();
    }
    const double* target = kernel == StreamKernel::kCopy ? c.as<double>() : a.as<double>();
    const double expected = kernel == StreamKernel::kCopy ? kStartA : kStartB + kScalar * kStartC;
    GPU_TRY(gpuMemset(bad.as<void>(), 0, sizeof(unsigned long long)));
    count_mismatches<<<grid, kBlock>>>(target, expected, 1e-12, n, bad.as<unsigned long long>());
    GPU_TRY(gpuGetLastError());
    unsigned long long mismatches = 0;
    GPU_TRY(gpuMemcpy(&mismatches, bad.as<void>(), sizeof mismatches, gpuMemcpyDeviceToHost));
    verified_ = mismatches == 0;
    check_ = verified_ ? "every element equals the expected value"
                       : std::to_string(mismatches) + " elements differ from the expected value";
    return Status::success();
  }

  Status peer_copy(const P2pConfig& cfg, int i, int j, bool both_ways, P2pPairRun& out) {
    const std::size_t bytes = static_cast<std::size_t>(cfg.bytes);
    DeviceBuffer src_i, dst_i, src_j, dst_j;
    gpuStream_t stream_i{}, stream_j{};
    GPU_TRY(gpuSetDevice(i));
    if (gpuError_t e = gpuDeviceEnablePeerAccess(j, 0); e != gpuSuccess && e != gpuErrorPeerAccessAlreadyEnabled) {
      return Status::failure(gpu_error(e, "enabling peer access"));
    }
    (void)gpuGetLastError();
    GPU_TRY(src_i.allocate(bytes));
    GPU_TRY(dst_i.allocate(bytes));
    GPU_TRY(gpuStreamCreateWithFlags(&stream_i, gpuStreamNonBlocking));
    EventPair ev_i;
    GPU_TRY(gpuSetDevice(j));
    if (gpuError_t e = gpuDeviceEnablePeerAccess(i, 0); e != gpuSuccess && e != gpuErrorPeerAccessAlreadyEnabled) {
      return Status::failure(gpu_error(e, "enabling peer access"));
    }
    (void)gpuGetLastError();
    GPU_TRY(src_j.allocate(bytes));
    GPU_TRY(dst_j.allocate(bytes));
    GPU_TRY(gpuStreamCreateWithFlags(&stream_j, gpuStreamNonBlocking));
    EventPair ev_j;
    auto one_sample = [&](double& seconds) -> Status {
      const auto t0 = std::chrono::steady_clock::now();
      GPU_TRY(gpuSetDevice(i));
      GPU_TRY(gpuEventRecord(ev_i.start, stream_i));
      GPU_TRY(gpuMemcpyPeerAsync(dst_j.as<void>(), j, src_i.as<void>(), i, bytes, stream_i));
      GPU_TRY(gpuEventRecord(ev_i.stop, stream_i));
      if (both_ways) {
        GPU_TRY(gpuSetDevice(j));
        GPU_TRY(gpuMemcpyPeerAsync(dst_i.as<void>(), i, src_j.as<void>(), j, bytes, stream_j));
        GPU_TRY(gpuStreamSynchronize(stream_j));
      }
      GPU_TRY(gpuStreamSynchronize(stream_i));
      if (both_ways) {
        // Both copies ran at once: the host clock spans them both.
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } else {
        float ms = 0;
        GPU_TRY(gpuEventElapsedTime(&ms, ev_i.start, ev_i.stop));
        seconds = static_cast<double>(ms) * 1e-3;
      }
      return Status::success();
    };
    double seconds = 0;
    for (int w = 0; w < 2; ++w) {
      const Status s = one_sample(seconds);
      if (!s.ok) return s;
    }
    const double moved = static_cast<double>(bytes) * (both_ways ? 2.0 : 1.0);
    for (int s = 0; s < cfg.samples; ++s) {
      const Status st = one_sample(seconds);
      if (!st.ok) return st;
      if (seconds > 0) out.bytes_per_s.push_back(moved / seconds);
    }
    GPU_TRY(gpuSetDevice(i));
    (void)gpuStreamDestroy(stream_i);
    GPU_TRY(gpuSetDevice(j));
    (void)gpuStreamDestroy(stream_j);
    return Status::success();
  }

  DeviceInfo info_;
  std::unique_ptr<Telemetry> telemetry_;
  bool verified_ = false;
  std::string check_;
};

std::string version_text(int v) {
  // CUDA and HIP both encode major * 1000 + minor * 10 (HIP: major * 10^7 + minor * 10^5 + patch).
  if (v >= 10000000) {
    return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
  }
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(int device, std::string& error) {
  int count = 0;
  const gpuError_t e = gpuGetDeviceCount(&count);
  if (e != gpuSuccess || count == 0) {
    error = "no GPU found (" GPUCALC_RUNTIME_NAME ": " +
            std::string(e != gpuSuccess ? gpuGetErrorString(e) : "zero devices") + ")";
    return nullptr;
  }
  if (device >= count) {
    error = "there is no GPU " + std::to_string(device) + ": this machine has " + std::to_string(count);
    return nullptr;
  }
  DeviceInfo info;
  info.backend = GPUCALC_RUNTIME_NAME;
  info.index = device;
  info.device_count = count;
  if (const gpuError_t se = gpuSetDevice(device); se != gpuSuccess) {
    error = gpu_error(se, "selecting the GPU");
    return nullptr;
  }
  gpuDeviceProp_t prop{};
  if (const gpuError_t pe = gpuGetDeviceProperties(&prop, device); pe != gpuSuccess) {
    error = gpu_error(pe, "reading the GPU's properties");
    return nullptr;
  }
  info.name = prop.name;
#if defined(GPUCALC_BENCH_HIP)
  info.vendor = "amd";
  const std::string gcn = prop.gcnArchName;
  info.arch = gcn.substr(0, gcn.find(':'));
#else
  info.vendor = "nvidia";
  info.arch = "sm_" + std::to_string(prop.major * 10 + prop.minor);
#endif
  info.memory_bytes = static_cast<std::uint64_t>(prop.totalGlobalMem);
  int value = 0;
  if (gpuDeviceGetAttribute(&value, gpuDevAttrMultiProcessorCount, device) == gpuSuccess) info.multiprocessors = value;
  if (gpuDeviceGetAttribute(&value, gpuDevAttrL2CacheSize, device) == gpuSuccess) {
    info.l2_cache_bytes = static_cast<std::uint64_t>(value);
  }
  if (gpuDeviceGetAttribute(&value, gpuDevAttrClockRate, device) == gpuSuccess) info.sm_clock_max_mhz = value / 1000.0;
  if (gpuDeviceGetAttribute(&value, gpuDevAttrMemoryClockRate, device) == gpuSuccess) {
    info.memory_clock_max_mhz = value / 1000.0;
  }
  if (gpuDeviceGetAttribute(&value, gpuDevAttrMemoryBusWidth, device) == gpuSuccess) info.memory_bus_width_bits = value;
  char bus[64] = {};
  if (gpuDeviceGetPCIBusId(bus, sizeof bus, device) == gpuSuccess) info.pci_bus_id = bus;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (gpuMemGetInfo(&free_bytes, &total_bytes) == gpuSuccess) info.free_memory_bytes = free_bytes;
  int driver = 0, runtime = 0;
  if (gpuDriverGetVersion(&driver) == gpuSuccess) info.driver_version = GPUCALC_RUNTIME_NAME " driver API " + version_text(driver);
  if (gpuRuntimeGetVersion(&runtime) == gpuSuccess) info.runtime_version = GPUCALC_RUNTIME_NAME " runtime " + version_text(runtime);
  info.blas_version = gpu_blas_version();
  return std::make_unique<GpuBackend>(std::move(info));
}

}  // namespace gpucalc::bench
