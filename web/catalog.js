// Catalog loading: the lists the form offers, a vendor's price list (file or `catalog=`), and a
// pasted Hugging Face config.json (the user's own files: catalog-files.js). The core holds the
// catalog; the page keeps its listings.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $ } from './dom.js';
import { state, query, embedded, hooks } from './state.js';
import { errorText, loadErrorStrings } from './format.js';
import { renderModelOptions, renderOfferingRows, showNotice } from './form.js';

export function refreshCatalog() {
  state.catalogVersion += 1;
  state.traced.clear();
  const offerings = gpucalc.catalog('offerings');
  state.offerings = state.offeringFilter ? offerings.filter((o) => state.offeringFilter.has(o.id)) : offerings;
  state.models = gpucalc.catalog('models');
  state.gpus = gpucalc.catalog('gpus');
}

/** Loads a catalog document; `trust` 'price_list' (a link's or an embedding host's list:
 *  offerings, prices and names only, the core refuses the rest) or 'user'. */
export async function loadCatalogText(text, name, errEl, okEl, trust = 'price_list') {
  try {
    await gpucalc.loadWhole();
    gpucalc.loadCatalog(text, name, { trust });
    refreshCatalog();
    if (okEl) { okEl.textContent = t('pricelist_ok', { name }); okEl.hidden = false; }
    if (errEl) errEl.hidden = true;
    if (state.offeringFilter) keepListedOfferings();
    renderOfferingRows();
    renderModelOptions();
    if (state.evaluation) { $('in-model').value = state.inputs.get('model'); hooks.update(); }
    return true;
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    await loadErrorStrings();
    if (errEl) { errEl.textContent = errorText(e); errEl.hidden = false; }
    else showNotice(t('pricelist_failed', { name, message: errorText(e) }));
    return false;
  }
}

/** Only the listed offerings are compared (a vendor list that replaces the built-in offers):
 *  others leave the comparison, and it is filled up from the list. */
export function keepListedOfferings() {
  state.compare = state.compare.filter((c) => state.offeringFilter.has(c.id));
  for (const o of state.offerings) {
    if (state.compare.length >= Math.min(2, state.offerings.length)) break;
    if (!state.compare.some((c) => c.id === o.id)) state.compare.push({ id: o.id, price: '' });
  }
}

/**
 * A price list the embedding host supplied (embed.js) or the frame that opened this page passed
 * on: added to the catalog, or with mode "replace" the only offerings shown and compared.
 */
export async function applyHostCatalog({ text, name, mode, url }) {
  let ids = null;
  if (mode === 'replace') {
    try { ids = new Set((JSON.parse(text).offerings || []).map((o) => o && o.id).filter((id) => typeof id === 'string')); } catch { ids = null; }
  }
  const filter = state.offeringFilter;
  state.offeringFilter = ids && ids.size ? ids : null;
  const loaded = await loadCatalogText(text, name, null, null);
  // A list the core refused leaves the offerings as they were.
  if (loaded) carried(name, catalogReference(url)); else state.offeringFilter = filter;
  return loaded;
}

/** Keeps the price list a link or a host supplied, for the links made here, and (full page)
 *  says whose prices are shown. */
function carried(name, url) {
  state.priceList = { name, url };
  if (embedded) return;
  let origin = '';
  try { origin = url ? new URL(url, location.href).host : ''; } catch { origin = ''; }
  showNotice(t(origin ? 'pricelist_carried_from' : 'pricelist_carried', { name, origin }));
}

/**
 * Where a link may fetch a price list from (`catalog=`), the embed's origin rule: this page's
 * origin, or an http(s) origin the link's `parent=` lists (any, when it lists none). The URL,
 * or null.
 */
export function catalogUrl(reference, allowedParents) {
  let url;
  try { url = new URL(reference, location.href); } catch { return null; }
  if (url.origin === location.origin) return url;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return !allowedParents.length || allowedParents.includes(url.origin) ? url : null;
}

/** The reference a link carries for a list from `url` (as the page names it: a same-origin
 *  path stays as written), or '' when there is none. */
function catalogReference(url) {
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url.slice(0, 2000) : '';
}

/**
 * The price list `catalog=` names (a vendor's list): loaded as a price list (offerings and
 * prices only). When it cannot be loaded the notice says so, names the link's offerings that
 * came from it, and the link keeps them.
 */
export async function loadQueryCatalog() {
  const reference = query.get('catalog');
  if (!reference || reference === 'opener') return;
  const { allowedParentOrigins } = await import('./embed-frame.js');
  const url = catalogUrl(reference, allowedParentOrigins(query.get('parent')));
  if (!url) {
    showNotice(t('pricelist_origin'));
    return;
  }
  try {
    const res = await fetch(url, { credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const name = url.pathname.split('/').pop() || 'catalog.json';
    if (await loadCatalogText(await res.text(), name, null, null)) carried(name, reference);
  } catch (e) {
    if (e instanceof gpucalc.GpucalcError) throw e;
    state.priceListMissing = reference;
    showNotice(t('pricelist_failed', { name: reference, message: e.message }));
  }
}

export function bindCatalog() {
  // The user's own model or price list: catalog-files.js, fetched on first use.
  const files = (name) => async () => (await import('./catalog-files.js'))[name]();
  $('do-import').addEventListener('click', files('importModel'));
  $('in-pricelist').addEventListener('change', files('loadPriceList'));
}
