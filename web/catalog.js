// Catalog loading: the lists the form offers, a vendor's price list (file or `catalog=`), and a
// pasted Hugging Face config.json. The core holds the catalog; the page keeps its listings.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $ } from './dom.js';
import { state, query, hooks } from './state.js';
import { errorText } from './format.js';
import { renderModelOptions, renderOfferingRows, showNotice } from './form.js';

export function refreshCatalog() {
  state.catalogVersion += 1;
  state.traced.clear();
  const offerings = gpucalc.catalog('offerings');
  state.offerings = state.offeringFilter ? offerings.filter((o) => state.offeringFilter.has(o.id)) : offerings;
  state.models = gpucalc.catalog('models');
  state.gpus = gpucalc.catalog('gpus');
}

function importModel() {
  const err = $('err-import');
  const ok = $('ok-import');
  err.hidden = true; ok.hidden = true;
  try {
    const model = gpucalc.importHfConfig($('in-import').value, $('in-import-id').value.trim());
    state.models = gpucalc.catalog('models');
    renderModelOptions();
    $('in-model').value = model.id;
    ok.textContent = t('import_ok', { name: model.name || model.id, params: i18n.num(model.params_total / 1e9, 1) });
    ok.hidden = false;
    hooks.update();
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
    if (state.offeringFilter) keepListedOfferings();
    renderOfferingRows();
    renderModelOptions();
    if (state.evaluation) { $('in-model').value = state.inputs.get('model'); hooks.update(); }
    return true;
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
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
export async function applyHostCatalog({ text, name, mode }) {
  let ids = null;
  if (mode === 'replace') {
    try { ids = new Set((JSON.parse(text).offerings || []).map((o) => o && o.id).filter((id) => typeof id === 'string')); } catch { ids = null; }
  }
  state.offeringFilter = ids && ids.size ? ids : null;
  return loadCatalogText(text, name, null, null);
}

/** A same-origin catalog named by `catalog=` in the query (a vendor's price list). */
export async function loadQueryCatalog() {
  const name = query.get('catalog');
  if (!name || name === 'opener') return;
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

export function bindCatalog() {
  $('do-import').addEventListener('click', importModel);
  $('in-pricelist').addEventListener('change', loadPriceList);
}
