// Throughput per GPU at each speed per user: the engine behind each offering's
// figures, the operating point at the chosen speed, the best point within the latency limits,
// the Pareto fronts of the core's `curve` (chart + table), and how accurate the model is.
import * as gpucalc from '../gpucalc.js';
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, table, seriesClass, setText } from '../dom.js';
import { fmtField, band, pointBands, offeringName } from '../format.js';
import { paretoChart } from '../charts.js';
import { memo, chartReady, chartWidth, drawChart } from '../schedule.js';
import { state, hooks } from '../state.js';

const hasCurve = (ev) => ev.workload === 'inference' && ev.results.some((r) => Array.isArray(r.curve));

/** The engine and version behind an offering's serving figures. */
export function engineText(r) {
  if (!r.engine) return i18n.DASH;
  const name = i18n.has(`engine_name_${r.engine}`) ? t(`engine_name_${r.engine}`) : r.engine;
  return r.engine_version ? `${name} ${r.engine_version}` : name;
}

/** A curve point's layout: "TP 8 · EP 8 · DP attention, 64 users". */
function layout(p) {
  const parts = [`TP ${p.tp}`];
  if (p.ep > 1) parts.push(`EP ${p.ep}`);
  if (p.dpa) parts.push(t('dpa_short'));
  return tn('layout_users', p.users, { layout: parts.join(' · '), users: i18n.num(p.users) });
}

function pointLabel(p) {
  return t('curve_point', { layout: layout(p), gpu: fmtField('total_tokens_per_s_per_gpu', p.total_tokens_per_s_per_gpu),
    user: fmtField('tokens_per_s_per_user', p.tokens_per_s_per_user), ttft: i18n.seconds(p.ttft_median_s) });
}

/** A curve point's figure with the band of its metric at the point's own users per instance. */
function pointFigure(r, p, field, value = p[field]) {
  const b = band({ ...r, error_band: pointBands(r, p), [field]: value }, field);
  const text = field === 'usd_per_million_tokens' && !(value > 0) ? i18n.DASH : fmtField(field, value);
  const node = h('span', { class: 'val', 'data-f': field }, text);
  return b ? h('span', { class: 'with-band' }, node, ' ', b) : node;
}

/** What the serving table shows: redrawn only when one of these changed (an edit of the users
 *  or the context often leaves them as they were). */
function servingKey(ev, inputs) {
  return JSON.stringify([i18n.language(), state.catalogVersion, ...['interactivity', 'ttft_max', 'tpot_max'].map((k) => inputs.get(k)),
    ev.results.map((r) => [r.offering_name, r.engine, r.engine_version, r.error_band, r.curve_error_bands, r.interactivity_point, r.max_throughput_point])]);
}

