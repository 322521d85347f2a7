#pragma once
/** Throughput, training and cost per completed workload. */
#include "gpucalc/evaluate.hpp"

namespace gpucalc {

struct EngineProfile;  // serving.hpp

/** Fills the performance fields of `result` (already holding fit and price) for `offering`
 *  deployed on `deployed_gpus` GPUs (its units times the servers; the offering itself is not
 *  copied). `with_curve`: also the curve, max_throughput within the latency targets and the
 *  interactivity point. */
void estimate_performance(const Catalog& catalog, const Scenario& scenario, const Model& model,
                          const Gpu& gpu, const Offering& offering, int deployed_gpus,
                          bool with_trace, bool with_curve, OfferingResult& result);
/** The same with the serving engine already selected for this GPU and model (inference;
 *  nullptr: selected here). */
void estimate_performance(const Catalog& catalog, const Scenario& scenario, const Model& model,
                          const Gpu& gpu, const Offering& offering, int deployed_gpus,
                          bool with_trace, bool with_curve, const EngineProfile* engine,
                          OfferingResult& result);

}  // namespace gpucalc
