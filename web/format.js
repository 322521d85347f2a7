// Numbers and errors as text: a result field is formatted by its unit kind (the core's field
// registry), a verdict parameter by the unit its name carries, an error by its code.
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { state } from './state.js';
import { fieldKind, keyInfo } from './schema.js';

const BY_KIND = {
  bytes: (x) => i18n.gb(x),
  bytes_small: i18n.mb,
  count: (x) => i18n.num(x),
  usd: (x) => i18n.usd(x),
  usd_rate: (x) => i18n.usd(x, 2),
  usd_delta: (x) => (x > 0 ? '+' : '') + i18n.usd(x),
  usd_per_mtok: (x) => i18n.usd(x, x < 10 ? 3 : 2),
  rate: (x) => i18n.num(x),
  rate_small: i18n.sig,
  seconds: i18n.seconds,
  hours: (x) => i18n.num(x, 1),
  fraction: i18n.percent,
};

/** A result field's value as text ("—" where the core left it empty). */
export function fmtField(field, value) {
  if (value === null || value === undefined) return i18n.DASH;
  const f = BY_KIND[fieldKind(field)];
  return f ? f(value) : typeof value === 'number' ? i18n.sig(value) : String(value);
}

/** Whether the core traces a formula for `field` in the workload on screen. */
export function isTraced(field) {
  const ev = state.evaluation;
  const set = ev && state.traced.get(ev.workload === 'inference' ? 'inference' : 'training');
  return Boolean(set && set.has(field));
}

/** A figure of result `r` (offering `index`): a button revealing its formula when traced. */
export function figure(r, index, field, text = fmtField(field, r[field])) {
  if (isTraced(field) && r[field] !== null && r[field] !== undefined) {
    return h('button', { type: 'button', class: 'fig', 'data-r': index, 'data-f': field,
      'aria-label': `${text}: ${t('show_formula_for', { what: t(`f_${field}`) })}` }, text);
  }
  const span = h('span', { class: 'val' }, text);
  if (r[field] === null && /price|usd/.test(fieldKind(field) || field)) span.title = t('unpriced_hint');
  return span;
}

/** Verdict parameters, formatted by the unit in their names (`_usd`, `_gb`, `ratio`). */
export function verdictParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (typeof v !== 'number') out[k] = String(v);
    else if (/usd/.test(k)) out[k] = i18n.usd(v, v < 1 ? 3 : v < 100 ? 2 : 0);
    else if (/_gb$/.test(k)) out[k] = i18n.num(v, 0);
    else if (k === 'ratio') out[k] = i18n.num(v, 1);
    else out[k] = i18n.sig(v);
  }
  return out;
}

/** A catalog text in the page's language: `<field>_<lang>` where the catalog gives one. */
export function localized(entry, field) {
  const own = entry[`${field}_${i18n.language()}`];
  return typeof own === 'string' && own ? own : entry[field];
}

/** The label of a scenario key as the form shows it. */
export function keyLabel(key) {
  return i18n.has(key) ? t(key) : key;
}

/**
 * An error of the core as a sentence of the page's language, naming the field: the core's code
 * through the dictionary, the field by its label; the value a link carried, where known.
 */
export function errorText(error) {
  const field = (error.field || '').replace(/\[.*$/, '');
  const english = i18n.language() === 'en' || !i18n.has(`error_${error.code}`);
  let what = english ? error.message : t(`error_${error.code}`);
  if (!english && typeof error.value === 'string') what += t('error_got', { value: error.value });
  return field && keyInfo(field) ? t('error_for_key', { key: keyLabel(field), message: what }) : what;
}
