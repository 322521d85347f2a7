#include "catalog/json_fields.hpp"

namespace gpucalc::detail {

void Fields::fail(const std::string& key, const std::string& message) {
  if (!error_) error_ = make_error(ErrorCode::kInvalidCatalog, join(key), message);
}

bool Fields::has(const char* key) const { return obj_.contains(key) && !obj_.at(key).is_null(); }

const Json* Fields::get(const char* key) const {
  auto it = obj_.find(key);
  if (it == obj_.end()) return nullptr;
  if (strict_) read_.emplace_back(key);
  return &*it;
}

void Fields::refuse_unread() {
  if (!strict_ || !ok() || !obj_.is_object()) return;
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    const std::string& key = it.key();
    if (key == "source" || key == "sources" || key == "note") continue;
    bool seen = false;
    for (const auto& r : read_) seen = seen || r == key;
    if (!seen) return fail(key, "is not a known key here (misspelt?)");
  }
}

void Fields::str(const char* key, std::string& out, bool required) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) {
    if (required) fail(key, "is required (a string)");
    return;
  }
  if (!v->is_string()) return fail(key, "must be a string");
  out = v->get<std::string>();
  if (required && out.empty()) fail(key, "must not be empty");
}

void Fields::num(const char* key, double& out, bool required, double min, double max) {
  std::optional<double> v;
  opt_num(key, v, min, max);
  if (v) out = *v;
  else if (required && ok()) fail(key, "is required (a number)");
}

void Fields::opt_num(const char* key, std::optional<double>& out, double min, double max) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) return;
  if (!v->is_number()) return fail(key, "must be a number or null");
  const double x = v->get<double>();
  if (!(x >= min && x <= max)) {
    return fail(key, "must be between " + fmt(min) + " and " + fmt(max) + ", got " + fmt(x));
  }
  out = x;
}

void Fields::integer(const char* key, int& out, bool required, int min, int max) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) {
    if (required) fail(key, "is required (an integer)");
    return;
  }
  if (!v->is_number_integer()) return fail(key, "must be an integer");
  if (v->is_number_unsigned() && v->get<unsigned long long>() > static_cast<unsigned long long>(max)) {
    // Above 2^63 a signed read wraps (18446744073709551615 would say "got -1").
    return fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", got " + std::to_string(v->get<unsigned long long>()));
  }
  const auto x = v->get<long long>();
  if (x < min || x > max) {
    return fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", got " + std::to_string(x));
  }
  out = static_cast<int>(x);
}

void Fields::boolean(const char* key, bool& out) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) return;
  if (!v->is_boolean()) return fail(key, "must be true or false");
  out = v->get<bool>();
}

void Fields::strings(const char* key, std::vector<std::string>& out) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) return;
  if (v->is_string()) {
    out.push_back(v->get<std::string>());
    return;
  }
  if (!v->is_array()) return fail(key, "must be a string or an array of strings");
  for (const auto& item : *v) {
    if (!item.is_string()) return fail(key, "must hold only strings");
    out.push_back(item.get<std::string>());
  }
}

std::optional<Fields> Fields::object(const char* key) {
  const Json* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_object()) {
    fail(key, "must be an object");
    return std::nullopt;
  }
  return Fields(*v, join(key), strict_);
}

void Fields::adopt(Fields& child) {
  child.refuse_unread();
  if (!error_ && child.error_) error_ = child.error_;
}

std::string Fields::fmt(double x) {
  std::string s = std::to_string(x);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace gpucalc::detail
