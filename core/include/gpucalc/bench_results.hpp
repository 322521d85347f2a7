#pragma once
/**
 * Serving-benchmark result files people already have, read into measured runs (text in, values
 * out): vLLM `vllm bench serve --save-result` JSON (or JSON Lines with --append-result), SGLang
 * `bench_serving` JSON Lines, genai-perf / AIPerf profile export JSON and CSV, and
 * InferenceX-style CSV rows (the columns of data/validation-serving.json's source table) or
 * InferenceX agg JSON rows. Keys, units and version differences: shared/reference/
 * benchmark-formats.md. Latencies come out in seconds, lengths in tokens per request (the mean
 * the file measured), throughput in tokens/s. A field the file does not give stays empty: the
 * caller takes it from the scenario, never from a guess.
 */
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/result.hpp"

namespace gpucalc {

/** Largest result file read (bytes) and most runs one file may hold. */
constexpr std::size_t kMaxBenchFileBytes = 64u << 20;
constexpr std::size_t kMaxBenchRuns = 200000;

/** One benchmark run (one load level) as a file reports it. */
struct BenchRun {
  std::string source;  // "file" or "file:line" (JSON Lines, CSV)
  std::string format;  // "vllm" | "sglang" | "genai-perf" | "aiperf" | "inferencex"
  std::string model;   // as written (a Hugging Face id, or a catalog id for InferenceX rows)
  std::string date;    // ISO 8601 date when the file has one
  std::optional<double> input_tokens, output_tokens;  // mean per request
  std::optional<double> concurrency;  // client's requests in flight (its cap)
  std::optional<double> request_rate_per_s;  // configured arrival rate; empty: unlimited / none
  std::optional<double> mean_ttft_s, median_ttft_s, mean_tpot_s, median_tpot_s;
  std::optional<double> output_tokens_per_s, total_tokens_per_s;  // whole benchmarked system
  std::optional<double> total_tokens_per_s_per_gpu;  // InferenceX rows: already per GPU
  // InferenceX rows name their deployment; other formats leave these empty.
  std::string gpu, engine, engine_version, weights, spec_decode;
  std::optional<int> tp, ep, dp_attention;
};

/**
 * Reads every run of one file, the format found from its content. Errors (kInvalidJson,
 * kBadValue, kOutOfRange, kTooLarge) name `source_name`, the line where the text has lines,
 * and the field: "runs.json: mean_ttft_ms", "bench.csv:14: median_tpot_s". Numbers must be
 * finite, non-negative and within physical bounds (latency under a day, lengths under 16M
 * tokens); NaN and Infinity are refused except as SGLang's unlimited request rate.
 */
Result<std::vector<BenchRun>> parse_bench_results(std::string_view text,
                                                  std::string_view source_name);

}  // namespace gpucalc
