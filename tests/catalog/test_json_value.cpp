// The core's JSON reader (core/src/catalog/json_value.cpp) against nlohmann::json, which it
// replaced: on every data file, the hostile inputs (tests/fixtures/json-corpus, copied from
// the team's reference/hostile), the fixtures, hand-written edge cases of each grammar rule and
// a few thousand deterministic mutations of them, both accept exactly the same texts and hold the
// same values (kinds, numbers to the bit, strings, key order).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "catalog/json_strict.hpp"
#include "catalog/json_value.hpp"

namespace {

using gpucalc::detail::JsonValue;
using Kind = JsonValue::Kind;

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/** Every .json file under `dir` (relative to the source tree), sorted by path. */
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(GPUCALC_SOURCE_DIR) + "/" + dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const auto& p : paths) texts.push_back(read_bytes(p));
  return texts;
}

Kind kind_of(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Kind::kNull;
    case nlohmann::json::value_t::boolean: return Kind::kBool;
    case nlohmann::json::value_t::number_integer: return Kind::kInteger;
    case nlohmann::json::value_t::number_unsigned: return Kind::kUnsigned;
    case nlohmann::json::value_t::number_float: return Kind::kDouble;
    case nlohmann::json::value_t::string: return Kind::kString;
    case nlohmann::json::value_t::array: return Kind::kArray;
    case nlohmann::json::value_t::object: return Kind::kObject;
    default: return Kind::kNull;
  }
}

/** Empty when `mine` holds what `theirs` holds; otherwise where they first differ. Iterative, so
 *  a document nested 100,000 deep compares too. */
std::string difference(const JsonValue& mine, const nlohmann::json& theirs) {
  std::vector<std::pair<const JsonValue*, const nlohmann::json*>> todo{{&mine, &theirs}};
  while (!todo.empty()) {
    const auto [a, b] = todo.back();
    todo.pop_back();
    if (a->kind() != kind_of(*b)) return "kind differs at " + b->dump().substr(0, 80);
    switch (a->kind()) {
      case Kind::kBool:
        if (a->get<bool>() != b->get<bool>()) return "bool differs";
        break;
      case Kind::kInteger:
        if (a->get<long long>() != b->get<long long>()) return "integer differs";
        break;
      case Kind::kUnsigned:
        if (a->get<unsigned long long>() != b->get<unsigned long long>()) return "unsigned differs";
        break;
      case Kind::kDouble: {
        const double x = a->get<double>(), y = b->get<double>();
        if (std::memcmp(&x, &y, sizeof x) != 0) return "double differs: " + b->dump();
        break;
      }
      case Kind::kString:
        if (a->get<std::string>() != b->get<std::string>()) return "string differs: " + b->dump();
        break;
      case Kind::kArray:
      case Kind::kObject: {
        if (a->size() != b->size()) return "size differs";
        auto ia = a->begin();
        auto ib = b->begin();
        for (; ib != b->end(); ++ia, ++ib) {
          if (a->is_object() && ia.key() != ib.key()) return "key order differs: " + ib.key();
          todo.emplace_back(&*ia, &*ib);
        }
        break;
      }
      case Kind::kNull: break;
    }
  }
  return {};
}

/** Checks one text: the same verdict, the same value, and a text nlohmann accepts dumps the same. */
void check_same(const std::string& text) {
  const nlohmann::json theirs = nlohmann::json::parse(text, nullptr, false);
  const gpucalc::detail::JsonParse mine = gpucalc::detail::read_json(text);
  const std::string shown = text.size() > 120 ? text.substr(0, 120) + "..." : text;
  INFO("text: " << shown);
  REQUIRE(mine.ok == !theirs.is_discarded());
  if (!mine.ok) return;
  CHECK(difference(mine.value, theirs) == "");
  if (text.size() < 4096) CHECK(mine.value.dump() == theirs.dump());
}

