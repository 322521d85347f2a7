// Memory per GPU: the stacked bars (weights, KV cache of the users, reserve, free) and the table.
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, table, setText } from '../dom.js';
import { figure, offeringName } from '../format.js';
import { stackedBars } from '../charts.js';
import { memo, chartReady, chartWidth, drawChart } from '../schedule.js';

const SEGMENTS = [['weights', 'seg-weights'], ['kv', 'seg-kv'], ['reserve', 'seg-reserve'], ['free', 'seg-free']];
const ROWS = ['capacity_bytes_per_gpu', 'weights_bytes', 'weights_bytes_per_gpu', 'kv_used_bytes_per_gpu',
  'reserve_bytes_per_gpu', 'kv_free_bytes_per_gpu', 'kv_free_bytes', 'kv_bytes_per_token', 'kv_bytes_per_context',
  'gpus_needed_weights_only', 'gpus_needed', 'instance', 'full_contexts', 'max_context_tokens'];

// Training: the memory of a run by part (the core's train_*_bytes_per_gpu), no KV cache.
const TRAIN_SEGMENTS = [['train_weights', 'seg-weights'], ['train_gradient', 'seg-grad'], ['train_optimizer', 'seg-opt'],
  ['train_adapter', 'seg-adapter'], ['train_activation', 'seg-kv'], ['train_reserve', 'seg-reserve'], ['train_free', 'seg-free']];
const TRAIN_ROWS = ['capacity_bytes_per_gpu', 'train_weights_bytes_per_gpu', 'train_gradient_bytes_per_gpu',
  'train_optimizer_bytes_per_gpu', 'train_adapter_bytes_per_gpu', 'train_activation_bytes_per_gpu',
  'train_reserve_bytes_per_gpu', 'train_memory_bytes_per_gpu', 'train_free_bytes_per_gpu'];

export function renderMemory(ev, inputs) {
  const training = ev.workload !== 'inference';
  drawChart('memory', () => (training ? drawTrainingBars(ev) : drawBars(ev)));
  morph($('memory-legend'), ...(training ? TRAIN_SEGMENTS : SEGMENTS).map(([k, cls]) =>
    h('li', {}, h('span', { class: `key ${cls}`, 'aria-hidden': 'true' }), t(`legend_${k}`))));
  const users = Number(inputs.get('users'));
  setText($('memory-note'), training ? t('memory_note_training', { basis: t(`basis_${ev.capacity_basis}`) })
    : tn('memory_note', users, {
      users: i18n.num(users), context: i18n.tokens(Number(inputs.get('context'))), basis: t(`basis_${ev.capacity_basis}`),
      request: i18n.tokens(ev.results[0] ? ev.results[0].request_tokens : 0),
    }));
  table($('memory-table'), {
    caption: t('memory_h'),
    head: [t('per_gpu_col'), ...ev.results.map((r) => offeringName(r))],
    rows: (training ? TRAIN_ROWS : ROWS).map((f) => ({ cells: [t(f === 'instance' ? 'instance' : `f_${f}`), ...ev.results.map((r, i) => (f === 'instance'
      ? tn('instance_split', r.replicas, { tp: r.tensor_parallel, pp: r.pipeline_parallel, replicas: r.replicas })
      : figure(r, i, f)))] })),
  });
}

function drawTrainingBars(ev) {
  const box = $('memory-chart');
  if (!chartReady(box)) return;
  const parts = (r) => TRAIN_SEGMENTS.map(([k, cls]) => ({ k, cls, value: Math.max(0, r[`${k}_bytes_per_gpu`] || 0) }));
  const key = `train|${chartWidth(box)}|${i18n.language()}|${ev.results.map((r) => [r.gpu_name, r.capacity_bytes_per_gpu, ...parts(r).map((p) => p.value)].join(',')).join(';')}`;
  memo('memory-chart', key, () => morph(box, stackedBars({
    name: 'memory',
    width: chartWidth(box),
    title: t('memory_chart_title_training'),
    desc: ev.results.map((r) => `${offeringName(r)}: ${parts(r).map((p) => `${t(`legend_${p.k}`)} ${i18n.gb(p.value)}`).join(', ')}.`).join(' '),
    rows: ev.results.map((r) => ({
      label: r.gpu_name.replace(/^(AMD Instinct|NVIDIA) /, ''),
      sublabel: '',
      total: Math.max(r.capacity_bytes_per_gpu, r.train_memory_bytes_per_gpu || 0),
      segments: parts(r).map((p) => ({ cls: p.cls, value: p.value, label: t(`legend_${p.k}`), text: i18n.gb(p.value) })),
    })),
    fmt: (v) => i18n.num(v / 1e9, 0),
    axisLabel: t('gb_per_gpu'),
  })));
}

// The bars are the core's figures laid end to end; the KV cache is drawn within the memory
// there is (over-subscription is told by "fits" and the table, not drawn past the bar's end).
function drawBars(ev) {
  const box = $('memory-chart');
  if (!chartReady(box)) return;
  const rows = ev.results.map((r) => ({
    r, cap: r.capacity_bytes_per_gpu, reserve: r.reserve_bytes_per_gpu, weights: r.weights_bytes_per_gpu,
    kv: Math.max(0, Math.min(r.kv_used_bytes_per_gpu, r.kv_free_bytes_per_gpu)), free: Math.max(0, r.headroom_bytes_per_gpu),
  }));
  const key = `${chartWidth(box)}|${i18n.language()}|${rows.map((m) => [m.r.gpu_name, m.r.instance_gpus, m.cap, m.reserve, m.weights, m.kv, m.free].join(',')).join(';')}`;
  memo('memory-chart', key, () => morph(box, stackedBars({
    name: 'memory',
    width: chartWidth(box),
    title: t('memory_chart_title'),
    desc: rows.map(({ r }) => t('memory_chart_desc', {
      name: offeringName(r), weights: i18n.gb(r.weights_bytes_per_gpu), kv: i18n.gb(r.kv_used_bytes_per_gpu),
      reserve: i18n.gb(r.reserve_bytes_per_gpu), free: i18n.gb(Math.max(0, r.headroom_bytes_per_gpu)),
    })).join(' '),
    rows: rows.map(({ r, cap, weights, kv, reserve, free }) => ({
      label: r.gpu_name.replace(/^(AMD Instinct|NVIDIA) /, ''),
      sublabel: t('instance_of', { n: r.instance_gpus }),
      total: Math.max(cap, weights + reserve),
      segments: [
        { cls: 'seg-weights', value: Math.min(weights, cap), label: t('legend_weights'), text: i18n.gb(weights) },
        { cls: 'seg-kv', value: kv, label: t('legend_kv'), text: i18n.gb(r.kv_used_bytes_per_gpu) },
        { cls: 'seg-reserve', value: reserve, label: t('legend_reserve'), text: i18n.gb(reserve) },
        { cls: 'seg-free', value: free, label: t('legend_free'), text: i18n.gb(free) },
        { cls: 'seg-over', value: Math.max(0, weights + reserve - cap), label: t('legend_over'), text: '' },
      ],
    })),
    fmt: (v) => i18n.num(v / 1e9, 0),
    axisLabel: t('gb_per_gpu'),
  })));
}
