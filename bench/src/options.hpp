#pragma once
/** Command-line options of gpucalc-bench. */
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"

namespace gpucalc::bench {

/** Timing defaults of the small-M GEMM tests: a short warm-up, many short samples. */
inline GemmConfig small_gemm_defaults() {
  GemmConfig c;
  c.warmup_s = 2.0;
  c.samples = 5;
  c.seconds_per_sample = 0.01;
  return c;
}

struct Options {
  bool help = false;
  bool version = false;
  bool dry_run = false;        // host back end: runs the pipeline, never calibrates
  bool quiet = false;
  bool run_hbm = true;
  bool run_gemm = true;
  bool run_p2p = true;
  // Serving-model tests.
  bool run_gemm_small = true;
  bool run_grouped_gemm = true;
  bool run_attention_decode = true;
  bool run_allreduce = true;
  bool run_launch = true;
  int device = 0;
  std::string gpu_id;          // catalog id; empty: matched from the device name
  std::string out_path;        // empty: stdout
  std::string date;            // empty: today (UTC)
  std::string note;            // free text copied into the record
  std::vector<GemmPrecision> precisions;  // empty: every precision the device has
  bool precisions_explicit = false;
  StreamConfig stream;
  GemmConfig gemm;             // shapes empty: the default set for the back end
  P2pConfig p2p;
  std::vector<int> small_m = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};  // tokens per GEMM
  std::vector<std::string> models;  // whose layer shapes the GEMM tests use; empty: all
  std::vector<int> experts = {8, 32};
  std::vector<int> tokens_per_expert = {1, 4, 16, 64, 256};
  GemmConfig small_gemm = small_gemm_defaults();  // timing of gemm-small and grouped-gemm
  AttentionConfig attention;
  AllreduceConfig allreduce;
  LaunchConfig launch;
};

/** Parses argv; on error returns a message for stderr (exit code 2). */
std::optional<std::string> parse_options(int argc, const char* const* argv, Options& out);

/** The --help text. */
std::string usage_text();

/** "2GiB", "512MiB", "1e9", "4096" to bytes; empty on a malformed size. */
std::optional<std::uint64_t> parse_bytes(const std::string& text);

/** "8192x8192x8192,4096x4096x16384" to shapes; empty on a malformed list. */
std::optional<std::vector<GemmShape>> parse_shapes(const std::string& text);

/** The fixed shape set over which the GEMM median is taken (GPU back ends). */
std::vector<GemmShape> default_gpu_shapes();

/** A small set the host back end can run in well under a second. */
std::vector<GemmShape> default_host_shapes();

}  // namespace gpucalc::bench
