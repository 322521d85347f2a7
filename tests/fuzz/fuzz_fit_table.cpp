// Fuzz the "what fits" table: a scenario string picks the compared offerings, KV format,
// context, users, capacity basis and reserve; every model x weight format x offering cell must
// be non-negative and finite (or the table an error naming the cell).
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto s = gpucalc::decode_scenario(text);
  if (!s) return 0;
  auto table = gpucalc::fit_table_json(gpucalc::default_catalog(), s.value());
  if (!table) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(table.error()), false);
    return 0;
  }
  const auto j = gpucalc::fuzz::check_json_text(table.value(), true);
  for (const auto& row : j["rows"]) {
    for (const auto& cell : row["cells"]) {
      if (!cell["gpus_needed_weights_only"].is_number_integer()) {
        gpucalc::fuzz::violated("fit table: gpus_needed_weights_only is not a count");
      }
    }
  }
  return 0;
}
