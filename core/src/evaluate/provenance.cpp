#include "evaluate/provenance.hpp"

#include <algorithm>

#include "gpucalc/serving_calibration.hpp"

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
    case RatesSource::kSupplied:
      return "supplied";
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

void set_supplied_provenance(OfferingResult& r, const Catalog& catalog, const Model& model,
                             const Gpu& gpu, const Network* network) {
  std::string names;
  for (const std::string* name :
       {&gpu.supplied_by, &model.supplied_by, network != nullptr ? &network->supplied_by : nullptr,
        &catalog.supplied.constants, &catalog.supplied.engines, &catalog.supplied.kernels}) {
    if (name == nullptr || name->empty()) continue;
    if (("," + names + ",").find("," + *name + ",") != std::string::npos) continue;
    names += names.empty() ? *name : ", " + *name;
  }
  // A serving calibration's supplier is named too; its results stay calibrated_serving.
  const bool calibrated = r.rates_source == RatesSource::kCalibratedServing;
  if (calibrated) {
    // The latest document of that id, as find_serving_calibration picks the latest.
    const auto& cals = catalog.serving_calibrations;
    const auto it = std::find_if(cals.rbegin(), cals.rend(),
                                 [&](const auto& cal) { return cal->id == r.calibration_device; });
    const std::string by = it != cals.rend() ? (*it)->supplied_by : std::string();
    if (!by.empty() && ("," + names + ",").find("," + by + ",") == std::string::npos) {
      names += names.empty() ? by : ", " + by;
    }
  }
  r.supplied_by = names;
  if (!names.empty() && !calibrated) r.rates_source = RatesSource::kSupplied;
  r.error_bands_supplied_by = catalog.supplied.error_bands;
}

}  // namespace detail
}  // namespace gpucalc
