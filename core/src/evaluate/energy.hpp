#pragma once
/** The energy fields of a result, from the model's energy formulas (model/energy.hpp). */
#include "gpucalc/evaluate.hpp"

namespace gpucalc {

/** Fills the energy fields of `result` (already holding throughput or training figures) from
 *  the GPU's all-in power, the deployed GPUs and the scenario's US$ per kWh. */
void estimate_energy(const Gpu& gpu, const Scenario& scenario, bool with_trace,
                     OfferingResult& result);

}  // namespace gpucalc
