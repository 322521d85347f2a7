#pragma once
// Internal: a small streaming JSON writer for the hot output paths (evaluation and what-fits
// table), several times faster than building a DOM. Non-finite numbers are written as null.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gpucalc::detail {

/** Appends the decimal digits of `x` (std::to_string goes through printf in Emscripten's libc,
 *  about ten times slower than this in the WASM module). */
inline void append_integer(std::string& out, long long x) {
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  unsigned long long u = x < 0 ? 0ULL - static_cast<unsigned long long>(x) : static_cast<unsigned long long>(x);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (x < 0) *--p = '-';
  out.append(p, static_cast<std::size_t>(end - p));
}

/** Appends `x` as a JSON number: integers up to 1e15 as integers, others in the shortest form
 *  that reads back to the same double; non-finite as null. The CSV writer shares it. */
inline void append_number(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
  } else if (x == std::floor(x) && std::fabs(x) < 1e15) {
    append_integer(out, static_cast<long long>(x));
  } else {
    char buf[64];
    char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, x);  // shortest round trip
    out.append(buf, static_cast<std::size_t>(end - buf));
  }
}

class JsonWriter {
 public:
  std::string& str() { return s_; }

  JsonWriter& begin_object() { sep(); s_ += '{'; first_ = true; return *this; }
  JsonWriter& end_object() { s_ += '}'; first_ = false; return *this; }
  JsonWriter& begin_array() { sep(); s_ += '['; first_ = true; return *this; }
  JsonWriter& end_array() { s_ += ']'; first_ = false; return *this; }

  JsonWriter& key(std::string_view k) {
    sep();
    quoted(k);
    s_ += ':';
    after_key_ = true;
    return *this;
  }

  JsonWriter& null() { sep(); s_ += "null"; return *this; }
  JsonWriter& value(bool b) { sep(); s_ += b ? "true" : "false"; return *this; }
  JsonWriter& value(int x) { return value(static_cast<long long>(x)); }
  JsonWriter& value(long long x) { sep(); append_integer(s_, x); return *this; }
  JsonWriter& value(std::string_view text) { sep(); quoted(text); return *this; }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::optional<double>& x) { return x ? value(*x) : null(); }
  JsonWriter& value(double x) {
    sep();
    append_number(s_, x);
    return *this;
  }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

 private:
  void sep() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) s_ += ',';
    first_ = false;
  }

  void quoted(std::string_view text) {
    s_ += '"';
    std::size_t run = 0;  // start of the characters not yet copied: copied in bulk
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      const auto u = static_cast<unsigned char>(c);
      if (c != '"' && c != '\\' && u >= 0x20) continue;
      s_.append(text.data() + run, i - run);
      run = i + 1;
      if (u >= 0x20) {
        s_ += '\\';
        s_ += c;
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        s_ += buf;
      }
    }
    s_.append(text.data() + run, text.size() - run);
    s_ += '"';
  }

  std::string s_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace gpucalc::detail