/** The hand-written cases: one or more per rule of the grammar and of nlohmann's reading. */
const std::vector<std::string>& edge_cases() {
  static const std::vector<std::string> cases = {
      // documents and whitespace
      "", " ", "null", " null ", "\t\n\r null\t\n\r", "\f null", "\v1", "nul", "nulll", "true", "false", "True",
      "tru", "1 2", "[] []", "{}x", "\xEF\xBB\xBF{}", "\xEF\xBB{}", "\xEF{}", " \xEF\xBB\xBF{}", "\xEF\xBB\xBF",
      std::string("\0", 1), std::string("1\0", 2), std::string("1\0x", 3), std::string("[1,\0]", 5),
      std::string("[1]\0]", 5), std::string(" \0", 2), std::string("\"a\0\"", 4),
      // arrays and objects
      "[]", "[ ]", "[1,]", "[,1]", "[1 2]", "[1,,2]", "[", "]", "[[[]]]", "[[[]]", "{}", "{ }", "{\"a\":1,}",
      "{,\"a\":1}", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{'a':1}", "{\"a\":1 \"b\":2}", "{\"b\":1,\"a\":2,\"c\":3}",
      "{\"a\":1,\"a\":2}", "{\"\":0}", "{\"\\u00e9\":1,\"e\":2,\"z\":3,\"Z\":4,\"\xc3\xa9\":5}", "[{}, {\"x\": [null]}]",
      "{\"a\":{\"b\":{\"c\":[1,{\"d\":[]}]}}}", "{\"a\":1}}", "[1]]", "{\"a\":[}",
      // numbers
      "0", "-0", "-0.0", "0.0", "00", "01", "-01", "1.", ".5", "-.5", "+1", "1e", "1e+", "1e-", "1E5", "1e+05", "1e-05",
      "1.5e3", "-", "--1", "0x10", "1.0e", "2.", "3.14159", "1e400", "-1e400", "1e-400", "4.9e-324", "2.2250738585072014e-308",
      "1.7976931348623157e308", "1.7976931348623159e308", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
      "123456789012345678901234567890", "0.1", "100000000000000000000000.5", "[1e309]", "NaN", "Infinity", "-Infinity",
      "1.0", "5e0", "[-0, 0, -0.0]", "1_000",
      // strings and escapes
      "\"\"", "\"a\"", "\"a", "\"\\\"\"", "\"\\\\\"", "\"\\/\"", "\"\\b\\f\\n\\r\\t\"", "\"\\a\"", "\"\\x41\"",
      "\"\\u0041\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"\\u0000\"", "\"\\u001f\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\uD83D\\uDE00\"",
      "\"\\uD83D\"", "\"\\uD83Dx\"", "\"\\uD83D\\u0041\"", "\"\\uDE00\"", "\"\\uDBFF\\uDFFF\"", "\"\\uD800\\uDC00\"",
      "\"\\uFFFF\"", "\"\\\"", "\"\t\"", "\"\n\"", std::string("\"\x1f\""), "\"\x7f\"", "'a'",
      // UTF-8 in strings
      "\"\xc3\xa9\"", "\"\xc3\"", "\"\xc3x\"", "\"\xc0\x80\"", "\"\xc1\xbf\"", "\"\xc2\x80\"", "\"\xdf\xbf\"",
      "\"\xe0\x9f\xbf\"", "\"\xe0\xa0\x80\"", "\"\xed\x9f\xbf\"", "\"\xed\xa0\x80\"", "\"\xee\x80\x80\"", "\"\xef\xbf\xbf\"",
      "\"\xf0\x8f\xbf\xbf\"", "\"\xf0\x90\x80\x80\"", "\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"",
      "\"\xff\"", "\"\x80\"", "\"\xe2\x82\xac\"", "\"\xe2\x82\"", "\"\xf0\x9f\x98\x80\"", "\xc3\xa9",
  };
  return cases;
}

/** The seeds of the mutations and of the whole-text comparison. */
std::vector<std::string> corpus() {
  std::vector<std::string> texts = edge_cases();
  for (const char* dir : {"data", "tests/fixtures/json-corpus", "tests/fixtures/hf-configs", "tests/fixtures/calibration"}) {
    for (std::string& t : files_under(dir)) texts.push_back(std::move(t));
  }
  return texts;
}

/** A deterministic mutation of `seed` (xorshift state `s`): a byte changed, removed, inserted
 *  or repeated, or the text cut short. */
std::string mutate(const std::string& seed, std::uint64_t& s) {
  const auto next = [&s]() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  static const char kBytes[] = "{}[],:\"\\0123456789-+.eEtruefalsn \t\n\r\x01\x1f\x7f\x80\xbf\xc3\xed\xef\xf4\xff";
  std::string t = seed;
  const int edits = 1 + static_cast<int>(next() % 3);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = t.empty() ? 0 : next() % (t.size() + 1);
    const char byte = (next() % 4 == 0) ? static_cast<char>(next() & 0xFF) : kBytes[next() % (sizeof kBytes - 1)];
    switch (next() % 5) {
      case 0:
        if (at < t.size()) t[at] = byte;
        break;
      case 1:
        if (at < t.size()) t.erase(at, 1);
        break;
      case 2: t.insert(at, 1, byte); break;
      case 3: t.resize(at); break;
      default:
        if (at < t.size()) t.insert(at, t.substr(at, 1 + next() % 8));
        break;
    }
  }
  return t;
}

}  // namespace

TEST_CASE("json reader: accepts and reads exactly what nlohmann does on every data file and fixture") {
  const std::vector<std::string> texts = corpus();
  CHECK(texts.size() > edge_cases().size() + 20);
  for (const std::string& t : texts) check_same(t);
}

