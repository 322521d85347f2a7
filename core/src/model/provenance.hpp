#pragma once
// Internal: copies the provenance of the rates into a result as codes.
#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/throughput.hpp"

namespace gpucalc::detail {

/** rates_source (override > calibrated > measured > peak), rates_estimate and, when
 *  calibrated, the record's device and date. */
void set_rates_provenance(OfferingResult& r, const Rates& rates, const Catalog& catalog,
                          const Gpu& gpu);

}  // namespace gpucalc::detail
