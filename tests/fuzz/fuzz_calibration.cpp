// Fuzz the calibration record: parse it, then let it calibrate its GPU and evaluate every
// built-in offering of that GPU for inference or pretraining, with the output invariants
// asserted (a zero or tiny calibrated rate is never priced nor recommended).
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto rec = gpucalc::parse_calibration_record(text, "fuzz-record.json");
  if (!rec) {
    gpucalc::fuzz::check_json_stream(gpucalc::error_to_json(rec.error()), false);
    return 0;
  }
  gpucalc::Catalog c = gpucalc::default_catalog();
  if (c.find_gpu(rec.value().gpu_id) == nullptr) return 0;
  c.calibrations.push_back(rec.value());
  gpucalc::Scenario s;
  s.compare.clear();
  for (const auto& o : c.offerings) {
    if (o.gpu_id == rec.value().gpu_id && s.compare.size() < 2) s.compare.push_back(o.id);
  }
  s.compare.push_back(rec.value().gpu_id == "h200-sxm" ? "fullgpu-8x-mi355x" : "fullgpu-8x-h200");
  if (size % 2 == 1) {  // one evaluation a run: inference or pretraining, by the input's length
    s.workload = gpucalc::Workload::kPretrain;
    s.model = "llama-3.1-8b";
  }
  gpucalc::fuzz::evaluate_and_check(c, s);
  return 0;
}
