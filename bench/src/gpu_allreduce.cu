// All-reduce over every GPU of the machine through NCCL (NVIDIA) or RCCL (AMD), loaded at run
// time with dlopen like NVML, so that building needs neither SDK. One process drives all GPUs
// (ncclCommInitAll); timing follows nccl-tests: out-of-place sum on float32, host clock around
// back-to-back all-reduces with every stream synchronised.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "gpu_portability.hpp"
#include "gpu_serving.hpp"

namespace gpucalc::bench {
namespace {

// The NCCL C API (nccl.h; RCCL keeps the same names and values), declared here so that no
// header is needed: ncclResult_t, ncclDataType_t and ncclRedOp_t are int-sized enums.
constexpr int kNcclSuccess = 0;
constexpr int kNcclFloat32 = 7;
constexpr int kNcclSum = 0;
using NcclComm = void*;
using InitAllFn = int (*)(NcclComm* comms, int ndev, const int* devlist);
using AllReduceFn = int (*)(const void* send, void* recv, std::size_t count, int type, int op,
                            NcclComm comm, void* stream);
using GroupFn = int (*)();
using DestroyFn = int (*)(NcclComm comm);
using VersionFn = int (*)(int* version);
using ErrorStringFn = const char* (*)(int result);

#if defined(GPUCALC_BENCH_HIP)
const char* const kLibraryNames[] = {"librccl.so.1", "librccl.so", "/opt/rocm/lib/librccl.so.1"};
constexpr const char* kLibraryName = "rccl";
#else
const char* const kLibraryNames[] = {"libnccl.so.2", "libnccl.so"};
constexpr const char* kLibraryName = "nccl";
#endif

struct Library {
  void* handle = nullptr;
  InitAllFn init_all = nullptr;
  AllReduceFn all_reduce = nullptr;
  GroupFn group_start = nullptr, group_end = nullptr;
  DestroyFn destroy = nullptr;
  VersionFn version = nullptr;
  ErrorStringFn error_string = nullptr;
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
  std::string open() {
    std::string tried;
    for (const char* name : kLibraryNames) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) break;
      tried += (tried.empty() ? "" : ", ") + std::string(name);
    }
    if (handle == nullptr) return std::string(kLibraryName) + " not found (tried " + tried + ")";
    init_all = reinterpret_cast<InitAllFn>(dlsym(handle, "ncclCommInitAll"));
    all_reduce = reinterpret_cast<AllReduceFn>(dlsym(handle, "ncclAllReduce"));
    group_start = reinterpret_cast<GroupFn>(dlsym(handle, "ncclGroupStart"));
    group_end = reinterpret_cast<GroupFn>(dlsym(handle, "ncclGroupEnd"));
    destroy = reinterpret_cast<DestroyFn>(dlsym(handle, "ncclCommDestroy"));
    version = reinterpret_cast<VersionFn>(dlsym(handle, "ncclGetVersion"));
    error_string = reinterpret_cast<ErrorStringFn>(dlsym(handle, "ncclGetErrorString"));
    if (!init_all || !all_reduce || !group_start || !group_end || !destroy) {
      return std::string(kLibraryName) + " lacks ncclCommInitAll/ncclAllReduce/ncclGroupStart";
    }
    return "";
  }
  std::string describe() const {
    int v = 0;
    if (version == nullptr || version(&v) != kNcclSuccess) return kLibraryName;
    // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
    return std::string(kLibraryName) + " " + std::to_string(v / 10000) + "." +
           std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  }
  std::string why(int r) const {
    return error_string != nullptr ? error_string(r) : "error " + std::to_string(r);
  }
};

/** Rank r's element i: a random whole number in [-3, 3], so every sum is exact in float. */
__host__ __device__ inline float element(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>(mix64((static_cast<std::uint64_t>(rank) << 40) ^ i) % 7) - 3);
}

__global__ void fill_rank(float* p, std::size_t n, int rank) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = element(rank, i);
  }
}

__global__ void count_wrong_sums(const float* p, std::size_t n, int ranks, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float expected = 0.0f;
    for (int r = 0; r < ranks; ++r) expected += element(r, i);
    local += p[i] != expected ? 1ull : 0ull;
  }
  if (local != 0) atomicAdd(bad, local);
}

struct PerGpu {
  void* send = nullptr;
  void* recv = nullptr;
  unsigned long long* bad = nullptr;
  gpuStream_t stream{};
  NcclComm comm = nullptr;
};

}  // namespace

