#pragma once
/** Codes for each trace entry of a result: which formula it is and which notes it carries, so a
 *  reader (the page, in its own language) words them without reading the CLI's English prose. */
#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/scenario.hpp"

namespace gpucalc {

/** Sets formula_id and note_id on every entry of r.trace: the field's own name where the field
 *  has one formula, a variant name where it has several (the roofline's, the engine's KV pool's,
 *  each attention kind's), and the note's parts joined by '+'. */
void set_trace_codes(const Model& m, const Gpu& gpu, const Scenario& s, OfferingResult& r);

}  // namespace gpucalc
