// Parser and validator for calibration records (schema in data/calibration/README.md).
#include "gpucalc/calibration.hpp"

#include <cctype>
#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "json_strict.hpp"

namespace gpucalc {
namespace {

using Json = nlohmann::json;

// Records are a few kilobytes; anything far larger is not one.
constexpr std::size_t kMaxRecordBytes = std::size_t{4} << 20;
// Efficiency is measured / peak; a little above 1 is possible when clocks exceed the
// datasheet's, much above 1 means the wrong peak was used.
constexpr double kMaxEfficiency = 1.1;
// The stated efficiency must agree with value / peak to this relative tolerance.
constexpr double kEfficiencyTolerance = 0.01;

enum class Quantity { kBytesPerS, kFlopsPerS };

struct MeasurementKind {
  const char* id;
  Quantity quantity;
  // Which record field the value fills.
  std::optional<double> CalibrationRecord::*scalar_field;
  std::optional<Precision> precision;
};

const MeasurementKind kKinds[] = {
    {"hbm_copy", Quantity::kBytesPerS, &CalibrationRecord::hbm_copy_bytes_per_s, std::nullopt},
    {"hbm_triad", Quantity::kBytesPerS, &CalibrationRecord::hbm_triad_bytes_per_s, std::nullopt},
    {"hbm_dot", Quantity::kBytesPerS, &CalibrationRecord::hbm_dot_bytes_per_s, std::nullopt},
    {"p2p_unidirectional", Quantity::kBytesPerS,
     &CalibrationRecord::p2p_unidirectional_bytes_per_s, std::nullopt},
    {"p2p_bidirectional", Quantity::kBytesPerS, &CalibrationRecord::p2p_bidirectional_bytes_per_s,
     std::nullopt},
    {"matmul_fp64", Quantity::kFlopsPerS, nullptr, Precision::kFp64},
    {"matmul_tf32", Quantity::kFlopsPerS, nullptr, Precision::kTf32},
    {"matmul_bf16", Quantity::kFlopsPerS, nullptr, Precision::kBf16},
    {"matmul_fp8", Quantity::kFlopsPerS, nullptr, Precision::kFp8},
    {"matmul_fp6", Quantity::kFlopsPerS, nullptr, Precision::kFp6},
    {"matmul_fp4", Quantity::kFlopsPerS, nullptr, Precision::kFp4},
};

const MeasurementKind* find_kind(const std::string& id) {
  for (const auto& kind : kKinds) {
    if (id == kind.id) return &kind;
  }
  return nullptr;
}

const char* unit_name(Quantity q) { return q == Quantity::kBytesPerS ? "B/s" : "FLOP/s"; }

/** Builds errors that all start with the record's source name. */
class Checker {
 public:
  explicit Checker(std::string_view source) : source_(source) {}

  Error fail(const std::string& path, std::string message,
             ErrorCode code = ErrorCode::kInvalidCatalog) const {
    return make_error(code, path.empty() ? source_ : source_ + ": " + path, std::move(message));
  }

