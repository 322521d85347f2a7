// Fuzz the catalog listings: a catalog document extends the built-in catalog, then every
// listing (gpus, models, offerings, and the fuzzed name in the first line) is well-formed JSON
// with finite, non-negative numbers and escaped strings. The built-in entries are listed once
// (they are the same on every run); each accepted document's own entries are listed on every run,
// by the same listing code, from a catalog that holds only them (and, for offerings, every GPU
// and network they may name).
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_support.hpp"

namespace {

void check_listings(const gpucalc::Catalog& catalog,
                    std::initializer_list<const char*> kinds = {"gpus", "models", "offerings"}) {
  for (const char* w : kinds) {
    auto listed = gpucalc::catalog_to_json(catalog, w);
    if (!listed) gpucalc::fuzz::violated(std::string("listing ") + w + " failed");
    gpucalc::fuzz::check_json_stream(listed.value(), true, true);
  }
}

template <class T>
void keep_only(std::vector<T>& entries, const std::set<std::string>& ids) {
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const T& e) { return ids.count(e.id) == 0; }),
                entries.end());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool built_in_checked = (check_listings(gpucalc::default_catalog()), true);
  (void)built_in_checked;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string what = text.substr(0, std::min<std::size_t>(text.find('\n'), 16));
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "list.json");
  const gpucalc::Catalog& catalog = c ? c.value() : gpucalc::default_catalog();
  auto other = gpucalc::catalog_to_json(catalog, what);
  gpucalc::fuzz::check_json_stream(other ? other.value() : gpucalc::error_to_json(other.error()),
                                   true, true);
  if (!c) return 0;
  // The document's own entries (new or replacing a built-in one).
  auto part = gpucalc::parse_catalog_json(text, "list.json");
  if (!part) return 0;
  std::set<std::string> gpu_ids, model_ids, offering_ids;
  for (const auto& g : part.value().gpus) gpu_ids.insert(g.id);
  for (const auto& m : part.value().models) model_ids.insert(m.id);
  for (const auto& o : part.value().offerings) offering_ids.insert(o.id);
  gpucalc::Catalog& own = c.value();
  keep_only(own.offerings, offering_ids);
  keep_only(own.models, model_ids);
  check_listings(own, {"offerings", "models"});
  keep_only(own.gpus, gpu_ids);
  check_listings(own, {"gpus"});
  return 0;
}
