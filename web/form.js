// The form: controls <-> scenario text, the compared offerings' rows, errors next to fields.
// Controls are found by key (`in-<key>`, radios named <key>), keys come from the core's schema;
// a key without a control keeps the value the core decoded.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, h } from './dom.js';
import { state, hooks } from './state.js';
import { keys, maxCompare, listOf } from './schema.js';
import { errorText, localized } from './format.js';

const LIST_KEYS = new Set(['v', 'compare', 'price', 'servers']);

/** The scenario text of the form, every key in schema order (the core canonicalises it). */
export function readForm() {
  const parts = [`v=${gpucalc.scenarioVersion()}`];
  for (const { key } of keys()) {
    if (LIST_KEYS.has(key)) {
      if (key === 'compare') parts.push(`compare=${state.compare.map((c) => c.id).join(',')}`);
      if (key === 'price') {
        const prices = state.compare.map((c) => c.price.trim().replace(/[$,\s]|US/g, '') || '-');
        if (prices.some((p) => p !== '-')) parts.push(`price=${prices.join(',')}`);
      }
      if (key === 'servers') {
        const servers = state.compare.map((c) => (c.servers || '').trim() || '-');
        if (servers.some((n) => n !== '-')) parts.push(`servers=${servers.join(',')}`);
      }
      continue;
    }
    // Weights the user did not choose are left to the core: the model's release format.
    if (key === 'weights' && !state.weightsChosen) continue;
    const el = $(`in-${key}`);
    const radio = el ? null : document.querySelector(`input[type="radio"][name="${key}"]:checked`);
    let value;
    if (el) value = el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value.trim();
    else if (radio) value = radio.value;
    else value = state.inputs.get(key) ?? '';
    parts.push(`${key}=${value}`);
  }
  return parts.join('&');
}

/** Fills the controls from `inputs` (key -> text, every key decoded by the core). */
export function writeForm(inputs) {
  for (const { key } of keys()) {
    if (LIST_KEYS.has(key)) continue;
    const v = inputs.get(key) ?? '';
    const el = $(`in-${key}`);
    if (el && el.type === 'checkbox') el.checked = v === '1';
    else if (el) {
      if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === v)) el.append(h('option', { value: v }, v));
      el.value = v;
    } else {
      for (const r of document.querySelectorAll(`input[type="radio"][name="${key}"]`)) r.checked = r.value === v;
    }
  }
  const prices = listOf(inputs, 'price');
  const servers = listOf(inputs, 'servers');
  state.compare = listOf(inputs, 'compare').map((id, i) => ({ id, price: prices[i] && prices[i] !== '-' ? prices[i] : '',
    servers: servers[i] && servers[i] !== '-' && servers[i] !== '1' ? servers[i] : '' }));
  renderOfferingRows();
  syncWorkloadFields();
}

export function syncWorkloadFields() {
  document.documentElement.classList.toggle('training', $('in-workload').value !== 'inference');
}

/** An option's label: the price first (short form), so a name too long for the select's width
 *  cuts the name, never the price; the select's title holds the whole label. */
function offeringLabel(o) {
  const price = typeof o.price_month_usd === 'number' ? t('per_month_short', { price: i18n.usd(o.price_month_usd) }) : t('your_price');
  return `${price} · ${localized(o, 'name')}${o.projected ? ` · ${t('projected_tag')}` : ''}`;
}

export function renderOfferingRows() {
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
    if (select.selectedIndex >= 0) select.title = select.options[select.selectedIndex].textContent;
    select.addEventListener('change', () => { entry.id = select.value; entry.price = ''; renderOfferingRows(); hooks.update(); });
    const catalogPrice = offering && typeof offering.price_month_usd === 'number' ? offering.price_month_usd : null;
    const price = h('input', { id: `in-price-${i}`, type: 'text', inputmode: 'decimal', autocomplete: 'off',
      class: 'price-input', 'aria-describedby': 'err-price',
      placeholder: catalogPrice !== null ? i18n.num(catalogPrice) : t('enter_price') });
    price.value = entry.price;
    price.addEventListener('input', () => { entry.price = price.value; hooks.update(); });
    const servers = h('input', { id: `in-servers-${i}`, type: 'text', inputmode: 'numeric', autocomplete: 'off',
      class: 'servers-input', 'aria-describedby': 'err-servers', placeholder: '1' });
    servers.value = entry.servers || '';
    servers.addEventListener('input', () => { entry.servers = servers.value; hooks.update(); });
    const remove = h('button', { type: 'button', class: 'icon-button', 'aria-label': t('remove_offering', { n: i + 1 }),
      title: t('remove_offering', { n: i + 1 }), disabled: state.compare.length <= 1 }, '×');
    remove.addEventListener('click', () => { state.compare.splice(i, 1); renderOfferingRows(); hooks.update(); });
    // A name longer than the select's width is cut there: its whole name is shown under it
    // (the select itself says it to a screen reader).
    const full = h('p', { class: 'offering-full', id: `offering-full-${i}`, 'aria-hidden': 'true', hidden: true },
      offering ? `${localized(offering, 'name')}${offering.projected ? ` · ${t('projected_tag')}` : ''}` : entry.id);
    list.append(h('li', { class: `offering-row s${i + 1}` },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }),
      h('label', { for: `in-offering-${i}`, class: 'visually-hidden' }, t('offering_n', { n: i + 1 })),
      h('div', { class: 'offering-pick' }, select, full),
      h('label', { for: `in-price-${i}`, class: 'price-label' }, t('price_override')),
      price,
      h('label', { for: `in-servers-${i}`, class: 'servers-label' }, t('servers_label')),
      servers, remove));
  });
  $('add-offering').disabled = state.compare.length >= maxCompare();
  showCutNames();
}

