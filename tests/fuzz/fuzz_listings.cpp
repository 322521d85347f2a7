// Fuzz the catalog listings: a catalog document extends the built-in catalog, then every
// listing (gpus, models, offerings, and the fuzzed name in the first line) is well-formed JSON
// with finite, non-negative numbers and escaped strings.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string what = text.substr(0, std::min<std::size_t>(text.find('\n'), 16));
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "list.json");
  const gpucalc::Catalog& catalog = c ? c.value() : gpucalc::default_catalog();
  for (const char* w : {"gpus", "models", "offerings"}) {
    auto listed = gpucalc::catalog_to_json(catalog, w);
    if (!listed) gpucalc::fuzz::violated(std::string("listing ") + w + " failed");
    gpucalc::fuzz::check_json_text(listed.value(), true);
  }
  auto other = gpucalc::catalog_to_json(catalog, what);
  gpucalc::fuzz::check_json_text(other ? other.value() : gpucalc::error_to_json(other.error()),
                                 true);
  return 0;
}
