#pragma once
// Internal: the core's JSON document type and its strict reader (json_value.cpp), in place of
// nlohmann::json on every path the page module links. It accepts and rejects exactly what
// nlohmann::json::parse(text, cb, allow_exceptions=false) did (RFC 8259; tests/catalog/
// test_json_value.cpp compares the two on every data file, the hostile inputs and thousands of
// mutations), holds the same values (integers without '.'/'e' as int64, as uint64 without '-',
// overflowing integers as doubles through strtod) and iterates an object's keys sorted by bytes,
// as nlohmann's std::map did. Every accessor is out of line (json_value.cpp): nlohmann's
// templates, inlined into each loader, were about a third of the page module's code. No
// exceptions: an accessor asked for what the value does not hold answers null, 0, false or "".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucalc::detail {

class JsonValue {
 public:
  enum class Kind : std::uint8_t { kNull, kBool, kInteger, kUnsigned, kDouble, kString, kArray, kObject };

  JsonValue() = default;
  JsonValue(const JsonValue&) = default;
  JsonValue(JsonValue&&) noexcept = default;
  JsonValue& operator=(const JsonValue&) = default;
  JsonValue& operator=(JsonValue&&) noexcept = default;
  ~JsonValue();  // iterative: a document nested 100,000 deep is freed without deep recursion
  // The scalars the loaders compare with (hf_import.cpp: a layer list's 1 / 0, "full").
  explicit JsonValue(int x);
  explicit JsonValue(const char* s);
  static JsonValue object();

  Kind kind() const { return kind_; }
  bool is_null() const;
  bool is_boolean() const;
  bool is_number() const;
  bool is_number_integer() const;  // int64 or uint64
  bool is_number_unsigned() const;
  bool is_number_float() const;
  bool is_string() const;
  bool is_array() const;
  bool is_object() const;

  /** Elements of an array or members of an object; 0 for null, 1 for any other scalar
   *  (as nlohmann counted). */
  std::size_t size() const;
  bool empty() const;

  bool contains(std::string_view key) const;
  /** The member `key` or element `i`; a null value when there is none. */
  const JsonValue& at(std::string_view key) const;
  const JsonValue& at(std::size_t i) const;
  const JsonValue& operator[](std::string_view key) const { return at(key); }
  const JsonValue& operator[](const char* key) const { return at(std::string_view(key)); }
  const JsonValue& operator[](std::size_t i) const { return at(i); }
  const JsonValue& operator[](int i) const { return at(static_cast<std::size_t>(i)); }

  /** The value as T (std::string, double, long long, unsigned long long, bool), converted
   *  between number kinds as nlohmann did; T's zero value when it holds no such thing. */
  template <class T>
  T get() const;
  template <class T>
  T get_ref() const { return string_ref(); }  // T = const std::string&
  const std::string& string_ref() const;

  /** Compact text as nlohmann's dump() wrote it (keys sorted, no spaces). */
  std::string dump() const;

  friend bool operator==(const JsonValue& a, const JsonValue& b);
  friend bool operator!=(const JsonValue& a, const JsonValue& b) { return !(a == b); }
  /** A string equal to `s` (performance.json's "schema"). */
  friend bool operator==(const JsonValue& a, std::string_view s);
  friend bool operator!=(const JsonValue& a, std::string_view s) { return !(a == s); }

  /** Elements of an array, values of an object in key order, a scalar once (nlohmann's order). */
  class const_iterator {
   public:
    const_iterator(const JsonValue* owner, std::size_t i) : owner_(owner), i_(i) {}
    const JsonValue& operator*() const;
    const JsonValue* operator->() const { return &**this; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_ && owner_ == o.owner_; }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }
    const std::string& key() const;
    const JsonValue& value() const { return **this; }

   private:
    const JsonValue* owner_;
    std::size_t i_;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size()); }
  const_iterator find(std::string_view key) const;

  /** An object's members for `for (const auto& [key, value] : j.items())`. */
  struct Member {
    const std::string& key;
    const JsonValue& value;
  };
  class Items {
   public:
    explicit Items(const JsonValue& owner) : owner_(owner) {}
    class iterator {
     public:
      explicit iterator(const_iterator it) : it_(it) {}
      Member operator*() const { return Member{it_.key(), *it_}; }
      iterator& operator++() {
        ++it_;
        return *this;
      }
      bool operator!=(const iterator& o) const { return it_ != o.it_; }

     private:
      const_iterator it_;
    };
    iterator begin() const { return iterator(owner_.begin()); }
    iterator end() const { return iterator(owner_.end()); }

   private:
    const JsonValue& owner_;
  };
  Items items() const { return Items(*this); }

 private:
  friend class JsonReader;
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::int64_t int_ = 0;
  std::uint64_t unsigned_ = 0;
  double double_ = 0.0;
  std::string string_;
  std::vector<JsonValue> items_;    // elements, or an object's values in key order
  std::vector<std::string> keys_;   // an object's keys, sorted by bytes, each once
};

template <>
std::string JsonValue::get<std::string>() const;
template <>
double JsonValue::get<double>() const;
template <>
long long JsonValue::get<long long>() const;
template <>
unsigned long long JsonValue::get<unsigned long long>() const;
template <>
bool JsonValue::get<bool>() const;

/** The outcome of reading a document: `ok` false for text that is not JSON; otherwise the value
 *  and, when some object held a key twice, the path of the first such key in document order
 *  ("a[0].x"; the last value of the key is kept, as nlohmann kept it). */
struct JsonParse {
  bool ok = false;
  JsonValue value;
  std::string duplicate;
};
JsonParse read_json(std::string_view text);

/** A double as nlohmann::json(x).dump() writes it (shortest round trip; "null" when not finite). */
std::string json_number_text(double x);

}  // namespace gpucalc::detail
