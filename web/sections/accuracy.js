// "How accurate is this?": the core's validation summary (both tables, precomputed into
// data/error-bands.json and loaded with the catalog; `gpucalc --validate` prints the same).
// Fetched with its strings (i18n/accuracy/) when the panel is first opened.
import * as gpucalc from '../gpucalc.js';
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, table, setText } from '../dom.js';
import { state } from '../state.js';

let accuracy = { version: -1, report: null };
/** Both tables and the note, for the catalog loaded (sections/serving.js renderAccuracy draws
 *  them once per language and catalog). */
export function drawAccuracy() {
  if (accuracy.version !== state.catalogVersion) accuracy = { version: state.catalogVersion, report: gpucalc.validation() };
  const { mlperf, serving } = accuracy.report;
  const pct = (x, n) => (n > 0 ? `${i18n.num(x * 100, 1)} % (${i18n.num(n)})` : i18n.DASH);
  const gpuName = (id) => (state.gpus.find((g) => g.id === id) || { name: id }).name;
  // One row per GPU of either table, then all GPUs (the MLPerf table's all-GPU figures are its
  // median and largest error, in the note).
  const mlperfOf = new Map((mlperf.per_gpu || []).map((g) => [g.gpu, g]));
  const servingOf = new Map(serving.mape_per_gpu.map((g) => [g.group, g]));
  const gpus = [...new Set([...servingOf.keys(), ...mlperfOf.keys()])];
  const none = { mape: 0, points: 0 };
  const servingNone = { interactivity: 0, n_interactivity: 0, throughput_per_gpu: 0, n_throughput_per_gpu: 0, mean_ttft: 0, n_mean_ttft: 0 };
  const row = (name, m, s) => ({ cells: [name, pct(m.mape, m.points), pct(s.interactivity, s.n_interactivity),
    pct(s.throughput_per_gpu, s.n_throughput_per_gpu), pct(s.mean_ttft, s.n_mean_ttft)] });
  table($('accuracy-table'), {
    caption: t('accuracy_serving_h'), offeringColumns: false,
    head: [t('accuracy_gpu_col'), t('accuracy_mlperf_col'), t('accuracy_interactivity_col'), t('accuracy_throughput_col'), t('accuracy_ttft_col')],
    rows: [...gpus.map((g) => row(gpuName(g), mlperfOf.get(g) || none, servingOf.get(g) || servingNone)),
      row(t('accuracy_all'), none, serving.mape_all)],
  });
  const value = (r, x) => (r.unit === 'minutes' ? t('minutes_n', { n: i18n.num(x, 1) }) : t('tokens_per_s_n', { n: i18n.num(x, 0) }));
  table($('accuracy-mlperf'), {
    caption: t('accuracy_mlperf_h'), offeringColumns: false,
    head: [t('accuracy_entry_col'), t('accuracy_gpu_col'), t('accuracy_predicted_col'), t('accuracy_measured_col'), t('accuracy_error_col')],
    rows: mlperf.rows.map((r) => ({ cells: [r.workload, gpuName(r.gpu), value(r, r.predicted), value(r, r.measured),
      `${r.error > 0 ? '+' : ''}${i18n.num(r.error * 100, 1)} %`] })),
  });
  setText($('accuracy-note'), t('accuracy_note', { median: i18n.num(mlperf.median_abs_error * 100, 1),
    max: i18n.num(mlperf.max_abs_error * 100, 1), n: i18n.num(mlperf.rows.length) }));
}