 private:
  std::string source_;
};

bool is_id_text(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool all_digits(const std::string& s, std::size_t from, std::size_t count) {
  for (std::size_t i = from; i < from + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  }
  return true;
}

/** "YYYY-MM-DD", optionally followed by a time ("T..."). */
bool is_iso_date(const std::string& s) {
  if (s.size() < 10) return false;
  if (!all_digits(s, 0, 4) || s[4] != '-' || !all_digits(s, 5, 2) || s[7] != '-' ||
      !all_digits(s, 8, 2)) {
    return false;
  }
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  return s.size() == 10 || s[10] == 'T';
}

/** "sm_90", "sm_100a", "gfx942", "gfx90a", or "host" for the host backend. */
bool is_arch_target(const std::string& s) {
  if (s == "host") return true;
  auto rest_ok = [&](std::size_t from) {
    if (from >= s.size() || s.size() > from + 8) return false;
    for (std::size_t i = from; i < s.size(); ++i) {
      const char c = s[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) return false;
    }
    return std::isdigit(static_cast<unsigned char>(s[from])) != 0;
  };
  if (s.rfind("sm_", 0) == 0) return rest_ok(3);
  if (s.rfind("gfx", 0) == 0) return rest_ok(3);
  return false;
}

bool finite_number(const Json& j) { return j.is_number() && std::isfinite(j.get<double>()); }

/** Reads an optional positive number; null counts as absent. */
Result<std::optional<double>> optional_positive(const Json& obj, const char* key,
                                                const std::string& path, const Checker& check) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>{};
  if (!finite_number(*it) || it->get<double>() <= 0.0) {
    return check.fail(path + "." + key, "must be a positive number or null.", ErrorCode::kBadValue);
  }
  return std::optional<double>{it->get<double>()};
}

Result<bool> check_optional_string(const Json& obj, const char* key, const std::string& path,
                                   const Checker& check) {
  const auto it = obj.find(key);
  if (it != obj.end() && !it->is_null() && !it->is_string()) {
    return check.fail(path + "." + key, "must be a string.", ErrorCode::kBadValue);
  }
  return true;
}

Result<bool> parse_environment(const Json& root, CalibrationRecord& record, const Checker& check) {
  const auto it = root.find("environment");
  if (it == root.end() || !it->is_object()) {
    return check.fail("environment", "is required and must be an object.");
  }
  const Json& env = *it;
  const auto name = env.find("device_name");
  if (name == env.end() || !name->is_string() || name->get<std::string>().empty()) {
    return check.fail("environment.device_name", "is required and must be a non-empty string.");
  }
  record.device_name = name->get<std::string>();
  const auto arch = env.find("arch");
  if (arch == env.end() || !arch->is_string() || !is_arch_target(arch->get<std::string>())) {
    return check.fail("environment.arch",
                      "is required and must be an architecture target such as sm_90 or gfx942.");
  }
  record.arch_target = arch->get<std::string>();
  if (record.arch_target == "host" && !record.dry_run) {
    return check.fail("environment.arch", "\"host\" is only allowed in a dry-run record.");
  }
  for (const char* key : {"driver_version", "runtime_version", "blas_version"}) {
    auto r = check_optional_string(env, key, "environment", check);
    if (!r) return r.error();
  }
  return true;
}

Result<bool> parse_measurement(const Json& m, const std::string& path, CalibrationRecord& record,
                               const Checker& check) {
  if (!m.is_object()) return check.fail(path, "must be an object.");
  const auto id_it = m.find("id");
  if (id_it == m.end() || !id_it->is_string()) {
    return check.fail(path + ".id", "is required and must be a string.");
  }
  const std::string id = id_it->get<std::string>();
  const MeasurementKind* kind = find_kind(id);
  if (kind == nullptr) {
    return check.fail(path + ".id", "\"" + id + "\" is not a known measurement.",
                      ErrorCode::kBadValue);
  }
  const auto status_it = m.find("status");
  if (status_it == m.end() || !status_it->is_string()) {
    return check.fail(path + ".status", "is required: \"ok\", \"unsupported\" or \"failed\".");
  }
  const std::string status = status_it->get<std::string>();
  if (status == "unsupported" || status == "failed" || status == "skipped") return true;
  if (status != "ok") {
    return check.fail(path + ".status", "must be \"ok\", \"unsupported\", \"failed\" or \"skipped\".",
                      ErrorCode::kBadValue);
  }

  const auto unit_it = m.find("unit");
  if (unit_it == m.end() || !unit_it->is_string() ||
      unit_it->get<std::string>() != unit_name(kind->quantity)) {
    return check.fail(path + ".unit", std::string("must be \"") + unit_name(kind->quantity) + "\".");
  }
  const auto stat_it = m.find("statistic");
  if (stat_it == m.end() || !stat_it->is_string() || stat_it->get<std::string>().empty()) {
    return check.fail(path + ".statistic", "is required and must be a string such as \"best\".");
  }
  const auto value_it = m.find("value");
  if (value_it == m.end() || !finite_number(*value_it) || value_it->get<double>() <= 0.0) {
    return check.fail(path + ".value", "must be a positive number when status is \"ok\".",
                      ErrorCode::kBadValue);
  }
  const double value = value_it->get<double>();

  auto median = optional_positive(m, "median", path, check);
  if (!median) return median.error();
  auto peak = optional_positive(m, "peak", path, check);
  if (!peak) return peak.error();
  auto efficiency = optional_positive(m, "efficiency", path, check);
  if (!efficiency) return efficiency.error();
  if (efficiency.value() && *efficiency.value() > kMaxEfficiency) {
    return check.fail(path + ".efficiency", "is far above 1: the peak it was compared with is wrong.",
                      ErrorCode::kOutOfRange);
  }
  if (efficiency.value() && peak.value()) {
    const double expected = value / *peak.value();
    if (std::fabs(*efficiency.value() - expected) > kEfficiencyTolerance * expected) {
      return check.fail(path + ".efficiency", "does not equal value / peak.", ErrorCode::kBadValue);
    }
  }
  for (const char* key : {"method", "peak_source", "note"}) {
    auto r = check_optional_string(m, key, path, check);
    if (!r) return r.error();
  }
  const auto sizes = m.find("sizes");
  if (sizes != m.end() && !sizes->is_object()) {
    return check.fail(path + ".sizes", "must be an object.", ErrorCode::kBadValue);
  }

  if (kind->precision) {
    const std::size_t i = index_of(*kind->precision);
    if (record.matmul_best_flops_per_s[i]) {
      return check.fail(path + ".id", "\"" + id + "\" appears twice.");
    }
    record.matmul_best_flops_per_s[i] = value;
    record.matmul_median_flops_per_s[i] = median.value();
  } else {
    auto& field = record.*(kind->scalar_field);
    if (field) return check.fail(path + ".id", "\"" + id + "\" appears twice.");
    field = value;
  }
  return true;
}

}  // namespace

Result<CalibrationRecord> parse_calibration_record(std::string_view json_text,
                                                   std::string_view source_name) {
  const Checker check(source_name);
  if (json_text.size() > kMaxRecordBytes) {
    return check.fail("", "the record is larger than 4 MiB.", ErrorCode::kTooLarge);
  }
  auto parsed = detail::parse_json_strict(json_text, std::string(source_name));  // no duplicate keys
  if (!parsed) return parsed.error();
  const Json& root = parsed.value();
  if (!root.is_object()) return check.fail("", "a calibration record must be a JSON object.");

  const auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_string()) {
    return check.fail("schema", "is required and must be \"gpucalc-calibration/1\".");
  }
  const std::string schema_text = schema->get<std::string>();
  if (schema_text != kCalibrationSchema) {
    const bool other_version = schema_text.rfind("gpucalc-calibration/", 0) == 0;
    return check.fail("schema", "\"" + schema_text + "\" is not \"gpucalc-calibration/1\".",
                      other_version ? ErrorCode::kUnsupportedVersion : ErrorCode::kInvalidCatalog);
  }

