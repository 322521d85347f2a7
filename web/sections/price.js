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
      ...DESCRIPTION.map((k) => line(k, (r) => localized(offeringOf(r), k) || i18n.DASH)),
    ],
  });
}
