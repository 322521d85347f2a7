// Asking the core: the evaluation, the sweeps behind the charts, the what-fits table, and the
// scenario in the URL fragment (the core's canonical text, written back after edits).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { state, query } from './state.js';
import { inputsOf, fitKeys } from './schema.js';

export const BATCH_SWEEP = [1, 2, 4, 8, 16, 32, 64, 128, 256];
export const CONTEXT_SWEEP = [4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576];

/** Evaluates `text`; throws GpucalcError. Returns {evaluation, inputs}. */
export function evaluateText(text) {
  const evaluation = gpucalc.evaluate(text);
  return { evaluation, inputs: inputsOf(evaluation) };
}

/** The canonical scenario with `key` set to `value` (the other keys as the core decoded them). */
function withKey(key, value) {
  const parts = [`v=${gpucalc.scenarioVersion()}`];
  for (const [k, v] of state.inputs) if (k !== 'v') parts.push(`${k}=${k === key ? value : v}`);
  return parts.join('&');
}

/** One key swept over `values`: numbers only, no JSON. A sweep does not depend on the swept
 *  key's own value, so editing that key reuses it. */
const sweepCache = new Map();
function sweep(key, values, field) {
  const cacheKey = `${state.catalogVersion}|${field}|${withKey(key, '*')}`;
  const cached = sweepCache.get(key);
  if (cached && cached.key === cacheKey) return cached.points;
  const points = gpucalc.evaluateFields(values.map((v) => withKey(key, String(v))), [field]);
  sweepCache.set(key, { key: cacheKey, points });
  return points;
}

/** The context lengths the context chart sweeps: doubling (a log axis), up to the model's
 *  maximum context (the core's `model.max_context_tokens`; none known: the whole sweep). */
export function contextSweep(ev) {
  const max = ev && ev.model ? Number(ev.model.max_context_tokens) || 0 : 0;
  const xs = max > 0 ? CONTEXT_SWEEP.filter((c) => c <= max) : CONTEXT_SWEEP;
  return xs.length ? xs : CONTEXT_SWEEP.slice(0, 1);
}

/** The batch and context sweeps behind the two charts (inference only). */
export function computeSweeps() {
  const ev = state.evaluation;
  state.sweeps = ev.workload === 'inference' ? {
    batch: sweep('users', BATCH_SWEEP, 'decode_tokens_per_s_per_user'),
    context: sweep('context', contextSweep(ev), 'full_contexts'),
  } : false;
}

/** The what-fits table of the scenario on screen (recomputed when a key it depends on changed). */
export function fitTable() {
  const key = `${state.catalogVersion}|${fitKeys().map((k) => state.inputs.get(k) ?? '').join('|')}`;
  if (state.fitKey !== key) {
    state.fit = gpucalc.fitTable(state.evaluation.scenario);
    state.fitKey = key;
  }
  return { fit: state.fit, key };
}

// --- the URL ------------------------------------------------------------------------------------

/** The fragment as the scenario text the core decodes. The core's decoder percent-decodes each
 *  value itself, so the page passes the fragment as it is: decoding it here too would turn an
 *  encoded "&" or "=" inside a value into a key of its own. */
export function fragmentText() {
  return location.hash.replace(/^#/, '');
}

let urlTimer = 0;
export function scheduleUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeUrl, 250);
}

const urlListeners = [];
export const onUrlChange = (fn) => urlListeners.push(fn);

function writeUrl() {
  if (!state.evaluation) return;
  const url = `${location.pathname}${location.search}#${state.evaluation.scenario}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
  for (const fn of urlListeners) fn();
}

/** The price list a link carries (`catalog=`): the one loaded from a link or passed on by an
 *  embedding host, or the link's own when it could not be loaded (kept, not dropped). */
export function catalogReference() {
  const named = query.get('catalog');
  return (state.priceList && state.priceList.url) || state.priceListMissing || (named && named !== 'opener' ? named : '');
}

/** The link that reproduces the page: language if chosen, the vendor's price list, the scenario. */
export function shareUrl() {
  const q = new URLSearchParams();
  if (query.get('lang')) q.set('lang', i18n.language());
  if (catalogReference()) q.set('catalog', catalogReference());
  const qs = q.toString();
  return `${location.origin}${location.pathname}${qs ? `?${qs}` : ''}#${state.evaluation ? state.evaluation.scenario : ''}`;
}
