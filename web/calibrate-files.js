// The calibrate panel's work: result files dropped, chosen or pasted are read and handed to
// the core (calibrateServing); the error table of the calibration in use. Fetched with its
// strings (i18n/calibrate/) when first needed (calibrate.js).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, table, setText } from './dom.js';
import { state, hooks } from './state.js';
import { errorText, loadErrorStrings } from './format.js';
import { store, useDocument } from './calibrate.js';

const MAX_FILE_BYTES = 64 << 20;  // the core's limit (kMaxBenchFileBytes)

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

export async function calibrate(fileList) {
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
    await loadErrorStrings();
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
