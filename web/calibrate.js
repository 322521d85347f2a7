// "Calibrate with your benchmark results": result files dropped, chosen or pasted are read here
// and handed to the core (calibrateServing), which fits the serving model of the first compared
// offering's GPU and engine and writes a calibration document. The document is loaded into the
// catalog like a price list, kept in this browser (localStorage) and reloaded on the next visit.
// Nothing leaves the page; file contents are only ever passed to the core as text.
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, table, setText } from './dom.js';
import { state, hooks, query } from './state.js';
import { errorText } from './format.js';
import { showNotice } from './form.js';
import { catalogUrl } from './catalog.js';

// web/first-paint.js reads the same key (a stored calibration: the page does not open on the
// build's first answer).
const STORAGE_KEY = 'gpucalc.servingCalibration';
const MAX_FILE_BYTES = 64 << 20;  // the core's limit (kMaxBenchFileBytes)

function stored() {
  try { return localStorage.getItem(STORAGE_KEY); } catch { return null; }
}

function store(text) {
  try {
    if (text) localStorage.setItem(STORAGE_KEY, text); else localStorage.removeItem(STORAGE_KEY);
  } catch { /* private mode or full: the calibration lasts for this visit */ }
}

/** Loads the user's own document into the working catalog (throws GpucalcError when the core
 *  refuses it). */
function useDocument(text) {
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
    // A document's error names what it held (the core's words, as for a dropped file).
    showNotice(t('calib_supplied_failed', { origin, message: `${e.field}: ${e.message}` }));
    return false;
  }
  state.calibration = JSON.parse(text);
  state.calibrationSupplier = origin;
  state.catalogVersion += 1;
  renderCalibration();
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
  renderCalibration();
}

/** The scenario the runs are described with: every key as the form shows it (the user sees
 *  them, so they count as named), the first compared offering only. */
function calibrationScenario() {
  const parts = ['v=1'];
  for (const key of ['model', 'weights', 'engine', 'tp', 'ep', 'users', 'input', 'output']) {
    const v = state.inputs.get(key);
    if (v !== undefined && v !== '') parts.push(`${key}=${encodeURIComponent(v)}`);
  }
  const first = state.compare.length ? state.compare[0].id : '';
  if (first) parts.push(`compare=${encodeURIComponent(first)}`);
  return parts.join('&');
}

async function filesOf(list) {
  const files = [];
  for (const file of list) {
    if (file.size > MAX_FILE_BYTES) throw new gpucalc.GpucalcError({ code: 'too_large', field: file.name, message: 'is larger than 64 MB' });
    files.push({ name: file.name, text: await file.text() });
  }
  return files;
}

async function calibrate(fileList) {
  const err = $('err-calib');
  const ok = $('ok-calib');
  err.hidden = true;
  ok.hidden = true;
  try {
    const files = await filesOf(fileList || []);
    const pasted = $('in-calib-paste').value;
    if (pasted.trim()) files.push({ name: 'pasted', text: pasted });
    if (!files.length) { err.textContent = t('calib_none'); err.hidden = false; return; }
    const today = new Date().toISOString().slice(0, 10);
    await gpucalc.loadWhole();
    const doc = gpucalc.calibrateServing(calibrationScenario(), files, today);
    useDocument(doc);
    store(doc);
    const c = state.calibration;
    ok.textContent = t('calib_ok', { gpu: c.gpu, engine: c.engine, n: i18n.num(c.points.length), id: c.id });
    ok.hidden = false;
    renderCalibration();
    hooks.update();
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    // A file's error names the file, line and field (data, shown as the core wrote it); an
    // error of a scenario key is worded like the form's.
    const inFile = /[:.]/.test(e.field) || e.field === 'pasted';
    err.textContent = t('calib_failed', { message: inFile ? `${e.field}: ${e.message}` : errorText(e) });
    err.hidden = false;
  }
}

/** The error before, after and out of sample, per figure, as the document states it. */
export function renderCalibration() {
  const c = state.calibration;
  // A supplied calibration is shown outside the calibrate panel (the embed hides that panel),
  // with the sentence naming its supplier.
  const supplier = state.calibrationSupplier || '';
  const vendor = $('calib-supplied');
  if (vendor) {
    vendor.hidden = !(c && supplier);
    setText($('calib-supplied-text'), c && supplier ? t('calib_supplied', { origin: supplier, id: c.id || '' }) : '');
  }
  const box = supplier ? $('calib-supplied-table') : $('calib-table');
  for (const id of ['calib-table', 'calib-supplied-table']) if ($(id) && $(id) !== box) $(id).replaceChildren();
  if (!box) return;
  if (!c || !c.error) { box.replaceChildren(); return; }
  const e = c.error;
  const rows = ['interactivity', 'throughput_per_gpu', 'ttft'].filter((m) => e.before[`n_${m}`] > 0).map((m) => ({
    cells: [t(`calib_m_${m}`), i18n.percent(e.before[m]), i18n.percent(e.after[m]), i18n.percent(e.cross_validated[m]),
      i18n.num(e.before[`n_${m}`])],
  }));
  table(box, { caption: t('calib_table'), rows, offeringColumns: false,
    head: [t('calib_metric'), t('calib_before'), t('calib_after'), t('calib_cv', { method: t(`calib_method_${String(c.cross_validation).replace(/-/g, '_')}`) }), t('calib_points')] });
}

function forget() {
  store(null);
  location.reload();
}

export function bindCalibration() {
  const drop = $('calib-drop');
  if (!drop) return;
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
