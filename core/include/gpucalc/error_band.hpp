#pragma once
/** The error band of a predicted figure: one entry of the error-bands document
 *  (data/error-bands.json, error_bands.hpp), shared by the catalog that holds it and every
 *  result that carries it. */
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpucalc {

/** Validation error of the nearest measured group for one metric (serving table), out of
 *  sample: the errors of its rows when the leave-one-group-out folds predicted them. */
struct ErrorBand {
  std::string metric;  // "interactivity" | "throughput_per_gpu" | "ttft"
  double mape = 0.0;   // fraction: mean out-of-sample |relative error|
  int points = 0;      // unseen points the percentiles rest on
  std::string group;   // e.g. "nvidia fp8 1-8 users"
  double p50 = 0.0, p80 = 0.0;  // fractions: percentiles of the out-of-sample |relative error|
  std::string basis;   // which folds, and the widening applied for extrapolation
  // The statistic the measured rows gave and the band was measured on (ttft only, "" for the
  // others): "median" | "mean" | "median+mean" (some rows published only the mean: basis counts them).
  std::string statistic;
  // Extrapolation (the band is widened by the factor data/error-bands.json "widening" gives):
  bool model_unmeasured = false;       // no measured point for the model or its architecture
  bool users_beyond_measured = false;  // users per instance above the measured range
  bool engine_unmeasured = false;      // the engine never measured on this vendor
  bool gpu_unmeasured = false;         // the GPU never measured
  // Not an extrapolation: a disaggregated layout's figure, whose band is widened by how far the
  // held-out disaggregated runs erred (validation-disagg.json's folds).
  bool disaggregated = false;
};

/** A read-only list of error bands shared with the catalog's error-band table that holds it
 *  (core/src/validation/error_bands.cpp), so a result carries its band without copying it and the band
 *  stays valid after the catalog is gone. Reads like a const std::vector<ErrorBand>. */
class ErrorBandList {
 public:
  ErrorBandList() = default;
  explicit ErrorBandList(std::shared_ptr<const std::vector<ErrorBand>> bands)
      : bands_(std::move(bands)) {}
  const std::vector<ErrorBand>& items() const { return bands_ ? *bands_ : no_bands(); }
  operator const std::vector<ErrorBand>&() const { return items(); }  // NOLINT: a view by design
  std::size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const ErrorBand& operator[](std::size_t i) const { return items()[i]; }
  std::vector<ErrorBand>::const_iterator begin() const { return items().begin(); }
  std::vector<ErrorBand>::const_iterator end() const { return items().end(); }

 private:
  static const std::vector<ErrorBand>& no_bands() {
    static const std::vector<ErrorBand> kNone;
    return kNone;
  }
  std::shared_ptr<const std::vector<ErrorBand>> bands_;
};

}  // namespace gpucalc
