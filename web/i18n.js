// Strings and numbers for the page: dictionaries in i18n/<lang>.json, numbers via Intl.
// English, every language's fallback, comes with the code (a JSON module; the page build inlines
// it into the bundle); another language's dictionary is fetched only when it is chosen.
import enJson from './i18n/en.json' with { type: 'json' };

export const LANGS = ['en', 'zh'];
const LOCALES = { en: 'en-US', zh: 'zh-CN' };

let lang = 'en';
let dict = {};
// The attributes translateDocument() fills (data-i18n-<attr>).
const ATTRS = ['aria-label', 'title', 'placeholder', 'content'];
const dataName = (attr) => `i18n${attr.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase())}`;

/** The English strings the page's markup carries (data-i18n text, data-i18n-<attr> values), read
 *  before anything is translated. The page build leaves the ones it finds verbatim in the built
 *  index.html out of the bundled en.json (scripts/build-web.mjs): they are shipped once. */
function markupStrings() {
  const found = {};
  if (typeof document === 'undefined') return found;
  for (const el of document.querySelectorAll('[data-i18n]')) found[el.dataset.i18n] ??= el.textContent;
  for (const attr of ATTRS) {
    for (const el of document.querySelectorAll(`[data-i18n-${attr}]`)) found[el.dataset[dataName(attr)]] ??= el.getAttribute(attr);
  }
  return found;
}
const en = { ...markupStrings(), ...enJson };
const fallback = en;
const cache = new Map([['en.json', Promise.resolve(en)]]);

/** The page language: `lang=` in the query wins, else the browser's preference. */
export function pickLanguage(search = location.search, languages = navigator.languages || []) {
  const asked = new URLSearchParams(search).get('lang');
  if (asked) {
    const short = asked.toLowerCase().slice(0, 2);
    if (LANGS.includes(short)) return short;
  }
  for (const l of languages) {
    const short = String(l).toLowerCase().slice(0, 2);
    if (LANGS.includes(short)) return short;
  }
  return 'en';
}

/** i18n/<file>, fetched once. */
function fetchJson(file) {
  if (!cache.has(file)) {
    cache.set(file, fetch(new URL(`./i18n/${file}`, import.meta.url)).then((r) => {
      if (!r.ok) throw new Error(`i18n/${file}: HTTP ${r.status}`);
      return r.json();
    }));
  }
  return cache.get(file);
}
const fetchDict = (l) => fetchJson(`${l}.json`);

// Strings only a view opened later needs live in i18n/<part>/<lang>.json (formula/: the formula
// dialog's input labels), loaded with loadPart() when that view first opens, for the page's
// language and English; a language switched to later gets the parts already loaded.
const parts = new Set();
async function mergePart(part, l) {
  const [d, english] = await Promise.all([fetchDict(l), fetchJson(`${part}/en.json`)]);
  Object.assign(en, english);
  if (l !== 'en') Object.assign(d, await fetchJson(`${part}/${l}.json`));
}
export async function loadPart(part) {
  parts.add(part);
  await mergePart(part, lang);
}

export async function setLanguage(l) {
  const d = await fetchDict(l);
  await Promise.all([...parts].map((part) => mergePart(part, l)));
  lang = l;
  dict = d;
  document.documentElement.lang = LOCALES[l];
  numberFormats.clear();
}

export function language() { return lang; }
export function locale() { return LOCALES[lang]; }
export function has(key) { return key in dict || key in fallback; }

/** The string for `key` with {name} placeholders filled from `params` (already formatted). */
export function t(key, params = {}) {
  const template = dict[key] ?? fallback[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in params ? isolated(String(params[name])) : m));
}

// Characters that change the direction of the text around them: right-to-left letters (Hebrew,
// Arabic, Syriac, Thaana, N'Ko...) and the explicit marks, embeddings, overrides and isolates.
// Text isolated() already wrapped: FSI ... PDI with no control of its own inside.
const ISOLATED = /^\u2068[^\u202a-\u202e\u2066-\u2069]*\u2069$/;
const BIDI = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * `text` (a catalog name, a link's value) that can reorder what is around it, between FIRST
 * STRONG ISOLATE and POP DIRECTIONAL ISOLATE (as <bdi> does): the sentence it is put in keeps
 * its order. Other text is returned as it is.
 */
export function isolated(text) {
  if (!BIDI.test(text) || ISOLATED.test(text)) return text;
  // Its own embeddings, overrides and isolates are shown as U+FFFD: a stray POP DIRECTIONAL
  // ISOLATE would otherwise end the isolate early.
  return `\u2068${text.replace(/[\u202a-\u202e\u2066-\u2069]/g, '\ufffd')}\u2069`;
}

/** Like t(), choosing `<key>_one` when n is 1 and the dictionary has it (English plurals). */
export function tn(key, n, params = {}) {
  return t(n === 1 && `${key}_one` in dict ? `${key}_one` : key, params);
}

/** Fills every element carrying data-i18n (text) and data-i18n-<attr> (attribute). */
export function translateDocument(root = document) {
  // Unchanged strings (the page's own English) are not rewritten: no relayout for them.
  for (const el of root.querySelectorAll('[data-i18n]')) {
    const text = t(el.dataset.i18n);
    if (el.textContent !== text) el.textContent = text;
  }
  for (const attr of ATTRS) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      const text = t(el.dataset[dataName(attr)]);
      if (el.getAttribute(attr) !== text) el.setAttribute(attr, text);
    }
  }
}

