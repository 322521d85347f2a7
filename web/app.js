// The calculator page: reads the controls, asks the core (WASM) for the figures, draws them.
// Every string a user or a URL can carry goes into the DOM through textContent, never as HTML.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t, tn } from './i18n.js';
import { stackedBars, lineChart } from './charts.js';
import { toCsv, download } from './export.js';
import { initEmbed } from './embed-frame.js';

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const embedded = query.get('embed') === '1';

/** createElement with attributes and children (strings become text nodes). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Keys the form edits directly, in the order of the scenario schema.
const TEXT_KEYS = ['model', 'weights', 'kv', 'context', 'users', 'workload', 'input', 'output', 'seq',
  'tokens', 'tp', 'util', 'reserve', 'storage', 'network', 'software', 'engineering', 'porting', 'recovery'];
const CHECK_KEYS = ['cudaonly', 'kernels', 'trtllm'];
const FORM_KEYS = new Set([...TEXT_KEYS, ...CHECK_KEYS, 'capacity', 'compare', 'price', 'v']);
const MIN_COMPARE = 1;
const MAX_COMPARE = 4;
const BATCH_SWEEP = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const CONTEXT_SWEEP = [4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576];

const state = {
  defaults: new Map(), // key -> default text (scenario_keys)
  extras: new Map(), // keys of the scenario that have no control: kept as they came
  offerings: [],
  models: [],
  gpus: [],
  compare: [], // [{id, price}] as shown in the form
  evaluation: null,
  fit: null,
  sweeps: null,
  fitWeights: null, // precision filter of the what-fits table; null follows the scenario
  urlTimer: 0,
  firstPaint: false,
  painted: false, // the first results are on screen (work that can wait runs after this)
  afterPaint: [],
  fitKey: '',
  catalogVersion: 0,
  traced: new Map(), // workload kind -> Set of fields with a formula
};

// ---------------------------------------------------------------------------------------------
// Scenario strings

function parseScenario(text) {
  const map = new Map();
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    if (eq < 0) map.set(part, '');
    else map.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return map;
}

function buildScenario(map) {
  const parts = ['v=1'];
  for (const [k, v] of map) if (k !== 'v') parts.push(`${k}=${v}`);
  return parts.join('&');
}

function valueOf(map, key) { return map.has(key) ? map.get(key) : (state.defaults.get(key) ?? ''); }

/** The fragment, as the user wrote it (browsers percent-encode some characters in it). */
function fragmentText() {
  const raw = location.hash.replace(/^#/, '');
  try { return decodeURIComponent(raw); } catch { return raw; }
}

// ---------------------------------------------------------------------------------------------
// Form <-> scenario

function readForm() {
  const map = new Map();
  for (const key of TEXT_KEYS) map.set(key, $(`in-${key}`).value.trim());
  map.set('capacity', document.querySelector('input[name="capacity"]:checked')?.value ?? 'device');
  for (const key of CHECK_KEYS) map.set(key, $(`in-${key}`).checked ? '1' : '0');
  map.set('compare', state.compare.map((c) => c.id).join(','));
  const prices = state.compare.map((c) => c.price.trim().replace(/[$,\s]|US/g, '') || '-');
  if (prices.some((p) => p !== '-')) map.set('price', prices.join(','));
  for (const [k, v] of state.extras) if (!FORM_KEYS.has(k)) map.set(k, v);
  return map;
}

function writeForm(map) {
  for (const key of TEXT_KEYS) {
    const el = $(`in-${key}`);
    const v = valueOf(map, key);
    if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === v)) {
      el.append(h('option', { value: v }, v));
    }
    el.value = v;
  }
  const cap = valueOf(map, 'capacity');
  for (const r of document.querySelectorAll('input[name="capacity"]')) r.checked = r.value === cap;
  for (const key of CHECK_KEYS) $(`in-${key}`).checked = valueOf(map, key) === '1';
  const ids = valueOf(map, 'compare').split(',').filter(Boolean);
  const prices = (map.get('price') || '').split(',');
  state.compare = ids.map((id, i) => ({ id, price: prices[i] && prices[i] !== '-' ? prices[i] : '' }));
  state.extras = new Map([...map].filter(([k]) => !FORM_KEYS.has(k)));
  renderOfferingRows();
  syncWorkloadFields();
}

function syncWorkloadFields() {
  const training = $('in-workload').value !== 'inference';
  document.documentElement.classList.toggle('training', training);
}

function offeringLabel(o) {
  const price = typeof o.price_month_usd === 'number'
    ? t('per_month', { price: i18n.usd(o.price_month_usd) }) : t('your_price');
  return `${o.name} · ${price}`;
}

function renderOfferingRows() {
  const list = $('offerings');
  list.replaceChildren();
  state.compare.forEach((entry, i) => {
    const offering = state.offerings.find((o) => o.id === entry.id);
    const select = h('select', { id: `in-offering-${i}`, 'aria-describedby': 'err-compare' });
    const groups = new Map();
    for (const o of state.offerings) {
      const g = o.provider || t('generic_servers');
      if (!groups.has(g)) groups.set(g, h('optgroup', { label: g }));
      groups.get(g).append(h('option', { value: o.id }, offeringLabel(o)));
    }
    if (!offering) groups.set('?', h('optgroup', { label: '?' }, h('option', { value: entry.id }, entry.id)));
    select.append(...groups.values());
    select.value = entry.id;
    select.addEventListener('change', () => { entry.id = select.value; entry.price = ''; renderOfferingRows(); update(); });
    const catalogPrice = offering && typeof offering.price_month_usd === 'number' ? offering.price_month_usd : null;
    const price = h('input', { id: `in-price-${i}`, type: 'text', inputmode: 'decimal', autocomplete: 'off',
      class: 'price-input', 'aria-describedby': 'err-price',
      placeholder: catalogPrice !== null ? i18n.num(catalogPrice) : t('enter_price') });
    price.value = entry.price;
    price.addEventListener('input', () => { entry.price = price.value; update(); });
    const remove = h('button', { type: 'button', class: 'icon-button', 'aria-label': t('remove_offering', { n: i + 1 }),
      title: t('remove_offering', { n: i + 1 }), disabled: state.compare.length <= MIN_COMPARE }, '×');
    remove.addEventListener('click', () => { state.compare.splice(i, 1); renderOfferingRows(); update(); });
    list.append(h('li', { class: `offering-row s${i + 1}` },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }),
      h('label', { for: `in-offering-${i}`, class: 'visually-hidden' }, t('offering_n', { n: i + 1 })),
      select,
      h('label', { for: `in-price-${i}`, class: 'price-label' }, t('price_override')),
      price, remove));
  });
  $('add-offering').disabled = state.compare.length >= MAX_COMPARE;
}

function renderModelOptions() {
  const select = $('in-model');
  const current = select.value;
  select.replaceChildren(...state.models.map((m) => h('option', { value: m.id },
    m.experts_routed > 0
      ? `${m.name} · ${t('moe_params', { total: i18n.num(m.params_total / 1e9, 0), active: i18n.num(m.params_active / 1e9, 0) })}`
      : m.name)));
  if (current) select.value = current;
}