export function renderServing(ev, inputs) {
  const section = $('sec-serving');
  const show = hasCurve(ev);
  if (section.hidden === show) section.hidden = !show;
  // The compact embed's one chart: this one where some front has points, else the decode chart.
  document.documentElement.classList.toggle('has-curve', show && ev.results.some((r) => r.curve.length > 0));
  if (!show) return;
  const speed = Number(inputs.get('interactivity')) || 0;
  const limited = Number(inputs.get('ttft_max')) > 0 || Number(inputs.get('tpot_max')) > 0;
  setText($('serving-note'), t('serving_note', { input: i18n.num(Number(inputs.get('input'))), output: i18n.num(Number(inputs.get('output'))) }));
  const names = ev.results.map((r) => offeringName(r));
  const at = (fn) => ev.results.map((r) => fn(r));
  const op = (r) => r.interactivity_point;
  const best = (r) => r.max_throughput_point;
  // At any speed (0) the cheapest point is the highest-throughput one, in the rows below.
  const atSpeed = () => (speed ? [
    { cells: [t('at_speed', { n: i18n.num(speed) }), ...at((r) => (op(r) ? layout(op(r)) : t('speed_unreachable')))] },
    { cells: [t('f_total_tokens_per_s_per_gpu'), ...at((r) => (op(r) ? pointFigure(r, op(r), 'total_tokens_per_s_per_gpu') : i18n.DASH))] },
    { cells: [t('f_output_tokens_per_s_per_gpu'), ...at((r) => (op(r) ? pointFigure(r, op(r), 'output_tokens_per_s_per_gpu') : i18n.DASH))] },
    { cells: [t('usd_per_mtok_at_point'), ...at((r) => (op(r) ? pointFigure(r, op(r), 'usd_per_million_tokens') : i18n.DASH))] },
  ] : []);
  const rows = () => [
    { cells: [t('engine_row'), ...at(engineText)] },
    ...atSpeed(),
    { cells: [limited ? t('best_within_limits') : t('best_no_limits'), ...at((r) => (best(r) ? layout(best(r)) : t('cannot_meet')))] },
    { cells: [t('f_total_tokens_per_s_per_gpu'), ...at((r) => (best(r) ? pointFigure(r, best(r), 'total_tokens_per_s_per_gpu') : i18n.DASH))] },
    { cells: [t('f_ttft_median_s'), ...at((r) => (best(r) ? pointFigure(r, best(r), 'ttft_median_s') : i18n.DASH))] },
    { cells: [t('f_ttft_s'), ...at((r) => (best(r) ? pointFigure(r, best(r), 'ttft_s') : i18n.DASH))] },
    { cells: [t('f_tpot_s'), ...at((r) => (best(r) ? pointFigure(r, best(r), 'tpot_s') : i18n.DASH))] },
  ];
  memo('serving-table', servingKey(ev, inputs), () => table($('serving-table'), { caption: t('serving_sec_h'), head: [t('figure_col'), ...names], rows: rows() }));
  drawChart('curve', () => drawCurve(ev, speed, names));
  const data = $('curve-data');
  state.drawCurveTable = () => drawCurveTable(ev, names);
  if (data.open || state.printing) state.drawCurveTable();
  $('accuracy').hidden = !gpucalc.hasValidation();
  if ($('accuracy').open) renderAccuracy();
}