// --- numbers ---------------------------------------------------------------------------------
// One Intl.NumberFormat per language groups the integer part (creating formatters is costly:
// one per precision took ~100 ms of the first paint); decimals are rounded with toFixed.
const formats = new Map(); // locale -> {int, decimal}
function grouping() {
  return numberFormat(LOCALES[lang]).int;
}
function numberFormat(loc) {
  let f = formats.get(loc);
  if (!f) {
    // Integers format without decimals; formatToParts of 1.5 tells the decimal separator.
    const int = new Intl.NumberFormat(loc, { maximumFractionDigits: 1 });
    const part = int.formatToParts(1.5).find((p) => p.type === 'decimal');
    f = { int, decimal: part ? part.value : '.' };
    formats.set(loc, f);
  }
  return f;
}
/** Creates the language's number format now: a synchronous ~100 ms on a slow machine the first
 *  time, so the page does it while the WASM module is still downloading. */
export function prepareNumbers(l) { numberFormat(LOCALES[l]); }
const numberFormats = { clear() {} };

export const DASH = '—';
const ok = (x) => typeof x === 'number' && Number.isFinite(x);

/** `x` with exactly `digits` decimals (or up to `digits` when `trim`), rounded half away from
 *  zero on the shortest decimal form, as Intl does (70.55 -> 70.6, not toFixed's 70.5). */
function fixed(x, digits, trim) {
  const neg = x < 0;
  const scaled = Math.round(Number(`${Math.abs(x).toPrecision(15)}e${digits}`));
  let int;
  let frac;
  if (Number.isSafeInteger(scaled)) {
    const text = String(scaled).padStart(digits + 1, '0');
    int = digits ? text.slice(0, -digits) : text;
    frac = digits ? text.slice(-digits) : '';
  } else {
    [int, frac = ''] = Math.abs(x).toFixed(digits).split('.');
  }
  if (trim) frac = frac.replace(/0+$/, '');
  const grouped = int.length <= 3 ? int : grouping().format(Number(int));
  const zero = /^0*$/.test(int) && /^0*$/.test(frac);
  return `${neg && !zero ? '-' : ''}${grouped}${frac ? numberFormat(LOCALES[lang]).decimal + frac : ''}`;
}

export function num(x, digits = 0) {
  return ok(x) ? fixed(x, digits, true) : DASH;
}
/** Three significant digits, no less precise than an integer: 1,234 / 70.4 / 0.163. */
export function sig(x) {
  if (!ok(x)) return DASH;
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return num(x, digits);
}
/** US dollars: "$19,900" in English, "US$19,900" in Chinese (as seed 002 writes it). */
export function usd(x, digits = 0) {
  if (!ok(x)) return DASH;
  const sign = x < 0 ? '-' : '';
  return `${sign}${lang === 'zh' ? 'US$' : '$'}${fixed(Math.abs(x), digits, false)}`;
}
/** Decimal gigabytes, as the seeds write them. */
export function gb(bytes, digits) {
  if (!ok(bytes)) return DASH;
  const v = bytes / 1e9;
  const d = digits ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  if (Math.abs(v) >= 10000) return `${num(v / 1000, 1)} TB`;
  return `${num(v, d)} GB`;
}
export function mb(bytes) { return ok(bytes) ? `${num(bytes / 1e6, 3)} MB` : DASH; }
export function tokens(x) {
  if (!ok(x)) return DASH;
  if (x >= 1048576 && x % 1048576 === 0) return `${num(x / 1048576)}M`;
  if (x >= 1024 && x % 1024 === 0) return `${num(x / 1024)}K`;
  return num(x);
}
export function seconds(s) {
  if (!ok(s)) return DASH;
  if (s < 1) return `${num(s * 1000, s < 0.01 ? 2 : 1)} ms`;
  if (s < 3600) return `${num(s, 2)} s`;
  return `${num(s / 3600, 1)} h`;
}
export function ratio(x) { return ok(x) ? `${num(x, 1)}×` : DASH; }
export function percent(x) { return ok(x) ? `${num(x * 100, 0)}%` : DASH; }
