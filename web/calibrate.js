// "Calibrate with your benchmark results": result files dropped, chosen or pasted are read here
// and handed to the core (calibrateServing), which fits the serving model of the first compared
// offering's GPU and engine and writes a calibration document. The document is loaded into the
// catalog like a price list, kept in this browser (localStorage) and reloaded on the next visit.
// Nothing leaves the page; file contents are only ever passed to the core as text.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $ } from './dom.js';
import { state, hooks, query } from './state.js';
import { showNotice } from './form.js';
import { catalogUrl } from './catalog.js';

// web/first-paint.js reads the same key (a stored calibration: the page does not open on the
// build's first answer).
const STORAGE_KEY = 'gpucalc.servingCalibration';

function stored() {
  try { return localStorage.getItem(STORAGE_KEY); } catch { return null; }
}

export function store(text) {
  try {
    if (text) localStorage.setItem(STORAGE_KEY, text); else localStorage.removeItem(STORAGE_KEY);
  } catch { /* private mode or full: the calibration lasts for this visit */ }
}

/** The calibrate panel's code (calibrate-files.js: reading files, the error table) and its
 *  strings (i18n/calibrate/), fetched when first needed. */
async function panel() {
  const [m] = await Promise.all([import('./calibrate-files.js'), i18n.loadPart('calibrate')]);
  return m;
}
const calibrate = async (files) => (await panel()).calibrate(files);
export const renderCalibration = async () => (await panel()).renderCalibration();

/** Loads the user's own document into the working catalog (throws GpucalcError when the core
 *  refuses it). */
export function useDocument(text) {
  gpucalc.loadCatalog(text, 'serving-calibration.json', { trust: 'user' });
  state.calibration = JSON.parse(text);
  state.calibrationSupplier = '';
  state.catalogVersion += 1;
}

/**
 * A serving calibration another site supplies (the embedding host's `data-calibration`, or a
 * `calibration=` link on the price list's origin rule): taken by the core as a calibration only
 * (never GPU figures, error bands, engines or prices), named by its URL on every result built on
 * it, shown with its supplier's origin; not kept in this browser. False when refused.
 */
export async function useSuppliedCalibration({ text, url, origin }) {
  const name = typeof url === 'string' && url.startsWith(`${origin}/`) ? url.slice(0, 2000) : origin;
  try {
    await gpucalc.loadWhole();
    gpucalc.loadCatalog(text, name, { trust: 'serving_calibration' });
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    await panel().catch(() => { /* the notice names its key */ });
    // A document's error names what it held (the core's words, as for a dropped file).
    showNotice(t('calib_supplied_failed', { origin, message: `${e.field}: ${e.message}` }));
    return false;
  }
  state.calibration = JSON.parse(text);
  state.calibrationSupplier = origin;
  state.catalogVersion += 1;
  await renderCalibration();
  if (state.evaluation) hooks.update();
  return true;
}

/** The calibration a link names (`calibration=`), on the rule of `catalog=` (catalog.js). */
export async function loadQueryCalibration() {
  const reference = query.get('calibration');
  if (!reference) return;
  const { allowedParentOrigins } = await import('./embed-frame.js');
  const url = catalogUrl(reference, allowedParentOrigins(query.get('parent')));
  if (!url) { showNotice(t('pricelist_origin')); return; }
  try {
    const res = await fetch(url, { credentials: 'omit' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    await useSuppliedCalibration({ text: await res.text(), url: url.href, origin: url.origin });
  } catch (e) {
    if (e instanceof gpucalc.GpucalcError) throw e;
    await panel().catch(() => { /* the notice names its key */ });
    showNotice(t('calib_supplied_failed', { origin: url.origin, message: e.message }));
  }
}

/** The calibration kept from an earlier visit, loaded before the first evaluation. */
export async function restoreCalibration() {
  const text = stored();
  if (!text) return;
  try {
    await gpucalc.loadWhole();
    useDocument(text);
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError) && !(e instanceof SyntaxError)) throw e;
    store(null);  // a document this build no longer accepts
  }
  await renderCalibration();
}

function forget() {
  store(null);
  location.reload();
}

export function bindCalibration() {
  const drop = $('calib-drop');
  if (!drop) return;
  // The panel's code and strings are fetched as it opens, before a file is dropped.
  const details = drop.closest('details');
  if (details) details.addEventListener('toggle', () => { if (details.open) panel().catch(() => { /* fetched again on use */ }); });
  $('do-calib').addEventListener('click', () => calibrate($('in-calib-files').files));
  $('in-calib-files').addEventListener('change', (e) => calibrate(e.target.files));
  $('do-calib-clear').addEventListener('click', forget);
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    calibrate(e.dataTransfer ? e.dataTransfer.files : []);
  });
}

/** The kept document, for exports. */
export function calibrationDocument() { return state.calibration || null; }
