#pragma once
/** Pricing: per GPU-hour, per GB of HBM per month (seed 002's definitions). */

namespace gpucalc {

/** A listed US$/GPU-hour as a monthly price: rate x GPUs x 730 h (InferenceX tiers). */
double price_usd_per_month_from_gpu_hour(double usd_per_gpu_hour, int gpu_count);
/** month / GPUs / 730 h (seed 002). */
double price_usd_per_gpu_hour(double price_usd_per_month, int gpu_count);
/** month / (GPUs x capacity in decimal GB). */
double price_usd_per_gb_month(double price_usd_per_month, int gpu_count,
                              double capacity_bytes_per_gpu);

}  // namespace gpucalc
