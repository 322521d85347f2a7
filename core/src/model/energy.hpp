#pragma once
/**
 * Energy per token and per run from the all-in power per GPU (GPU, its share of the server,
 * networking and cooling: InferenceX's figure, data/gpus.json all_in_kw_per_gpu), InferenceX's
 * definitions: joules per token = power / tokens per second; tokens per second per MW.
 */

namespace gpucalc {

/** J per output token: power_w_per_gpu x gpus / output tokens per s. */
double energy_joules_per_token(double power_w_per_gpu, int gpus, double tokens_per_s);
/** Output tokens per s per MW: tokens per s / (power_w_per_gpu x gpus / 10^6). */
double tokens_per_s_per_mw(double tokens_per_s, double power_w_per_gpu, int gpus);
/** US$ of energy per million tokens: J per token x 10^6 / 3.6 x 10^6 J per kWh x US$ per kWh. */
double energy_usd_per_million_tokens(double joules_per_token, double usd_per_kwh);
/** kWh drawn by `gpus` GPUs for `hours`: power_w_per_gpu x gpus x hours / 1000. */
double energy_kwh(double power_w_per_gpu, int gpus, double hours);

}  // namespace gpucalc
