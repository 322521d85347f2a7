#pragma once
// Internal: JSON parsing for every JSON input of the core (catalog files, calibration records,
// config.json): no exceptions, and a key that appears twice in one object is an error naming
// its path (nlohmann keeps the last one silently, so "gpu_count": 1, "gpu_count": 1024 would
// pass as 1024).
#include <string>
#include <string_view>
#include <type_traits>

#include "catalog/json_value.hpp"
#include "gpucalc/catalog.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc::detail {

/**
 * Parses `text` as one JSON document. Errors: kInvalidJson (field `source`) for text that is
 * not JSON; kInvalidCatalog (field "source: path.key", e.g. "x.json: offerings[1].gpu_count")
 * for a duplicate key.
 */
Result<JsonValue> parse_json_strict(std::string_view text, const std::string& source);

/** A compiled-in data document that is missing or does not parse is a broken build: this
 *  prints "gpucalc: built-in data/<file> is invalid: <error>" to stderr and aborts, so no
 *  figure is ever computed from an empty default. */
[[noreturn]] void embedded_data_invalid(std::string_view file, const Error& error);

/** The compiled-in document `file` read by `parse` (text -> Result<T>); aborts as above when it
 *  is missing or invalid. */
template <class Parse>
auto parse_embedded(std::string_view file, Parse parse) -> std::decay_t<decltype(parse(std::string_view()).value())> {
  for (const auto& f : embedded_data_files()) {
    if (std::string_view(f.name) != file) continue;
    auto r = parse(std::string_view(f.text));
    if (!r) embedded_data_invalid(file, r.error());
    return std::move(r).value();
  }
  embedded_data_invalid(file, Error{ErrorCode::kInvalidCatalog, std::string(file), "is not compiled in", {}});
}

}  // namespace gpucalc::detail
