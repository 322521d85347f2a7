#pragma once
/**
 * Clocks, power and temperature during the run. On NVIDIA: NVML, loaded at run time with dlopen
 * (no header or stub library needed to build); elsewhere nothing, and the record says "none".
 */
#include <memory>
#include <string>

#include "backend.hpp"

namespace gpucalc::bench {

class Telemetry {
 public:
  virtual ~Telemetry() = default;
  virtual EnvSample sample() = 0;
  virtual std::string driver_version() = 0;
  virtual std::string name() const = 0;
};

/** NVML for the device at `pci_bus_id`; null where libnvidia-ml cannot be loaded. */
std::unique_ptr<Telemetry> open_nvml_telemetry(const std::string& pci_bus_id);

}  // namespace gpucalc::bench
