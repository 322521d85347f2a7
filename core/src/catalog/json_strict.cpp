#include "catalog/json_strict.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace gpucalc::detail {

Result<JsonValue> parse_json_strict(std::string_view text, const std::string& source) {
  JsonParse parsed = read_json(text);
  if (!parsed.ok) return make_error(ErrorCode::kInvalidJson, source, "is not valid JSON");
  if (!parsed.duplicate.empty()) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": " + parsed.duplicate,
                      "appears twice in one object (each key once)");
  }
  return std::move(parsed.value);
}

void embedded_data_invalid(std::string_view file, const Error& error) {
  std::fprintf(stderr, "gpucalc: built-in data/%.*s is invalid: %s\n", static_cast<int>(file.size()),
               file.data(), error.to_string().c_str());
  std::abort();
}

}  // namespace gpucalc::detail
