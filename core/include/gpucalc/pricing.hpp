#pragma once
/** Pricing: per GPU-hour, per GB of HBM per month (seed 002's definitions). */

namespace gpucalc {

/** month / GPUs / 730 h (seed 002). */
double price_usd_per_gpu_hour(double price_usd_per_month, int gpu_count);
/** month / (GPUs x capacity in decimal GB). */
double price_usd_per_gb_month(double price_usd_per_month, int gpu_count,
                              double capacity_bytes_per_gpu);

}  // namespace gpucalc
