// Numbers and errors as text: a result field is formatted by its unit kind (the core's field
// registry), a verdict parameter by the unit its name carries, an error by its code.
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { state, offeringOf } from './state.js';
import { fieldKind, keyInfo, bandOf } from './schema.js';

// One format per unit kind of the core's field registry (docs/cli-and-json.md).
const usd = (x) => i18n.usd(x, Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 1 ? 2 : 3);
const BY_UNIT = {
  bytes: (x) => (Math.abs(x) < 1e8 ? i18n.mb(x) : i18n.gb(x)),
  count: (x) => i18n.num(x),
  tokens: (x) => i18n.num(x),
  tokens_per_s: i18n.sig,
  seconds: i18n.seconds,
  hours: (x) => i18n.num(x, Math.abs(x) >= 100 ? 0 : 1),
  usd,
  ratio: i18n.percent,
  watts: (x) => `${i18n.num(x)} W`,
  joules: (x) => `${i18n.sig(x)} J`,
  kwh: (x) => `${i18n.num(x, Math.abs(x) >= 100 ? 0 : 1)} kWh`,
};

/** A result field's value as text ("—" where the core left it empty). */
export function fmtField(field, value) {
  if (value === null || value === undefined) return i18n.DASH;
  if (typeof value === 'boolean') return t(value ? 'yes' : 'no');
  const unit = fieldKind(field);
  const f = BY_UNIT[unit];
  if (!f || typeof value !== 'number') return typeof value === 'number' ? i18n.sig(value) : String(value);
  // KV room below zero is a shortfall: said in words, not as a negative size.
  if (/^kv_free_bytes/.test(field) && value < 0) return t('bytes_short', { x: f(-value) });
  // A difference says its sign (the name carries it: `price_delta_month_usd`).
  return /_delta_/.test(field) && value > 0 ? `+${f(value)}` : f(value);
}

/** Whether the core traces a formula for `field` in the workload on screen. */
export function isTraced(field) {
  const ev = state.evaluation;
  const set = ev && state.traced.get(ev.workload === 'inference' ? 'inference' : 'training');
  return Boolean(set && set.has(field));
}

/** The core's error band for curve point `p` of result `r`: the band of the point's own users
 *  per instance (`error_band_index` into `curve_error_bands`), else the result's. */
export function pointBands(r, p) {
  const i = p ? p.error_band_index : null;
  return (Number.isInteger(i) && Array.isArray(r.curve_error_bands) && r.curve_error_bands[i]) || r.error_band;
}

const BAND_FLAGS = ['model_unmeasured', 'users_beyond_measured', 'engine_unmeasured', 'gpu_unmeasured'];

/** The error band beside a predicted figure: "±p80 %", with "80 % of N unseen points" and what
 *  it extrapolates in its tooltip; or null. */
export function band(r, field) {
  const b = bandOf(r, field);
  if (!b || r[field] === null || r[field] === undefined) return null;
  const params = { pct: i18n.num(b.p80 * 100, 0), n: i18n.num(b.points) };
  // Extrapolation flags of the core's band, worded; the band is already widened for them.
  const flags = BAND_FLAGS.filter((f) => b[f]).map((f) => t(`band_${f}`));
  // A disaggregated figure's band is widened by how the disaggregated runs erred, said apart;
  // they publish no TTFT (validation-disagg.json has none), so its TTFT band is the aggregated
  // one, and says so as an extrapolation.
  const unmeasured = b.disaggregated && field.startsWith('ttft');
  const hint = t('band_hint', params) + (flags.length ? ` ${t('band_extrapolated', { what: flags.join(', ') })}` : '')
    + (b.disaggregated ? ` ${t(unmeasured ? 'band_disaggregated_ttft' : 'band_disaggregated')}` : '');
  // Bands from a file the user loaded are not gpucalc's measurements: said beside each one.
  const theirs = r.error_bands_supplied_by ? t('band_supplied', { name: r.error_bands_supplied_by }) : '';
  // The point count is in the tooltip and, for screen readers, in the text.
  return h('span', { class: flags.length || unmeasured ? 'band extrapolated' : 'band', title: hint }, t('band', params),
    theirs ? h('span', { class: 'supplied' }, ' ', theirs) : null,
    h('span', { class: 'visually-hidden' }, ` (${hint})`));
}

/** The files that replaced figures `r` is built on (the core's `supplied_by`), named beside a
 *  figure; null when the figures are gpucalc's. */
export function suppliedTag(r) {
  if (!r.supplied_by) return null;
  return h('span', { class: 'supplied', title: t('supplied_hint', { name: r.supplied_by }) },
    t('supplied_tag', { name: r.supplied_by }));
}

/** A figure of result `r` (offering `index`): a button revealing its formula when traced, and
 *  the error band of a predicted figure beside it. */
export function figure(r, index, field, text = fmtField(field, r[field])) {
  let node;
  if (isTraced(field) && r[field] !== null && r[field] !== undefined) {
    node = h('button', { type: 'button', class: 'fig', 'data-r': index, 'data-f': field,
      'aria-label': `${text}: ${t('show_formula_for', { what: t(`f_${field}`) })}` }, text);
  } else {
    node = h('span', { class: 'val', 'data-f': field }, text);
    if (r[field] === null && fieldKind(field) === 'usd') node.title = t('unpriced_hint');
  }
  const b = band(r, field);
  const tag = r[field] === null || r[field] === undefined ? null : suppliedTag(r);
  if (!b && !tag) return node;
  return h('span', { class: 'with-band' }, node, tag ? ' ' : null, tag, b ? ' ' : null, b);
}

