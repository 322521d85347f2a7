// Fuzz the scenario codec and a full evaluation: no crash, no sanitizer report, and every
// accepted scenario round-trips through its canonical string.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gpucalc/evaluate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto s = gpucalc::decode_scenario(text);
  if (!s) return 0;
  const std::string canonical = gpucalc::encode_scenario(s.value());
  auto again = gpucalc::decode_scenario(canonical);
  if (!again || gpucalc::encode_scenario(again.value()) != canonical) std::abort();
  auto ev = gpucalc::evaluate(gpucalc::default_catalog(), s.value(), true);
  if (ev) {
    const std::string json = gpucalc::evaluation_to_json(ev.value(), true);
    // Non-finite numbers must come out as null, never as a NaN or inf token.
    if (json.find("NaN") != std::string::npos || json.find(":inf") != std::string::npos ||
        json.find(":-inf") != std::string::npos) {
      std::abort();
    }
  }
  return 0;
}