  CalibrationRecord record;
  record.source_name = std::string(source_name);

  const auto dry = root.find("dry_run");
  if (dry != root.end()) {
    if (!dry->is_boolean()) return check.fail("dry_run", "must be true or false.", ErrorCode::kBadValue);
    record.dry_run = dry->get<bool>();
  }

  const auto gpu = root.find("gpu_id");
  if (gpu == root.end() || !gpu->is_string() || !is_id_text(gpu->get<std::string>())) {
    return check.fail("gpu_id", "is required and must be a catalog GPU id such as \"h200-sxm\".");
  }
  record.gpu_id = gpu->get<std::string>();

  const auto date = root.find("date");
  if (date == root.end() || !date->is_string() || !is_iso_date(date->get<std::string>())) {
    return check.fail("date", "is required and must be an ISO 8601 date (YYYY-MM-DD).");
  }
  record.date = date->get<std::string>().substr(0, 10);

  const auto tool = root.find("tool");
  if (tool != root.end() && !tool->is_object()) {
    return check.fail("tool", "must be an object.", ErrorCode::kBadValue);
  }

  auto env = parse_environment(root, record, check);
  if (!env) return env.error();

  const auto measurements = root.find("measurements");
  if (measurements == root.end() || !measurements->is_array()) {
    return check.fail("measurements", "is required and must be an array.");
  }
  for (std::size_t i = 0; i < measurements->size(); ++i) {
    auto r = parse_measurement((*measurements)[i], "measurements[" + std::to_string(i) + "]",
                               record, check);
    if (!r) return r.error();
  }
  return record;
}

}  // namespace gpucalc