Status gpu_run_allreduce(const DeviceInfo& device, const AllreduceConfig& cfg, AllreduceRun& out) {
  const int g = device.device_count;
  out.gpus = g;
  if (g < 2) {
    out.skipped = "one GPU on this machine: an all-reduce needs two or more";
    return Status::success();
  }
  Library lib;
  if (const std::string e = lib.open(); !e.empty()) {
    out.skipped = e;
    return Status::success();
  }
  out.library = lib.describe();
  std::vector<PerGpu> gpus(static_cast<std::size_t>(g));
  std::vector<int> devs(static_cast<std::size_t>(g));
  const std::size_t max_count = static_cast<std::size_t>(cfg.max_bytes / sizeof(float));
  auto cleanup = [&] {
    for (int r = 0; r < g; ++r) {
      PerGpu& p = gpus[static_cast<std::size_t>(r)];
      (void)gpuSetDevice(r);
      if (p.comm != nullptr) lib.destroy(p.comm);
      if (p.send != nullptr) (void)gpuFree(p.send);
      if (p.recv != nullptr) (void)gpuFree(p.recv);
      if (p.bad != nullptr) (void)gpuFree(p.bad);
      if (p.stream != nullptr) (void)gpuStreamDestroy(p.stream);
    }
    (void)gpuSetDevice(device.index);
  };
  auto run = [&]() -> Status {
    for (int r = 0; r < g; ++r) {
      PerGpu& p = gpus[static_cast<std::size_t>(r)];
      devs[static_cast<std::size_t>(r)] = r;
      GPU_TRY(gpuSetDevice(r));
      GPU_TRY(gpuMalloc(&p.send, max_count * sizeof(float)));
      GPU_TRY(gpuMalloc(&p.recv, max_count * sizeof(float)));
      GPU_TRY(gpuMalloc(reinterpret_cast<void**>(&p.bad), sizeof(unsigned long long)));
      GPU_TRY(gpuStreamCreate(&p.stream));
      fill_rank<<<1024, 256>>>(static_cast<float*>(p.send), max_count, r);
      GPU_TRY(gpuGetLastError());
      GPU_TRY(gpuDeviceSynchronize());
    }
    std::vector<NcclComm> comms(static_cast<std::size_t>(g), nullptr);
    if (const int e = lib.init_all(comms.data(), g, devs.data()); e != kNcclSuccess) {
      return Status::failure("ncclCommInitAll: " + lib.why(e));
    }
    for (int r = 0; r < g; ++r) gpus[static_cast<std::size_t>(r)].comm = comms[static_cast<std::size_t>(r)];

    auto one = [&](std::size_t count) -> Status {
      lib.group_start();
      for (int r = 0; r < g; ++r) {
        PerGpu& p = gpus[static_cast<std::size_t>(r)];
        const int e = lib.all_reduce(p.send, p.recv, count, kNcclFloat32, kNcclSum, p.comm,
                                     static_cast<void*>(p.stream));
        if (e != kNcclSuccess) {
          lib.group_end();
          return Status::failure("ncclAllReduce: " + lib.why(e));
        }
      }
      if (const int e = lib.group_end(); e != kNcclSuccess) return Status::failure("ncclGroupEnd: " + lib.why(e));
      return Status::success();
    };
    auto sync_all = [&]() -> Status {
      for (int r = 0; r < g; ++r) {
        GPU_TRY(gpuSetDevice(r));
        GPU_TRY(gpuStreamSynchronize(gpus[static_cast<std::size_t>(r)].stream));
      }
      return Status::success();
    };
    auto timed = [&](std::size_t count, int iters, double& each) -> Status {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) {
        const Status st = one(count);
        if (!st.ok) return st;
      }
      const Status st = sync_all();
      if (!st.ok) return st;
      each = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
      return Status::success();
    };

    unsigned long long wrong = 0;
    for (std::uint64_t bytes = cfg.min_bytes; bytes <= cfg.max_bytes; bytes *= 2) {
      const std::size_t count = static_cast<std::size_t>(bytes / sizeof(float));
      double each = 0;
      Status st = timed(count, cfg.warmup, each);
      if (!st.ok) return st;
      const int iters = std::max(1, static_cast<int>(cfg.seconds_per_sample / std::max(each, 1e-7)));
      AllreducePointRun pr;
      pr.bytes = bytes;
      for (int s = 0; s < cfg.samples; ++s) {
        st = timed(count, iters, each);
        if (!st.ok) return st;
        pr.seconds_per_op.push_back(each);
      }
      for (int r = 0; r < g; ++r) {
        PerGpu& p = gpus[static_cast<std::size_t>(r)];
        GPU_TRY(gpuSetDevice(r));
        GPU_TRY(gpuMemset(p.bad, 0, sizeof(unsigned long long)));
        count_wrong_sums<<<1024, 256>>>(static_cast<const float*>(p.recv), count, g, p.bad);
        GPU_TRY(gpuGetLastError());
        unsigned long long n = 0;
        GPU_TRY(gpuMemcpy(&n, p.bad, sizeof n, gpuMemcpyDeviceToHost));
        wrong += n;
      }
      out.points.push_back(std::move(pr));
    }
    out.verified = wrong == 0;
    out.check = wrong == 0 ? "every element of every GPU's result equals the exact sum of the ranks' "
                             "random whole numbers, at every size"
                           : std::to_string(wrong) + " elements differ from the exact sum";
    return Status::success();
  };
  const Status st = run();
  cleanup();
  return st;
}

}  // namespace gpucalc::bench
