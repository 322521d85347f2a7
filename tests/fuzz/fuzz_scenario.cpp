// Fuzz the scenario codec and a full evaluation: no crash, no sanitizer report, every accepted
// scenario round-trips through its canonical string, and the output invariants hold.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto s = gpucalc::decode_scenario(text);
  if (!s) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(s.error()), false);
    return 0;
  }
  const std::string canonical = gpucalc::encode_scenario(s.value());
  auto again = gpucalc::decode_scenario(canonical);
  if (!again || gpucalc::encode_scenario(again.value()) != canonical) {
    gpucalc::fuzz::violated("canonical string does not round-trip: " + canonical);
  }
  gpucalc::fuzz::evaluate_and_check(gpucalc::default_catalog(), s.value());
  return 0;
}
