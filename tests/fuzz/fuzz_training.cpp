// Fuzz training and fine-tuning: the input is a scenario string, its first byte picks the
// workload (pretrain, finetune, lora, qlora) when the string leaves it at inference. The fit is
// the training memory; a run that does not fit has no cost and is never recommended.
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const gpucalc::Workload workloads[] = {gpucalc::Workload::kPretrain, gpucalc::Workload::kFinetune,
                                         gpucalc::Workload::kLora, gpucalc::Workload::kQlora};
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto s = gpucalc::decode_scenario(text);
  if (!s) return 0;
  gpucalc::Scenario scenario = s.value();
  if (scenario.workload == gpucalc::Workload::kInference)
    scenario.workload = workloads[data[0] % 4];
  auto ev = gpucalc::evaluate(gpucalc::default_catalog(), scenario, true);
  if (!ev) return 0;
  gpucalc::fuzz::check_evaluation(ev.value());
  for (const auto& r : ev.value().results) {
    if (!r.fit.fits && (r.run_cost_usd || r.train_hours || r.train_steps)) {
      gpucalc::fuzz::violated(r.offering_id + ": a run that does not fit has a time, steps or cost");
    }
    if (!r.fit.fits && ev.value().recommended_offering_id == r.offering_id) {
      gpucalc::fuzz::violated(r.offering_id + ": recommended but does not fit");
    }
    if (r.train_memory_bytes_per_gpu &&
        r.fit.fits != (*r.train_memory_bytes_per_gpu <= r.fit.capacity_bytes_per_gpu)) {
      gpucalc::fuzz::violated(r.offering_id + ": fit disagrees with the training memory");
    }
  }
  return 0;
}