// Chromium draws a select's arrow in its inline end padding box: about 20 px at these sizes.
const SELECT_ARROW_PX = 24;
let measure = null;

/** Unhides the whole-name line of each offering select whose chosen label does not fit its box
 *  (measured in the select's own font), and hides it where the label fits. */
export function showCutNames() {
  measure ??= document.createElement('canvas').getContext('2d');
  for (const select of document.querySelectorAll('#offerings select')) {
    const full = select.parentElement.querySelector('.offering-full');
    const option = select.options[select.selectedIndex];
    if (!full || !option || !measure || !select.clientWidth) continue;
    const cs = getComputedStyle(select);
    measure.font = cs.font;
    const box = select.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - SELECT_ARROW_PX;
    full.hidden = measure.measureText(option.textContent).width <= box;
  }
}

/** Adds the first catalog offering not yet compared. */
export function addOffering() {
  const used = new Set(state.compare.map((c) => c.id));
  const next = state.offerings.find((o) => !used.has(o.id));
  if (!next || state.compare.length >= maxCompare()) return;
  state.compare.push({ id: next.id, price: '' });
  renderOfferingRows();
  hooks.update();
  $(`in-offering-${state.compare.length - 1}`).focus();
}

export function renderModelOptions() {
  const select = $('in-model');
  const current = select.value;
  select.replaceChildren(...state.models.map((m) => h('option', { value: m.id },
    m.experts_routed > 0
      ? `${m.name} · ${t('moe_params', { total: i18n.num(m.params_total / 1e9, 0), active: i18n.num(m.params_active / 1e9, 0) })}`
      : m.name)));
  if (current) select.value = current;
}

// --- errors next to their field ----------------------------------------------------------------

const ERROR_TARGETS = { compare: 'err-compare', price: 'err-price', capacity: 'err-capacity' };
const KEEP = new Set(['err-import', 'err-pricelist']);

export function clearErrors() {
  for (const el of document.querySelectorAll('#controls .field-error:not([hidden])')) {
    if (KEEP.has(el.id)) continue;
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of document.querySelectorAll('#controls [aria-invalid]')) el.removeAttribute('aria-invalid');
  setStale(false);
}

/** Shows `error` next to its field and marks the field invalid. */
export function showFieldError(error) {
  const field = (error.field || '').replace(/\[.*$/, '');
  const target = $(ERROR_TARGETS[field] || `err-${field}`) || $('form-error');
  const text = errorText(error);
  target.textContent = target.hidden || !target.textContent ? text : `${target.textContent} ${text}`;
  target.hidden = false;
  const input = $(`in-${field}`);
  if (input) input.setAttribute('aria-invalid', 'true');
  if (field === 'price') for (const el of document.querySelectorAll('.price-input')) el.setAttribute('aria-invalid', 'true');
}

/** The results no longer match the form (an input error): dimmed, and said in text. */
export function setStale(stale) {
  const results = $('results');
  if (results.classList.contains('stale') === stale) return;
  results.classList.toggle('stale', stale);
  $('stale-note').hidden = !stale;
}

/** Adds `text` to the notice: a notice already shown (a price list that failed, then the link's
 *  own errors) stays, the new one follows it. */
export function showNotice(text) {
  const n = $('notice');
  const kept = n.hidden ? [] : [...n.querySelectorAll('.notice-text')].filter((p) => p.textContent !== text);
  n.replaceChildren(h('div', {}, ...kept, h('p', { class: 'notice-text' }, text)),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': t('dismiss') }, '×'));
  n.lastChild.addEventListener('click', () => { n.hidden = true; });
  n.hidden = false;
}
