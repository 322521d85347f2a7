#pragma once
// Internal: the scenario schema's typed `inputs` echo, written into a result document.
#include "gpucalc/scenario.hpp"
#include "json_writer.hpp"

namespace gpucalc::detail {

/** {"key": value, ...} for every schema key, defaults applied (see scenario_inputs_json). */
void write_scenario_inputs(JsonWriter& w, const Scenario& scenario);

}  // namespace gpucalc::detail