TEST_CASE("json reader: the same verdict and values as nlohmann on 4,000 mutations of the corpus") {
  std::vector<std::string> seeds;
  for (std::string& t : corpus()) {
    if (t.size() <= 16384) seeds.push_back(std::move(t));
  }
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  int accepted = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string t = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], state);
    check_same(t);
    accepted += nlohmann::json::parse(t, nullptr, false).is_discarded() ? 0 : 1;
  }
  // Both verdicts occur: the mutations reach the rejecting and the accepting paths.
  CHECK(accepted > 200);
  CHECK(accepted < 3800);
}

TEST_CASE("json reader: hostile nesting is read and freed without deep recursion") {
  const std::string open(100000, '['), close(100000, ']');
  check_same(open);
  check_same(open + close);
  check_same(open + "1" + close);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  check_same(objects + "1" + std::string(100000, '}'));
}

TEST_CASE("json reader: errors by name") {
  using gpucalc::detail::read_json;
  CHECK_FALSE(read_json("[1,]").ok);                  // trailing comma
  CHECK_FALSE(read_json("{\"a\":1,}").ok);            // trailing comma in an object
  CHECK_FALSE(read_json("01").ok);                    // leading zero
  CHECK_FALSE(read_json("\"a\x01\"").ok);             // control character in a string
  CHECK_FALSE(read_json("\"\xc0\xaf\"").ok);          // overlong UTF-8
  CHECK_FALSE(read_json("\"\xed\xa0\x80\"").ok);      // a surrogate in UTF-8
  CHECK_FALSE(read_json("\"\\uD800\"").ok);           // lone high surrogate escape
  CHECK_FALSE(read_json("\"\\uDC00\"").ok);           // lone low surrogate escape
  CHECK_FALSE(read_json("1e400").ok);                 // a double beyond range
  CHECK_FALSE(read_json("[] x").ok);                  // more than one value
  CHECK_FALSE(read_json("// c\n1").ok);               // no comments
  CHECK(read_json("\xEF\xBB\xBF 1").ok);              // a byte order mark first
  CHECK(read_json("1e-400").ok);                      // underflow reads as 0, as strtod gives it
  CHECK(read_json(std::string("[1]\0x", 5)).ok);     // a NUL byte ends the text, as nlohmann read it
  const auto big = read_json("[18446744073709551616, -9223372036854775809, 18446744073709551615, -1]");
  REQUIRE(big.ok);
  CHECK(big.value.at(std::size_t{0}).is_number_float());
  CHECK(big.value.at(std::size_t{1}).is_number_float());
  CHECK(big.value.at(std::size_t{2}).is_number_unsigned());
  CHECK(big.value.at(std::size_t{3}).kind() == Kind::kInteger);
  CHECK(read_json("\"\\uD83D\\uDE00\"").value.get<std::string>() == "\xf0\x9f\x98\x80");
}

TEST_CASE("json reader: a repeated key names its first place in document order; the last value is kept") {
  using gpucalc::detail::read_json;
  CHECK(read_json("{\"a\":1,\"a\":2}").duplicate == "a");
  CHECK(read_json("{\"a\":1,\"a\":2}").value.at("a").get<long long>() == 2);
  CHECK(read_json("{\"a\":[{\"x\":1,\"x\":2}]}").duplicate == "a[0].x");
  CHECK(read_json("[{\"x\":1},{\"y\":1,\"y\":1}]").duplicate == "[1].y");
  CHECK(read_json("{\"b\":1,\"b\":2,\"c\":{\"x\":1,\"x\":1}}").duplicate == "b");
  CHECK(read_json("{\"c\":{\"x\":1,\"x\":1},\"b\":1,\"b\":2}").duplicate == "c.x");
  CHECK(read_json("{\"\":{\"\":{\"x\":1,\"x\":1}}}").duplicate == "..x");
  CHECK(read_json("{\"a\":1,\"b\":2}").duplicate.empty());
  // parse_json_strict words it: an invalid document first, then the repeated key.
  const auto dup = gpucalc::detail::parse_json_strict("{\"o\":[{\"n\":1,\"n\":2}]}", "x.json");
  REQUIRE_FALSE(dup);
  CHECK(dup.error().field == "x.json: o[0].n");
  CHECK_FALSE(gpucalc::detail::parse_json_strict("{\"n\":1,\"n\":2", "x.json").error().field.empty());
}

TEST_CASE("json reader: dump and number text as nlohmann wrote them") {
  using gpucalc::detail::json_number_text;
  for (double x : {0.0, -0.0, 1.0, 0.1, 1e-7, 1e21, 123456789.125, 5e-324, 1.7976931348623157e308}) {
    CHECK(json_number_text(x) == nlohmann::json(x).dump());
  }
  CHECK(json_number_text(std::nan("")) == "null");
  const std::string text = "{\"z\":[1,-2,3.5,\"\\u0001\\b\\t\\n\\f\\r\\\"\\\\/\xc3\xa9\",true,false,null,{}],\"a\":{\"k\":[]}}";
  CHECK(gpucalc::detail::read_json(text).value.dump() == nlohmann::json::parse(text).dump());
}
