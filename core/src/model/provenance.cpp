#include "provenance.hpp"

namespace gpucalc {

const char* rates_source_name(RatesSource source) {
  switch (source) {
    case RatesSource::kPeak:
      return "peak";
    case RatesSource::kMeasured:
      return "measured";
    case RatesSource::kCalibrated:
      return "calibrated";
    case RatesSource::kOverride:
      return "override";
    case RatesSource::kCalibratedServing:
      return "calibrated_serving";
  }
  return "peak";
}

namespace detail {

void set_rates_provenance(OfferingResult& r, const Rates& rates, const Catalog& catalog,
                          const Gpu& gpu) {
  r.rates_source = rates.overridden   ? RatesSource::kOverride
                   : rates.calibrated ? RatesSource::kCalibrated
                   : rates.measured   ? RatesSource::kMeasured
                                      : RatesSource::kPeak;
  r.rates_estimate = rates.estimate;
  r.calibration_device.clear();
  r.calibration_date.clear();
  if (rates.calibrated) {
    if (const CalibrationRecord* cal = catalog.find_calibration(gpu.id)) {
      r.calibration_device = cal->device_name;
      r.calibration_date = cal->date;
    }
  }
}

}  // namespace detail
}  // namespace gpucalc
