#pragma once
// Internal: the one streaming JSON writer of the core (evaluation, what-fits table, listings,
// schema, errors), several times faster than building a DOM. Non-finite numbers are written as null.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "catalog/decimal.hpp"

namespace gpucalc::detail {

/** Inlines a writer helper at every call even at -Oz, where clang keeps one-line helpers such as
 *  room() and sep() as calls (the WASM module's core is built at -Oz: core/CMakeLists.txt). */
#if defined(__GNUC__) || defined(__clang__)
#define GPUCALC_JSON_INLINE inline __attribute__((always_inline))
#else
#define GPUCALC_JSON_INLINE inline
#endif

/** Writes `x` as a JSON number into `buf` (64 bytes) and returns the end: integers up to 1e15
 *  as integers, others in the shortest form that reads back to the same double; non-finite as
 *  null. std::to_chars(double) would do; Emscripten 3.1.6's libc++ deletes it, so the shortest
 *  round trip is nlohmann's Grisu2 (the one call into nlohmann::detail, here). */
inline char* format_number(char* buf, double x) {
  if (!std::isfinite(x)) {
    std::memcpy(buf, "null", 4);
    return buf + 4;
  }
  if (x == std::floor(x) && std::fabs(x) < 1e15) return format_integer(buf, static_cast<long long>(x));
  return nlohmann::detail::to_chars(buf, buf + 64, x);
}

/** Appends `x` as format_number() writes it. The CSV writer shares it. */
inline void append_number(std::string& out, double x) {
  char buf[64];
  out.append(buf, static_cast<std::size_t>(format_number(buf, x) - buf));
}

/** Streams JSON into one buffer written through a raw pointer: in the WASM module every
 *  std::string push_back or append is a call into libc++ (about a third of an evaluation's
 *  JSON time, measured with node --cpu-prof), so the writer grows the string itself. */
class JsonWriter {
 public:
  /** The text so far (the writer may go on writing after this). */
  std::string& str() {
    s_.resize(len_);
    cap_ = len_;
    return s_;
  }
  void reserve(std::size_t bytes) {
    if (bytes > cap_) grow_to(bytes);
  }

  JsonWriter& begin_object() { sep(); put('{'); first_ = true; return *this; }
  JsonWriter& end_object() { put('}'); first_ = false; return *this; }
  JsonWriter& begin_array() { sep(); put('['); first_ = true; return *this; }
  JsonWriter& end_array() { put(']'); first_ = false; return *this; }

  /** `,"k":` in one reservation (most of an evaluation's JSON is keys). */
  JsonWriter& key(std::string_view k) { return key_inline(k); }

