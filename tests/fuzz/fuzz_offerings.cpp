// Fuzz user offerings: a catalog document (offerings, and GPUs they may name) extends the
// built-in catalog, then each new offering (at most two) is compared with a built-in one for
// inference (dense or MoE) or LoRA, with prices from the input; the output invariants are asserted.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto part = gpucalc::parse_catalog_json(text, "offers.json");
  if (!part) return 0;
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "offers.json");
  if (!c) return 0;
  // One evaluation per new offering (at most two), the scenario picked by the input's length:
  // nine a run made this target the slowest (79 runs/s natively).
  std::size_t evaluated = 0;
  for (const auto& o : part.value().offerings) {
    if (++evaluated > 2) break;
    gpucalc::Scenario s;
    s.compare = {o.id, "fullgpu-8x-h200"};
    switch ((size + evaluated) % 3) {
      case 0: break;
      case 1:
        s.model = "deepseek-v3";
        s.users = 64;
        break;
      default:
        s.model = "llama-3.1-8b";
        s.workload = gpucalc::Workload::kLora;
    }
    gpucalc::fuzz::evaluate_and_check(c.value(), s);
  }
  return 0;
}
