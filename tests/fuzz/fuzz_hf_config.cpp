// Fuzz the Hugging Face config.json import, then evaluate the imported model (inference and
// LoRA) with the output invariants asserted.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto m = gpucalc::import_hf_config(text, "fuzzed");
  if (!m) return 0;
  gpucalc::Catalog c = gpucalc::default_catalog();
  c.models.push_back(m.value());
  gpucalc::Scenario s;
  s.model = "fuzzed";
  gpucalc::fuzz::evaluate_and_check(c, s);
  s.workload = gpucalc::Workload::kLora;
  gpucalc::fuzz::evaluate_and_check(c, s);
  return 0;
}
