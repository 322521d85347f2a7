#include "model/energy.hpp"

#include "gpucalc/units.hpp"

namespace gpucalc {

double energy_joules_per_token(double power_w_per_gpu, int gpus, double tokens_per_s) {
  return tokens_per_s > 0.0 ? power_w_per_gpu * gpus / tokens_per_s : 0.0;
}

double tokens_per_s_per_mw(double tokens_per_s, double power_w_per_gpu, int gpus) {
  const double megawatts = power_w_per_gpu * gpus / kWattsPerMegawatt;
  return megawatts > 0.0 ? tokens_per_s / megawatts : 0.0;
}

double energy_usd_per_million_tokens(double joules_per_token, double usd_per_kwh) {
  return joules_per_token * 1e6 / kJoulesPerKwh * usd_per_kwh;
}

double energy_kwh(double power_w_per_gpu, int gpus, double hours) {
  return power_w_per_gpu * gpus * hours / kWattsPerKilowatt;
}

}  // namespace gpucalc
