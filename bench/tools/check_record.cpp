// gpucalc-bench-check: loads a calibration record through the core's parser, as the catalog does.
// Usage: gpucalc-bench-check [--expect-dry-run] [--expect-serving] FILE...
//   --expect-serving  every serving-model field must hold a figure
// A record that is not a dry run is also held to its catalog GPU's datasheet, as the catalog does.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "gpucalc/calibration.hpp"
#include "gpucalc/catalog.hpp"

int main(int argc, char** argv) {
  bool expect_dry_run = false;
  bool expect_serving = false;
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--expect-dry-run") {
      expect_dry_run = true;
      continue;
    }
    if (arg == "--expect-serving") {
      expect_serving = true;
      continue;
    }
    std::ifstream in(arg);
    if (!in) {
      std::cerr << "gpucalc-bench-check: cannot read " << arg << "\n";
      return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const auto record = gpucalc::parse_calibration_record(text.str(), arg);
    if (!record) {
      std::cerr << "gpucalc-bench-check: " << record.error().to_string() << "\n";
      return 1;
    }
    const auto& r = record.value();
    if (expect_dry_run && !r.dry_run) {
      std::cerr << "gpucalc-bench-check: " << arg << ": expected a dry-run record\n";
      return 1;
    }
    if (!r.dry_run) {
      const gpucalc::Gpu* gpu = gpucalc::default_catalog().find_gpu(r.gpu_id);
      if (gpu == nullptr) {
        std::cerr << "gpucalc-bench-check: " << arg << ": gpu_id " << r.gpu_id << " is not in the catalog\n";
        return 1;
      }
      const auto plausible = gpucalc::check_calibration_against_gpu(r, *gpu);
      if (!plausible) {
        std::cerr << "gpucalc-bench-check: " << plausible.error().to_string() << "\n";
        return 1;
      }
    }
    const std::size_t bf16_i = gpucalc::index_of(gpucalc::Precision::kBf16);
    if (expect_serving) {
      const char* missing = r.gemm_small[bf16_i].empty()     ? "gemm_small_bf16"
                            : r.grouped_gemm[bf16_i].empty() ? "grouped_gemm_bf16"
                            : r.attention_decode.empty()     ? "attention_decode"
                            : r.allreduce.empty()            ? "allreduce"
                            : !r.launch_latency_s            ? "launch_latency"
                            : !r.graph_launch_latency_s      ? "graph_launch_latency"
                                                             : nullptr;
      if (missing != nullptr) {
        std::cerr << "gpucalc-bench-check: " << arg << ": no figure for " << missing << "\n";
        return 1;
      }
    }
    std::cout << arg << ": serving fields: gemm_small_bf16 " << r.gemm_small[bf16_i].size()
              << " points, grouped_gemm_bf16 " << r.grouped_gemm[bf16_i].size()
              << ", attention_decode " << r.attention_decode.size() << ", allreduce "
              << r.allreduce.size() << " sizes over " << r.allreduce_gpus << " GPUs, launch "
              << (r.launch_latency_s ? std::to_string(*r.launch_latency_s * 1e6) + " us" : "-")
              << ", graph " << (r.graph_launch_latency_s ? std::to_string(*r.graph_launch_latency_s * 1e6) + " us" : "-")
              << "\n";
    const auto bf16 = r.matmul_best_flops_per_s[bf16_i];
    std::cout << arg << ": " << r.gpu_id << " (" << r.device_name << ", " << r.arch_target << ") "
              << r.date << (r.dry_run ? " dry run" : "") << "; triad "
              << (r.hbm_triad_bytes_per_s ? std::to_string(*r.hbm_triad_bytes_per_s / 1e9) + " GB/s" : "-")
              << "; bf16 " << (bf16 ? std::to_string(*bf16 / 1e12) + " TFLOP/s" : "-") << "\n";
    ++files;
  }
  if (files == 0) {
    std::cerr << "usage: gpucalc-bench-check [--expect-dry-run] [--expect-serving] FILE...\n";
    return 2;
  }
  return 0;
}
