// Shortcuts the form offers: each preset sets scenario keys to values a buyer often means. They
// fill the form only; the core computes everything from the keys as usual.

/** Request shapes (input, output, context tokens) and the speed per user each is priced at
 *  (`interactivity`, tokens/s per user = 1 / TPOT). The long-context one sets the input near the
 *  context, so that decode is read at 128K, not at a short request inside a 128K window.
 *  Speeds: MLPerf Inference Interactive's p99 TPOT limit of the benchmark of that kind
 *  (mlcommons/inference `inference_rules.adoc`, shared/reference/serving-measured.md): chat,
 *  Llama 2 70B on OpenOrca, 40 ms = 25 tokens/s; reasoning, gpt-oss-120b, 20 ms = 50;
 *  summarisation, Llama 3.1 8B on CNN/DailyMail, 30 ms = 33; long context, Llama 3.1 405B,
 *  80 ms = 12.5. Each lies inside what InferenceX measured for DeepSeek-R1 on these shapes
 *  (1K/1K 14-170 tokens/s per user, 1K/8K 19-157, 8K/1K 8-206). */
export const WORKLOADS = [
  { id: 'chat', keys: { input: 1024, output: 1024, context: 131072, interactivity: 25 } },
  { id: 'reasoning', keys: { input: 1024, output: 8192, context: 131072, interactivity: 50 } },
  { id: 'summarisation', keys: { input: 8192, output: 1024, context: 131072, interactivity: 33 } },
  { id: 'long_context', keys: { input: 130048, output: 1024, context: 131072, interactivity: 12.5 } },
];

/** Speed per user the cost is read at (tokens/s per user; 0 = the cheapest point, any speed). */
export const INTERACTIVITY = [20, 50, 100, 0];

/**
 * Latency limits (ttft_max, tpot_max in seconds; 0 = none) per catalog model.
 * MLPerf Inference Server / Interactive: p99 TTFT / p99 TPOT of the public rules
 * (mlcommons/inference `inference_rules.adoc`, `loadgen/mlperf.conf`; as copied in
 * shared/reference/serving-measured.md). The catalog's DeepSeek-V3 / R1 takes DeepSeek-R1's.
 * "chat": TTFT 1 s and TPOT 50 ms (20 tokens/s per user), a page choice: an answer that starts
 * within a second and streams faster than people read. "batch": no limit.
 */
export const MLPERF = {
  'llama-2-70b': { server: [2, 0.2], interactive: [0.45, 0.04] },
  'llama-3.1-405b': { server: [6, 0.175], interactive: [4.5, 0.08] },
  'llama-3.1-8b': { server: [2, 0.1], interactive: [0.5, 0.03] },
  'mixtral-8x7b': { server: [2, 0.2] },
  'deepseek-v3': { server: [2, 0.08], interactive: [1.5, 0.015] },
  'gpt-oss-120b': { server: [3, 0.08], interactive: [2, 0.02] },
};
export const LATENCY = [
  { id: 'mlperf_server', limits: (model) => MLPERF[model] && MLPERF[model].server },
  { id: 'mlperf_interactive', limits: (model) => MLPERF[model] && MLPERF[model].interactive },
  { id: 'latency_chat', limits: () => [1, 0.05] },
  { id: 'batch', limits: () => [0, 0] },
];
