// Parser and validator for calibration records (schema in data/calibration/README.md).
#include "gpucalc/calibration.hpp"

#include "gpucalc/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include "catalog/json_value.hpp"
#include <set>
#include <string>
#include <utility>

#include "catalog/bounds.hpp"
#include "catalog/json_strict.hpp"

namespace gpucalc {
namespace {

using Json = detail::JsonValue;

// Records are a few kilobytes; anything far larger is not one.
constexpr std::size_t kMaxRecordBytes = std::size_t{4} << 20;
// Efficiency is measured / peak; a little above 1 is possible when clocks exceed the
// datasheet's, much above 1 means the wrong peak was used.
constexpr double kMaxEfficiency = 1.1;
// The stated efficiency must agree with value / peak to this relative tolerance.
constexpr double kEfficiencyTolerance = 0.01;

// Plausibility against the record's catalog GPU: at most the datasheet peak, and at
// least this fraction of it (of the roofline for GEMMs at small M).
constexpr double kMinFractionOfPeak = 0.01;
// All-reduce messages from this size on are held to the 1 % floor (bandwidth-bound).
constexpr double kBandwidthBoundMessageBytes = 16.0 * (1 << 20);
// Series points a record may hold per measurement (the sizes' bounds are in bounds.hpp).
constexpr std::size_t kMaxPoints = 4096;

enum class Quantity { kBytesPerS, kFlopsPerS, kSeconds };

// What an "ok" measurement carries: one `value`, or a `points` series of a serving-model sweep.
enum class Shape { kScalar, kGemmSmall, kGroupedGemm, kAttentionDecode, kAllreduce };

struct MeasurementKind {
  const char* id;
  Quantity quantity;
  // Which record field the value fills (scalars other than matmul_*).
  std::optional<double> CalibrationRecord::*scalar_field;
  std::optional<Precision> precision;
  Shape shape = Shape::kScalar;
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
    {"gemm_small_bf16", Quantity::kFlopsPerS, nullptr, Precision::kBf16, Shape::kGemmSmall},
    {"gemm_small_fp8", Quantity::kFlopsPerS, nullptr, Precision::kFp8, Shape::kGemmSmall},
    {"gemm_small_fp4", Quantity::kFlopsPerS, nullptr, Precision::kFp4, Shape::kGemmSmall},
    {"grouped_gemm_bf16", Quantity::kFlopsPerS, nullptr, Precision::kBf16, Shape::kGroupedGemm},
    {"grouped_gemm_fp8", Quantity::kFlopsPerS, nullptr, Precision::kFp8, Shape::kGroupedGemm},
    {"grouped_gemm_fp4", Quantity::kFlopsPerS, nullptr, Precision::kFp4, Shape::kGroupedGemm},
    {"attention_decode", Quantity::kBytesPerS, nullptr, std::nullopt, Shape::kAttentionDecode},
    {"allreduce", Quantity::kSeconds, nullptr, std::nullopt, Shape::kAllreduce},
    {"launch_latency", Quantity::kSeconds, &CalibrationRecord::launch_latency_s, std::nullopt},
    {"graph_launch_latency", Quantity::kSeconds, &CalibrationRecord::graph_launch_latency_s,
     std::nullopt},
};

const MeasurementKind* find_kind(const std::string& id) {
  for (const auto& kind : kKinds) {
    if (id == kind.id) return &kind;
  }
  return nullptr;
}

const char* unit_name(Quantity q) {
  switch (q) {
    case Quantity::kBytesPerS: return "B/s";
    case Quantity::kFlopsPerS: return "FLOP/s";
    case Quantity::kSeconds: return "s";
  }
  return "?";
}

/** Parse-time range of a figure of this unit (bounds.hpp). */
const detail::Bound& unit_bound(Quantity q) {
  switch (q) {
    case Quantity::kBytesPerS: return detail::kMeasuredBytesPerS;
    case Quantity::kFlopsPerS: return detail::kMeasuredFlopsPerS;
    case Quantity::kSeconds: break;
  }
  return detail::kMeasuredLatencyS;
}

bool in_unit_range(Quantity q, double v) {
  return v >= unit_bound(q).min && v <= unit_bound(q).max;  // false for NaN
}

std::string unit_range_text(Quantity q) { return unit_bound(q).words; }

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

int two_digits(const std::string& s, std::size_t at) { return (s[at] - '0') * 10 + (s[at + 1] - '0'); }

/** "HH:MM", "HH:MM:SS" or "HH:MM:SS.fff", then nothing, "Z" or "+HH:MM"/"-HH:MM". */
bool is_iso_time(const std::string& s, std::size_t from) {
  std::size_t i = from;
  auto hh_mm = [&](int max_hour) {
    if (s.size() < i + 5 || !all_digits(s, i, 2) || s[i + 2] != ':' || !all_digits(s, i + 3, 2)) {
      return false;
    }
    const bool ok = two_digits(s, i) <= max_hour && two_digits(s, i + 3) <= 59;
    i += 5;
    return ok;
  };
  if (!hh_mm(23)) return false;
  if (i < s.size() && s[i] == ':') {
    if (s.size() < i + 3 || !all_digits(s, i + 1, 2) || two_digits(s, i + 1) > 60) return false;
    i += 3;
    if (i < s.size() && s[i] == '.') {
      const std::size_t digits_from = ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) ++i;
      if (i == digits_from || i - digits_from > 9) return false;
    }
  }
  if (i == s.size()) return true;
  if (s[i] == 'Z') return i + 1 == s.size();
  if (s[i] != '+' && s[i] != '-') return false;
  ++i;
  return hh_mm(14) && i == s.size();
}

/** "YYYY-MM-DD" naming a real calendar day (years 2000 to 2999), optionally "T" and a time. */
bool is_iso_date(const std::string& s) {
  if (s.size() < 10 || s.size() > 40) return false;
  if (!all_digits(s, 0, 4) || s[4] != '-' || !all_digits(s, 5, 2) || s[7] != '-' ||
      !all_digits(s, 8, 2)) {
    return false;
  }
  const int year = std::stoi(s.substr(0, 4));
  const int month = two_digits(s, 5);
  const int day = two_digits(s, 8);
  if (year < 2000 || year > 2999 || month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days_in_month[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day > days_in_month[month - 1]) return false;
  if (s.size() == 10) return true;
  return s[10] == 'T' && is_iso_time(s, 11);
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

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
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

/** A number of a series point within `bound`; a whole number when `integer`. */
Result<double> point_number(const Json& point, const char* key, const std::string& path,
                            const detail::Bound& bound, bool integer, const Checker& check) {
  const auto it = point.find(key);
  const std::string where = path + "." + key;
  if (it == point.end() || !finite_number(*it)) {
    return check.fail(where, "is required and must be a number.", ErrorCode::kBadValue);
  }
  const double v = it->get<double>();
  if (integer && v != std::floor(v)) {
    return check.fail(where, "must be a whole number.", ErrorCode::kBadValue);
  }
  if (v < bound.min || v > bound.max) {
    return check.fail(where, std::string("must be ") + bound.words + ".", ErrorCode::kOutOfRange);
  }
  return v;
}

/** A point's `value`: in its unit's parse-time range. */
Result<double> point_value(const Json& point, const std::string& path, Quantity q,
                           const Checker& check) {
  const auto it = point.find("value");
  if (it == point.end() || !finite_number(*it) || !in_unit_range(q, it->get<double>())) {
    return check.fail(path + ".value", "must be " + unit_range_text(q) + ".",
                      ErrorCode::kBadValue);
  }
  return it->get<double>();
}

// Reads each named number of a point into `out` (in order), stopping at the first error.
#define GPUCALC_POINT_NUMBER(var, key, bound, whole)                                   \
  auto var##_r = point_number(p, key, where, bound, whole, check);                    \
  if (!var##_r) return var##_r.error();                                               \
  const double var = var##_r.value()

/** Parses `points` of a serving-model sweep into the record. */
Result<bool> parse_series(const Json& m, const std::string& path, const MeasurementKind& kind,
                          CalibrationRecord& record, const Checker& check) {
  const auto it = m.find("points");
  if (it == m.end() || !it->is_array() || it->empty()) {
    return check.fail(path + ".points", "must be a non-empty array when status is \"ok\".");
  }
  if (it->size() > kMaxPoints) {
    return check.fail(path + ".points", "holds more than 4096 points.", ErrorCode::kTooLarge);
  }
  const std::size_t prec = kind.precision ? index_of(*kind.precision) : 0;
  const bool seen = kind.shape == Shape::kGemmSmall      ? !record.gemm_small[prec].empty()
                    : kind.shape == Shape::kGroupedGemm  ? !record.grouped_gemm[prec].empty()
                    : kind.shape == Shape::kAttentionDecode ? !record.attention_decode.empty()
                                                            : !record.allreduce.empty();
  if (seen) return check.fail(path + ".id", std::string("\"") + kind.id + "\" appears twice.");

  int gpus = 0;
  if (kind.shape == Shape::kAllreduce) {
    const auto g = m.find("gpus");
    if (g == m.end() || !finite_number(*g) || g->get<double>() != std::floor(g->get<double>()) ||
        g->get<double>() < detail::kCollectiveGpus.min ||
        g->get<double>() > detail::kCollectiveGpus.max) {
      return check.fail(path + ".gpus",
                        std::string("must be a whole number of ") + detail::kCollectiveGpus.words + ".",
                        ErrorCode::kBadValue);
    }
    gpus = static_cast<int>(g->get<double>());
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& p = (*it)[i];
    const std::string where = path + ".points[" + std::to_string(i) + "]";
    if (!p.is_object()) return check.fail(where, "must be an object.");
    auto value = point_value(p, where, kind.quantity, check);
    if (!value) return value.error();
    switch (kind.shape) {
      case Shape::kGemmSmall: {
        GPUCALC_POINT_NUMBER(mm, "m", detail::kSweepDim, true);
        GPUCALC_POINT_NUMBER(n, "n", detail::kSweepDim, true);
        GPUCALC_POINT_NUMBER(k, "k", detail::kSweepDim, true);
        record.gemm_small[prec].push_back(GemmPoint{mm, n, k, value.value()});
        break;
      }
      case Shape::kGroupedGemm: {
        GPUCALC_POINT_NUMBER(e, "experts", detail::kSweepExperts, true);
        GPUCALC_POINT_NUMBER(t, "tokens_per_expert", detail::kSweepDim, true);
        GPUCALC_POINT_NUMBER(n, "n", detail::kSweepDim, true);
        GPUCALC_POINT_NUMBER(k, "k", detail::kSweepDim, true);
        record.grouped_gemm[prec].push_back(GroupedGemmPoint{e, t, n, k, value.value()});
        break;
      }
      case Shape::kAttentionDecode: {
        GPUCALC_POINT_NUMBER(b, "batch", detail::kSweepDim, true);
        GPUCALC_POINT_NUMBER(c, "context_tokens", detail::kContextTokens, true);
        record.attention_decode.push_back(AttentionDecodePoint{b, c, value.value()});
        break;
      }
      case Shape::kAllreduce: {
        GPUCALC_POINT_NUMBER(bytes, "bytes", detail::kMessageBytes, true);
        const auto bus = optional_positive(p, "bus_bytes_per_s", where, check);
        if (!bus) return bus.error();
        // Bus bandwidth by the nccl-tests convention: 2 (g - 1) / g x bytes / time.
        const double expected = 2.0 * (gpus - 1) / gpus * bytes / value.value();
        if (!bus.value() || std::fabs(*bus.value() - expected) > kEfficiencyTolerance * expected) {
          return check.fail(where + ".bus_bytes_per_s",
                            "must equal 2 (gpus - 1) / gpus x bytes / value.", ErrorCode::kBadValue);
        }
        if (!in_unit_range(Quantity::kBytesPerS, expected)) {
          return check.fail(where + ".bus_bytes_per_s", "must be " + unit_range_text(Quantity::kBytesPerS) + ".",
                            ErrorCode::kOutOfRange);
        }
        record.allreduce.push_back(AllreducePoint{bytes, value.value(), expected});
        break;
      }
      case Shape::kScalar:
        break;
    }
  }
  if (kind.shape == Shape::kAllreduce) {
    record.allreduce_gpus = gpus;
    std::sort(record.allreduce.begin(), record.allreduce.end(),
              [](const AllreducePoint& a, const AllreducePoint& b) { return a.bytes < b.bytes; });
  }
  return true;
}

#undef GPUCALC_POINT_NUMBER

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
  for (const char* key : {"method", "peak_source", "note"}) {
    auto r = check_optional_string(m, key, path, check);
    if (!r) return r.error();
  }
  const auto sizes = m.find("sizes");
  if (sizes != m.end() && !sizes->is_object()) {
    return check.fail(path + ".sizes", "must be an object.", ErrorCode::kBadValue);
  }
  if (kind->shape != Shape::kScalar) return parse_series(m, path, *kind, record, check);

  const auto value_it = m.find("value");
  if (value_it == m.end() || !finite_number(*value_it) || value_it->get<double>() <= 0.0) {
    return check.fail(path + ".value", "must be a positive number when status is \"ok\".",
                      ErrorCode::kBadValue);
  }
  const double value = value_it->get<double>();
  if (!in_unit_range(kind->quantity, value)) {
    return check.fail(path + ".value", "must be " + unit_range_text(kind->quantity) + ".",
                      ErrorCode::kOutOfRange);
  }

  auto median = optional_positive(m, "median", path, check);
  if (!median) return median.error();
  if (median.value() && !in_unit_range(kind->quantity, *median.value())) {
    return check.fail(path + ".median", "must be " + unit_range_text(kind->quantity) + ".",
                      ErrorCode::kOutOfRange);
  }
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

namespace {

/** Bytes per element of A and B at a math precision (block scales left out). */
double operand_bytes_per_value(Precision p) {
  switch (p) {
    case Precision::kFp64: return 8.0;
    case Precision::kTf32: return 4.0;
    case Precision::kBf16: return 2.0;
    case Precision::kFp8: return 1.0;
    case Precision::kFp6: return 0.75;
    case Precision::kFp4: return 0.5;
  }
  return 2.0;
}

class PlausibilityCheck {
 public:
  PlausibilityCheck(const CalibrationRecord& rec, const Gpu& gpu) : rec_(rec), gpu_(gpu) {}

  /** `value` against `peak`: at most the peak, at least 1 % of it. */
  Result<bool> rate(const std::string& field, double value, double peak, const char* what) const {
    if (peak <= 0.0) return true;
    if (value > peak) {
      return fail(field, "is " + number_text(value) + ", above the " + what + " of " + gpu_.id +
                             " (" + number_text(peak) + "): not a measurement of this GPU.");
    }
    if (value < kMinFractionOfPeak * peak) {
      return fail(field, "is " + number_text(value) + ", below 1 % of the " + what + " of " +
                             gpu_.id + " (" + number_text(peak) + "): not a plausible measurement.");
    }
    return true;
  }

  /** A GEMM point: FLOP/s at most the peak; the roofline fraction at least 1 %. */
  Result<bool> gemm(const std::string& field, Precision p, double m, double n, double k,
                    double groups, double flops_per_s) const {
    const auto& peak = gpu_.peak_flops_per_s[index_of(p)];
    if (!peak || *peak <= 0.0) {
      return fail(field, std::string("is a ") + precision_name(p) + " figure, but " + gpu_.id +
                             " has no " + precision_name(p) + " peak in the catalog.");
    }
    if (flops_per_s > *peak) {
      return fail(field, "is " + number_text(flops_per_s) + " FLOP/s, above the dense " +
                             precision_name(p) + " peak of " + gpu_.id + " (" +
                             number_text(*peak) + ").");
    }
    const double bytes = groups * ((n * k + m * k) * operand_bytes_per_value(p) + 2.0 * m * n);
    const double seconds = groups * 2.0 * m * n * k / flops_per_s;
    const double bw = gpu_.memory_bandwidth_bytes_per_s;
    const double roofline =
        std::max(flops_per_s / *peak, bw > 0.0 ? bytes / seconds / bw : 0.0);
    if (roofline < kMinFractionOfPeak) {
      return fail(field, "is " + number_text(flops_per_s) +
                             " FLOP/s, below 1 % of the roofline of " + gpu_.id +
                             ": not a plausible measurement.");
    }
    return true;
  }

  Result<bool> fail(const std::string& field, std::string message) const {
    return make_error(ErrorCode::kOutOfRange, rec_.source_name + ": " + field, std::move(message));
  }

 private:
  const CalibrationRecord& rec_;
  const Gpu& gpu_;
};

std::string measurement_field(const std::string& id, const std::string& rest) {
  return "measurements(" + id + ")" + rest;
}

}  // namespace

Result<bool> check_calibration_against_gpu(const CalibrationRecord& rec, const Gpu& gpu) {
  if (rec.dry_run) return true;
  const PlausibilityCheck check(rec, gpu);
  const double hbm = gpu.memory_bandwidth_bytes_per_s;
  const double link = gpu.interconnect.per_gpu_bandwidth_bytes_per_s;
  struct ScalarRate {
    const char* id;
    const std::optional<double>& value;
    double peak;
    const char* what;
  };
  const ScalarRate scalars[] = {
      {"hbm_copy", rec.hbm_copy_bytes_per_s, hbm, "HBM datasheet bandwidth"},
      {"hbm_triad", rec.hbm_triad_bytes_per_s, hbm, "HBM datasheet bandwidth"},
      {"hbm_dot", rec.hbm_dot_bytes_per_s, hbm, "HBM datasheet bandwidth"},
      {"p2p_unidirectional", rec.p2p_unidirectional_bytes_per_s, link / 2,
       "one-way interconnect bandwidth"},
      {"p2p_bidirectional", rec.p2p_bidirectional_bytes_per_s, link, "interconnect bandwidth"},
  };
  for (const auto& s : scalars) {
    if (!s.value) continue;
    auto r = check.rate(measurement_field(s.id, ".value"), *s.value, s.peak, s.what);
    if (!r) return r;
  }
  for (std::size_t i = 0; i < kPrecisionCount; ++i) {
    const auto p = static_cast<Precision>(i);
    const std::string name = precision_name(p);
    if (rec.matmul_best_flops_per_s[i]) {
      const auto& peak = gpu.peak_flops_per_s[i];
      if (!peak) {
        return check.fail(measurement_field("matmul_" + name, ".value"),
                          "is a " + name + " figure, but " + gpu.id + " has no " + name +
                              " peak in the catalog.");
      }
      auto r = check.rate(measurement_field("matmul_" + name, ".value"),
                          *rec.matmul_best_flops_per_s[i], *peak, "dense datasheet peak");
      if (!r) return r;
      if (rec.matmul_median_flops_per_s[i]) {
        r = check.rate(measurement_field("matmul_" + name, ".median"),
                       *rec.matmul_median_flops_per_s[i], *peak, "dense datasheet peak");
        if (!r) return r;
      }
    }
    for (std::size_t j = 0; j < rec.gemm_small[i].size(); ++j) {
      const GemmPoint& g = rec.gemm_small[i][j];
      auto r = check.gemm(measurement_field("gemm_small_" + name, ".points[" + std::to_string(j) + "].value"),
                          p, g.m, g.n, g.k, 1.0, g.flops_per_s);
      if (!r) return r;
    }
    for (std::size_t j = 0; j < rec.grouped_gemm[i].size(); ++j) {
      const GroupedGemmPoint& g = rec.grouped_gemm[i][j];
      auto r = check.gemm(
          measurement_field("grouped_gemm_" + name, ".points[" + std::to_string(j) + "].value"), p,
          g.tokens_per_expert, g.n, g.k, g.experts, g.flops_per_s);
      if (!r) return r;
    }
  }
  for (std::size_t j = 0; j < rec.attention_decode.size(); ++j) {
    auto r = check.rate(measurement_field("attention_decode", ".points[" + std::to_string(j) + "].value"),
                        rec.attention_decode[j].kv_bytes_per_s, hbm, "HBM datasheet bandwidth");
    if (!r) return r;
  }
  if (!rec.allreduce.empty() && link > 0.0) {
    for (std::size_t j = 0; j < rec.allreduce.size(); ++j) {
      const double bus = rec.allreduce[j].bus_bytes_per_s;
      const std::string field =
          measurement_field("allreduce", ".points[" + std::to_string(j) + "].bus_bytes_per_s");
      if (bus > link) {
        return check.fail(field, "is " + number_text(bus) +
                                     " B/s, above the interconnect bandwidth of " + gpu.id + " (" +
                                     number_text(link) + ").");
      }
      // Small messages are latency-bound (8 KiB takes ~16 us on 8 H200s, engines.md 6a, i.e.
      // 0.1 % of the link); from 16 MiB on an all-reduce is bandwidth-bound.
      if (rec.allreduce[j].bytes >= kBandwidthBoundMessageBytes && bus < kMinFractionOfPeak * link) {
        return check.fail(field, "is " + number_text(bus) +
                                     " B/s, below 1 % of the interconnect bandwidth of " + gpu.id +
                                     " at a bandwidth-bound size: not a plausible measurement.");
      }
    }
  }
  return true;
}

}  // namespace gpucalc
