// What the page knows about the core's scenario keys and result fields, in one module: the key
// schema (names, kinds, defaults, ranges, choices, fit keys), the decoded inputs of a result,
// the provenance codes of the rates, the unit of each result field, and the core's lenient
// decode of a link. Everything comes from the core through gpucalc.js; nothing outside this
// module reads a scenario string, and nothing here derives a default or a figure.
import * as gpucalc from './gpucalc.js';

let keyRows = [];
let byKey = new Map();
let units = new Map();

/** Reads the schema and the field registry from the loaded module (once, after load()). */
export function initSchema() {
  keyRows = gpucalc.scenarioSchema().map((k) => ({ ...k, defaultText: k.default_text, fit: Boolean(k.fit_key) }));
  byKey = new Map(keyRows.map((k) => [k.key, k]));
  units = new Map(gpucalc.resultFields().map((f) => [f.name, f.unit]));
}

/** The units of the result fields ({name: unit}) before the module has loaded: the build's
 *  first answer carries them, as the core's registry gave them (initSchema replaces them). */
export function useFieldUnits(byName) {
  units = new Map(Object.entries(byName || {}));
}

/** [{key, kind, defaultText, fit, min, max, choices, description}] in schema order. */
export const keys = () => keyRows;
export const keyInfo = (key) => byKey.get(key);
/** Keys the what-fits table depends on. */
export const fitKeys = () => keyRows.filter((k) => k.fit).map((k) => k.key);
/** Offerings a scenario may compare. */
export const maxCompare = () => (byKey.get('compare') || {}).max || 1;

/** A number as scenario text: plain decimal digits, never an exponent (String(1e-30) is "1e-30",
 *  which the scenario grammar does not read), the same digits otherwise. */
export function plainNumber(v) {
  const text = String(v);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, lead, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = lead + frac;
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (exp >= frac.length) return `${sign}${digits}${'0'.repeat(exp - frac.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** A decoded value as scenario text, by its key's kind. */
function asText(key, value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  const one = (x) => (typeof x === 'number' ? plainNumber(x) : String(x));
  if (Array.isArray(value)) {
    const items = value.map((x) => (x === null ? '-' : one(x)));
    return key === 'price' && items.every((x) => x === '-') ? '' : items.join(',');
  }
  return one(value);
}

/** key -> text of every scenario key of an evaluation (the core's `inputs`: defaults applied). */
export function inputsOf(evaluation) {
  return new Map(Object.entries(evaluation.inputs).map(([k, v]) => [k, asText(k, v)]));
}

/** The items of a list key's decoded text (compare, price). */
export function listOf(inputs, key) {
  const v = inputs.get(key);
  return v ? v.split(',') : [];
}

/** Provenance of an offering's rates, as the core's codes: {source: calibrated|measured|peak|
 *  override|calibrated_serving, estimate, device (a serving calibration's document id), date};
 *  words are made from them through the dictionaries. */
export function ratesSource(result) {
  return { source: result.rates_source || '', estimate: Boolean(result.rates_estimate),
    device: result.calibration_device || '', date: result.calibration_date || '' };
}

/** Unit of a result field (bytes, count, usd, ...), from the core's field registry. */
export const fieldKind = (name) => units.get(name) || '';

/** Fields of the registry, in output order (the CSV export's rows). */
export const fieldNames = () => [...units.keys()];

// Which validation metric's error band covers a predicted figure (the core's `error_band` is
// keyed by metric: interactivity, throughput_per_gpu, ttft).
const BAND_METRIC = {
  decode_tokens_per_s_per_user: 'interactivity', tpot_s: 'interactivity', tokens_per_s_per_user: 'interactivity',
  ttft_s: 'ttft', ttft_median_s: 'ttft', total_tokens_per_s_per_gpu: 'throughput_per_gpu', output_tokens_per_s_per_gpu: 'throughput_per_gpu',
  max_throughput_tokens_per_s: 'throughput_per_gpu', usd_per_million_tokens: 'throughput_per_gpu',
  usd_per_million_total_tokens: 'throughput_per_gpu',
};
/** The error band of a predicted figure of `result`: {p50, p80, points, flags...} or null. */
// The TTFT band sits beside the TTFT statistic it was measured on (the core's `statistic`: the
// median, or the mean for a calibration's band); the other TTFT figure has none.
const TTFT_STATISTIC = { ttft_s: 'mean', ttft_median_s: 'median' };
export function bandOf(result, field) {
  const bands = result.error_band;
  const b = bands && typeof bands === 'object' ? bands[BAND_METRIC[field]] : null;
  if (b && TTFT_STATISTIC[field] && (b.statistic === 'mean' ? 'mean' : 'median') !== TTFT_STATISTIC[field]) return null;
  return b && typeof b.p80 === 'number' && b.points > 0 ? b : null;
}

/**
 * Decodes a link's scenario keeping what is valid: {scenario, errors, evaluation}, `scenario`
 * the core's canonical text of the keys that decode, `errors` one GpucalcError per key that
 * does not (`value`: the text the link gave it, for the message), `evaluation` the core's
 * result for `scenario` (null if even that failed). A newer `v` keeps the known keys.
 * An id the catalog does not have (model, offering) is found by evaluating: that key too
 * takes its default.
 */
export function decodeLenient(text) {
  const decoded = gpucalc.decodeScenario(text);
  const errors = decoded.errors;
  for (const e of errors) e.value = rawValue(text, e.field);
  const inputs = new Map(Object.entries(decoded.inputs).map(([k, v]) => [k, asText(k, v)]));
  let scenario = decoded.scenario;
  let evaluation = null;
  for (let tries = 0; tries < 4; tries++) {
    try {
      evaluation = gpucalc.evaluate(scenario);
      break;
    } catch (e) {
      const field = e instanceof gpucalc.GpucalcError ? e.field.replace(/\[.*$/, '') : '';
      if (!field || !byKey.has(field) || !inputs.has(field)) throw e;
      e.value = rawValue(text, field);
      errors.push(e);
      // One compared id the catalog lacks (the core names its entry, `compare[i]`): that entry
      // goes, with its price and servers; the other offerings stay.
      const entry = /^compare\[(\d+)\]$/.exec(e.field);
      const ids = listOf(inputs, 'compare');
      if (entry && ids[Number(entry[1])]) e.value = ids[Number(entry[1])];
      if (entry && ids.length > 1) {
        for (const k of ['compare', 'price', 'servers']) {
          const items = listOf(inputs, k);
          if (items.length > Number(entry[1])) items.splice(Number(entry[1]), 1);
          inputs.set(k, items.join(','));
        }
      } else {
        inputs.delete(field);
      }
      scenario = ['v=1', ...[...inputs].filter(([k, v]) => k !== 'v' && v !== '').map(([k, v]) => `${k}=${v}`)].join('&');
    }
  }
  return { scenario, errors, evaluation };
}

/** What the link's text gave `key`, percent-decoded as the core decodes it (shown in the
 *  message next to the field, as text; never evaluated). */
function rawValue(text, key) {
  const base = (key || '').replace(/\[.*$/, '');
  // The last pair of the key: a key given twice is rejected at its second value.
  const hit = pairs(text).reverse().find(([k]) => k === base);
  if (!hit) return undefined;
  try { return decodeURIComponent(hit[1]); } catch { return hit[1]; }
}

function pairs(text) {
  return text.split('&').filter(Boolean).map((p) => {
    const eq = p.indexOf('=');
    return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
  });
}
