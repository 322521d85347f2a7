#pragma once
// Internal: integers as decimal text, for every stage (the JSON writer, the scenario codec, the
// serving model's layout codes). std::to_string goes through printf in Emscripten's libc, about
// ten times slower than this in the WASM module.
#include <cstdint>
#include <cstring>
#include <string>

namespace gpucalc::detail {

/** Writes the decimal digits of `x` into `buf` (24 bytes) and returns the end. */
inline char* format_integer(char* buf, long long x) {
  char tmp[24];
  char* end = tmp + sizeof tmp;
  char* p = end;
  unsigned long long u = x < 0 ? 0ULL - static_cast<unsigned long long>(x) : static_cast<unsigned long long>(x);
  while (u > 0xFFFFFFFFULL) {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  }
  // The last 32 bits in 32-bit arithmetic: WebAssembly has no 64-bit multiply-high, so a 64-bit
  // division by 10 stays a division in the module, a 32-bit one becomes a multiply.
  auto v = static_cast<std::uint32_t>(u);
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (x < 0) *--p = '-';
  const auto n = static_cast<std::size_t>(end - p);
  std::memcpy(buf, p, n);
  return buf + n;
}

inline void append_integer(std::string& out, long long x) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(format_integer(buf, x) - buf));
}

}  // namespace gpucalc::detail
