#pragma once
/**
 * The output invariants, in one place. evaluate() enforces them on every result before the
 * verdict; the fuzz targets and tests check them on whatever comes out.
 *
 * 1. A rate is a finite number of at least kMinReportedTokensPerS. One that is not (zero, a
 *    denormal, infinite or NaN, e.g. from a calibration figure of 5e-324 B/s) cannot be computed:
 *    it and every figure derived from it (price and energy per token, hours, run cost, energy
 *    per run) become empty (null), the result gets the warning
 *    `rate_not_computable`, and such an offering is never priced per token nor recommended.
 *    Never US$0 per million tokens for a zero throughput.
 *    A rate also stays below the GPU's peak (tokens/s per GPU at most the highest dense
 *    FLOP/s over 2 x active parameters) and a latency (TTFT, TPOT) at most kMaxLatencyS; the
 *    serving curve and its two named points (max_throughput_point, interactivity_point) are
 *    held to the same, and one point out of range clears the curve, both points and the
 *    throughput with it.
 * 2. Sizes (bytes), counts (GPUs, replicas, contexts, tokens), times (s, hours) and prices (US$)
 *    are finite and not negative. Exempt, as documented in docs/cli-and-json.md: the differences
 *    kv_free_bytes_per_gpu, kv_free_bytes, headroom_bytes_per_gpu and price_delta_month_usd
 *    (finite, any sign). A violation makes the evaluation an error naming the result and the
 *    field, never a figure.
 */
#include <optional>
#include <string>

#include "gpucalc/evaluate.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/result.hpp"

namespace gpucalc {

/** Smallest throughput reported, tokens/s (one token in 1,000 s). Below it, or for a
 *  per-token price computed from it, no figure means anything: "cannot compute". */
constexpr double kMinReportedTokensPerS = 1e-3;

/** Longest latency (TTFT, TPOT) reported, s: a day. Beyond it a figure is a hostile input's. */
constexpr double kMaxLatencyS = 86400.0;

/** Largest ratio a verdict reason states (x times cheaper, faster): beyond it the figures
 *  compared are outside the model's range and no reason is given. */
constexpr double kMaxVerdictRatio = 1e6;

/** Applies invariant 1 (clears what cannot be computed, adds the warning) and checks
 *  invariant 2 on every result; the error names `results[i](offering).field`. */
Result<bool> enforce_output_invariants(Evaluation& evaluation);

/** Checks both invariants without changing anything, the verdict's params (finite, not
 *  negative, a ratio at most kMaxVerdictRatio) and the recommendation (never an offering whose rates cannot be computed). */
std::optional<Error> check_output_invariants(const Evaluation& evaluation);

/** Invariant 2 for one fit (the "what fits" table checks every cell with it). */
std::optional<Error> check_fit_invariants(const MemoryFit& fit, const std::string& path);

/** True when the result carries the warning `rate_not_computable`. */
bool rate_not_computable(const OfferingResult& result);

}  // namespace gpucalc
