// What the page knows about the core's scenario keys and result fields, in one module: the key
// schema (names, defaults, ranges, choices, fit keys), the decoded inputs of a result, the
// provenance codes of the rates, the unit of each result field, and a decode that keeps the
// valid keys of a link. Everything comes from the core through gpucalc.js.
//
// ADAPTER: where the module does not yet carry the core's key schema, `inputs` echo,
// `rates_source` codes, field registry or lenient decode, the parts marked "until" stand in
// for them. Nothing outside this module reads a scenario string or a label.
import * as gpucalc from './gpucalc.js';

let keyRows = [];
let byKey = new Map();
let units = new Map();

/** Reads the schema and the field registry from the loaded module (once, after load()). */
export function initSchema() {
  const schema = gpucalc.scenarioSchema();
  keyRows = schema
    ? schema.map((k) => ({ ...k, defaultText: k.default_text, fit: Boolean(k.fit_key) }))
    : gpucalc.scenarioKeys().map((k) => ({ ...UNTIL_SCHEMA[k.key], ...k })); // until the schema
  byKey = new Map(keyRows.map((k) => [k.key, k]));
  const fields = gpucalc.resultFields();
  units = new Map(fields ? fields.map((f) => [f.name, f.unit]) : Object.entries(UNTIL_FIELDS));
}

/** [{key, kind, defaultText, fit, min, max, choices, description}] in schema order. */
export const keys = () => keyRows;
export const keyInfo = (key) => byKey.get(key);
/** Keys the what-fits table depends on. */
export const fitKeys = () => keyRows.filter((k) => k.fit).map((k) => k.key);
/** Offerings a scenario may compare. */
export const maxCompare = () => (byKey.get('compare') || {}).max || 1;

/** A decoded value as scenario text, by its key's kind. */
function asText(key, value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Array.isArray(value)) {
    const items = value.map((x) => (x === null ? '-' : String(x)));
    return key === 'price' && items.every((x) => x === '-') ? '' : items.join(',');
  }
  return String(value);
}

/** key -> text of every scenario key of an evaluation, defaults applied, as the core decoded it. */
export function inputsOf(evaluation) {
  const map = new Map(keyRows.map((k) => [k.key, k.defaultText]));
  if (evaluation.inputs && typeof evaluation.inputs === 'object') {
    for (const [k, v] of Object.entries(evaluation.inputs)) map.set(k, asText(k, v));
  } else {
    for (const [k, v] of pairs(evaluation.scenario)) map.set(k, v); // until the `inputs` echo
  }
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

/** Unit of a result field (bytes, count, usd, ...), from the core's field registry. */
export const fieldKind = (name) => units.get(name) || '';

// Which validation metric's error band covers a predicted figure (the core's `error_band` is
// keyed by metric: interactivity, throughput_per_gpu, ttft).
const BAND_METRIC = {
  decode_tokens_per_s_per_user: 'interactivity', tpot_s: 'interactivity', tokens_per_s_per_user: 'interactivity',
  ttft_s: 'ttft', total_tokens_per_s_per_gpu: 'throughput_per_gpu', output_tokens_per_s_per_gpu: 'throughput_per_gpu',
  max_throughput_tokens_per_s: 'throughput_per_gpu', usd_per_million_tokens: 'throughput_per_gpu',
};
/** The error band of a predicted figure of `result`: {mape, points} or null. */
export function bandOf(result, field) {
  const bands = result.error_band;
  const b = bands && typeof bands === 'object' ? bands[BAND_METRIC[field]] : null;
  return b && typeof b.mape === 'number' && b.points > 0 ? b : null;
}

/** HBM of an offering as sold: GPUs x the marketed capacity. */
export function hbmTotalBytes(result, gpu) {
  if (typeof result.hbm_marketed_bytes === 'number') return result.hbm_marketed_bytes;
  // until the core's result carries it.
  return typeof gpu.hbm_marketed_bytes === 'number' ? gpu.hbm_marketed_bytes * result.gpu_count : null;
}

/**
 * Decodes a link's scenario keeping what is valid: {scenario, errors}, `scenario` the core's
 * canonical text of the keys that decode, `errors` one GpucalcError per key that does not
 * (`value`: the text the link gave it, for the message). A newer `v` keeps the known keys.
 */
export function decodeLenient(text) {
  const decoded = gpucalc.decodeScenario(text);
  if (decoded) {
    for (const e of decoded.errors) e.value = rawValue(text, e.field);
    return { scenario: decoded.scenario, errors: decoded.errors };
  }
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
      e.value = rawValue(text, field);
      errors.push(e);
      if (field === 'v') parts = parts.map((p) => (bad(p) ? 'v=1' : p));
      else if (field && parts.some(bad)) parts = parts.filter((p) => !bad(p));
      else return { scenario: 'v=1', errors };
    }
  }
  return { scenario: 'v=1', errors };
}

/** What the link's text gave `key` (shown in the message next to the field; never decoded). */
function rawValue(text, key) {
  const base = (key || '').replace(/\[.*$/, '');
  const hit = pairs(text).find(([k]) => k === base);
  return hit ? hit[1] : undefined;
}

function pairs(text) {
  return text.split('&').filter(Boolean).map((p) => {
    const eq = p.indexOf('=');
    return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
  });
}

// until the schema reaches the binding: the fit keys and the compare limit.
const UNTIL_SCHEMA = {
  model: { fit: true }, weights: { fit: true }, context: { fit: true }, users: { fit: true }, kv: { fit: true },
  reserve: { fit: true }, capacity: { fit: true }, compare: { fit: true, kind: 'id_list', min: 1, max: 4 },
};

// until the field registry reaches the binding: the registry's unit of each field.
const UNTIL_FIELDS = {
  capacity_bytes_per_gpu: 'bytes', reserve_bytes_per_gpu: 'bytes', weights_bytes: 'bytes',
  weights_bytes_per_gpu: 'bytes', kv_used_bytes_per_gpu: 'bytes', headroom_bytes_per_gpu: 'bytes',
  kv_bytes_per_token: 'bytes', kv_bytes_per_context: 'bytes', kv_free_bytes_per_gpu: 'bytes',
  kv_free_bytes: 'bytes', gpus_needed_weights_only: 'count', gpus_needed: 'count',
  full_contexts_per_instance: 'count', full_contexts: 'count', max_context_tokens: 'tokens',
  replicas: 'count', instance_gpus: 'count', gpu_count: 'count', tensor_parallel: 'count', pipeline_parallel: 'count',
  price_month_usd: 'usd', price_gpu_hour_usd: 'usd', price_gb_month_usd: 'usd',
  price_delta_month_usd: 'usd', max_throughput_tokens_per_s: 'tokens_per_s', decode_tokens_per_s_per_user: 'tokens_per_s',
  ttft_s: 'seconds', tpot_s: 'seconds', usd_per_million_tokens: 'usd',
  train_tokens_per_s: 'tokens_per_s', train_hours: 'hours', gpu_hours: 'hours',
  run_cost_usd: 'usd', train_memory_bytes_per_gpu: 'bytes',
};
