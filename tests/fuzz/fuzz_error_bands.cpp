// Fuzz error bands and the validation summary (data/error-bands.json): the document replaces the built-in one, then one scenario is evaluated with
// the output invariants asserted (fuzz_support.hpp). Seeded with the built-in document (Makefile).
#include <cstdint>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpucalc::fuzz::extend_and_evaluate(data, size, "error-bands.json");
  return 0;
}
