#pragma once
// Internal: reads typed fields out of a JSON object without exceptions, recording the first
// error with a path that names the file, the entry and the field. The readers are out of line
// (json_fields.cpp): inlined into each loader they were most of the built-in catalog's reader.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/result.hpp"
#include "catalog/ids.hpp"
#include "catalog/json_value.hpp"

namespace gpucalc::detail {

using Json = JsonValue;

class Fields {
 public:
  /** `strict`: every key of the object (and of the sub-objects read through object()) must be
   *  read by some field reader, or refuse_unread() names it (a misspelt "price_usd_per_mnth"
   *  would otherwise leave the offering unpriced without a word). */
  Fields(const Json& object, std::string path, bool strict = false)
      : obj_(object), path_(std::move(path)), strict_(strict) {}

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }
  const std::string& path() const { return path_; }

  void fail(const std::string& key, const std::string& message);
  bool has(const char* key) const;
  const Json* get(const char* key) const;

  /** In a strict reader, fails on the first key no reader asked for; provenance keys (source,
   *  sources, note) are free text allowed anywhere. */
  void refuse_unread();

  void str(const char* key, std::string& out, bool required);
  void num(const char* key, double& out, bool required, double min, double max);
  void opt_num(const char* key, std::optional<double>& out, double min, double max);
  void integer(const char* key, int& out, bool required, int min, int max);
  void boolean(const char* key, bool& out);
  void strings(const char* key, std::vector<std::string>& out);

  /** Sub-object reader; null when absent. Errors if present and not an object. */
  std::optional<Fields> object(const char* key);

  /** Takes the child's first error; a strict child's unread keys are one. */
  void adopt(Fields& child);

  std::string join(const std::string& key) const { return path_ + "." + key; }

  static std::string fmt(double x);

 private:
  const Json& obj_;
  std::string path_;
  bool strict_ = false;
  mutable std::vector<std::string> read_;  // keys asked for, in a strict reader
  std::optional<Error> error_;
};

}  // namespace gpucalc::detail
