#include "catalog/json_value.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>  // nlohmann::detail::to_chars only (the shortest round trip, as json_writer.hpp)
#include <utility>

namespace gpucalc::detail {

namespace {

const JsonValue& json_null_value() {
  static const JsonValue null_value;
  return null_value;
}

const std::string& json_empty_key() {
  static const std::string empty;
  return empty;
}

/** A double as a long long or unsigned long long the way a cast does, without the undefined
 *  cast of a value out of range (none of which a loader asks for: each checks the kind first). */
template <class T>
T json_double_to(double x) {
  if (!(x >= static_cast<double>(std::numeric_limits<T>::min()) &&
        x < static_cast<double>(std::numeric_limits<T>::max()))) {
    return 0;
  }
  return static_cast<T>(x);
}

void json_append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

void json_dump_string(std::string& out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c <= 0x1F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace

// ----- the value -----

JsonValue::~JsonValue() {
  if (items_.empty()) return;
  // Children with children of their own move to a list and are taken apart one level at a time.
  std::vector<JsonValue> pending;
  pending.swap(items_);
  while (!pending.empty()) {
    JsonValue last = std::move(pending.back());
    pending.pop_back();
    for (JsonValue& c : last.items_) {
      if (!c.items_.empty()) pending.push_back(std::move(c));
    }
  }
}

JsonValue::JsonValue(int x) : kind_(Kind::kInteger), int_(x) {}
JsonValue::JsonValue(const char* s) : kind_(Kind::kString), string_(s) {}
JsonValue JsonValue::object() {
  JsonValue v;
  v.kind_ = Kind::kObject;
  return v;
}

bool JsonValue::is_null() const { return kind_ == Kind::kNull; }
bool JsonValue::is_boolean() const { return kind_ == Kind::kBool; }
bool JsonValue::is_number() const { return is_number_integer() || kind_ == Kind::kDouble; }
bool JsonValue::is_number_integer() const { return kind_ == Kind::kInteger || kind_ == Kind::kUnsigned; }
bool JsonValue::is_number_unsigned() const { return kind_ == Kind::kUnsigned; }
bool JsonValue::is_number_float() const { return kind_ == Kind::kDouble; }
bool JsonValue::is_string() const { return kind_ == Kind::kString; }
bool JsonValue::is_array() const { return kind_ == Kind::kArray; }
bool JsonValue::is_object() const { return kind_ == Kind::kObject; }

std::size_t JsonValue::size() const {
  if (kind_ == Kind::kArray || kind_ == Kind::kObject) return items_.size();
  return kind_ == Kind::kNull ? 0 : 1;
}
bool JsonValue::empty() const { return size() == 0; }

JsonValue::const_iterator JsonValue::find(std::string_view key) const {
  if (kind_ != Kind::kObject) return end();
  const auto it = std::lower_bound(keys_.begin(), keys_.end(), key,
                                   [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  if (it == keys_.end() || std::string_view(*it) != key) return end();
  return const_iterator(this, static_cast<std::size_t>(it - keys_.begin()));
}

bool JsonValue::contains(std::string_view key) const { return find(key) != end(); }

const JsonValue& JsonValue::at(std::string_view key) const {
  const const_iterator it = find(key);
  return it == end() ? json_null_value() : *it;
}

const JsonValue& JsonValue::at(std::size_t i) const {
  if (kind_ != Kind::kArray || i >= items_.size()) return json_null_value();
  return items_[i];
}

const JsonValue& JsonValue::const_iterator::operator*() const {
  if (owner_->kind_ == Kind::kArray || owner_->kind_ == Kind::kObject) return owner_->items_[i_];
  return *owner_;
}

const std::string& JsonValue::const_iterator::key() const {
  return owner_->kind_ == Kind::kObject ? owner_->keys_[i_] : json_empty_key();
}

const std::string& JsonValue::string_ref() const { return string_; }

template <>
std::string JsonValue::get<std::string>() const {
  return string_;
}

template <>
double JsonValue::get<double>() const {
  switch (kind_) {
    case Kind::kInteger: return static_cast<double>(int_);
    case Kind::kUnsigned: return static_cast<double>(unsigned_);
    case Kind::kDouble: return double_;
    case Kind::kBool: return bool_ ? 1.0 : 0.0;
    default: return 0.0;
  }
}

template <>
long long JsonValue::get<long long>() const {
  switch (kind_) {
    case Kind::kInteger: return int_;
    case Kind::kUnsigned: return static_cast<long long>(unsigned_);
    case Kind::kDouble: return json_double_to<long long>(double_);
    case Kind::kBool: return bool_ ? 1 : 0;
    default: return 0;
  }
}

template <>
unsigned long long JsonValue::get<unsigned long long>() const {
  switch (kind_) {
    case Kind::kInteger: return static_cast<unsigned long long>(int_);
    case Kind::kUnsigned: return unsigned_;
    case Kind::kDouble: return json_double_to<unsigned long long>(double_);
    case Kind::kBool: return bool_ ? 1 : 0;
    default: return 0;
  }
}

template <>
bool JsonValue::get<bool>() const {
  return kind_ == Kind::kBool && bool_;
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  using K = JsonValue::Kind;
  if (a.kind_ == b.kind_) {
    switch (a.kind_) {
      case K::kNull: return true;
      case K::kBool: return a.bool_ == b.bool_;
      case K::kInteger: return a.int_ == b.int_;
      case K::kUnsigned: return a.unsigned_ == b.unsigned_;
      case K::kDouble: return a.double_ == b.double_;
      case K::kString: return a.string_ == b.string_;
      default: return a.keys_ == b.keys_ && a.items_ == b.items_;
    }
  }
  // Numbers of two kinds compare as nlohmann compared them.
  if (a.is_number() && b.is_number()) {
    if (a.kind_ == K::kDouble || b.kind_ == K::kDouble) return a.get<double>() == b.get<double>();
    return a.get<long long>() == b.get<long long>();
  }
  return false;
}

bool operator==(const JsonValue& a, std::string_view s) { return a.kind_ == JsonValue::Kind::kString && a.string_ == s; }

std::string json_number_text(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, static_cast<std::size_t>(end - buf));
}

std::string JsonValue::dump() const {
  std::string out;
  switch (kind_) {
    case Kind::kNull: return "null";
    case Kind::kBool: return bool_ ? "true" : "false";
    case Kind::kInteger: return std::to_string(int_);
    case Kind::kUnsigned: return std::to_string(unsigned_);
    case Kind::kDouble: return json_number_text(double_);
    case Kind::kString: json_dump_string(out, string_); return out;
    case Kind::kArray:
    case Kind::kObject: break;
  }
  const bool obj = kind_ == Kind::kObject;
  out += obj ? '{' : '[';
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (i > 0) out += ',';
    if (obj) {
      json_dump_string(out, keys_[i]);
      out += ':';
    }
    out += items_[i].dump();
  }
  out += obj ? '}' : ']';
  return out;
}

// ----- the reader -----

/** Reads one document iteratively: an explicit stack of the open arrays and objects, so hostile
 *  nesting costs heap, never the call stack. */
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  JsonParse run() {
    JsonParse out;
    if (!skip_bom()) return out;
    JsonValue v;
    for (;;) {
      skip_ws();
      if (p_ == end_) return out;
      const char c = *p_;
      if (c == '{' || c == '[') {
        ++p_;
        open(c == '{' ? JsonValue::Kind::kObject : JsonValue::Kind::kArray);
        skip_ws();
        if (p_ != end_ && *p_ == (c == '{' ? '}' : ']')) {
          ++p_;
          v = close();
        } else {
          if (c == '{' && !read_key()) return out;
          continue;
        }
      } else if (!scalar(v)) {
        return out;
      }
      // A complete value: the document, or the next element or member of the open container.
      int next = attach(v);
      while (next == 1) next = attach(v);
      if (next < 0) return out;
      if (next == 2) {
        out.ok = true;
        out.value = std::move(v);
        out.duplicate = std::move(duplicate_);
        return out;
      }
    }
  }

 private:
  struct Frame {
    JsonValue value;
    std::string key;                 // objects: the key whose value is being read
    std::uint64_t key_seq = 0;       // and when it was read
    std::vector<std::uint64_t> seq;  // objects: when each member's key was read
  };

  /** Puts `v` into the open container and reads what follows: 0 when a value comes next
   *  (after ',' and, in an object, its key), 1 when the container closed (now in `v`), 2 when
   *  `v` was the whole document, -1 on an error. */
  int attach(JsonValue& v) {
    if (frames_.empty()) {
      // nlohmann's lexer read a NUL byte as the end of the input: what follows one is ignored.
      skip_ws();
      return p_ == end_ || *p_ == '\0' ? 2 : -1;
    }
    Frame& f = frames_.back();
    const bool obj = f.value.kind_ == JsonValue::Kind::kObject;
    f.value.items_.push_back(std::move(v));
    if (obj) {
      f.value.keys_.push_back(std::move(f.key));
      f.seq.push_back(f.key_seq);
    }
    skip_ws();
    if (p_ == end_) return -1;
    if (*p_ == ',') {
      ++p_;
      if (obj) {
        skip_ws();
        if (!read_key()) return -1;
      }
      return 0;
    }
    if (*p_ != (obj ? '}' : ']')) return -1;
    ++p_;
    v = close();
    return 1;
  }

  void open(JsonValue::Kind kind) {
    frames_.emplace_back();
    frames_.back().value.kind_ = kind;
  }

  /** Pops the innermost container; an object's members sorted by key, each key once (the last
   *  value), and its first repeated key remembered if no earlier one was. */
  JsonValue close() {
    Frame& f = frames_.back();
    if (f.value.kind_ == JsonValue::Kind::kObject && f.value.keys_.size() > 1) sort_members(f);
    JsonValue v = std::move(f.value);
    frames_.pop_back();
    return v;
  }

  void sort_members(Frame& f) {
    std::vector<std::string>& keys = f.value.keys_;
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&keys](std::size_t a, std::size_t b) {
      const int c = keys[a].compare(keys[b]);
      return c < 0 || (c == 0 && a < b);
    });
    std::vector<std::string> sorted_keys;
    std::vector<JsonValue> sorted_items;
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i + 1;
      while (j < order.size() && keys[order[j]] == keys[order[i]]) ++j;
      if (j - i > 1 && f.seq[order[i + 1]] < duplicate_seq_) {
        duplicate_seq_ = f.seq[order[i + 1]];
        std::string where = path();
        if (!where.empty() && where.front() == '.') where.erase(0, 1);
        duplicate_ = where.empty() ? keys[order[i]] : where + "." + keys[order[i]];
      }
      sorted_keys.push_back(std::move(keys[order[i]]));
      sorted_items.push_back(std::move(f.value.items_[order[j - 1]]));
      i = j;
    }
    keys = std::move(sorted_keys);
    f.value.items_ = std::move(sorted_items);
  }

  /** The labels of the open containers, ".key" or "[i]" each, as json_strict.cpp named them. */
  std::string path() const {
    std::string p;
    for (std::size_t i = 1; i < frames_.size(); ++i) {
      const Frame& parent = frames_[i - 1];
      if (parent.value.kind_ == JsonValue::Kind::kArray) {
        p += "[" + std::to_string(parent.value.items_.size()) + "]";
      } else {
        p += "." + parent.key;
      }
    }
    return p;
  }

  bool read_key() {
    Frame& f = frames_.back();
    if (p_ == end_ || *p_ != '"' || !read_string(f.key)) return false;
    f.key_seq = key_count_++;
    skip_ws();
    if (p_ == end_ || *p_ != ':') return false;
    ++p_;
    return true;
  }

  bool skip_bom() {
    if (p_ == end_ || static_cast<unsigned char>(*p_) != 0xEF) return true;
    if (end_ - p_ < 3 || static_cast<unsigned char>(p_[1]) != 0xBB || static_cast<unsigned char>(p_[2]) != 0xBF) {
      return false;
    }
    p_ += 3;
    return true;
  }

  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  bool scalar(JsonValue& v) {
    v = JsonValue();
    switch (*p_) {
      case '"':
        v.kind_ = JsonValue::Kind::kString;
        return read_string(v.string_);
      case 't':
        v.kind_ = JsonValue::Kind::kBool;
        v.bool_ = true;
        return literal("true");
      case 'f':
        v.kind_ = JsonValue::Kind::kBool;
        return literal("false");
      case 'n': return literal("null");
      default: return number(v);
    }
  }

  bool digits() {
    const char* start = p_;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ != start;
  }

  /** RFC 8259's number; converted as nlohmann's lexer did: strtoull without '-', strtoll with,
   *  strtod with '.' or 'e' or when the integer overflows; a double beyond range is an error. */
  bool number(JsonValue& v) {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') ++p_;
    else digits();
    bool is_float = false;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      is_float = true;
      if (!digits()) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      is_float = true;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) return false;
    }
    const std::string token(start, p_);
    if (!is_float) {
      errno = 0;
      if (*start == '-') {
        const long long x = std::strtoll(token.c_str(), nullptr, 10);
        if (errno == 0) {
          v.kind_ = JsonValue::Kind::kInteger;
          v.int_ = x;
          return true;
        }
      } else {
        const unsigned long long x = std::strtoull(token.c_str(), nullptr, 10);
        if (errno == 0) {
          v.kind_ = JsonValue::Kind::kUnsigned;
          v.unsigned_ = x;
          return true;
        }
      }
    }
    v.kind_ = JsonValue::Kind::kDouble;
    v.double_ = std::strtod(token.c_str(), nullptr);
    return std::isfinite(v.double_);
  }

  /** Four hex digits of a \u escape; -1 when they are not. */
  long hex4() {
    if (end_ - p_ < 4) return -1;
    long cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) return -1;
      cp = cp * 16 + d;
    }
    return cp;
  }

  bool escape(std::string& out) {
    if (p_ == end_) return false;
    const char c = *p_++;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return false;
    }
    long cp = hex4();
    if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;  // a low surrogate alone
    if (cp >= 0xD800 && cp <= 0xDBFF) {                           // a high one needs its low one
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      const long lo = hex4();
      if (lo < 0xDC00 || lo > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    json_append_utf8(out, static_cast<std::uint32_t>(cp));
    return true;
  }

  /** One UTF-8 sequence of 2 to 4 bytes starting with `lead`, well formed as Unicode's table
   *  3-7 (no overlong forms, no surrogates, nothing above U+10FFFF). */
  bool utf8(std::string& out, unsigned char lead) {
    int more = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) more = 1;
    else if (lead == 0xE0) more = 2, lo = 0xA0;
    else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) more = 2;
    else if (lead == 0xED) more = 2, hi = 0x9F;
    else if (lead == 0xF0) more = 3, lo = 0x90;
    else if (lead >= 0xF1 && lead <= 0xF3) more = 3;
    else if (lead == 0xF4) more = 3, hi = 0x8F;
    else return false;
    out += static_cast<char>(lead);
    for (int i = 0; i < more; ++i) {
      if (p_ == end_) return false;
      const auto b = static_cast<unsigned char>(*p_++);
      if (b < (i == 0 ? lo : 0x80) || b > (i == 0 ? hi : 0xBF)) return false;
      out += static_cast<char>(b);
    }
    return true;
  }

  bool read_string(std::string& out) {
    out.clear();
    ++p_;  // the opening quote
    for (;;) {
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_++);
      if (c == '"') return true;
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (c < 0x20) {
        return false;
      } else if (c < 0x80) {
        out += static_cast<char>(c);
      } else if (!utf8(out, c)) {
        return false;
      }
    }
  }

  const char* p_;
  const char* end_;
  std::vector<Frame> frames_;
  std::uint64_t key_count_ = 0;
  std::uint64_t duplicate_seq_ = std::numeric_limits<std::uint64_t>::max();
  std::string duplicate_;
};

JsonParse read_json(std::string_view text) { return JsonReader(text).run(); }

}  // namespace gpucalc::detail