// ---------------------------------------------------------------------------------------------
// Errors next to their field

const ERROR_TARGETS = {
  compare: 'err-compare', price: 'err-price', capacity: 'err-capacity',
};

function clearErrors() {
  for (const el of document.querySelectorAll('#controls .field-error:not([hidden])')) {
    if (el.id === 'err-import' || el.id === 'err-pricelist') continue;
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of document.querySelectorAll('#controls [aria-invalid]')) el.removeAttribute('aria-invalid');
  if ($('results').classList.contains('stale')) $('results').classList.remove('stale');
}

function errorText(error) {
  if (i18n.language() === 'en' || !i18n.has(`error_${error.code}`)) return error.message;
  return `${t(`error_${error.code}`)}（${error.message}）`;
}

function showFieldError(error) {
  const field = (error.field || '').replace(/\[.*$/, '');
  const target = $(ERROR_TARGETS[field] || `err-${field}`) || $('form-error');
  target.textContent = field && target.id === 'form-error' ? `${field}: ${errorText(error)}` : errorText(error);
  target.hidden = false;
  const input = $(`in-${field}`);
  if (input) input.setAttribute('aria-invalid', 'true');
  if (field === 'price') for (const el of document.querySelectorAll('.price-input')) el.setAttribute('aria-invalid', 'true');
  $('results').classList.add('stale');
}

function showNotice(text) {
  const n = $('notice');
  n.replaceChildren(h('span', {}, text), h('button', { type: 'button', class: 'icon-button', 'aria-label': t('dismiss') }, '×'));
  n.lastChild.addEventListener('click', () => { n.hidden = true; });
  n.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Compute

function evaluateText(text) {
  return { evaluation: gpucalc.evaluate(text) };
}

// The what-fits table covers every model and precision: it changes only with these keys.
const FIT_KEYS = ['kv', 'context', 'users', 'compare', 'capacity', 'reserve'];
function fitTableKey(canonical) {
  const map = parseScenario(canonical);
  return `${state.catalogVersion}|${FIT_KEYS.map((k) => map.get(k) ?? '').join('|')}`;
}

/** Fields that carry a formula, learned from one traced evaluation per workload kind, done
 *  after the figures are on screen; the figures then become buttons that reveal it. */
function learnTracedFields(evaluation) {
  const kind = evaluation.workload === 'inference' ? 'inference' : 'training';
  if (state.traced.has(kind)) return;
  state.traced.set(kind, new Set());
  afterFirstPaint(() => {
    const traced = gpucalc.evaluate(evaluation.scenario, { trace: true });
    state.traced.set(kind, new Set(traced.results.flatMap((r) => Object.keys(r.trace || {}))));
    drawn.clear();
    render();
  });
}

/** Runs `fn` in its own task once the first results are painted (at once when they are):
 *  what the first paint does not show must not delay it. */
function afterFirstPaint(fn) {
  if (state.painted) setTimeout(fn, 0);
  else state.afterPaint.push(fn);
}

function isTraced(field) {
  const ev = state.evaluation;
  const set = ev && state.traced.get(ev.workload === 'inference' ? 'inference' : 'training');
  return Boolean(set && set.has(field));
}

/** The canonical scenario with one key swept over `values`: numbers only, no JSON. A sweep
 *  does not depend on the swept key's own value, so editing that key reuses it. */
const sweepCache = new Map();
function sweep(canonical, key, values, field) {
  const base = parseScenario(canonical);
  base.set(key, '*');
  const cacheKey = `${state.catalogVersion}|${field}|${buildScenario(base)}`;
  const cached = sweepCache.get(key);
  if (cached && cached.key === cacheKey) return cached.points;
  const texts = values.map((v) => {
    base.set(key, String(v));
    return buildScenario(base);
  });
  const points = gpucalc.evaluateFields(texts, [field]);
  sweepCache.set(key, { key: cacheKey, points });
  return points;
}

function update() {
  const t0 = performance.now();
  const text = buildScenario(readForm());
  let computed;
  try {
    computed = evaluateText(text);
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    clearErrors();
    showFieldError(e);
    return;
  }
  clearErrors();
  apply(computed);
  scheduleUrl();
  performance.measure('gpucalc:update', { start: t0, end: performance.now() });
}

function apply({ evaluation }) {
  learnTracedFields(evaluation);
  state.evaluation = evaluation;
  const ev = evaluation;
  const t0 = performance.now();
  state.sweeps = ev.workload === 'inference' ? null : false;
  if (state.sweeps === null && (chartReady($('batch-chart')) || chartReady($('context-chart')))) computeSweeps();
  const t1 = performance.now();
  render();
  performance.measure('gpucalc:sweeps', { start: t0, end: t1 });
  performance.measure('gpucalc:render', { start: t1, end: performance.now() });
}

/** The batch and context sweeps behind the two charts (inference only). Before the first
 *  layout the charts are not drawn, so the first paint does not wait for these evaluations. */
function computeSweeps() {
  const ev = state.evaluation;
  state.sweeps = ev.workload === 'inference' ? {
    batch: sweep(ev.scenario, 'users', BATCH_SWEEP, 'decode_tokens_per_s_per_user'),
    context: sweep(ev.scenario, 'context', CONTEXT_SWEEP, 'full_contexts'),
  } : false;
}

function scheduleUrl() {
  clearTimeout(state.urlTimer);
  state.urlTimer = setTimeout(writeUrl, 250);
}

function writeUrl() {
  if (!state.evaluation) return;
  const url = `${location.pathname}${location.search}#${state.evaluation.scenario}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
  updateLangLinks();
}

function shareUrl() {
  const q = new URLSearchParams();
  if (query.get('lang')) q.set('lang', i18n.language());
  const qs = q.toString();
  return `${location.origin}${location.pathname}${qs ? `?${qs}` : ''}#${state.evaluation ? state.evaluation.scenario : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Rendering helpers

const FIELD_FORMAT = {
  capacity_bytes_per_gpu: i18n.gb, reserve_bytes_per_gpu: i18n.gb, weights_bytes: i18n.gb,
  weights_bytes_per_gpu: i18n.gb, kv_used_bytes_per_gpu: i18n.gb, headroom_bytes_per_gpu: i18n.gb,
  kv_bytes_per_token: i18n.mb, kv_bytes_per_context: i18n.gb, kv_free_bytes_per_gpu: i18n.gb,
  kv_free_bytes: i18n.gb, gpus_needed_weights_only: (x) => i18n.num(x), gpus_needed: (x) => i18n.num(x),
  full_contexts_per_instance: (x) => i18n.num(x), full_contexts: (x) => i18n.num(x),
  max_context_tokens: (x) => i18n.num(x), replicas: (x) => i18n.num(x), instance_gpus: (x) => i18n.num(x),
  price_month_usd: (x) => i18n.usd(x), price_gpu_hour_usd: (x) => i18n.usd(x, 2),
  price_gb_month_usd: (x) => i18n.usd(x, 2), price_delta_month_usd: (x) => (x > 0 ? '+' : '') + i18n.usd(x),
  max_throughput_tokens_per_s: (x) => i18n.num(x), decode_tokens_per_s_per_user: (x) => i18n.sig(x),
  ttft_s: i18n.seconds, tpot_s: i18n.seconds, usd_per_million_tokens: (x) => i18n.usd(x, x < 10 ? 3 : 2),
  train_tokens_per_s: (x) => i18n.num(x), train_hours: (x) => i18n.num(x, 1), gpu_hours: (x) => i18n.num(x),
  run_cost_usd: (x) => i18n.usd(x), train_memory_bytes_per_gpu: i18n.gb,
};

function fmtField(field, value) {
  if (value === null || value === undefined) return i18n.DASH;
  const f = FIELD_FORMAT[field];
  return f ? f(value) : typeof value === 'number' ? i18n.sig(value) : String(value);
}

/** A figure; a button revealing its formula when the core traced it. */
function figure(r, index, field, text = fmtField(field, r[field])) {
  if (isTraced(field) && r[field] !== null && r[field] !== undefined) {
    return h('button', { type: 'button', class: 'fig', 'data-r': index, 'data-f': field,
      'aria-label': `${text}: ${t('show_formula_for', { what: t(`f_${field}`) })}` }, text);
  }
  const span = h('span', { class: 'val' }, text);
  if (r[field] === null && /price|usd/.test(field)) span.title = t('unpriced_hint');
  return span;
}

/**
 * Makes `box`'s children equal to `nodes` with the fewest DOM changes: a child of the same tag
 * is kept and its attributes, text and children patched in place; only what differs is
 * touched. An edit then restyles and relays out the figures it changed, not whole sections,
 * and a focused figure keeps the focus. `nodes` are freshly built, detached nodes.
 */
function morph(box, ...nodes) {
  const want = nodes.flat().filter((n) => n !== null && n !== undefined);
  const old = box.childNodes;
  want.forEach((node, i) => {
    const have = old[i];
    if (!have) box.append(node);
    else if (have.nodeType !== node.nodeType || have.nodeName !== node.nodeName) box.replaceChild(node, have);
    else if (have.nodeType === Node.TEXT_NODE) { if (have.data !== node.data) have.data = node.data; }
    else if (have.nodeType !== Node.ELEMENT_NODE) box.replaceChild(node, have);
    else {
      const attrs = node.attributes;
      for (let k = 0; k < attrs.length; k++) {
        const { name, value } = attrs[k];
        if (have.getAttribute(name) !== value) have.setAttribute(name, value);
      }
      if (have.attributes.length !== attrs.length) {
        for (const { name } of [...have.attributes]) if (!node.hasAttribute(name)) have.removeAttribute(name);
      }
      morph(have, ...node.childNodes);
    }
  });
  while (old.length > want.length) box.lastChild.remove();
}

function patchCell(cell, content) {
  morph(cell, content instanceof Node ? content : document.createTextNode(String(content)));
}

function table(el, { caption, head, rows, rowHeaders = true }) {
  // Same shape as drawn: patch the cells that changed.
  const shape = `${rows.length}|${head.map(String).join('\u0001')}|${caption || ''}`;
  if (el.dataset.shape === shape && el.tBodies[0]) {
    const trs = el.tBodies[0].rows;
    rows.forEach((row, r) => {
      const tr = trs[r];
      if (tr.className !== (row.cls || '')) tr.className = row.cls || '';
      row.cells.forEach((c, i) => { if (tr.cells[i]) patchCell(tr.cells[i], c); });
    });
    return;
  }
  el.dataset.shape = shape;
  const thead = h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { scope: 'col', class: i === 0 ? 'rowhead' : `col s${i}` }, c))));
  const tbody = h('tbody', {}, rows.map((row) => h('tr', { class: row.cls || null },
    row.cells.map((c, i) => (i === 0 && rowHeaders ? h('th', { scope: 'row' }, c) : h('td', {}, c))))));
  el.replaceChildren(...(caption ? [h('caption', { class: 'visually-hidden' }, caption)] : []), thead, tbody);
}

