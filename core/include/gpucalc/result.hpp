#pragma once
/** Errors as values: every fallible core function returns Result<T>. */
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpucalc {

enum class ErrorCode {
  kInvalidJson,     // text is not JSON
  kInvalidCatalog,  // JSON is well formed but an entry or field is wrong
  kUnknownKey,      // scenario key not in the schema
  kBadValue,        // value of the wrong kind (not a number, not in the enum)
  kOutOfRange,      // number outside its allowed range
  kUnknownId,       // model, GPU or offering id not in the catalog
  kUnsupportedVersion,  // scenario or record from another schema version
  kTooLarge,        // input longer than the core accepts
  kDoesNotFit,      // a requested deployment cannot hold the model
  kRequestExceedsContext,  // input + output tokens longer than the scenario's context
  kNotAllowed,      // a supplied document changes what its source may not (CatalogTrust)
};

/** Stable lowercase name of a code ("bad_value"), used by the CLI, JSON and JS. */
const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kBadValue;
  std::string field;    // offending key or path, e.g. "context" or "gpus[2].hbm_gb"
  std::string message;  // one sentence a user understands
  /** Numbers the message names (e.g. min, max, version), for a page that words it itself. */
  std::vector<std::pair<std::string, double>> params;
  /** "field: message" on one line. */
  std::string to_string() const;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT
  /** The value constructed in place from `args` (no move of a large T). */
  template <class... Args>
  explicit Result(std::in_place_t, Args&&... args)
      : v_(std::in_place_index<0>, std::forward<Args>(args)...) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(ErrorCode code, std::string field, std::string message) {
  Error e;
  e.code = code;
  e.field = std::move(field);
  e.message = std::move(message);
  return e;
}

}  // namespace gpucalc
