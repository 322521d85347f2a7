// gpucalc-bench-check: loads a calibration record through the core's parser, as the catalog does.
// Usage: gpucalc-bench-check [--expect-dry-run] FILE...
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "gpucalc/calibration.hpp"

int main(int argc, char** argv) {
  bool expect_dry_run = false;
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--expect-dry-run") {
      expect_dry_run = true;
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
    const auto bf16 = r.matmul_best_flops_per_s[gpucalc::index_of(gpucalc::Precision::kBf16)];
    std::cout << arg << ": " << r.gpu_id << " (" << r.device_name << ", " << r.arch_target << ") "
              << r.date << (r.dry_run ? " dry run" : "") << "; triad "
              << (r.hbm_triad_bytes_per_s ? std::to_string(*r.hbm_triad_bytes_per_s / 1e9) + " GB/s" : "-")
              << "; bf16 " << (bf16 ? std::to_string(*bf16 / 1e12) + " TFLOP/s" : "-") << "\n";
    ++files;
  }
  if (files == 0) {
    std::cerr << "usage: gpucalc-bench-check [--expect-dry-run] FILE...\n";
    return 2;
  }
  return 0;
}
