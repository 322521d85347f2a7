#pragma once
// Internal: the one rule for catalog ids (models, GPUs, offerings), shared by the catalog
// parser, the config.json import and the scenario codec.
#include <string_view>

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

}  // namespace gpucalc::detail
