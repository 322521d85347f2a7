// Text made safe to show (gpucalc/text.hpp).
#include "gpucalc/text.hpp"

#include <cstdio>

namespace gpucalc {

namespace {

/** Format characters (Unicode 15, general category Cf) and the two separators, as ranges. */
constexpr char32_t kFormatRanges[][2] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},
    {0x200B, 0x200F},   {0x2028, 0x202E},   {0x2060, 0x2064},   {0x2066, 0x206F},
    {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F},
};

void append_escape(std::string& out, const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

/** Length of the UTF-8 sequence at `s[i]` and its code point; 0 when it is not valid UTF-8. */
std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  char32_t min = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

/** escape_for_display; with `keep_line_breaks`, CR, LF and TAB pass (a quoted CSV cell holds them). */
std::string escape(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = decode_utf8(text, i, cp);
    if (n == 0) {  // not UTF-8: the byte, escaped
      append_escape(out, "\\x%02x", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (keep_line_breaks && (cp == '\r' || cp == '\n' || cp == '\t')) {
      out += static_cast<char>(cp);
    } else if (cp < 0x20 || cp == 0x7F) {
      append_escape(out, "\\x%02x", static_cast<unsigned>(cp));
    } else if (cp >= 0x80 && cp <= 0x9F) {
      append_escape(out, "\\u%04x", static_cast<unsigned>(cp));
    } else if (is_invisible_format_char(cp)) {
      append_escape(out, cp > 0xFFFF ? "\\U%08x" : "\\u%04x", static_cast<unsigned>(cp));
    } else {
      out.append(text.data() + i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace

bool is_invisible_format_char(char32_t cp) {
  if (cp < kFormatRanges[0][0]) return false;  // the ranges are sorted; most text is below
  for (const auto& r : kFormatRanges) {
    if (cp >= r[0] && cp <= r[1]) return true;
  }
  return false;
}

std::string escape_for_display(std::string_view text) { return escape(text, false); }

void append_csv_cell(std::string& out, std::string_view text) {
  std::string value;
  if (!text.empty()) {
    const char c = text.front();
    if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') value += '\'';
  }
  value += escape(text, true);
  if (value.find_first_of(",\"\r\n") == std::string::npos) {
    out += value;
    return;
  }
  out += '"';
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace gpucalc
