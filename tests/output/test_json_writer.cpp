// The core's JSON writer (core/src/output/json_writer.hpp): integers and numbers as text.
#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <string>

#include "output/json_writer.hpp"

using gpucalc::detail::append_integer;
using gpucalc::detail::append_number;

TEST_CASE("format_integer writes every magnitude as std::to_string does") {
  const long long values[] = {0,          1,          9,          10,         -1,
                              -10,        99,         100,        4294967295LL, 4294967296LL,
                              4294967297LL, -4294967295LL, -4294967296LL, 42949672950LL,
                              999999999999999LL, 1000000000000000LL, LLONG_MAX, LLONG_MIN,
                              LLONG_MIN + 1, 2147483647LL, -2147483648LL, 18446744073LL};
  for (const long long v : values) {
    CAPTURE(v);
    std::string out;
    append_integer(out, v);
    CHECK(out == std::to_string(v));
  }
  for (long long v = 1; v > 0 && v < LLONG_MAX / 3; v = v * 3 + 1) {  // every digit count
    std::string out;
    append_integer(out, v);
    CHECK(out == std::to_string(v));
  }
}

TEST_CASE("format_number: whole numbers below 1e15 as integers, others the shortest round trip") {
  const std::pair<double, const char*> cases[] = {
      {0.0, "0"}, {4294967296.0, "4294967296"}, {-4294967297.0, "-4294967297"},
      {999999999999999.0, "999999999999999"}, {0.5, "0.5"}, {1e15, "1e+15"}, {0.1, "0.1"}};
  for (const auto& c : cases) {
    CAPTURE(c.first);
    std::string out;
    append_number(out, c.first);
    CHECK(out == c.second);
  }
}
