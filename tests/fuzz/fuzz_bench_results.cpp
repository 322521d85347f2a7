// Fuzz the benchmark result readers and the serving calibration document: any text is read as
// a result file (runs or an error naming the file) and as a calibration document; a document
// that parses is loaded into the catalog and corrects its GPU's serving figures, with the
// output invariants asserted.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "gpucalc/bench_results.hpp"
#include "gpucalc/serving_calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto runs = gpucalc::parse_bench_results(text, "fuzz-runs.json");
  if (!runs) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(runs.error()), false);
  } else {
    for (const auto& r : runs.value()) {
      for (const auto& v : {r.mean_ttft_s, r.median_ttft_s, r.mean_tpot_s, r.median_tpot_s,
                            r.total_tokens_per_s, r.output_tokens_per_s, r.input_tokens,
                            r.output_tokens, r.concurrency, r.total_tokens_per_s_per_gpu}) {
        if (v && !(std::isfinite(*v) && *v >= 0.0)) gpucalc::fuzz::violated("a run figure is negative or not finite");
      }
    }
  }
  auto cal = gpucalc::parse_serving_calibration(text, "fuzz-calibration.json");
  if (!cal) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(cal.error()), false);
    return 0;
  }
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), text, "fuzz-calibration.json");
  if (!c) return 0;
  gpucalc::Scenario s;
  s.compare.clear();
  for (const auto& o : c.value().offerings) {
    if (o.gpu_id == cal.value().gpu_id && s.compare.size() < 2) s.compare.push_back(o.id);
  }
  if (s.compare.empty()) return 0;
  s.model = "deepseek-v3";
  gpucalc::fuzz::evaluate_and_check(c.value(), s);
  return 0;
}
