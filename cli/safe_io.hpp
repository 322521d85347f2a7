#pragma once
// The CLI's input and terminal boundary (issue 13): reads that stop at the documented limit, and
// text from catalogs, configs and arguments made safe to print (no terminal escape sequences,
// no line stopping at a NUL).
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

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

/**
 * `text` with every control character escaped: C0 (including NUL, ESC, CR, LF, TAB), DEL and
 * the C1 range U+0080..U+009F (CSI U+009B starts an escape sequence on some terminals) become
 * \xNN or \u00NN. Other bytes, UTF-8 included, pass unchanged.
 */
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += buf;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace gpucalc::cli