const seriesClass = (i) => `s${i + 1}`;

// Chart widths come from a ResizeObserver, so drawing never forces a layout mid-update.
const chartWidths = new Map();
function chartWidth(box) {
  const w = chartWidths.get(box.id) || 600;
  return Math.max(280, Math.min(1100, Math.floor(w)));
}
/** Charts are drawn once the first layout has told their width (right after the first paint:
 *  they are below the fold at every page width). */
const chartReady = (box) => chartWidths.has(box.id);
function observeChartWidths() {
  let timer = 0;
  const observer = new ResizeObserver((entries) => {
    let changed = false;
    for (const e of entries) {
      const w = Math.floor(e.contentRect.width);
      if (w > 0 && Math.abs((chartWidths.get(e.target.id) || 0) - w) > 1) {
        chartWidths.set(e.target.id, w);
        changed = true;
      }
    }
    if (changed && state.evaluation) {
      clearTimeout(timer);
      if (state.painted) timer = setTimeout(render, 0);
      else if (!state.afterPaint.includes(render)) state.afterPaint.push(render);
    }
  });
  for (const id of ['memory-chart', 'batch-chart', 'context-chart']) observer.observe($(id));
}

// ---------------------------------------------------------------------------------------------
// Sections

function render() {
  const ev = state.evaluation;
  if (!ev) return;
  $('results').setAttribute('aria-busy', 'false');
  renderVerdict(ev);
  renderKeyFigures(ev);
  renderMemory(ev);
  renderPerf(ev);
  memo('price', `${ev.scenario}|${i18n.language()}`, () => renderPrice(ev));
  memo('specs', `${ev.results.map((r) => r.gpu).join(',')}|${state.catalogVersion}|${i18n.language()}`, () => renderSpecs(ev));
  scheduleFits();
  renderNotes(ev);
  $('print-scenario').textContent = t('print_scenario', { url: shareUrl() });
  if (!state.firstPaint) {
    state.firstPaint = true;
    performance.mark('gpucalc:first-result');
    whenPresented(() => {
      performance.mark('gpucalc:first-result-painted');
      state.painted = true;
      for (const fn of state.afterPaint.splice(0)) setTimeout(fn, 0);
    });
  }
}

/**
 * Calls `fn` once the first results are on screen: when the browser reports the summary line
 * painted (Element Timing: after raster and presentation, so the work that waited does not
 * compete with them for the CPU); two frames later where Element Timing is missing or the
 * summary is below the fold (phones: the controls come first); at the latest after 1 s (a
 * hidden tab paints nothing).
 */
function whenPresented(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  const twoFrames = () => requestAnimationFrame(() => requestAnimationFrame(once));
  const types = typeof PerformanceObserver === 'function' ? PerformanceObserver.supportedEntryTypes || [] : [];
  if (types.includes('element')) {
    const observer = new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.identifier === 'first-result')) {
        observer.disconnect();
        once();
      }
    });
    observer.observe({ type: 'element', buffered: true });
    // The frame lays the page out anyway: reading the summary's position costs nothing more.
    requestAnimationFrame(() => {
      const box = $('verdict-summary').getBoundingClientRect();
      if (box.bottom <= 0 || box.top >= innerHeight) { observer.disconnect(); twoFrames(); }
    });
  } else {
    twoFrames();
  }
  setTimeout(once, 1000);
}