/** Verdict parameters, formatted by the unit in their names (`_usd`, `_gb`, `ratio`). */
export function verdictParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (typeof v !== 'number') out[k] = String(v);
    else if (/usd/.test(k)) out[k] = i18n.usd(v, v < 1 ? 3 : v < 100 ? 2 : 0);
    else if (/_gb$/.test(k)) out[k] = i18n.num(v, 0);
    // Two decimals near 1: a 4 % difference reads "1.04×", never "1.0× less".
    else if (k === 'ratio') out[k] = i18n.num(v, v < 1.1 ? 2 : 1);
    else out[k] = i18n.sig(v);
  }
  return out;
}

/** A catalog text in the page's language: `<field>_<lang>` where the catalog gives one. */
export function localized(entry, field) {
  const own = entry[`${field}_${i18n.language()}`];
  const text = typeof own === 'string' && own ? own : entry[field];
  // Isolated where it could reorder its neighbours (a bidi override in an offering's name).
  return typeof text === 'string' ? i18n.isolated(text) : text;
}

/** An offering's name in the page's language (the catalog's `name_<lang>`, else the core's name). */
export function offeringName(r) {
  // Only the field localized() reads: the first answer (scripts/build-web.mjs) keeps what is read.
  const own = `name_${i18n.language()}`;
  return localized({ name: r.offering_name, [own]: offeringOf(r)[own] }, 'name');
}

/** The label of a scenario key as the form shows it. */
export function keyLabel(key) {
  if (i18n.has(`key_${key}`)) return t(`key_${key}`);
  return i18n.has(key) ? t(key) : key;
}

/** What a key accepts, in words, from the schema row (kind, range, choices). */
function ruleText(info, params) {
  const p = { ...(info || {}), ...(params || {}) };
  const range = { min: i18n.num(p.min, 6), max: i18n.num(p.max, 6) };
  switch (info && info.kind) {
    case 'integer': return t('rule_integer', range);
    case 'number': return t(p.min_exclusive ? 'rule_number_above' : 'rule_number', range);
    case 'boolean': return t('rule_boolean');
    case 'choice': return t('rule_choice', { choices: (p.choices || []).join(t('choice_sep')) });
    case 'id': return t('rule_id');
    case 'id_list': return t('rule_id_list', { max: i18n.num(p.max) });
    case 'number_list': return t('rule_number_list');
    default: return '';
  }
}

/** The rule a value breaks against another key or the model (tp against the attention heads,
 *  ep against the experts or tp), from the numbers the core's error names; '' for none. */
function crossKeyRule(p) {
  const value = i18n.num(p.value);
  if (typeof p.heads === 'number') return t('rule_tp_heads', { heads: i18n.num(p.heads), value });
  if (p.experts === 0) return t('rule_ep_dense', { value });
  if (typeof p.experts === 'number') return t('rule_ep_experts', { experts: i18n.num(p.experts), value });
  if (typeof p.tp === 'number') return t('rule_ep_tp', { tp: i18n.num(p.tp), value });
  return '';
}

// The words of errors (i18n/errors/: the error_* and rule_* strings) are fetched the first time
// an error is shown: errorText() is called once loadErrorStrings() has resolved.
let errorStrings = null;
export function loadErrorStrings() {
  if (!errorStrings) errorStrings = i18n.loadPart('errors').catch(() => { /* the keys show */ });
  return errorStrings;
}

/**
 * An error of the core as a sentence of the page's language, naming the field: words from the
 * core's code, the key's schema row and the error's numbers; the value a link carried, where
 * known. Errors outside the scenario (a catalog file) keep the core's sentence in English.
 */
export function errorText(error) {
  // The error strings could not be fetched (offline since the page loaded): the core's own
  // sentence, in English, still names the field and the value.
  if (!i18n.has('error_for_key')) return error.field ? `${error.field}: ${error.message}` : error.message;
  const field = (error.field || '').replace(/\[.*$/, '');
  const info = field && keyInfo(field);
  const got = typeof error.value === 'string' ? t('error_got', { value: error.value }) : '';
  if (!info) {
    if (error.code === 'unknown_key') return t('error_for_key', { key: field, message: t('error_unknown_key') }) + got;
    const english = i18n.language() === 'en' || !i18n.has(`error_${error.code}`);
    return english ? error.message : `${t(`error_${error.code}`)}${field ? ` (${field})` : ''}`;
  }
  const params = Object.fromEntries(Object.entries(error.params || {}));
  let what;
  if (params.repeated) what = t('error_repeated');
  else if (error.code === 'unsupported_version') what = t('error_version', { version: error.value || i18n.num(params.version) });
  else if (error.code === 'unknown_id') what = t(field === 'model' ? 'error_unknown_model' : 'error_unknown_offering');
  else if (error.code === 'bad_value' && crossKeyRule(params)) what = crossKeyRule(params);
  else if (error.code === 'bad_value' || error.code === 'out_of_range') what = ruleText(info, params) || t(`error_${error.code}`);
  else what = i18n.has(`error_${error.code}`) ? t(`error_${error.code}`) : error.message;
  return t('error_for_key', { key: keyLabel(field), message: what }) + (error.code === 'unsupported_version' ? '' : got);
}
