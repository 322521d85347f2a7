#pragma once
// Internal: copies the provenance of the rates into a result as codes.
#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/throughput.hpp"

namespace gpucalc::detail {

/** rates_source (override > calibrated > measured > peak), rates_estimate and, when
 *  calibrated, the record's device and date. */
void set_rates_provenance(OfferingResult& r, const Rates& rates, const Catalog& catalog,
                          const Gpu& gpu);

/** supplied_by: the loaded documents that replaced figures of the result's GPU, model,
 *  network, model constants, engines or kernels (rates_source becomes "supplied"), and
 *  error_bands_supplied_by. */
void set_supplied_provenance(OfferingResult& r, const Catalog& catalog, const Model& model,
                             const Gpu& gpu, const Network* network);

}  // namespace gpucalc::detail
