// Fuzz user offerings: a catalog document (offerings, and GPUs they may name) extends the
// built-in catalog, then each new offering is compared with a built-in one for inference and
// LoRA, with prices from the input; the output invariants are asserted.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto part = gpucalc::parse_catalog_json(text, "offers.json");
  if (!part) return 0;
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "offers.json");
  if (!c) return 0;
  std::size_t evaluated = 0;
  for (const auto& o : part.value().offerings) {
    if (++evaluated > 3) break;
    gpucalc::Scenario s;
    s.compare = {o.id, "fullgpu-8x-h200"};
    gpucalc::fuzz::evaluate_and_check(c.value(), s);
    s.model = "deepseek-v3";
    s.users = 64;
    gpucalc::fuzz::evaluate_and_check(c.value(), s);
    s.model = "llama-3.1-8b";
    s.workload = gpucalc::Workload::kLora;
    gpucalc::fuzz::evaluate_and_check(c.value(), s);
  }
  return 0;
}
