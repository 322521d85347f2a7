// Key figures: one card per compared offering (price, fit, KV room, speed and cost).
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, seriesClass } from '../dom.js';
import { figure, offeringName } from '../format.js';

export function renderKeyFigures(ev, inputs) {
  const inference = ev.workload === 'inference';
  const cards = ev.results.map((r, i) => {
    const rows = [
      ['f_fits', r.fits ? h('span', { class: 'ok' }, t('fits_on', { n: i18n.num(r.gpus_needed), of: i18n.num(r.gpu_count) }))
        : h('span', { class: 'bad' }, t(`reason_${r.fit_reason}`))],
      ['f_kv_free_bytes', figure(r, i, 'kv_free_bytes')],
      ['f_full_contexts', figure(r, i, 'full_contexts')],
    ];
    // The deployment every figure of the card belongs to.
    rows.push(['instance', tn('instance_split', r.replicas, { tp: r.tensor_parallel, pp: r.pipeline_parallel, replicas: r.replicas })]);
    const fields = inference ? ['decode_tokens_per_s_per_user'] : ['train_hours', 'run_cost_usd'];
    for (const f of fields) rows.push([`f_${f}`, figure(r, i, f)]);
    return h('article', { class: `keyfig ${seriesClass(i)}` },
      h('h3', {}, offeringName(r)),
      h('p', { class: 'price' }, figure(r, i, 'price_month_usd'),
        h('span', { class: 'unit' }, t(r.price_month_usd !== null ? 'per_month_unit' : 'unpriced_short'))),
      h('dl', {}, rows.map(([label, value]) => h('div', {}, h('dt', {}, t(label)), h('dd', {}, value)))),
      inference ? h('p', { class: 'help card-point' }, tn('card_point', Number(inputs.get('users')), {
        users: i18n.num(Number(inputs.get('users'))), input: i18n.num(Number(inputs.get('input'))), output: i18n.num(Number(inputs.get('output'))) })) : null,
      inference && r.fits ? maxPoint(r, i) : null);
  });
  morph($('keyfigs'), ...cards);
}

/** The cost per token comes from the core's maximum-throughput point, a second operating point:
 *  its own block, labelled with its layout and speed per user (issue 15). */
function maxPoint(r, i) {
  const p = r.max_throughput_point;
  const label = p ? t('card_max_point', { tp: i18n.num(p.tp), users: i18n.num(p.users), speed: i18n.sig(p.tokens_per_s_per_user) })
    : t('card_max_point_roofline');
  return h('div', { class: 'card-max' }, h('p', { class: 'help' }, label),
    h('dl', {}, ['usd_per_million_tokens', 'usd_per_million_total_tokens'].map((f) =>
      h('div', {}, h('dt', {}, t(`f_${f}`)), h('dd', {}, figure(r, i, f))))));
}
