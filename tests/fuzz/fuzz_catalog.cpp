// Fuzz the catalog parser (and a calibration record, which it dispatches to), then evaluate
// each model it brings (at most two), for inference or training, with the output invariants
// asserted.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "fuzz.json");
  if (!c) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(c.error()), false);
    return 0;
  }
  std::size_t evaluated = 0;
  for (const auto& m : c.value().models) {
    if (gpucalc::default_catalog().find_model(m.id) != nullptr) continue;  // only the new ones
    if (++evaluated > 2) break;
    gpucalc::Scenario s;
    s.model = m.id;
    // One evaluation per new model (at most two): inference or pretraining, by the input's length.
    if ((size + evaluated) % 2 == 0) s.workload = gpucalc::Workload::kPretrain;
    gpucalc::fuzz::evaluate_and_check(c.value(), s);
  }
  return 0;
}
