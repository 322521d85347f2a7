#pragma once
// Internal: the physical bounds of every numeric figure a data document may state, by what the
// figure measures, and the check of unknown keys. One table: the parsers of engines.json,
// kernels.json, performance.json, error-bands.json, benchmark result files and serving
// calibrations, and the calibration's fit, name a bound per field instead of an
// `if` per field, so a reserve is never negative, a running request never zero, a latency never
// longer than seconds and a fraction of an achieved rate never below 0.001 or above 1.
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/json_value.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc::detail {

/** The accepted range of one kind of figure, inclusive, and its words in an error. */
struct Bound {
  double min;
  double max;
  const char* words;
};

// A fraction of an achieved rate (efficiency, KV share of memory): below 0.001 no rate means
// anything (a 1e-300 HBM fraction gave 1e-297 tok/s), above 1 it beats the rate it scales.
inline constexpr Bound kFraction{1e-3, 1.0, "a fraction from 0.001 to 1"};
// A latency of a step, a request or a layer: at most seconds (1e308 s made a 309-digit TTFT).
inline constexpr Bound kLatencyS{0.0, 10.0, "seconds, from 0 to 10"};
// A latency that must be more than nothing (a kernel launch, an all-reduce hop): 1 ns to 10 s.
inline constexpr Bound kPositiveLatencyS{1e-9, 10.0, "seconds, from 1e-9 to 10"};
// The same in microseconds (kernels.json's curves and GEMM floor).
inline constexpr Bound kLatencyUs{1e-3, 1e7, "microseconds, from 0.001 to 10,000,000"};
// Memory held back by an engine, per term: not negative (a negative reserve put a 671 GB
// model on one 141 GB GPU), at most 10 TB.
inline constexpr Bound kReserveMb{0.0, 1e7, "MB, from 0 to 10,000,000"};
// Requests or sequences an engine runs at once: at least one.
inline constexpr Bound kRequests{1.0, 1e7, "requests, from 1 to 10,000,000"};
// Decode steps an engine lets pass before it takes new requests in (0 or 1: every step).
inline constexpr Bound kGateSteps{0.0, 10000.0, "decode steps, from 0 to 10,000"};
// Token counts of a chunk or a GEMM size threshold.
inline constexpr Bound kTokens{1.0, 1e9, "tokens, from 1 to 1,000,000,000"};
// Bytes of one collective.
inline constexpr Bound kMessageBytes{1.0, 1e13, "bytes, from 1 to 1e13"};
// Memory of a GPU in GB (a threshold between GPU sizes).
inline constexpr Bound kGpuGb{1.0, 1e5, "GB, from 1 to 100,000"};
// Kernels launched per layer and part, or a traffic multiplier.
inline constexpr Bound kPerLayerCount{1e-3, 1000.0, "from 0.001 to 1,000"};
// Mean absolute percentage error, as a fraction (10 = 1,000 %).
inline constexpr Bound kErrorFraction{0.0, 10.0, "a fraction from 0 to 10"};
// Measured points behind an error figure.
inline constexpr Bound kPoints{0.0, 1e6, "from 0 to 1,000,000"};
// A price per month, when given: a cent at least (a price of 0 or 1e-320 won every comparison).
inline constexpr Bound kPriceUsdPerMonth{0.01, 1e9, "US$ from 0.01 to 1,000,000,000 a month"};

// Figures of a serving-benchmark result file (bench_results.cpp), in the units the parser
// returns (seconds, tokens, tokens/s). A latency of a whole request or step, at most a day: no
// benchmark waits longer per token.
inline constexpr Bound kBenchLatencyS{0.0, 86400.0, "seconds, from 0 to 86,400 (a day)"};
// Tokens of one request, on average: the scenario's input and output bound.
inline constexpr Bound kTokensPerRequest{0.0, 16777215.0, "tokens, from 0 to 16,777,215"};
// A benchmark client's requests in flight (the scenario's users bound), and its arrival rate.
inline constexpr Bound kBenchConcurrency{0.0, 1e6, "requests, from 0 to 1,000,000"};
inline constexpr Bound kRequestRatePerS{0.0, 1e6, "requests/s, from 0 to 1,000,000"};
// Tokens per second of a benchmarked system or GPU.
inline constexpr Bound kTokensPerS{0.0, 1e9, "tokens/s, from 0 to 1,000,000,000"};
// Requests completed and tokens summed over a whole run.
inline constexpr Bound kRunRequests{0.0, 1e12, "requests, from 0 to 1e12"};
inline constexpr Bound kRunTokens{0.0, 1e15, "tokens, from 0 to 1e15"};
// GPUs of a tensor- or expert-parallel group named by a file.
inline constexpr Bound kParallelDegree{1.0, 1024.0, "GPUs, from 1 to 1,024"};
// A 0 / 1 flag written as a number.
inline constexpr Bound kFlag{0.0, 1.0, "0 or 1"};

// The corrections a serving calibration fits (serving_calibration.cpp). A rate scale: a factor
// of 4 either way of the model's rate (and never above the datasheet peak, checked per GPU).
inline constexpr Bound kCorrectionScale{0.25, 4.0, "a factor from 0.25 to 4"};
// Seconds added per step: at most 50 ms; at least minus the model's own step overhead (per
// point), never below -1 s in a document.
inline constexpr Bound kStepOverheadCorrectionS{-1.0, 0.05, "seconds, from -1 to 0.05"};
// Seconds added per request before its first token: at most 5 s; never below -10 s.
inline constexpr Bound kRequestOverheadCorrectionS{-10.0, 5.0, "seconds, from -10 to 5"};
// A mean absolute error of a calibration, as a fraction (a miss by 1,000x at most).
inline constexpr Bound kMeanErrorFraction{0.0, 1e3, "a fraction from 0 to 1,000"};
// The serving calibration's own limits on a point: tensor parallel within one instance, MTP
// draft tokens, requests in flight; lengths and latencies use the bench-file bounds above.
inline constexpr Bound kInstanceTp{1.0, 64.0, "GPUs, from 1 to 64"};
inline constexpr Bound kMtpTokens{0.0, 16.0, "draft tokens, from 0 to 16"};
inline constexpr Bound kPointTokens{1.0, 16777215.0, "tokens, from 1 to 16,777,215"};
inline constexpr Bound kPointConcurrency{1.0, 1e6, "requests, from 1 to 1,000,000"};

// A calibration record's measured figures (the microbenchmark's): far above every GPU in
// data/gpus.json at parse time (1 PB/s, 1 EFLOP/s, a latency under a second); the record's GPU
// then holds each figure to its own datasheet.
// (Rates are only positive here: the plausibility check names a tiny one as below its GPU's.)
inline constexpr Bound kMeasuredBytesPerS{std::numeric_limits<double>::denorm_min(), 1e15,
                                          "a positive number of B/s, at most 1e15"};
inline constexpr Bound kMeasuredFlopsPerS{std::numeric_limits<double>::denorm_min(), 1e18,
                                          "a positive number of FLOP/s, at most 1e18"};
inline constexpr Bound kMeasuredLatencyS{1e-9, 1.0, "a number of seconds between 1e-9 and 1"};
// Sizes of a measured sweep: a GEMM's m, n or k, tokens per expert, a batch (2^20); experts of a
// grouped GEMM; a context; GPUs in an all-reduce.
inline constexpr Bound kSweepDim{1.0, 1048576.0, "from 1 to 1,048,576"};
inline constexpr Bound kSweepExperts{1.0, 4096.0, "experts, from 1 to 4,096"};
inline constexpr Bound kContextTokens{1.0, 16777216.0, "tokens, from 1 to 16,777,216"};
inline constexpr Bound kCollectiveGpus{2.0, 1024.0, "GPUs, from 2 to 1,024"};

/** An error naming `path` unless `x` lies within `b` (NaN and infinities never do). */
inline std::optional<Error> out_of_bound(const std::string& path, double x, const Bound& b) {
  if (x >= b.min && x <= b.max) return std::nullopt;
  Error e = make_error(ErrorCode::kOutOfRange, path,
                       std::string("must be ") + b.words + ", got " + json_number_text(x));
  e.params = {{"min", b.min}, {"max", b.max}};
  if (std::isfinite(x)) e.params.emplace_back("value", x);
  return e;
}

/** An error naming `path.key` for the first key of `object` that is not in `known` (a
 *  misspelt key would otherwise be ignored and its figure silently left at the default). */
inline std::optional<Error> unknown_key(const JsonValue& object, const std::string& path,
                                        std::initializer_list<std::string_view> known) {
  if (!object.is_object()) return std::nullopt;
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool found = false;
    for (std::string_view k : known) found = found || k == it.key();
    if (found) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return make_error(ErrorCode::kInvalidCatalog, path + "." + it.key(),
                      "is not a known key here (these are: " + list + ")");
  }
  return std::nullopt;
}

}  // namespace gpucalc::detail