  JsonWriter& null() { sep(); put("null", 4); return *this; }
  JsonWriter& value(bool b) {
    sep();
    if (b) put("true", 4);
    else put("false", 5);
    return *this;
  }
  JsonWriter& value(int x) { return value(static_cast<long long>(x)); }
  JsonWriter& value(long long x) {
    sep();
    char* p = room(24);
    len_ = static_cast<std::size_t>(format_integer(p, x) - data());
    return *this;
  }
  JsonWriter& value(std::string_view text) { sep(); quoted(text); return *this; }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::optional<double>& x) { return x ? value(*x) : null(); }
  JsonWriter& value(double x) { return value_inline(x); }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key_inline(k);
    if constexpr (std::is_same_v<T, double>) return value_inline(v);
    else return value(v);
  }

 private:
  /** `,"k":` in one reservation (most of an evaluation's JSON is keys). key() and value(double)
   *  are inlined into field(): one call per field, not five. */
  GPUCALC_JSON_INLINE JsonWriter& key_inline(std::string_view k) {
    char* p = room(k.size() * 6 + 4);
    if (after_key_) {
      after_key_ = false;
    } else if (!first_) {
      *p++ = ',';
    }
    first_ = false;
    p = write_quoted(p, k);
    *p++ = ':';
    len_ = static_cast<std::size_t>(p - buf_);
    after_key_ = true;
    return *this;
  }

  GPUCALC_JSON_INLINE JsonWriter& value_inline(double x) {
    sep();
    char* p = room(64);
    len_ = static_cast<std::size_t>(format_number(p, x) - data());
    return *this;
  }
  GPUCALC_JSON_INLINE char* data() { return buf_; }
  void grow_to(std::size_t bytes) {
    s_.resize(bytes);
    buf_ = &s_[0];
    cap_ = bytes;
  }
  /** At least `n` writable bytes at data() + len_; returns that pointer. */
  GPUCALC_JSON_INLINE char* room(std::size_t n) {
    if (len_ + n > cap_) grow_to(std::max<std::size_t>(2 * cap_, len_ + n + 256));
    return buf_ + len_;
  }
  GPUCALC_JSON_INLINE void put(char c) {
    *room(1) = c;
    ++len_;
  }
  GPUCALC_JSON_INLINE void put(const char* p, std::size_t n) {
    std::memcpy(room(n), p, n);
    len_ += n;
  }

  GPUCALC_JSON_INLINE void sep() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) put(',');
    first_ = false;
  }

  /** True when none of the eight bytes in `x` needs an escape: all in 0x20..0x7F and none is '"'
   *  or '\\'. The tests of a byte below n or equal to zero are exact (no false answer either way)
   *  once bytes of 0x80 and above are ruled out. */
  static bool plain8(std::uint64_t x) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    const auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
    return ((x & kHigh) | ((x - 0x20 * kOnes) & ~x & kHigh) | has_zero(x ^ ('"' * kOnes)) |
            has_zero(x ^ ('\\' * kOnes))) == 0;
  }

  /** Length of the well-formed UTF-8 sequence starting at s (lead byte >= 0x80, s < end), or 0. */
  static std::size_t utf8_length(const char* s, const char* end) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char u = at(0);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (u >= 0xC2 && u <= 0xDF) n = 2;
    else if (u >= 0xE0 && u <= 0xEF) n = 3, lo = u == 0xE0 ? 0xA0 : 0x80, hi = u == 0xED ? 0x9F : 0xBF;
    else if (u >= 0xF0 && u <= 0xF4) n = 4, lo = u == 0xF0 ? 0x90 : 0x80, hi = u == 0xF4 ? 0x8F : 0xBF;
    if (n == 0 || n > static_cast<std::size_t>(end - s) || at(1) < lo || at(1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k) {
      if ((at(k) & 0xC0) != 0x80) return 0;
    }
    return n;
  }

  /** Writes `text` as a JSON string at p (room for 6 bytes per byte plus the quotes) and returns
   *  the end; bytes that are not UTF-8 (an error may quote the user's input) become U+FFFD, so
   *  the text is always valid JSON. Raw pointers, no string_view calls (the module once did
   *  not inline those: node --cpu-prof). Eight bytes at a time while they need no escape (keys
   *  and ids, most of the text): a tenth of the module's page call went to this loop a byte at a
   *  time. */
  static char* write_quoted(char* p, std::string_view text) {
    const char* s = text.data();
    const char* const end = s + text.size();
    *p++ = '"';
    while (s < end) {
      if (end - s >= 8) {
        std::uint64_t x;
        std::memcpy(&x, s, 8);
        if (plain8(x)) {
          std::memcpy(p, s, 8);
          p += 8;
          s += 8;
          continue;
        }
      }
      const auto u = static_cast<unsigned char>(*s);
      if (u >= 0x20 && u < 0x80 && u != '"' && u != '\\') {
        *p++ = *s++;
      } else if (u >= 0x80) {
        const std::size_t n = utf8_length(s, end);
        if (n == 0) {
          std::memcpy(p, "\xEF\xBF\xBD", 3);
          p += 3;
          ++s;
        } else {
          std::memcpy(p, s, n);
          p += n;
          s += n;
        }
      } else if (u >= 0x20) {
        *p++ = '\\';
        *p++ = *s++;
      } else {
        static const char kHex[] = "0123456789abcdef";
        std::memcpy(p, "\\u00", 4);
        p[4] = kHex[u >> 4];
        p[5] = kHex[u & 15];
        p += 6;
        ++s;
      }
    }
    *p++ = '"';
    return p;
  }

  void quoted(std::string_view text) {
    char* p = room(text.size() * 6 + 2);
    len_ = static_cast<std::size_t>(write_quoted(p, text) - buf_);
  }

  std::string s_;
  char* buf_ = nullptr;
  std::size_t len_ = 0, cap_ = 0;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace gpucalc::detail
