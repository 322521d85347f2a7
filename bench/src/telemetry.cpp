#include "telemetry.hpp"

#include <dlfcn.h>

namespace gpucalc::bench {
namespace {

// The few NVML entry points used, declared here (stable C ABI, nvml.h) so no header is needed.
using NvmlDevice = struct NvmlDeviceOpaque*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlByPci = int (*)(const char*, NvmlDevice*);
using NvmlClock = int (*)(NvmlDevice, int, unsigned*);
using NvmlPower = int (*)(NvmlDevice, unsigned*);
using NvmlTemperature = int (*)(NvmlDevice, int, unsigned*);
using NvmlDriverVersion = int (*)(char*, unsigned);
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

class NvmlTelemetry final : public Telemetry {
 public:
  ~NvmlTelemetry() override {
    if (shutdown_ != nullptr) shutdown_();
    if (lib_ != nullptr) dlclose(lib_);
  }

  bool open(const std::string& pci_bus_id) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) return false;
    auto init = symbol<NvmlInit>(lib_, "nvmlInit_v2");
    auto by_pci = symbol<NvmlByPci>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
    clock_ = symbol<NvmlClock>(lib_, "nvmlDeviceGetClockInfo");
    power_ = symbol<NvmlPower>(lib_, "nvmlDeviceGetPowerUsage");
    temperature_ = symbol<NvmlTemperature>(lib_, "nvmlDeviceGetTemperature");
    driver_ = symbol<NvmlDriverVersion>(lib_, "nvmlSystemGetDriverVersion");
    if (init == nullptr || by_pci == nullptr || init() != kNvmlSuccess) return false;
    shutdown_ = symbol<NvmlShutdown>(lib_, "nvmlShutdown");
    return by_pci(pci_bus_id.c_str(), &device_) == kNvmlSuccess;
  }

  EnvSample sample() override {
    EnvSample s;
    unsigned v = 0;
    if (clock_ != nullptr && clock_(device_, kNvmlClockSm, &v) == kNvmlSuccess) s.sm_clock_mhz = v;
    if (clock_ != nullptr && clock_(device_, kNvmlClockMem, &v) == kNvmlSuccess) s.memory_clock_mhz = v;
    if (power_ != nullptr && power_(device_, &v) == kNvmlSuccess) s.power_w = v / 1000.0;
    if (temperature_ != nullptr && temperature_(device_, kNvmlTemperatureGpu, &v) == kNvmlSuccess) {
      s.temperature_c = v;
    }
    return s;
  }

  std::string driver_version() override {
    char buf[96] = {};
    if (driver_ == nullptr || driver_(buf, sizeof buf) != kNvmlSuccess) return {};
    return buf;
  }

  std::string name() const override { return "nvml"; }

 private:
  void* lib_ = nullptr;
  NvmlDevice device_ = nullptr;
  NvmlShutdown shutdown_ = nullptr;
  NvmlClock clock_ = nullptr;
  NvmlPower power_ = nullptr;
  NvmlTemperature temperature_ = nullptr;
  NvmlDriverVersion driver_ = nullptr;
};

}  // namespace

std::unique_ptr<Telemetry> open_nvml_telemetry(const std::string& pci_bus_id) {
#if defined(GPUCALC_BENCH_CUDA)
  auto t = std::make_unique<NvmlTelemetry>();
  if (!t->open(pci_bus_id)) return nullptr;
  return t;
#else
  (void)pci_bus_id;
  return nullptr;
#endif
}

}  // namespace gpucalc::bench
