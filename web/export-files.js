// The toolbar's CSV and JSON downloads, fetched when one is first asked for (actions.js).
import * as gpucalc from './gpucalc.js';
import { state } from './state.js';
import { toCsv, download } from './export.js';
import { fieldNames } from './schema.js';

/** The comparison as CSV: one row per field of the core's registry, one column per offering. */
export function exportCsv() {
  const ev = state.evaluation;
  if (!ev) return;
  const fields = fieldNames();
  const rows = [['scenario', ev.scenario], ['capacity_basis', ev.capacity_basis], ['model', ev.model.id], []];
  rows.push(['field', ...ev.results.map((r) => r.offering)]);
  for (const f of fields) {
    rows.push([f, ...ev.results.map((r) => (Array.isArray(r[f]) ? r[f].join(' ') : r[f] !== null && typeof r[f] === 'object' ? JSON.stringify(r[f]) : r[f]))]);
  }
  // The serving curve of each offering: one row per point.
  const points = ev.results.flatMap((r) => (Array.isArray(r.curve) ? r.curve.map((p) => [r.offering, p]) : []));
  if (points.length) {
    const cols = Object.keys(points[0][1]);
    rows.push([], ['curve_offering', ...cols]);
    for (const [id, p] of points) rows.push([id, ...cols.map((c) => p[c])]);
  }
  download(`gpucalc-${ev.model.id}.csv`, 'text/csv', toCsv(rows));
}

/** The core's full result, formulas included, with the serving calibration it used (if any):
 *  evaluated by the whole module (the page's first one writes no traces). */
export async function exportJson() {
  const ev = state.evaluation;
  if (!ev) return;
  await gpucalc.loadWhole();
  const traced = gpucalc.evaluate(ev.scenario, { trace: true });
  if (state.calibration) traced.serving_calibration = state.calibration;
  download(`gpucalc-${ev.model.id}.json`, 'application/json', `${JSON.stringify(traced, null, 2)}\n`);
}
