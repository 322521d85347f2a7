#pragma once
/**
 * A small JSON writer, so that the benchmark needs no JSON library on the GPU machine.
 * Builds a tree of values and prints it with two-space indentation; non-finite numbers print as null.
 */
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpucalc::bench {

class JsonValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kInteger, kString, kArray, kObject };

  JsonValue() = default;
  static JsonValue null() { return {}; }
  static JsonValue boolean(bool b);
  static JsonValue number(double d);
  static JsonValue integer(std::int64_t i);
  static JsonValue string(std::string s);
  static JsonValue array();
  static JsonValue object();

  /** Appends to an array. */
  JsonValue& push(JsonValue v);
  /** Sets a key of an object; keys print in insertion order. */
  JsonValue& set(const std::string& key, JsonValue v);
  Kind kind() const { return kind_; }

  /** Pretty-printed text, ending without a newline. */
  std::string dump() const;

 private:
  void dump_to(std::string& out, int indent) const;
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::int64_t integer_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

/** Escapes a string for JSON, quotes included. */
std::string json_quote(const std::string& s);

}  // namespace gpucalc::bench
