#include "model/pricing.hpp"

#include "gpucalc/units.hpp"

namespace gpucalc {

double price_usd_per_month_from_gpu_hour(double usd_per_gpu_hour, int gpu_count) {
  return usd_per_gpu_hour * gpu_count * kHoursPerMonth;
}

double price_usd_per_gpu_hour(double price_usd_per_month, int gpu_count) {
  return price_usd_per_month / gpu_count / kHoursPerMonth;
}

double price_usd_per_gb_month(double price_usd_per_month, int gpu_count,
                              double capacity_bytes_per_gpu) {
  return price_usd_per_month / (gpu_count * capacity_bytes_per_gpu / kBytesPerGB);
}

double usd_per_million_total_tokens(double usd_per_million_output_tokens, double input_tokens,
                                    double output_tokens) {
  return usd_per_million_output_tokens * output_tokens / (input_tokens + output_tokens);
}

}  // namespace gpucalc
