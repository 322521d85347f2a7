// "In short": the one-line summary and the verdict's reasons per offering, from the core's
// verdict codes and parameters (words made here, through the dictionaries).
import * as i18n from '../i18n.js';
import { t, tn } from '../i18n.js';
import { $, h, morph, seriesClass, setText } from '../dom.js';
import { verdictParams, fmtField, band, pointBands, offeringName } from '../format.js';

export function renderVerdict(ev, inputs) {
  const columns = ev.results.map((r, i) => {
    const items = ev.verdict.filter((v) => v.offering === r.offering);
    const list = h('ul', {}, items.map((v) => {
      const key = i18n.has(`v_${v.code}_${v.kind}`) ? `v_${v.code}_${v.kind}` : `v_${v.code}`;
      return h('li', { class: `reason ${v.kind}` },
        h('span', { class: 'mark', 'aria-hidden': 'true' }, v.kind === 'pro' ? '✓' : v.kind === 'con' ? '!' : 'i'),
        h('span', { class: 'visually-hidden' }, `${t(`kind_${v.kind}`)}: `),
        t(key, verdictParams(v.params)));
    }));
    const recommended = ev.recommended === r.offering;
    return h('div', { class: `verdict-col ${seriesClass(i)}${recommended ? ' recommended' : ''}` },
      h('h3', {}, t('choose_when', { name: offeringName(r) })),
      recommended ? h('p', { class: 'badge' }, t(`recommended_${ev.recommendation_basis}`, { n: i18n.num(Number(inputs.get('interactivity')) || 0) })) : null,
      items.length ? list : h('p', { class: 'help' }, t('no_reasons_hint')),
      // The verdict's own con says an unreachable speed; the line below would repeat it.
      items.some((v) => v.code === 'interactivity_unreachable') ? null : speedCost(r, Number(inputs.get('interactivity')) || 0));
  });
  morph($('verdict'), ...columns);
  setText($('verdict-summary'), summaryLine(ev, inputs));
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
    fit: r.fits ? tn('sum_fits', r.gpus_needed, { n: i18n.num(r.gpus_needed) }) : t('sum_no_fit'),
  }));
  const weights = (inputs.get('weights') || '').toUpperCase();
  return `${t('sum_lead', { model: ev.model.name, weights })} ${parts.join(t('list_sep'))}`;
}
