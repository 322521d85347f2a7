#pragma once
// Internal: the one rule for catalog ids (models, GPUs, offerings), shared by the catalog
// parser, the config.json import and the scenario codec.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc::detail {

/** True when `id` is 1..64 chars of [a-z0-9._-]. */
inline bool is_valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

/** True when `a` and `b` are the same text: the lengths first, then the bytes. For loops that
 *  match ids many times per evaluation (string and string_view comparison is a chain of calls
 *  into libc++ in the WASM module). */
inline bool same_id(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

/** True when `name` may name a model beside its id: a catalog id, or a Hugging Face repo id
 *  "org/name" (1..96 chars of [A-Za-z0-9._-] with one '/' inside). */
inline bool is_valid_model_alias(std::string_view name) {
  if (is_valid_id(name)) return true;
  if (name.empty() || name.size() > 96) return false;
  const std::size_t slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_' || (c == '/' && i == slash);
    if (!ok) return false;
  }
  return true;
}

/** "a, b or c": the accepted names of a key in words. */
inline std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace gpucalc::detail
