// "In short": the one-line summary and the verdict's reasons per offering, from the core's
// verdict codes and parameters (words made here, through the dictionaries).
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, seriesClass, setText } from '../dom.js';
import { verdictParams, fmtField, band, pointBands, offeringName } from '../format.js';

export function renderVerdict(ev, inputs) {
  const columns = ev.results.map((r, i) => {
    const items = mergePairs(ev, oneCostSentence(ev.verdict.filter((v) => v.offering === r.offering)));
    const list = h('ul', {}, items.map((v) => {
      if (v.merged) return v.merged;
      // Said of the card's one deployment (its GPUs), not the smallest instance that would hold it.
      const params = { ...verdictParams(v.params), deployed_gpus: i18n.num(r.deployed_gpus) };
      return h('li', { class: `reason ${v.kind}` },
        h('span', { class: 'mark', 'aria-hidden': 'true' }, v.kind === 'pro' ? '✓' : v.kind === 'con' ? '!' : 'i'),
        h('span', { class: 'visually-hidden' }, `${t(`kind_${v.kind}`)}: `),
        t(reasonKey(v), params), limitsText(v.params || {}, params));
    }));
    const recommended = ev.recommended === r.offering;
    return h('div', { class: `verdict-col ${seriesClass(i)}${recommended ? ' recommended' : ''}` },
      h('h3', {}, t('choose_when', { name: offeringName(r) })),
      recommended ? h('p', { class: 'badge' }, badgeText(ev, r, inputs)) : null,
      // A projected part: the core flags it; its figures are vendor claims, never measured.
      r.projected ? h('p', { class: 'badge projected-badge' }, t('projected_badge')) : null,
      r.projected ? h('p', { class: 'help projected-note' }, t('projected_sentence')) : null,
      layoutLine(r),
      items.length ? list : h('p', { class: 'help' }, t('no_reasons_hint')),
      // The verdict's own con says an unreachable speed; the line below would repeat it.
      items.some((v) => v.code === 'interactivity_unreachable') ? null : speedCost(r, Number(inputs.get('interactivity')) || 0));
  });
  morph($('verdict'), ...columns);
  const line = summaryLine(ev, inputs);
  setText($('verdict-summary'), line);
  setText($('phone-summary-text'), line);
}

/** The layout of the serving figures at the users, worded from the core's numbers: the prefill
 *  and decode pools of a disaggregated layout, else the aggregated instances. */
function layoutLine(r) {
  let text = null;
  if (r.prefill_gpus && r.decode_gpus) {
    text = t('layout_disagg', {
      prefill: tn('layout_prefill', r.prefill_gpus, { n: i18n.num(r.prefill_gpus), shape: poolShape(r.prefill_workers, r.prefill_tp, r.prefill_ep, r.prefill_dpa) }),
      decode: tn('layout_decode', r.decode_gpus, { n: i18n.num(r.decode_gpus), shape: poolShape(r.decode_workers, r.decode_tp, r.decode_ep, r.decode_dpa) }),
    });
  } else if (r.serving_replicas && r.serving_tensor_parallel) {
    const shape = instanceShape(r.serving_tensor_parallel, r.expert_parallel, r.data_parallel_attention);
    text = r.serving_replicas === 1
      ? tn('layout_gpus', r.serving_tensor_parallel, { n: i18n.num(r.serving_tensor_parallel), shape })
      : t('layout_replicas', { n: i18n.num(r.serving_replicas), shape });
  }
  return text ? h('p', { class: 'help layout-line' }, h('strong', {}, t('layout_label')), h('span', { class: 'layout-text' }, text)) : null;
}

function poolShape(workers, tp, ep, dpa) {
  const shape = instanceShape(tp, ep, dpa);
  return workers > 1 ? t('layout_workers', { n: i18n.num(workers), shape }) : shape;
}

/** "TP8, EP8, DP attention": expert parallelism named only above 1 (MoE models). */
function instanceShape(tp, ep, dpa) {
  const parts = [t('layout_tp', { n: i18n.num(tp) })];
  if (ep > 1) parts.push(t('layout_ep', { n: i18n.num(ep) }));
  if (dpa) parts.push(t('layout_dpa'));
  return parts.join(t('layout_sep'));
}

/** The cost per token is said once: where the core compares it with each other offering (the
 *  pair sentences name their figures), its sentence against the next best says it again. */
const BEST = /^cheaper_per_million_tokens(_at_speed)?$/;
function oneCostSentence(items) {
  const pairKinds = new Set(items.filter((v) => PAIR.test(v.code)).map((v) => v.code.endsWith('_at_speed')));
  return items.filter((v) => !(BEST.test(v.code) && pairKinds.has(v.code.endsWith('_at_speed'))));
}

