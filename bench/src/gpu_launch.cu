// Kernel launch latency (launch test): an empty kernel launched and waited for, the host cost
// of back-to-back launches, and the per-kernel time inside a captured CUDA/HIP graph.
#include <chrono>
#include <string>
#include <vector>

#include "gpu_portability.hpp"
#include "gpu_serving.hpp"

namespace gpucalc::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Empty but for one counter increment, so that the check can count the kernels that ran.
__global__ void tick(unsigned int* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(counter, 1u);
}

constexpr int kQueuedLaunches = 1000;
constexpr int kQueuedSamples = 10;

}  // namespace

Status gpu_run_launch(const DeviceInfo& device, const LaunchConfig& cfg, LaunchRun& out) {
  GPU_TRY(gpuSetDevice(device.index));
  unsigned int* counter = nullptr;
  GPU_TRY(gpuMalloc(reinterpret_cast<void**>(&counter), sizeof(unsigned int)));
  gpuStream_t stream{};
  gpuGraph_t graph{};
  gpuGraphExec_t exec{};
  auto run = [&]() -> Status {
    GPU_TRY(gpuStreamCreate(&stream));
    GPU_TRY(gpuMemset(counter, 0, sizeof(unsigned int)));
    GPU_TRY(gpuDeviceSynchronize());
    unsigned long long expected = 0;
    for (int i = 0; i < cfg.warmup; ++i) tick<<<1, 1, 0, stream>>>(counter);
    expected += static_cast<unsigned long long>(cfg.warmup);
    GPU_TRY(gpuStreamSynchronize(stream));
    for (int s = 0; s < cfg.samples; ++s) {
      const auto t0 = Clock::now();
      tick<<<1, 1, 0, stream>>>(counter);
      GPU_TRY(gpuStreamSynchronize(stream));
      out.launch_seconds.push_back(seconds_since(t0));
    }
    expected += static_cast<unsigned long long>(cfg.samples);
    for (int s = 0; s < kQueuedSamples; ++s) {
      const auto t0 = Clock::now();
      for (int i = 0; i < kQueuedLaunches; ++i) tick<<<1, 1, 0, stream>>>(counter);
      out.queued_seconds_per_launch.push_back(seconds_since(t0) / kQueuedLaunches);
      GPU_TRY(gpuStreamSynchronize(stream));
    }
    expected += static_cast<unsigned long long>(kQueuedSamples) * kQueuedLaunches;
    GPU_TRY(gpuGetLastError());

    GPU_TRY(gpuStreamBeginCapture(stream, gpuStreamCaptureModeGlobal));
    for (int i = 0; i < cfg.graph_kernels; ++i) tick<<<1, 1, 0, stream>>>(counter);
    GPU_TRY(gpuStreamEndCapture(stream, &graph));
    GPU_TRY(gpuGraphInstantiateWithFlags(&exec, graph, 0));
    for (int w = 0; w < 3; ++w) GPU_TRY(gpuGraphLaunch(exec, stream));
    GPU_TRY(gpuStreamSynchronize(stream));
    for (int s = 0; s < cfg.graph_samples; ++s) {
      const auto t0 = Clock::now();
      GPU_TRY(gpuGraphLaunch(exec, stream));
      GPU_TRY(gpuStreamSynchronize(stream));
      out.graph_seconds_per_kernel.push_back(seconds_since(t0) / cfg.graph_kernels);
    }
    expected += static_cast<unsigned long long>(cfg.graph_samples + 3) *
                static_cast<unsigned long long>(cfg.graph_kernels);
    unsigned int ran = 0;
    GPU_TRY(gpuMemcpy(&ran, counter, sizeof ran, gpuMemcpyDeviceToHost));
    out.verified = ran == static_cast<unsigned int>(expected);
    out.check = out.verified ? "the kernels' counter equals the number of kernels launched (" +
                                   std::to_string(expected) + ")"
                             : "the counter says " + std::to_string(ran) + " kernels ran, " +
                                   std::to_string(expected) + " were launched";
    return Status::success();
  };
  const Status st = run();
  if (exec != nullptr) (void)gpuGraphExecDestroy(exec);
  if (graph != nullptr) (void)gpuGraphDestroy(graph);
  if (stream != nullptr) (void)gpuStreamDestroy(stream);
  (void)gpuFree(counter);
  return st;
}

}  // namespace gpucalc::bench