// Sections whose content depends on few inputs are redrawn only when those change.
const drawn = new Map();
function memo(name, key, draw) {
  if (drawn.get(name) === key) return;
  draw();
  drawn.set(name, key);
}

// The what-fits table (every model x precision) is computed when it is on screen or the page
// is idle, so it never delays the figures an edit changes.
let fitsVisible = false;
let fitsIdle = 0;
function scheduleFits() {
  // The embed view is sized to its whole content: the table is on screen, and drawn with the
  // rest so that the height posted to the host already includes it.
  if (fitsVisible || embedded) { drawFits(); return; }
  if (fitsIdle) return;
  const run = () => { fitsIdle = 0; drawFits(); };
  fitsIdle = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 600 }) : setTimeout(run, 50);
}
function drawFits() {
  const ev = state.evaluation;
  if (!ev) return;
  const key = fitTableKey(ev.scenario);
  if (state.fitKey !== key) {
    state.fit = gpucalc.fitTable(ev.scenario);
    state.fitKey = key;
  }
  const w = parseScenario(ev.scenario).get('weights');
  memo('fits', `${key}|${ev.model.id}|${w}|${state.fitWeights}|${i18n.language()}`, renderFits);
}
function observeFits() {
  new IntersectionObserver((entries) => {
    fitsVisible = entries.some((e) => e.isIntersecting);
    if (fitsVisible) drawFits();
  }, { rootMargin: '300px' }).observe($('sec-fits'));
}

function verdictParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (/usd/.test(k)) out[k] = i18n.usd(v, v < 1 ? 3 : v < 100 ? 2 : 0);
    else if (/_gb$/.test(k)) out[k] = i18n.num(v, 0);
    else if (k === 'ratio') out[k] = i18n.num(v, 1);
    else out[k] = i18n.sig(v);
  }
  return out;
}

function renderVerdict(ev) {
  const box = $('verdict');
  const columns = ev.results.map((r, i) => {
    const items = ev.verdict.filter((v) => v.offering === r.offering);
    const list = h('ul', {}, items.map((v) => {
      const key = i18n.has(`v_${v.code}_${v.kind}`) ? `v_${v.code}_${v.kind}` : `v_${v.code}`;
      return h('li', { class: `reason ${v.kind}` },
        h('span', { class: 'mark', 'aria-hidden': 'true' }, v.kind === 'pro' ? '✓' : v.kind === 'con' ? '!' : 'i'),
        h('span', { class: 'visually-hidden' }, `${t(`kind_${v.kind}`)}: `),
        t(key, verdictParams(v.params)));
    }));
    const recommended = ev.recommended === r.offering;
    return h('div', { class: `verdict-col ${seriesClass(i)}${recommended ? ' recommended' : ''}` },
      h('h3', {}, t('choose_when', { name: r.offering_name })),
      recommended ? h('p', { class: 'badge' }, t(`recommended_${ev.recommendation_basis}`)) : null,
      items.length ? list : h('p', { class: 'help' }, t('no_reasons_hint')));
  });
  morph(box, ...columns);
  $('verdict-summary').textContent = summaryLine(ev);
}

function gpuOf(r) { return state.gpus.find((g) => g.id === r.gpu) || {}; }

/** HBM of an offering as sold: GPUs x the marketed capacity. */
function marketedHbm(r) {
  const g = gpuOf(r);
  return typeof g.hbm_marketed_bytes === 'number' ? g.hbm_marketed_bytes * r.gpu_count : r.capacity_bytes_per_gpu * r.gpu_count;
}

function summaryLine(ev) {
  const parts = ev.results.map((r) => {
    const hbm = marketedHbm(r);
    const fitText = r.fits ? tn('sum_fits', r.gpus_needed, { n: i18n.num(r.gpus_needed) }) : t('sum_no_fit');
    return t('sum_item', { name: r.offering_name, hbm: i18n.gb(hbm, 0),
      price: r.price_month_usd === null ? t('your_price') : t('per_month', { price: i18n.usd(r.price_month_usd) }),
      fit: fitText });
  });
  return `${t('sum_lead', { model: ev.model.name, weights: valueLabel('weights', parseScenario(ev.scenario).get('weights')) })} ${parts.join(t('list_sep'))}`;
}

function valueLabel(key, v) { return (v || '').toUpperCase(); }

function renderKeyFigures(ev) {
  const inference = ev.workload === 'inference';
  const cards = ev.results.map((r, i) => {
    const rows = [
      ['f_fits', r.fits ? h('span', { class: 'ok' }, t('fits_on', { n: i18n.num(r.gpus_needed), of: i18n.num(r.gpu_count) }))
        : h('span', { class: 'bad' }, t(`reason_${r.fit_reason}`))],
      ['f_kv_free_bytes', figure(r, i, 'kv_free_bytes')],
      ['f_full_contexts', figure(r, i, 'full_contexts')],
    ];
    if (inference) {
      rows.push(['f_decode_tokens_per_s_per_user', figure(r, i, 'decode_tokens_per_s_per_user')]);
      rows.push(['f_usd_per_million_tokens', figure(r, i, 'usd_per_million_tokens')]);
    } else {
      rows.push(['f_train_hours', figure(r, i, 'train_hours')]);
      rows.push(['f_run_cost_usd', figure(r, i, 'run_cost_usd')]);
    }
    return h('article', { class: `keyfig ${seriesClass(i)}` },
      h('h3', {}, r.offering_name),
      h('p', { class: 'price' }, figure(r, i, 'price_month_usd'), r.price_month_usd !== null ? h('span', { class: 'unit' }, t('per_month_unit')) : h('span', { class: 'unit' }, t('unpriced_short'))),
      h('dl', {}, rows.map(([label, value]) => h('div', {}, h('dt', {}, t(label)), h('dd', {}, value)))));
  });
  morph($('keyfigs'), ...cards);
}

