// Key figures: one card per compared offering (price, fit, KV room, speed and cost).
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, seriesClass } from '../dom.js';
import { figure, offeringName } from '../format.js';

export function renderKeyFigures(ev, inputs) {
  const inference = ev.workload === 'inference';
  const cards = ev.results.map((r, i) => {
    const rows = [
      // Said of the deployment the card's speeds are for: its GPUs, not the smallest instance.
      ['f_fits', r.fits ? h('span', { class: 'ok' }, t('fits_on', { of: i18n.num(r.deployed_gpus) }))
        : h('span', { class: 'bad' }, noFit(r))],
    ];
    // The worst case apart: every user at the full context (the core's gpus_needed_full_context).
    if (inference && r.gpus_needed_full_context !== undefined) {
      const n = r.gpus_needed_full_context;
      rows.push([t('f_gpus_needed_full_context', { context: i18n.num(Number(inputs.get('context'))) }),
        n ? tn('full_context_needs', n, { n: i18n.num(n) }) : t('full_context_none'), true]);
    }
    if (inference) {
      rows.push(['f_kv_free_bytes', figure(r, i, 'kv_free_bytes')], ['f_full_contexts', figure(r, i, 'full_contexts')]);
    }
    // The deployment every figure of the card belongs to; an offering that does not fit has none,
    // so no layout and no speed or run figures (one deployment per card).
    if (r.fits) {
      // The inference layout; a training run's own split is in its memory figures.
      if (inference) rows.push(['instance', tn('instance_split', r.replicas, { tp: r.tensor_parallel, pp: r.pipeline_parallel, replicas: r.replicas })]);
      const fields = inference ? ['decode_tokens_per_s_per_user']
        : ['train_memory_bytes_per_gpu', 'train_hours', 'train_steps', 'run_cost_usd', ...(r.billed_months ? ['billed_months'] : [])];
      for (const f of fields) rows.push([`f_${f}`, figure(r, i, f)]);
    }
    return h('article', { class: `keyfig ${seriesClass(i)}` },
      h('h3', {}, offeringName(r)),
      h('p', { class: 'price' }, figure(r, i, 'price_month_usd'),
        h('span', { class: 'unit' }, t(r.price_month_usd !== null ? 'per_month_unit' : 'unpriced_short'))),
      h('dl', {}, rows.map(([label, value, worded]) => h('div', {}, h('dt', {}, worded ? label : t(label)), h('dd', {}, value)))),
      inference ? h('p', { class: 'help card-point' }, tn('card_point', Number(inputs.get('users')), {
        users: i18n.num(Number(inputs.get('users'))), input: i18n.num(Number(inputs.get('input'))), output: i18n.num(Number(inputs.get('output'))) })) : null,
      inference && r.fits ? maxPoint(r, i) : null);
  });
  morph($('keyfigs'), ...cards);
}

/** Why an offering does not fit: the GPUs it needs where some split holds the model (the
 *  core's gpus_needed), else the core's reason. */
function noFit(r) {
  if (r.gpus_needed > 0 && r.fit_reason !== 'training_does_not_fit') return t('card_no_fit', { n: i18n.num(r.gpus_needed) });
  return t(`reason_${r.fit_reason}`);
}

/** The cost per token comes from the core's maximum-throughput point, a second operating point:
 *  its own block, labelled with its layout and speed per user. */
function maxPoint(r, i) {
  const p = r.max_throughput_point;
  const label = p ? t('card_max_point', { tp: i18n.num(p.tp), users: i18n.num(p.users), speed: i18n.sig(p.tokens_per_s_per_user) })
    : t('card_max_point_roofline');
  return h('div', { class: 'card-max' }, h('p', { class: 'help' }, label),
    h('dl', {}, ['usd_per_million_tokens', 'usd_per_million_total_tokens'].map((f) =>
      h('div', {}, h('dt', {}, t(`f_${f}`)), h('dd', {}, figure(r, i, f))))));
}
