#pragma once
/** Pricing: per GPU-hour, per GB of HBM per month (seed 002's definitions), per million tokens
 *  counted in and out. */

namespace gpucalc {

/** A listed US$/GPU-hour as a monthly price: rate x GPUs x 730 h (InferenceX tiers). */
double price_usd_per_month_from_gpu_hour(double usd_per_gpu_hour, int gpu_count);
/** month / GPUs / 730 h (seed 002). */
double price_usd_per_gpu_hour(double price_usd_per_month, int gpu_count);
/** month / (GPUs x capacity in decimal GB). */
double price_usd_per_gb_month(double price_usd_per_month, int gpu_count,
                              double capacity_bytes_per_gpu);
/**
 * US$ per million tokens counted in and out (input + output), from the cost per million output
 * tokens at the same operating point: each request of `input_tokens` + `output_tokens` is paid
 * once, so usd_per_million_output x output / (input + output).
 */
double usd_per_million_total_tokens(double usd_per_million_output_tokens, double input_tokens,
                                    double output_tokens);

}  // namespace gpucalc
