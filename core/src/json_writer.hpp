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

/** Appends `x` as a JSON number: integers up to 1e15 as integers, others in the shortest form
 *  that reads back to the same double; non-finite as null. The CSV writer shares it. */
inline void append_number(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
  } else if (x == std::floor(x) && std::fabs(x) < 1e15) {
    out += std::to_string(static_cast<long long>(x));
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
  JsonWriter& value(long long x) { sep(); s_ += std::to_string(x); return *this; }
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
    for (char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        s_ += '\\';
        s_ += c;
      } else if (u < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        s_ += buf;
      } else {
        s_ += c;
      }
    }
    s_ += '"';
  }

  std::string s_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace gpucalc::detail
