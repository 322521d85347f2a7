#pragma once
// Internal: JSON parsing for every JSON input of the core (catalog files, calibration records,
// config.json): no exceptions, and a key that appears twice in one object is an error naming
// its path (nlohmann keeps the last one silently, so "gpu_count": 1, "gpu_count": 1024 would
// pass as 1024).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gpucalc/result.hpp"

namespace gpucalc::detail {

/**
 * Parses `text` as one JSON document. Errors: kInvalidJson (field `source`) for text that is
 * not JSON; kInvalidCatalog (field "source: path.key", e.g. "x.json: offerings[1].gpu_count")
 * for a duplicate key.
 */
Result<nlohmann::json> parse_json_strict(std::string_view text, const std::string& source);

}  // namespace gpucalc::detail
