// Specifications of the compared GPUs, as the catalog gives them (formatted, not computed).
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, table } from '../dom.js';
import { state } from '../state.js';
import { localized } from '../format.js';

const tflops = (g, p) => {
  const v = g.peak_flops_per_s && g.peak_flops_per_s[p];
  return typeof v === 'number' ? `${i18n.num(v / 1e12)} TFLOPS` : i18n.DASH;
};

function interconnect(g) {
  const i = g.interconnect || {};
  const bw = i.per_gpu_bandwidth_bytes_per_s;
  const parts = [i.kind];
  if (i.topology === 'full_mesh' && i.links) parts.push(t('mesh_links', { n: i.links, bw: i18n.num(i.link_bandwidth_bytes_per_s / 1e9, 1) }));
  if (bw) parts.push(`${i18n.num(bw / 1e9)} GB/s`);
  return parts.filter(Boolean).join(' · ');
}

const ROWS = [
  ['spec_arch', (g) => g.architecture],
  ['spec_memory', (g) => `${i18n.num(g.hbm_marketed_bytes / 1e9)} GB ${g.memory_type}`],
  ['spec_device_memory', (g) => (typeof g.hbm_device_bytes === 'number'
    ? `${i18n.num(g.hbm_device_bytes / 2 ** 20)} MiB (${i18n.num(g.hbm_device_bytes / 2 ** 30, 1)} GiB)` : t('not_measured'))],
  ['spec_bandwidth', (g) => `${i18n.num(g.memory_bandwidth_bytes_per_s / 1e12, 1)} TB/s`],
  ['spec_fp4', (g) => tflops(g, 'fp4') + (g.fp4_format ? ` (${g.fp4_format.toUpperCase()})` : '')],
  ['spec_fp6', (g) => tflops(g, 'fp6')],
  ['spec_fp8', (g) => tflops(g, 'fp8')],
  ['spec_bf16', (g) => tflops(g, 'bf16')],
  ['spec_interconnect', interconnect],
  ['spec_form', (g) => localized(g, 'form_factor') || i18n.DASH],
  ['spec_power', (g) => `${i18n.num(g.tdp_w)} W`],
];

export function renderSpecs(ev) {
  const ids = [...new Set(ev.results.map((r) => r.gpu))];
  const gpus = ids.map((id) => state.gpus.find((g) => g.id === id)).filter(Boolean);
  table($('spec-table'), {
    caption: t('specs_h'),
    head: [t('spec_col'), ...gpus.map((g) => g.name)],
    rows: ROWS.map(([label, fn]) => ({ cells: [t(label), ...gpus.map(fn)] })),
  });
}