function drawCurve(ev, speed, names) {
  const box = $('curve-chart');
  setText($('curve-caption'), t('curve_title'));
  // The measured runs the core matched to this configuration (its result's measured_points):
  // the calibration's (filled diamonds) and gpucalc's validation table's (open diamonds).
  const measured = ev.results.map((r) => (r.measured_points || []).map((m) => ({ x: m.tokens_per_s_per_user, y: m.total_tokens_per_s_per_gpu,
    cls: m.source === 'validation' ? 'validation' : 'calibration',
    label: t('curve_measured', { user: fmtField('tokens_per_s_per_user', m.tokens_per_s_per_user),
      gpu: fmtField('total_tokens_per_s_per_gpu', m.total_tokens_per_s_per_gpu), users: i18n.num(m.users),
      source: m.source === 'validation' ? `${t('curve_validation_key')}, ${m.date}` : `${m.document}, ${m.run}` }) }))
    // The table's runs first, so the calibration's are drawn over them.
    .sort((a, b) => (a.cls === b.cls ? 0 : a.cls === 'validation' ? -1 : 1)));
  const has = (cls) => measured.some((list) => list.some((m) => m.cls === cls));
  morph($('curve-legend'), ...names.map((n, i) => h('li', {}, h('span', { class: `key line ${seriesClass(i)}`, 'aria-hidden': 'true' }), n)),
    h('li', {}, h('span', { class: 'key you', 'aria-hidden': 'true' }), t('curve_you_key')),
    ...(has('calibration') ? [h('li', {}, h('span', { class: 'key measured calibration', 'aria-hidden': 'true' }), t('curve_measured_key'))] : []),
    ...(has('validation') ? [h('li', {}, h('span', { class: 'key measured validation', 'aria-hidden': 'true' }), t('curve_validation_key'))] : []));
  if (!chartReady(box)) return;
  const users = Number(state.inputs.get('users'));
  // The scenario's own operating point (its users), where the core computed one.
  const you = (r) => (r.decode_tokens_per_s_per_user > 0 && r.total_tokens_per_s_per_gpu > 0 ? {
    x: r.decode_tokens_per_s_per_user, y: r.total_tokens_per_s_per_gpu,
    label: tn('curve_you', users, { users: i18n.num(users), gpu: fmtField('total_tokens_per_s_per_gpu', r.total_tokens_per_s_per_gpu),
      user: fmtField('tokens_per_s_per_user', r.decode_tokens_per_s_per_user) }) } : null);
  const series = ev.results.map((r, i) => ({ name: offeringName(r), cls: seriesClass(i), you: you(r), measured: measured[i],
    points: (r.curve || []).map((p) => ({ x: p.tokens_per_s_per_user, y: p.total_tokens_per_s_per_gpu, label: pointLabel(p) })) }));
  const key = `${chartWidth(box)}|${i18n.language()}|${speed}|${series.map((s) => s.name + (s.you ? s.you.label : '') + s.points.map((p) => `${p.x},${p.y}`).join(';') + s.measured.map((p) => `m${p.x},${p.y}`).join(';')).join('|')}`;
  memo('curve-chart', key, () => {
    box.replaceChildren(paretoChart({ name: 'curve', width: chartWidth(box), title: t('curve_title'),
      desc: series.map((s) => `${s.name}: ${[...(s.you ? [s.you.label] : []), ...s.points.map((p) => p.label), ...s.measured.map((p) => p.label)].join('; ')}`).join('. '),
      series, xLabel: t('curve_x'), yLabel: t('curve_y'),
      xFmt: (x) => i18n.num(x), yFmt: (y) => i18n.num(y),
      marker: speed ? { x: speed, label: t('preset_speed', { n: i18n.num(speed) }) } : null,
      onPoint: (s, p) => setText($('curve-readout'), s === null ? '' : `${series[s].name}: ${series[s].points[p].label}`),
      onPick: (s, p) => pick(ev.results[s].curve[p]) }));
  });
}

/** A picked curve point becomes the operating point: its users and its speed per user (3
 *  significant digits, rounded down so the point stays within reach), as the form's keys. */
function pick(p) {
  const digits = Math.max(0, 2 - Math.floor(Math.log10(p.tokens_per_s_per_user)));
  const speed = Math.floor(p.tokens_per_s_per_user * 10 ** digits) / 10 ** digits;
  $('in-users').value = String(Math.max(1, Math.round(p.users)));
  if ($('in-interactivity')) $('in-interactivity').value = String(speed);
  hooks.update();
}

function drawCurveTable(ev, names) {
  const rows = [];
  // Every predicted figure with its band: the one of the point's own users per instance.
  const fields = ['tokens_per_s_per_user', 'total_tokens_per_s_per_gpu', 'output_tokens_per_s_per_gpu', 'ttft_median_s', 'ttft_s', 'tpot_s', 'usd_per_million_tokens'];
  ev.results.forEach((r, i) => (r.curve || []).forEach((p) => rows.push({ cells: [names[i], layout(p),
    ...fields.map((f) => pointFigure(r, p, f))] })));
  table($('curve-table'), { caption: t('curve_title'), rows, offeringColumns: false,
    head: [t('config_col'), t('layout_col'), t('curve_x'), t('curve_y'), t('f_output_tokens_per_s_per_gpu'), t('f_ttft_median_s'), t('f_ttft_s'), t('f_tpot_s'), t('usd_per_mtok_at_point')] });
}

/** "How accurate is this?": drawn when the panel is opened (sections/accuracy.js, its strings,
 *  i18n/accuracy/, and the whole module, which carries the summary, fetched then). */
export async function renderAccuracy() {
  if (!gpucalc.hasValidation()) return;
  const [view] = await Promise.all([import('./accuracy.js'), i18n.loadPart('accuracy'), gpucalc.loadWhole()]);
  memo('accuracy', `${i18n.language()}|${state.catalogVersion}`, view.drawAccuracy);
}