/** With three or more offerings an offering cheaper than several others gets one sentence
 *  (its own figure once, then each other's), not one per pair repeating its figure. */
const PAIR = /^cheaper_per_million_tokens_than(_at_speed)?$/;
function mergePairs(ev, items) {
  const pairs = items.filter((v) => PAIR.test(v.code));
  if (pairs.length < 2) return items;
  const first = pairs[0];
  const params = verdictParams(first.params);
  const others = pairs.map((v) => {
    const p = verdictParams(v.params);
    const other = ev.results[v.params.other_index];
    return t('v_other_cost', { usd: p.other_usd_per_million_tokens, name: other ? offeringName(other) : '?', ratio: p.ratio });
  }).join(t('list_sep'));
  const key = first.code.endsWith('_at_speed') ? 'v_cheaper_than_many_at_speed' : 'v_cheaper_than_many';
  const merged = h('li', { class: 'reason pro' },
    h('span', { class: 'mark', 'aria-hidden': 'true' }, '✓'),
    h('span', { class: 'visually-hidden' }, `${t('kind_pro')}: `),
    t(key, { ...params, others }), limitsText(first.params || {}, params));
  return [...items.filter((v) => !PAIR.test(v.code) || v === first).map((v) => (v === first ? { merged } : v))];
}

/** A reason's dictionary key: by kind where the dictionary words it so, and the variant naming
 *  the speed per user where the core gave the speed its cost was priced at. */
function reasonKey(v) {
  const base = i18n.has(`v_${v.code}_${v.kind}`) ? `v_${v.code}_${v.kind}` : `v_${v.code}`;
  const speed = v.params && 'tokens_per_s_per_user' in v.params && i18n.has(`${base}_speed`);
  return speed ? `${base}_speed` : base;
}

/** The latency limits a cost was priced within, as the core passed them. */
function limitsText(raw, params) {
  const ttft = 'ttft_max_s' in raw, tpot = 'tpot_max_s' in raw;
  if (!ttft && !tpot) return null;
  return ` ${t(ttft && tpot ? 'v_within_limits' : ttft ? 'v_within_ttft' : 'v_within_tpot', params)}`;
}

/** The recommendation, naming the speed per user its cost is priced at: the chosen speed, or the
 *  speed of the recommended offering's highest-throughput point (the core's). */
function badgeText(ev, r, inputs) {
  const basis = ev.recommendation_basis;
  const p = r.max_throughput_point;
  const key = basis === 'usd_per_million_tokens' && !p ? 'recommended_fits' : `recommended_${basis}`;
  const text = t(key, { n: i18n.num(Number(inputs.get('interactivity')) || 0), speed: p ? i18n.sig(p.tokens_per_s_per_user) : '' });
  if (basis !== 'usd_per_million_tokens' && basis !== 'interactivity') return text;
  const ttft = Number(inputs.get('ttft_max')) || 0, tpot = Number(inputs.get('tpot_max')) || 0;
  const raw = { ...(ttft ? { ttft_max_s: ttft } : {}), ...(tpot ? { tpot_max_s: tpot } : {}) };
  const limits = limitsText(raw, verdictParams(raw));
  return limits ? `${text}.${limits}` : text;
}

/** The cost at the speed per user the user chose: the core's point on the curve at that speed. */
function speedCost(r, speed) {
  if (!speed || !Array.isArray(r.curve)) return null;
  const p = r.interactivity_point;
  const n = i18n.num(speed);
  if (!p) return h('p', { class: 'speed-cost' }, t('v_speed_unreachable', { n }));
  if (!(p.usd_per_million_tokens > 0)) return h('p', { class: 'speed-cost' }, t('v_cost_at_speed_unpriced', { n }));
  const usd = fmtField('usd_per_million_tokens', p.usd_per_million_tokens);
  const b = band({ ...r, error_band: pointBands(r, p), usd_per_million_tokens: p.usd_per_million_tokens }, 'usd_per_million_tokens');
  return h('p', { class: 'speed-cost' }, t('v_cost_at_speed', { n, usd }), b ? ' ' : null, b);
}

function summaryLine(ev, inputs) {
  const parts = ev.results.map((r) => t('sum_item', {
    name: offeringName(r),
    price: r.price_month_usd === null ? t('your_price') : t('per_month', { price: i18n.usd(r.price_month_usd) }),
    fit: r.fits ? tn('sum_fits', r.deployed_gpus, { n: i18n.num(r.deployed_gpus) }) : t('sum_no_fit'),
  }));
  const w = inputs.get('weights') || '';
  const weights = w === 'native' ? t('weights_native') : w.toUpperCase();
  return `${t('sum_lead', { model: ev.model.name, weights })} ${parts.join(t('list_sep'))}`;
}
