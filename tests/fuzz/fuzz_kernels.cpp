// Fuzz kernel measurements (data/kernels.json): GEMM floor, all-reduce and all-to-all curves: the document replaces the built-in one, then one scenario is evaluated with
// the output invariants asserted (fuzz_support.hpp). Seeded with the built-in document (Makefile).
#include <cstdint>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpucalc::fuzz::extend_and_evaluate(data, size, "kernels.json");
  return 0;
}