function renderMemory(ev) {
  // Per GPU of the instance, all from the core: the weights' share, the KV cache of the
  // scenario's users x context, and the headroom left once they are in.
  const rows = ev.results.map((r) => {
    const cap = r.capacity_bytes_per_gpu;
    const reserve = r.reserve_bytes_per_gpu;
    const weights = r.weights_bytes_per_gpu;
    // The bar shows the KV cache within the memory there is (over-subscription is told by
    // "fits" and the table, not drawn past the end of the bar).
    const kv = Math.max(0, Math.min(r.kv_used_bytes_per_gpu, r.kv_free_bytes_per_gpu));
    return { r, cap, reserve, weights, kv, rest: Math.max(0, r.headroom_bytes_per_gpu) };
  });
  const segs = [
    ['weights', 'seg-weights'], ['kv', 'seg-kv'], ['reserve', 'seg-reserve'], ['free', 'seg-free'],
  ];
  const box = $('memory-chart');
  const chartKey = `${chartWidth(box)}|${i18n.language()}|${rows.map((m) => [m.r.gpu_name, m.r.instance_gpus, m.cap, m.reserve, m.weights, m.kv, m.rest].join(',')).join(';')}`;
  if (chartReady(box)) memo('memory-chart', chartKey, () => morph(box, stackedBars({
    name: 'memory',
    width: chartWidth(box),
    title: t('memory_chart_title'),
    desc: rows.map(({ r, weights, kv, reserve, rest }) => t('memory_chart_desc', {
      name: r.offering_name, weights: i18n.gb(weights), kv: i18n.gb(kv), reserve: i18n.gb(reserve), free: i18n.gb(rest),
    })).join(' '),
    rows: rows.map(({ r, cap, weights, kv, reserve, rest }) => ({
      label: r.gpu_name.replace(/^(AMD Instinct|NVIDIA) /, ''),
      sublabel: t('instance_of', { n: r.instance_gpus }),
      total: Math.max(cap, weights + reserve),
      segments: [
        { cls: 'seg-weights', value: Math.min(weights, cap), label: t('legend_weights') },
        { cls: 'seg-kv', value: kv, label: t('legend_kv') },
        { cls: 'seg-reserve', value: reserve, label: t('legend_reserve') },
        { cls: 'seg-free', value: rest, label: t('legend_free') },
        { cls: 'seg-over', value: Math.max(0, weights + reserve - cap), label: t('legend_over') },
      ],
    })),
    fmt: (v) => i18n.num(v / 1e9, 0),
    axisLabel: t('gb_per_gpu'),
  })));
  morph($('memory-legend'), ...segs.map(([k, cls]) => h('li', {}, h('span', { class: `key ${cls}`, 'aria-hidden': 'true' }), t(`legend_${k}`))));
  const s = parseScenario(ev.scenario);
  $('memory-note').textContent = tn('memory_note', Number(s.get('users')), {
    users: i18n.num(Number(s.get('users'))), context: i18n.tokens(Number(s.get('context'))),
    basis: t(`basis_${ev.capacity_basis}`),
  });
  const line = (label, fn, cls) => ({ cls, cells: [t(label), ...ev.results.map((r, i) => fn(r, i, rows[i]))] });
  table($('memory-table'), {
    caption: t('memory_h'),
    head: [t('per_gpu_col'), ...ev.results.map((r) => r.offering_name)],
    rows: [
      line('f_capacity_bytes_per_gpu', (r, i) => figure(r, i, 'capacity_bytes_per_gpu')),
      line('f_weights_bytes', (r, i) => figure(r, i, 'weights_bytes')),
      line('weights_per_gpu', (r, i) => figure(r, i, 'weights_bytes_per_gpu')),
      line('kv_used_per_gpu', (r, i) => figure(r, i, 'kv_used_bytes_per_gpu')),
      line('f_reserve_bytes_per_gpu', (r, i) => figure(r, i, 'reserve_bytes_per_gpu')),
      line('f_kv_free_bytes_per_gpu', (r, i) => figure(r, i, 'kv_free_bytes_per_gpu')),
      line('f_kv_free_bytes', (r, i) => figure(r, i, 'kv_free_bytes')),
      line('f_kv_bytes_per_token', (r, i) => figure(r, i, 'kv_bytes_per_token')),
      line('f_kv_bytes_per_context', (r, i) => figure(r, i, 'kv_bytes_per_context')),
      line('f_gpus_needed_weights_only', (r, i) => figure(r, i, 'gpus_needed_weights_only')),
      line('f_gpus_needed', (r, i) => figure(r, i, 'gpus_needed')),
      line('instance', (r) => tn('instance_split', r.replicas, { tp: r.tensor_parallel, pp: r.pipeline_parallel, replicas: r.replicas })),
      line('f_full_contexts', (r, i) => figure(r, i, 'full_contexts')),
      line('f_max_context_tokens', (r, i) => figure(r, i, 'max_context_tokens')),
    ],
  });
}

function renderPerf(ev) {
  const inference = ev.workload === 'inference';
  const line = (field) => ({ cells: [t(`f_${field}`), ...ev.results.map((r, i) => figure(r, i, field))] });
  const rows = [{ cells: [t('rates'), ...ev.results.map((r) => h('span', { class: 'rates' }, rateLabel(r.rates_label)))] }];
  const fields = inference
    ? ['max_throughput_tokens_per_s', 'decode_tokens_per_s_per_user', 'ttft_s', 'tpot_s', 'usd_per_million_tokens']
    : ['train_tokens_per_s', 'train_hours', 'gpu_hours', 'run_cost_usd', 'train_memory_bytes_per_gpu'];
  for (const f of fields) rows.push(line(f));
  table($('perf-table'), { caption: t('perf_h'), head: ['', ...ev.results.map((r) => r.offering_name)], rows });
  const s = parseScenario(ev.scenario);
  $('perf-note').textContent = inference
    ? t('perf_note', { input: i18n.num(Number(s.get('input') || state.defaults.get('input'))),
      output: i18n.num(Number(s.get('output') || state.defaults.get('output'))),
      util: i18n.percent(Number(s.get('util') || state.defaults.get('util'))) })
    : t('perf_note_train', { tokens: i18n.num(Number(s.get('tokens') || state.defaults.get('tokens'))),
      seq: i18n.num(Number(s.get('seq') || state.defaults.get('seq'))) });
  renderSweeps(ev);
}

