// Fuzz the Hugging Face config.json import, then evaluate the imported model.
#include <cstdint>
#include <string>

#include "gpucalc/evaluate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto m = gpucalc::import_hf_config(text, "fuzzed");
  if (!m) return 0;
  gpucalc::Catalog c = gpucalc::default_catalog();
  c.models.push_back(m.value());
  gpucalc::Scenario s;
  s.model = "fuzzed";
  auto ev = gpucalc::evaluate(c, s, false);
  if (ev) (void)gpucalc::evaluation_to_json(ev.value(), false);
  return 0;
}
