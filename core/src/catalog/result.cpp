#include "gpucalc/result.hpp"

namespace gpucalc {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidJson: return "invalid_json";
    case ErrorCode::kInvalidCatalog: return "invalid_catalog";
    case ErrorCode::kUnknownKey: return "unknown_key";
    case ErrorCode::kBadValue: return "bad_value";
    case ErrorCode::kOutOfRange: return "out_of_range";
    case ErrorCode::kUnknownId: return "unknown_id";
    case ErrorCode::kUnsupportedVersion: return "unsupported_version";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kDoesNotFit: return "does_not_fit";
    case ErrorCode::kRequestExceedsContext: return "request_exceeds_context";
    case ErrorCode::kNotAllowed: return "not_allowed";
  }
  return "error";
}

std::string Error::to_string() const {
  return field.empty() ? message : field + ": " + message;
}

}  // namespace gpucalc
