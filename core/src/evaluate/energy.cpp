#include "evaluate/energy.hpp"

#include "model/energy.hpp"

namespace gpucalc {

void estimate_energy(const Gpu& gpu, const Scenario& s, bool with_trace, OfferingResult& r) {
  // A projected part whose all-in power no source gives has no energy figures, and says why.
  if (gpu.projected && !gpu.all_in_power_w) r.warnings.emplace_back("all_in_power_unset");
  if (!gpu.all_in_power_w || !(gpu.all_in_power_w->value > 0.0) || r.deployed_gpus < 1) return;
  const double watts = gpu.all_in_power_w->value;
  const int gpus = r.deployed_gpus;
  r.all_in_power_w_per_gpu = watts;
  auto trace = [&](const char* field, const char* formula,
                   std::vector<std::pair<std::string, double>> inputs) {
    if (with_trace) {
      r.trace.push_back(TraceEntry{field, formula, std::move(inputs),
                                   gpu.all_in_power_w->estimate ? "power is an estimate" : ""});
    }
  };
  if (r.max_throughput_tokens_per_s && *r.max_throughput_tokens_per_s > 0.0) {
    const double tps = *r.max_throughput_tokens_per_s;
    r.energy_joules_per_output_token = energy_joules_per_token(watts, gpus, tps);
    r.output_tokens_per_s_per_mw = tokens_per_s_per_mw(tps, watts, gpus);
    r.energy_usd_per_million_tokens =
        energy_usd_per_million_tokens(*r.energy_joules_per_output_token, s.usd_per_kwh);
    trace("energy_joules_per_output_token",
          "all_in_power_w_per_gpu x deployed_gpus / max_throughput_tokens_per_s (at full load)",
          {{"all_in_power_w_per_gpu", watts}, {"deployed_gpus", gpus}, {"max_throughput_tokens_per_s", tps}});
    trace("output_tokens_per_s_per_mw",
          "max_throughput_tokens_per_s / (all_in_power_w_per_gpu x deployed_gpus / 10^6)",
          {{"max_throughput_tokens_per_s", tps}, {"all_in_power_w_per_gpu", watts}, {"deployed_gpus", gpus}});
    trace("energy_usd_per_million_tokens",
          "energy_joules_per_output_token x 10^6 / 3.6 x 10^6 J per kWh x usd_per_kwh",
          {{"energy_joules_per_output_token", *r.energy_joules_per_output_token}, {"usd_per_kwh", s.usd_per_kwh}});
  }
  if (r.train_hours && *r.train_hours > 0.0) {
    r.energy_kwh_per_run = energy_kwh(watts, gpus, *r.train_hours);
    r.energy_usd_per_run = *r.energy_kwh_per_run * s.usd_per_kwh;
    trace("energy_kwh_per_run", "all_in_power_w_per_gpu x deployed_gpus x train_hours / 1000",
          {{"all_in_power_w_per_gpu", watts}, {"deployed_gpus", gpus}, {"train_hours", *r.train_hours}});
    trace("energy_usd_per_run", "energy_kwh_per_run x usd_per_kwh",
          {{"energy_kwh_per_run", *r.energy_kwh_per_run}, {"usd_per_kwh", s.usd_per_kwh}});
  }
}

}  // namespace gpucalc
