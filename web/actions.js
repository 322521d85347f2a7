// What the toolbar does: CSV and JSON export, copy link, print.
import * as gpucalc from './gpucalc.js';
import { t } from './i18n.js';
import { $, h } from './dom.js';
import { state } from './state.js';
import { toCsv, download } from './export.js';
import { shareUrl } from './compute.js';
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

/** The core's full result, formulas included, with the serving calibration it used (if any). */
export function exportJson() {
  const ev = state.evaluation;
  if (!ev) return;
  const traced = gpucalc.evaluate(ev.scenario, { trace: true });
  if (state.calibration) traced.serving_calibration = state.calibration;
  download(`gpucalc-${ev.model.id}.json`, 'application/json', `${JSON.stringify(traced, null, 2)}\n`);
}

export async function copyLink() {
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

/** The footer's embed snippet, for the scenario on screen and this page's address (the markup
 *  carries no Markdown link: the guide is web/EMBED.md in the source, not a page of the site). */
function fillEmbedSnippet() {
  const base = `${location.origin}${location.pathname.replace(/[^/]*$/, '')}`;
  const scenario = state.evaluation ? state.evaluation.scenario : 'v=1';
  $('embed-snippet').textContent = `<iframe data-gpucalc src="${base}?embed=1#${scenario}" title="${t('title')}" width="100%" height="1200" loading="lazy"></iframe>\n<script src="${base}embed.js" async></script>`;
}

export function bindActions() {
  $('embed-help').addEventListener('toggle', (e) => { if (e.target.open) fillEmbedSnippet(); });
  $('copy-link').addEventListener('click', copyLink);
  $('export-csv').addEventListener('click', exportCsv);
  $('export-json').addEventListener('click', exportJson);
  $('print').addEventListener('click', () => window.print());
}
