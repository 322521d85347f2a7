// The user's own model (a Hugging Face config.json) and price list (a file): read by the core.
// Fetched when either is first used (catalog.js bindCatalog).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $ } from './dom.js';
import { state, hooks } from './state.js';
import { errorText, loadErrorStrings } from './format.js';
import { renderModelOptions } from './form.js';
import { loadCatalogText } from './catalog.js';

export async function importModel() {
  const err = $('err-import');
  const ok = $('ok-import');
  err.hidden = true; ok.hidden = true;
  try {
    await gpucalc.loadWhole();
    const model = gpucalc.importHfConfig($('in-import').value, $('in-import-id').value.trim());
    state.models = gpucalc.catalog('models');
    renderModelOptions();
    $('in-model').value = model.id;
    ok.textContent = t('import_ok', { name: model.name || model.id, params: i18n.num(model.params_total / 1e9, 1) });
    ok.hidden = false;
    hooks.update();
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    await loadErrorStrings();
    err.textContent = errorText(e);
    err.hidden = false;
  }
}

/** The user's own file: it may replace any figure (GPU, model constants, error bands...); every
 *  result built on one names it (the core's `supplied_by`). */
export async function loadPriceList() {
  const input = $('in-pricelist');
  const file = input.files && input.files[0];
  if (!file) return;
  await loadCatalogText(await file.text(), file.name, $('err-pricelist'), $('ok-pricelist'), 'user');
}