function rateLabel(label) {
  if (!label) return i18n.DASH;
  const some = /\(some figures estimate[ds]?\)/.test(label) ? t('rates_some_estimate') : '';
  if (label.startsWith('datasheet peak')) return t('rates_peak') + some;
  if (label.startsWith('public measurements')) return t('rates_public') + some;
  const m = /^calibrated on ([^(]*)/.exec(label);
  return m ? t('rates_calibrated', { what: m[1].trim() }) + some : label;
}

function renderSweeps(ev) {
  const chartsSection = document.querySelector('#sec-perf .charts2');
  const dataBox = document.querySelector('#sec-perf .chart-data');
  const legend = $('series-legend');
  if (state.sweeps === null && (chartReady($('batch-chart')) || chartReady($('context-chart')))) computeSweeps();
  const training = state.sweeps === false;
  chartsSection.hidden = training; dataBox.hidden = training; legend.hidden = training;
  // null: the charts' width is not known yet; the ResizeObserver redraws once it is.
  if (!state.sweeps) return;
  const names = ev.results.map((r) => r.offering_name);
  morph(legend, ...names.map((n, i) => h('li', {}, h('span', { class: `key line ${seriesClass(i)}`, 'aria-hidden': 'true' }), n)));
  const pick = (points) => ev.results.map((r, i) => points.map((res) => {
    const v = res && res[i] ? res[i][0] : null;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  }));
  const batch = pick(state.sweeps.batch);
  const ctx = pick(state.sweeps.context);
  const s = parseScenario(ev.scenario);
  $('batch-caption').textContent = t('batch_chart_title');
  $('context-caption').textContent = t('context_chart_title');
  const describe = (xs, series, xf, yf) => series.map((vals, i) => `${names[i]}: ${vals.map((v, j) => `${xf(xs[j])} → ${v === null ? i18n.DASH : yf(v)}`).join(', ')}`).join('. ');
  const batchBox = $('batch-chart');
  const ctxBox = $('context-chart');
  const keyOf = (box, series, extra) => `${chartWidth(box)}|${i18n.language()}|${names.join('\u0001')}|${extra}|${series.map((v) => v.join(',')).join(';')}`;
  if (chartReady(batchBox)) memo('batch-chart', keyOf(batchBox, batch, s.get('context')), () => morph(batchBox, lineChart({ name: 'batch',
    width: chartWidth(batchBox), title: t('batch_chart_title'),
    desc: describe(BATCH_SWEEP, batch, (x) => i18n.num(x), (y) => i18n.sig(y)),
    xs: BATCH_SWEEP, xFmt: (x) => i18n.num(x), yFmt: (y) => i18n.sig(y),
    series: batch.map((values, i) => ({ name: names[i], cls: seriesClass(i), values })),
    xLabel: t('users_axis', { context: i18n.tokens(Number(s.get('context'))) }),
  })));
  if (chartReady(ctxBox)) memo('context-chart', keyOf(ctxBox, ctx, ''), () => morph(ctxBox, lineChart({ name: 'context',
    width: chartWidth(ctxBox), title: t('context_chart_title'),
    desc: describe(CONTEXT_SWEEP, ctx, i18n.tokens, (y) => i18n.num(y)),
    xs: CONTEXT_SWEEP, xFmt: i18n.tokens, yFmt: (y) => i18n.num(y),
    series: ctx.map((values, i) => ({ name: names[i], cls: seriesClass(i), values })),
    xLabel: t('context_axis'),
  })));
  // The same numbers as tables, drawn when their <details> is open (or for print).
  state.drawSweepTables = () => {
    const sweepTable = (el, title, xs, xf, series, yf) => table(el, {
      caption: title,
      head: [title, ...names],
      rows: xs.map((x, j) => ({ cells: [xf(x), ...series.map((vals) => (vals[j] === null ? i18n.DASH : yf(vals[j])))] })),
    });
    sweepTable($('batch-table'), t('batch_chart_title'), BATCH_SWEEP, (x) => t('users_n', { n: i18n.num(x) }), batch, i18n.sig);
    sweepTable($('context-table'), t('context_chart_title'), CONTEXT_SWEEP, i18n.tokens, ctx, (y) => i18n.num(y));
  };
  if (dataBox.open || printing) state.drawSweepTables();
}

let printing = false;

function renderPrice(ev) {
  const off = (r) => state.offerings.find((o) => o.id === r.offering) || {};
  const text = (fn) => (r) => fn(off(r)) || i18n.DASH;
  const line = (label, fn) => ({ cells: [t(label), ...ev.results.map(fn)] });
  table($('price-table'), {
    caption: t('price_h'),
    head: [t('config_col'), ...ev.results.map((r) => r.offering_name)],
    rows: [
      line('f_price_month_usd', (r, i) => figure(r, i, 'price_month_usd')),
      line('f_price_gpu_hour_usd', (r, i) => figure(r, i, 'price_gpu_hour_usd')),
      line('f_price_gb_month_usd', (r, i) => figure(r, i, 'price_gb_month_usd')),
      line('f_price_delta_month_usd', (r, i) => (i === 0 ? i18n.DASH : figure(r, i, 'price_delta_month_usd'))),
      line('hbm_total', (r) => {
        const g = gpuOf(r);
        return `${i18n.num(r.gpu_count)} × ${i18n.gb(g.hbm_marketed_bytes, 0)} ${g.memory_type || ''} = ${i18n.gb(marketedHbm(r), 0)}`;
      }),
      line('cpu', text((o) => o.cpu)),
      line('ram', text((o) => o.ram)),
      line('storage', text((o) => o.storage)),
      line('network', text((o) => o.network)),
      line('availability', text((o) => o.availability)),
    ],
  });
}

function renderSpecs(ev) {
  const gpuIds = [];
  for (const r of ev.results) if (!gpuIds.includes(r.gpu)) gpuIds.push(r.gpu);
  const gpus = gpuIds.map((id) => state.gpus.find((g) => g.id === id)).filter(Boolean);
  const tf = (g, p) => {
    const v = g.peak_flops_per_s && g.peak_flops_per_s[p];
    return typeof v === 'number' ? `${i18n.num(v / 1e12)} TFLOPS` : i18n.DASH;
  };
  const ic = (g) => {
    const i = g.interconnect || {};
    const bw = i.per_gpu_bandwidth_bytes_per_s;
    const parts = [i.kind];
    if (i.topology === 'full_mesh' && i.links) parts.push(t('mesh_links', { n: i.links, bw: i18n.num(i.link_bandwidth_bytes_per_s / 1e9, 1) }));
    if (bw) parts.push(`${i18n.num(bw / 1e9)} GB/s`);
    return parts.filter(Boolean).join(' · ');
  };
  const line = (label, fn) => ({ cells: [t(label), ...gpus.map(fn)] });
  table($('spec-table'), {
    caption: t('specs_h'),
    head: [t('spec_col'), ...gpus.map((g) => g.name)],
    rows: [
      line('spec_arch', (g) => g.architecture),
      line('spec_memory', (g) => `${i18n.num(g.hbm_marketed_bytes / 1e9)} GB ${g.memory_type}`),
      line('spec_device_memory', (g) => (typeof g.hbm_device_bytes === 'number'
        ? `${i18n.num(g.hbm_device_bytes / 2 ** 20)} MiB (${i18n.num(g.hbm_device_bytes / 2 ** 30, 1)} GiB)` : t('not_measured'))),
      line('spec_bandwidth', (g) => `${i18n.num(g.memory_bandwidth_bytes_per_s / 1e12, 1)} TB/s`),
      line('spec_fp4', (g) => tf(g, 'fp4') + (g.fp4_format ? ` (${g.fp4_format.toUpperCase()})` : '')),
      line('spec_fp6', (g) => tf(g, 'fp6')),
      line('spec_fp8', (g) => tf(g, 'fp8')),
      line('spec_bf16', (g) => tf(g, 'bf16')),
      line('spec_interconnect', ic),
      line('spec_form', (g) => [g.form_factor, g.cooling].filter(Boolean).join(' · ')),
      line('spec_power', (g) => `${i18n.num(g.tdp_w)} W`),
    ],
  });
}

function renderFits() {
  const fit = state.fit;
  const ev = state.evaluation;
  if (!fit) return;
  const current = parseScenario(ev.scenario).get('weights');
  const shown = state.fitWeights || current;
  const box = $('fit-table');
  const names = fit.offerings.map((id, i) => (ev.results[i] && ev.results[i].offering === id ? ev.results[i].offering_name : id));
  const gpuNames = fit.gpus.map((id) => (state.gpus.find((g) => g.id === id) || { name: id }).name.replace(/^(AMD Instinct|NVIDIA) /, ''));
  const rows = fit.rows.filter((row) => shown === 'all' || row.weights === shown);
  const thead = h('thead', {}, h('tr', {},
    h('th', { scope: 'col', class: 'rowhead' }, t('fit_model_col')),
    h('th', { scope: 'col' }, t('fit_weights_col')),
    ...gpuNames.map((n, i) => h('th', { scope: 'col', class: `col ${seriesClass(i)}`, title: names[i] }, t('fit_gpus_col', { gpu: n })))));
  const tbody = h('tbody', {}, rows.map((row) => {
    const isCurrent = row.model === ev.model.id && row.weights === current;
    const weightsBytes = row.cells[0] ? row.cells[0].weights_bytes : null;
    return h('tr', { class: isCurrent ? 'current' : null },
      h('th', { scope: 'row' }, row.model_name, ' ', h('span', { class: 'prec' }, row.weights.toUpperCase())),
      h('td', {}, `${i18n.gb(weightsBytes, 0)}`),
      ...row.cells.map((c, i) => {
        const n = c.gpus_needed_weights_only;
        const practical = c.gpus_needed;
        const over = !c.fits_offering;
        return h('td', { class: over ? 'over' : null },
          h('strong', {}, i18n.num(n)),
          practical !== null && practical !== n ? h('span', { class: 'practical' }, ` · ${t('fit_practical', { n: i18n.num(practical) })}`) : null,
          over ? h('span', { class: 'flag' }, ` · ${t('fit_over')}`) : null,
          c.native_math === false ? h('span', { class: 'flag weight-only', title: t('weight_only_hint') }, ` · ${t('weight_only')}`) : null);
      }));
  }));
  box.replaceChildren(h('caption', { class: 'visually-hidden' }, t('fits_h')), thead, tbody);
  const filter = $('fit-filter');
  if (filter) filter.value = shown;
  $('fits-note').textContent = t('fits_note', { basis: t(`basis_${fit.capacity_basis}`) });
}

function renderNotes(ev) {
  const notes = [];
  notes.push(t(`basis_note_${ev.capacity_basis}`));
  notes.push(t('rates_note', { list: ev.results.map((r) => `${r.offering_name}: ${rateLabel(r.rates_label)}`).join(t('list_sep')) }));
  const warnings = new Map();
  ev.results.forEach((r) => r.warnings.forEach((w) => {
    if (!warnings.has(w)) warnings.set(w, []);
    warnings.get(w).push(r.gpu_name);
  }));
  for (const [w, gpus] of warnings) {
    notes.push(i18n.has(`w_${w}`) ? t(`w_${w}`, { gpus: [...new Set(gpus)].join(', '), max: i18n.tokens(ev.model.max_context_tokens) }) : w);
  }
  notes.push(t('note_formulas'));
  morph($('notes'), ...notes.map((n) => h('li', {}, n)));
}

// ---------------------------------------------------------------------------------------------
// Formula dialog

function openFormula(index, field) {
  const traced = gpucalc.evaluate(state.evaluation.scenario, { trace: true });
  const r = traced.results[index];
  const tr = r && r.trace && r.trace[field];
  if (!tr) return;
  $('formula-h').textContent = t(`f_${field}`);
  $('formula-offering').textContent = `${r.offering_name}: ${fmtField(field, r[field])}`;
  $('formula-text').textContent = tr.formula;
  const inputs = Object.entries(tr.inputs || {});
  table($('formula-inputs'), {
    head: [t('input_col'), t('value_col')],
    rows: inputs.map(([k, v]) => ({ cells: [k, typeof v === 'number' ? i18n.num(v, Math.abs(v) < 1 ? 6 : 3) : i18n.DASH] })),
  });
  $('formula-inputs').hidden = inputs.length === 0;
  $('formula-note').textContent = tr.note || '';
  const dialog = $('formula');
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
}

// ---------------------------------------------------------------------------------------------
// Export, share, language

function exportCsv() {
  const ev = state.evaluation;
  if (!ev) return;
  const fields = Object.keys(ev.results[0] || {}).filter((k) => k !== 'trace');
  const rows = [['scenario', ev.scenario], ['capacity_basis', ev.capacity_basis], ['model', ev.model.id], []];
  rows.push(['field', ...ev.results.map((r) => r.offering)]);
  for (const f of fields) {
    rows.push([f, ...ev.results.map((r) => (Array.isArray(r[f]) ? r[f].join(' ') : r[f]))]);
  }
  download(`gpucalc-${ev.model.id}.csv`, 'text/csv', toCsv(rows));
}

function exportJson() {
  const ev = state.evaluation;
  if (!ev) return;
  const traced = gpucalc.evaluate(ev.scenario, { trace: true });
  download(`gpucalc-${ev.model.id}.json`, 'application/json', `${JSON.stringify(traced, null, 2)}\n`);
}

async function copyLink() {
  const url = shareUrl();
  const status = $('copy-status');
  try {
    await navigator.clipboard.writeText(url);
    status.textContent = t('copied');
  } catch {
    status.replaceChildren(h('input', { type: 'text', readonly: true, value: url, 'aria-label': t('copy_link'), class: 'copy-fallback' }));
    status.firstChild.select();
  }
  setTimeout(() => { if (status.textContent === t('copied')) status.textContent = ''; }, 4000);
}

function updateLangLinks() {
  for (const l of i18n.LANGS) {
    const a = $(`lang-${l}`);
    const q = new URLSearchParams(location.search);
    q.set('lang', l);
    a.href = `?${q}${location.hash}`;
    if (l === i18n.language()) a.setAttribute('aria-current', 'true'); else a.removeAttribute('aria-current');
  }
}

async function switchLanguage(l) {
  await i18n.setLanguage(l);
  const q = new URLSearchParams(location.search);
  q.set('lang', l);
  query.set('lang', l);
  history.replaceState(null, '', `${location.pathname}?${q}${location.hash}`);
  i18n.translateDocument();
  renderModelOptions();
  $('in-model').value = parseScenario(state.evaluation.scenario).get('model');
  renderOfferingRows();
  buildFitFilter();
  render();
  updateLangLinks();
}

function buildFitFilter() {
  const old = $('fit-filter-row');
  if (old) old.remove();
  const select = h('select', { id: 'fit-filter' },
    h('option', { value: 'all' }, t('fit_all')),
    ...['bf16', 'fp8', 'fp6', 'fp4', 'int4'].map((w) => h('option', { value: w }, w.toUpperCase())));
  select.addEventListener('change', () => { state.fitWeights = select.value; drawFits(); });
  const row = h('p', { id: 'fit-filter-row', class: 'filter' }, h('label', { for: 'fit-filter' }, t('fit_filter')), ' ', select);
  $('fits-note').after(row);
}

// ---------------------------------------------------------------------------------------------
// Theme (embed hosts restyle the page through query parameters)

const THEME = { accent: '--accent', bg: '--bg', fg: '--fg', muted: '--muted', card: '--card',
  border: '--border', s1: '--series-1', s2: '--series-2', s3: '--series-3', s4: '--series-4' };
function applyTheme() {
  const root = document.documentElement.style;
  for (const [param, prop] of Object.entries(THEME)) {
    const v = query.get(param);
    if (v && /^[0-9a-fA-F]{3}([0-9a-fA-F]{3})?([0-9a-fA-F]{2})?$/.test(v)) root.setProperty(prop, `#${v}`);
    else if (v && /^[a-z]{3,20}$/.test(v)) root.setProperty(prop, v);
  }
  const font = query.get('font');
  if (font && /^[\w \-,']{1,80}$/.test(font)) root.setProperty('--font', font);
  const radius = query.get('radius');
  if (radius && /^\d{1,2}$/.test(radius)) root.setProperty('--radius', `${radius}px`);
}

// ---------------------------------------------------------------------------------------------
// Start

function bindControls() {
  const form = $('controls');
  form.addEventListener('input', (e) => {
    if (e.target.closest('#offerings') || e.target.closest('#import') || e.target.closest('.pricelist')) return;
    if (e.target.id === 'in-workload') syncWorkloadFields();
    update();
  });
  form.addEventListener('change', (e) => {
    if (e.target.type === 'checkbox' || e.target.type === 'radio') update();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  $('add-offering').addEventListener('click', () => {
    const used = new Set(state.compare.map((c) => c.id));
    const next = state.offerings.find((o) => !used.has(o.id));
    if (!next || state.compare.length >= MAX_COMPARE) return;
    state.compare.push({ id: next.id, price: '' });
    renderOfferingRows();
    update();
    $(`in-offering-${state.compare.length - 1}`).focus();
  });
  $('reset').addEventListener('click', () => {
    state.fitWeights = null;
    writeForm(parseScenario(gpucalc.evaluate('v=1').scenario));
    update();
  });
  $('do-import').addEventListener('click', importModel);
  $('in-pricelist').addEventListener('change', loadPriceList);
  $('copy-link').addEventListener('click', copyLink);
  $('export-csv').addEventListener('click', exportCsv);
  $('export-json').addEventListener('click', exportJson);
  $('print').addEventListener('click', () => window.print());
  $('results').addEventListener('click', (e) => {
    const fig = e.target.closest('button.fig');
    if (fig) openFormula(Number(fig.dataset.r), fig.dataset.f);
  });
  for (const l of i18n.LANGS) {
    $(`lang-${l}`).addEventListener('click', (e) => { e.preventDefault(); switchLanguage(l); });
  }
  observeChartWidths();
  observeFits();
  const dataBox = document.querySelector('#sec-perf .chart-data');
  const fillSweepTables = () => {
    // Opened before the charts were on screen: the sweeps are computed now for the tables.
    if (state.sweeps === null) { computeSweeps(); render(); } else if (state.drawSweepTables) state.drawSweepTables();
  };
  dataBox.addEventListener('toggle', (e) => { if (e.target.open) fillSweepTables(); });
  // 'toggle' comes a task after the click: the tables are filled as the summary opens them, so
  // they are there as soon as the <details> is.
  dataBox.querySelector('summary').addEventListener('click', () => { if (!dataBox.open) fillSweepTables(); });
  window.addEventListener('beforeprint', () => {
    printing = true;
    if (state.drawSweepTables) state.drawSweepTables();
    drawFits();
  });
  window.addEventListener('afterprint', () => { printing = false; });
}

function importModel() {
  const err = $('err-import');
  const ok = $('ok-import');
  err.hidden = true; ok.hidden = true;
  const id = $('in-import-id').value.trim();
  try {
    const model = gpucalc.importHfConfig($('in-import').value, id);
    state.models = gpucalc.catalog('models');
    renderModelOptions();
    $('in-model').value = model.id;
    ok.textContent = t('import_ok', { name: model.name || model.id, params: i18n.num(model.params_total / 1e9, 1) });
    ok.hidden = false;
    update();
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    err.textContent = errorText(e);
    err.hidden = false;
  }
}

async function loadPriceList() {
  const input = $('in-pricelist');
  const file = input.files && input.files[0];
  if (!file) return;
  await loadCatalogText(await file.text(), file.name, $('err-pricelist'), $('ok-pricelist'));
}

async function loadCatalogText(text, name, errEl, okEl) {
  try {
    gpucalc.loadCatalog(text, name);
    refreshCatalog();
    if (okEl) { okEl.textContent = t('pricelist_ok', { name }); okEl.hidden = false; }
    if (errEl) errEl.hidden = true;
    renderOfferingRows();
    renderModelOptions();
    if (state.evaluation) $('in-model').value = parseScenario(state.evaluation.scenario).get('model');
    if (state.evaluation) update();
    return true;
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    if (errEl) { errEl.textContent = errorText(e); errEl.hidden = false; }
    else showNotice(t('pricelist_failed', { name, message: errorText(e) }));
    return false;
  }
}

function refreshCatalog() {
  state.catalogVersion += 1;
  state.traced.clear();
  state.offerings = gpucalc.catalog('offerings');
  state.models = gpucalc.catalog('models');
  state.gpus = gpucalc.catalog('gpus');
}

/** A same-origin catalog named by `catalog=` in the query (a vendor's price list). */
async function loadQueryCatalog() {
  const name = query.get('catalog');
  if (!name) return;
  let url;
  try { url = new URL(name, location.href); } catch { url = null; }
  if (!url || url.origin !== location.origin) {
    showNotice(t('pricelist_origin'));
    return;
  }
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    await loadCatalogText(await res.text(), url.pathname.split('/').pop(), null, null);
  } catch (e) {
    if (e instanceof gpucalc.GpucalcError) throw e;
    showNotice(t('pricelist_failed', { name, message: e.message }));
  }
}

async function start() {
  if (embedded) document.documentElement.classList.add('embed');
  applyTheme();
  const lang = i18n.pickLanguage();
  performance.mark('gpucalc:start');
  const loading = Promise.all([gpucalc.load(), i18n.setLanguage(lang)]);
  i18n.prepareNumbers(lang);
  await loading;
  performance.mark('gpucalc:loaded');
  i18n.translateDocument();
  for (const k of gpucalc.scenarioKeys()) state.defaults.set(k.key, k.defaultText);
  refreshCatalog();
  renderModelOptions();
  buildFitFilter();
  bindControls();
  await loadQueryCatalog();

  const fromLink = fragmentText();
  let computed = null;
  if (fromLink) {
    try {
      computed = evaluateText(fromLink);
    } catch (e) {
      if (!(e instanceof gpucalc.GpucalcError)) throw e;
      showNotice(t(e.code === 'unsupported_version' ? 'notice_future_link' : 'notice_bad_link', { message: errorText(e) }));
    }
  }
  if (!computed) computed = evaluateText('v=1');
  writeForm(parseScenario(computed.evaluation.scenario));
  // The form and results are laid out once, filled (style.css hides them until then).
  document.documentElement.classList.add('live');
  apply(computed);
  if (fromLink && computed.evaluation.scenario !== fromLink) scheduleUrl();
  else if (!fromLink) scheduleUrl();
  updateLangLinks();
  // Ready once what waited for the first paint (charts, formula buttons) is drawn too. The
  // embed view starts posting its height then, when the content has its final size.
  afterFirstPaint(() => {
    render();
    if (embedded) {
      initEmbed({
        allowed: query.get('parent'),
        fullUrl: () => shareUrl(),
        label: t('open_full'),
      });
    }
    document.documentElement.classList.add('ready');
  });
}

start().catch((e) => {
  console.error(e);
  const n = $('notice');
  n.textContent = `gpucalc could not start: ${e && e.message ? e.message : e}`;
  n.hidden = false;
});

// For the tests and the benchmark: the state, read-only use.
window.gpucalcPage = { state, update, render };
