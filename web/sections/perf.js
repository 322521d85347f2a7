// Throughput and cost: the table of the core's figures, the rates behind them (by code), and the
// two sweep charts (decode speed vs users, full contexts vs context) with their data tables.
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, h, morph, table, seriesClass, setText } from '../dom.js';
import { figure, offeringName } from '../format.js';
import { ratesSource, fieldKind } from '../schema.js';
import { lineChart } from '../charts.js';
import { memo, chartReady, chartWidth, drawChart } from '../schedule.js';
import { state } from '../state.js';
import { computeSweeps, contextSweep, BATCH_SWEEP } from '../compute.js';

const INFERENCE = ['max_throughput_tokens_per_s', 'decode_tokens_per_s_per_user', 'ttft_median_s', 'ttft_s', 'tpot_s', 'usd_per_million_tokens', 'usd_per_million_total_tokens'];
const TRAINING = ['train_tokens_per_s', 'train_hours', 'gpu_hours', 'run_cost_usd', 'train_memory_bytes_per_gpu'];

/** The rates behind an offering's throughput, in words of the page's language. */
export function ratesText(r) {
  const s = ratesSource(r);
  const base = s.source === 'calibrated' ? t('rates_calibrated', { what: s.device || i18n.DASH })
    : s.source === 'supplied' ? t('rates_supplied', { name: r.supplied_by || i18n.DASH })
      : s.source === 'calibrated_serving' ? t('rates_calibrated_serving', { id: s.device || i18n.DASH, date: s.date || i18n.DASH })
        : t(`rates_${s.source}`);
  return base + (s.estimate ? t('rates_some_estimate') : '');
}

export function renderPerf(ev, inputs) {
  const inference = ev.workload === 'inference';
  const rows = [{ cells: [t('rates'), ...ev.results.map((r) => h('span', { class: 'rates' }, ratesText(r)))] }];
  for (const f of (inference ? INFERENCE : TRAINING).filter((x) => fieldKind(x))) rows.push({ cells: [t(`f_${f}`), ...ev.results.map((r, i) => figure(r, i, f))] });
  table($('perf-table'), { caption: t('perf_h'), head: [t('figure_col'), ...ev.results.map((r) => offeringName(r))], rows });
  const n = (k) => Number(inputs.get(k));
  setText($('perf-note'), inference
    ? t('perf_note', { input: i18n.num(n('input')), output: i18n.num(n('output')), util: i18n.percent(n('util')) })
    : t('perf_note_train', { tokens: i18n.num(n('tokens')), seq: i18n.num(n('seq')) }));
  drawChart('sweeps', () => renderSweeps(ev, inputs));
}

function renderSweeps(ev, inputs) {
  const chartsSection = document.querySelector('#sec-perf .charts2');
  const dataBox = document.querySelector('#sec-perf .chart-data');
  const legend = $('series-legend');
  const batchBox = $('batch-chart');
  const ctxBox = $('context-chart');
  if (state.sweeps === null && (chartReady(batchBox) || chartReady(ctxBox))) computeSweeps();
  const training = state.sweeps === false;
  chartsSection.hidden = training; dataBox.hidden = training; legend.hidden = training;
  // null: the charts' width is not known yet; the ResizeObserver redraws once it is.
  if (!state.sweeps) return;
  const names = ev.results.map((r) => offeringName(r));
  morph(legend, ...names.map((name, i) => h('li', {}, h('span', { class: `key line ${seriesClass(i)}`, 'aria-hidden': 'true' }), name)));
  const pick = (points) => ev.results.map((r, i) => points.map((res) => {
    const v = res && res[i] ? res[i][0] : null;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  }));
  const batch = pick(state.sweeps.batch);
  const ctx = pick(state.sweeps.context);
  setText($('batch-caption'), t('batch_chart_title'));
  setText($('context-caption'), t('context_chart_title'));
  const describe = (xs, series, xf, yf) => series.map((vals, i) => `${names[i]}: ${vals.map((v, j) => `${xf(xs[j])} → ${v === null ? i18n.DASH : yf(v)}`).join(', ')}`).join('. ');
  const keyOf = (box, series, extra) => `${chartWidth(box)}|${i18n.language()}|${names.join('\u0001')}|${extra}|${series.map((v) => v.join(',')).join(';')}`;
  const shape = { input: i18n.num(Number(inputs.get('input'))), output: i18n.num(Number(inputs.get('output'))) };
  if (chartReady(batchBox)) memo('batch-chart', keyOf(batchBox, batch, `${shape.input}|${shape.output}`), () => morph(batchBox, lineChart({ name: 'batch',
    width: chartWidth(batchBox), title: t('batch_chart_title'),
    desc: describe(BATCH_SWEEP, batch, (x) => i18n.num(x), i18n.sig),
    xs: BATCH_SWEEP, xFmt: (x) => i18n.num(x), yFmt: i18n.sig,
    series: batch.map((values, i) => ({ name: names[i], cls: seriesClass(i), values })),
    xLabel: t('users_axis', shape),
  })));
  if (chartReady(ctxBox)) memo('context-chart', keyOf(ctxBox, ctx, ''), () => morph(ctxBox, lineChart({ name: 'context',
    width: chartWidth(ctxBox), title: t('context_chart_title'),
    desc: describe(contextSweep(ev), ctx, i18n.tokens, (y) => i18n.num(y)),
    xs: contextSweep(ev), xFmt: i18n.tokens, yFmt: (y) => i18n.num(y),
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
    sweepTable($('context-table'), t('context_chart_title'), contextSweep(ev), i18n.tokens, ctx, (y) => i18n.num(y));
  };
  if (dataBox.open || state.printing) state.drawSweepTables();
}
