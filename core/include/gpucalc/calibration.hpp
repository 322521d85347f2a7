#pragma once
/**
 * Calibration records written by the microbenchmark (bench/), schema in
 * data/calibration/README.md. A record for a GPU replaces the default achieved rates.
 */
#include <optional>
#include <string>
#include <string_view>

#include "gpucalc/precision.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

constexpr std::string_view kCalibrationSchema = "gpucalc-calibration/1";

struct CalibrationRecord {
  std::string gpu_id;       // catalog GPU id, e.g. "h200-sxm"
  std::string device_name;  // as the runtime reports it
  std::string arch_target;  // "sm_90", "gfx942"
  std::string date;         // ISO 8601 date of the run
  std::string source_name;  // file the record came from
  bool dry_run = false;     // host backend: never used to calibrate
  // Best achieved figures (decimal units); empty when not measured.
  std::optional<double> hbm_copy_bytes_per_s;
  std::optional<double> hbm_triad_bytes_per_s;
  std::optional<double> hbm_dot_bytes_per_s;
  PerPrecision<std::optional<double>> matmul_best_flops_per_s{};
  PerPrecision<std::optional<double>> matmul_median_flops_per_s{};
  std::optional<double> p2p_unidirectional_bytes_per_s;
  std::optional<double> p2p_bidirectional_bytes_per_s;
};

/** Parses and validates one record; errors name `source_name` and the field. */
Result<CalibrationRecord> parse_calibration_record(std::string_view json_text,
                                                   std::string_view source_name);

}  // namespace gpucalc
