// Monthly price: the core's price figures and the offering's catalog description.
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, table } from '../dom.js';
import { figure, fmtField, localized, offeringName } from '../format.js';
import { gpuOf, offeringOf } from '../state.js';

const PRICES = ['price_month_usd', 'price_gpu_hour_usd', 'price_gb_month_usd', 'price_delta_month_usd'];
const DESCRIPTION = ['cpu', 'ram', 'storage', 'network', 'availability'];

export function renderPrice(ev) {
  const line = (label, fn) => ({ cells: [t(label), ...ev.results.map(fn)] });
  table($('price-table'), {
    caption: t('price_h'),
    head: [t('config_col'), ...ev.results.map((r) => offeringName(r))],
    rows: [
      ...PRICES.map((f) => line(`f_${f}`, (r, i) => (f === 'price_delta_month_usd' && i === 0 ? i18n.DASH : figure(r, i, f)))),
      line('hbm_total', (r) => {
        const g = gpuOf(r);
        return `${i18n.num(r.deployed_gpus ?? r.gpu_count)} × ${i18n.gb(g.hbm_marketed_bytes, 0)} ${g.memory_type || ''} = ${fmtField('offering_hbm_marketed_bytes', r.offering_hbm_marketed_bytes)}`;
      }),
      // How each price is billed and where it comes from (the catalog's listing): a reference
      // tier lists a rate per GPU-hour, a provider's plan a monthly price.
      line('price_billing', (r) => (r.price_month_usd === null ? i18n.DASH
        : t(typeof offeringOf(r).listed_usd_per_gpu_hour === 'number' && !priceEntered(ev, r) ? 'billing_hourly' : 'billing_monthly'))),
      line('price_source_row', (r) => (priceEntered(ev, r) ? t('price_yours') : sourceText(offeringOf(r)))),
      ...DESCRIPTION.map((k) => line(k, (r) => localized(offeringOf(r), k) || i18n.DASH)),
    ],
  });
}

/** A price the user typed (the core's unit price differs from the catalog's). */
function priceEntered(ev, r) {
  const listed = offeringOf(r).price_month_usd;
  return typeof r.unit_price_month_usd === 'number' && r.unit_price_month_usd !== listed;
}

/** The tier, the catalog's source sentence (in its language: the catalog's `price_source_<lang>`
 *  where given, the English one on the English page) and the date. */
function sourceText(o) {
  if (!o.price_source && !o.tier) return i18n.DASH;
  const parts = [];
  if (o.tier && i18n.has(`tier_${o.tier}`)) parts.push(t(`tier_${o.tier}`));
  const own = o[`price_source_${i18n.language()}`];
  const source = typeof own === 'string' && own ? own : i18n.language() === 'en' ? o.price_source : '';
  if (source) parts.push(source);
  if (o.price_date) parts.push(o.price_date);
  if (o.price_estimate) parts.push(t('price_estimate'));
  return parts.join(' · ');
}
