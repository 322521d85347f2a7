#pragma once
/** Command-line options of gpucalc-bench. */
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"

namespace gpucalc::bench {

struct Options {
  bool help = false;
  bool version = false;
  bool dry_run = false;        // host back end: runs the pipeline, never calibrates
  bool quiet = false;
  bool run_hbm = true;
  bool run_gemm = true;
  bool run_p2p = true;
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
