#pragma once
/** Unit constants. Weights and bandwidths are decimal; device memory is binary. */

namespace gpucalc {

constexpr double kBytesPerGB = 1e9;
constexpr double kBytesPerTB = 1e12;
constexpr double kBytesPerMiB = 1048576.0;
constexpr double kBytesPerGiB = 1073741824.0;
constexpr double kFlopsPerTflop = 1e12;
constexpr double kParamsPerBillion = 1e9;
/** Hours in a billing month, as seed 002 uses (month / GPUs / 730). */
constexpr double kHoursPerMonth = 730.0;
constexpr double kSecondsPerHour = 3600.0;
constexpr double kBitsPerByte = 8.0;
constexpr double kSecondsPerMicrosecond = 1e-6;
constexpr double kWattsPerKilowatt = 1000.0;
constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kWattsPerMegawatt = 1e6;

}  // namespace gpucalc
