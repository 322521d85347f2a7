#pragma once
/**
 * The result-field registry: every scalar field of one offering's result, declared once with
 * its JSON name, unit kind and getter. The JSON writer, the CSV writer, the CLI table and the
 * WASM binding's numeric sweeps iterate it; the page formats each field by its unit kind.
 * To add a result field: a member of OfferingResult (evaluate.hpp) and one row in
 * core/src/output/result_fields.cpp.
 */
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/evaluate.hpp"

namespace gpucalc {

/** How a field's number is read: the page and the CLI format by it. Names carry the rest
 *  (`_per_gpu`, `_month`). */
enum class UnitKind {
  kText,        // a string (ids, names, reason codes)
  kFlag,        // true / false
  kCount,       // a whole number of things (GPUs, replicas, contexts)
  kBytes,       // bytes (decimal GB = 1e9 bytes when shown)
  kTokens,      // tokens
  kTokensPerS,  // tokens per second
  kSeconds,     // seconds
  kHours,       // hours (wall-clock or GPU-hours)
  kUsd,         // US dollars
  kRatio,       // a fraction, 0..1 unless the name says otherwise
  kWatts,       // watts (power per GPU)
  kJoules,      // joules (energy per token)
  kKwh,         // kilowatt-hours (energy per run)
};
/** "text" | "flag" | "count" | "bytes" | "tokens" | "tokens_per_s" | "seconds" | "hours" |
 *  "usd" | "ratio" | "watts" | "joules" | "kwh" */
const char* unit_kind_name(UnitKind unit);

/** Which workloads a field means something for (the CLI table shows only those). */
enum class FieldScope { kAll, kInference, kTraining };

/** One field's value: null (not computed), a number, an exact integer, a flag or text. */
struct FieldValue {
  enum class Type { kNull, kNumber, kInteger, kFlag, kText };
  Type type = Type::kNull;
  double number = 0.0;
  long long integer = 0;
  bool flag = false;
  std::string_view text;  // points into the result

  /** The number the binding's sweeps see: numbers, integers, flags as 1/0; nullopt else. */
  std::optional<double> as_number() const;
};

struct ResultField {
  const char* name;  // JSON name, e.g. "weights_bytes"
  UnitKind unit;
  FieldScope scope;
  FieldValue (*get)(const OfferingResult&);
};

/** The tokens a per-token cost or rate counts: "output" (generated tokens only) or "total"
 *  (input + output); nullptr for a field that counts no tokens. */
const char* token_kind(std::string_view field);

/** The tokens a serving curve point's usd_per_million_tokens counts. */
inline constexpr const char* kCurveTokenKind = "output";

/** The registry in output order. */
const std::vector<ResultField>& result_fields();

/** The field named `name`, or nullptr. */
const ResultField* find_result_field(std::string_view name);

/** The workload kinds in whose results `field` carries a formula (its trace entry): "all",
 *  "inference" or "training"; nullptr for a field without one. */
const char* formula_kinds(std::string_view field);

/** [{"name", "unit", "scope", "token_kind" and "formula" where it has them}] in registry order,
 *  for the page. */
std::string result_fields_json();

/**
 * The evaluation as CSV (RFC 4180): a header of "scenario" and every registry field, then one
 * row per compared offering. Fields holding a comma, quote, CR or LF are quoted with quotes
 * doubled; text cells starting with = + - @ tab or CR get a leading ' so a spreadsheet does
 * not run them as formulas; numbers are plain numbers; null is an empty cell. Lines end CRLF.
 */
std::string evaluation_to_csv(const Evaluation& evaluation);

}  // namespace gpucalc
