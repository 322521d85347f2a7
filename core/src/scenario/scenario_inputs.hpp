#pragma once
// Internal: the scenario schema's typed `inputs` echo, written into a result document, and the
// one writer of an error object ({code, field, message, params}).
#include "gpucalc/scenario.hpp"
#include "output/json_writer.hpp"

namespace gpucalc::detail {

/** {"key": value, ...} for every schema key, defaults applied (see scenario_inputs_json). */
void write_scenario_inputs(JsonWriter& w, const Scenario& scenario);

/** {"code", "field", "message", "params": {name: number}}: an error as the page and the CLI's
 *  JSON read it (error_to_json, the lenient decode's errors). */
void write_error(JsonWriter& w, const Error& e);

}  // namespace gpucalc::detail
