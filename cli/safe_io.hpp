#pragma once
// The CLI's input and terminal boundary: reads that stop at the documented limit, and
// text from catalogs, configs and arguments made safe to print (no terminal escape sequences,
// no reversed line, no line stopping at a NUL, always UTF-8).
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "gpucalc/text.hpp"

namespace gpucalc::cli {

/**
 * Reads `in` to its end, or gives up as soon as it holds more than `limit_bytes` (so /dev/zero
 * or an endless pipe costs at most limit + one buffer, not memory until exhaustion).
 * Empty optional: over the limit. `read_error` is set when the stream failed (a folder, EIO).
 */
inline std::optional<std::string> read_bounded(std::FILE* in, std::size_t limit_bytes,
                                               bool& read_error) {
  std::string out;
  char buf[65536];
  read_error = false;
  while (true) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, in);
    if (n > 0) {
      if (out.size() + n > limit_bytes) return std::nullopt;
      out.append(buf, n);
    }
    if (n < sizeof buf) {
      read_error = std::ferror(in) != 0;
      return out;
    }
  }
}

/** `text` safe for the terminal: the core's escape_for_display (gpucalc/text.hpp): controls,
 *  format characters (bidi overrides, zero-width) and bytes that are not UTF-8 made visible. */
inline std::string printable(std::string_view text) { return escape_for_display(text); }

}  // namespace gpucalc::cli
