// What the page knows about the core's scenario keys and result fields, in one module: the key
// schema (names, defaults, ranges, choices, fit keys), the decoded inputs of a result, the
// provenance codes of the rates, the unit kind of each result field, and a decode that keeps
// the valid keys of a link. Everything comes from the core through gpucalc.js.
//
// ADAPTER: until the core's key schema, `inputs` echo, `rates_source` codes, field registry and
// lenient decode reach this branch, the functions marked "until" stand in for them. Nothing
// outside this module parses a scenario or a label.
import * as gpucalc from './gpucalc.js';

let keyRows = [];
let byKey = new Map();

/** Reads the schema from the loaded module (once, after gpucalc.load()). */
export function initSchema() {
  keyRows = gpucalc.scenarioKeys().map((k) => ({ ...UNTIL_SCHEMA[k.key], ...k, key: k.key, defaultText: k.defaultText }));
  byKey = new Map(keyRows.map((k) => [k.key, k]));
}

/** [{key, defaultText, kind, fit, min, max, choices}] in schema order. */
export const keys = () => keyRows;
export const keyInfo = (key) => byKey.get(key);
/** Keys the what-fits table depends on. */
export const fitKeys = () => keyRows.filter((k) => k.fit).map((k) => k.key);
/** Offerings a scenario may compare. */
export const maxCompare = () => (byKey.get('compare') || {}).max || 1;

/** key -> text of every scenario key of an evaluation, defaults applied, as the core decoded it. */
export function inputsOf(evaluation) {
  // until the `inputs` echo: the canonical scenario's pairs over the schema's defaults.
  const map = new Map(keyRows.map((k) => [k.key, k.defaultText]));
  for (const [k, v] of pairs(evaluation.scenario)) map.set(k, v);
  return map;
}

/** The items of a list key's decoded text (compare, price). */
export function listOf(inputs, key) {
  const v = inputs.get(key);
  return v ? v.split(',') : [];
}

/** Provenance of an offering's rates: {source: calibrated|measured|peak|override, estimate,
 *  device, date}. */
export function ratesSource(result) {
  if (typeof result.rates_source === 'string') {
    return { source: result.rates_source, estimate: Boolean(result.rates_estimate),
      device: result.calibration_device || '', date: result.calibration_date || '' };
  }
  // until `rates_source`: the codes behind the core's label.
  const label = result.rates_label || '';
  const estimate = /\(some figures estimate/.test(label);
  const m = /^calibrated on ([^(]*)/.exec(label);
  if (m) return { source: 'calibrated', estimate, device: m[1].trim(), date: '' };
  return { source: label.startsWith('public measurements') ? 'measured' : 'peak', estimate, device: '', date: '' };
}

/** Unit kind of a result field (bytes, count, usd, ...), from the core's field registry. */
export function fieldKind(name) {
  return UNTIL_FIELDS[name] || '';
}

/** HBM of an offering as sold: GPUs x the marketed capacity. */
export function hbmTotalBytes(result, gpu) {
  if (typeof result.hbm_marketed_bytes === 'number') return result.hbm_marketed_bytes;
  // until the core's result carries it.
  return typeof gpu.hbm_marketed_bytes === 'number' ? gpu.hbm_marketed_bytes * result.gpu_count : null;
}

/**
 * Decodes a link's scenario keeping what is valid: {scenario, errors}, `scenario` the text of
 * the keys that decode, `errors` one GpucalcError per key that does not. A newer `v` keeps the
 * keys this version knows.
 */
export function decodeLenient(text) {
  // until the core's lenient decode: drop the key each strict decode names, and retry.
  let parts = text.split('&').filter(Boolean);
  const errors = [];
  for (let tries = 0; tries < 64; tries++) {
    const scenario = parts.join('&') || 'v=1';
    try {
      gpucalc.evaluate(scenario);
      return { scenario, errors };
    } catch (e) {
      if (!(e instanceof gpucalc.GpucalcError)) throw e;
      const field = e.field.replace(/\[.*$/, '');
      const bad = (p) => (p.includes('=') ? p.slice(0, p.indexOf('=')) : p) === field;
      const part = parts.find(bad);
      if (part !== undefined) e.value = part.slice(part.indexOf('=') + 1);
      errors.push(e);
      if (field === 'v') parts = parts.map((p) => (bad(p) ? 'v=1' : p));
      else if (field && parts.some(bad)) parts = parts.filter((p) => !bad(p));
      else return { scenario: 'v=1', errors };
    }
  }
  return { scenario: 'v=1', errors };
}

function pairs(text) {
  return text.split('&').filter(Boolean).map((p) => {
    const eq = p.indexOf('=');
    return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
  });
}

// until the schema reaches the binding: kinds, fit keys and ranges the page needs.
const UNTIL_SCHEMA = {
  context: { fit: true }, users: { fit: true }, kv: { fit: true }, reserve: { fit: true },
  capacity: { fit: true }, compare: { fit: true, min: 1, max: 4 },
};

// until the field registry reaches the binding.
const UNTIL_FIELDS = {
  capacity_bytes_per_gpu: 'bytes', reserve_bytes_per_gpu: 'bytes', weights_bytes: 'bytes',
  weights_bytes_per_gpu: 'bytes', kv_used_bytes_per_gpu: 'bytes', headroom_bytes_per_gpu: 'bytes',
  kv_bytes_per_token: 'bytes_small', kv_bytes_per_context: 'bytes', kv_free_bytes_per_gpu: 'bytes',
  kv_free_bytes: 'bytes', gpus_needed_weights_only: 'count', gpus_needed: 'count',
  full_contexts_per_instance: 'count', full_contexts: 'count', max_context_tokens: 'count',
  replicas: 'count', instance_gpus: 'count', gpu_count: 'count', tensor_parallel: 'count', pipeline_parallel: 'count',
  price_month_usd: 'usd', price_gpu_hour_usd: 'usd_rate', price_gb_month_usd: 'usd_rate',
  price_delta_month_usd: 'usd_delta', max_throughput_tokens_per_s: 'rate', decode_tokens_per_s_per_user: 'rate_small',
  ttft_s: 'seconds', tpot_s: 'seconds', usd_per_million_tokens: 'usd_per_mtok',
  train_tokens_per_s: 'rate', train_hours: 'hours', gpu_hours: 'count',
  run_cost_usd: 'usd', train_memory_bytes_per_gpu: 'bytes',
};
