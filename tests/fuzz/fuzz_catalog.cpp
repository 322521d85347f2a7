// Fuzz the catalog parser (and a calibration record, which it dispatches to), then evaluate the
// default scenario against whatever catalog came out.
#include <cstdint>
#include <string>

#include "gpucalc/evaluate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "fuzz.json");
  if (!c) return 0;
  for (const auto& m : c.value().models) {
    gpucalc::Scenario s;
    s.model = m.id;
    auto ev = gpucalc::evaluate(c.value(), s, false);
    if (ev) (void)gpucalc::evaluation_to_json(ev.value(), false);
  }
  return 0;
}
