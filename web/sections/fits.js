// What fits: GPUs needed for every catalog model x precision on the compared offerings.
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, h, morph, seriesClass, setText } from '../dom.js';
import { state, hooks } from '../state.js';
import { memo } from '../schedule.js';
import { fitTable } from '../compute.js';
import { keyInfo } from '../schema.js';
import { offeringName } from '../format.js';

/** Draws the table for the scenario on screen (the core's table is cached per fit keys). */
export function renderFits(ev, inputs) {
  const { fit, key } = fitTable();
  const shown = state.fitWeights || inputs.get('weights');
  memo('fits', `${key}|${ev.model.id}|${inputs.get('weights')}|${shown}|${i18n.language()}`, () => drawTable(ev, fit, inputs.get('weights'), shown));
}

function drawTable(ev, fit, current, shown) {
  const names = fit.offerings.map((id, i) => (ev.results[i] && ev.results[i].offering === id ? offeringName(ev.results[i]) : id));
  const gpuNames = fit.gpus.map((id) => (state.gpus.find((g) => g.id === id) || { name: id }).name.replace(/^(AMD Instinct|NVIDIA) /, ''));
  const rows = fit.rows.filter((row) => shown === 'all' || row.weights === shown);
  const thead = h('thead', {}, h('tr', {},
    h('th', { scope: 'col', class: 'rowhead' }, t('fit_model_col')),
    h('th', { scope: 'col' }, t('fit_weights_col')),
    ...gpuNames.map((n, i) => h('th', { scope: 'col', class: `col ${seriesClass(i)}`, title: names[i] }, t('fit_gpus_col', { gpu: n })))));
  const tbody = h('tbody', {}, rows.map((row) => {
    const isCurrent = row.model === ev.model.id && row.weights === current;
    const weightsBytes = row.cells[0] ? row.cells[0].weights_bytes : null;
    return h('tr', { class: isCurrent ? 'current' : null },
      h('th', { scope: 'row' }, row.model_name, ' ', h('span', { class: 'prec' }, precisionLabel(row.weights))),
      h('td', {}, i18n.gb(weightsBytes, 0)),
      ...row.cells.map((c) => {
        const n = c.gpus_needed_weights_only;
        const practical = c.gpus_needed;
        const over = !c.fits_offering;
        return h('td', { class: over ? 'over' : null },
          h('strong', {}, i18n.num(n)),
          practical !== null && practical !== n ? h('span', { class: 'practical' }, ` · ${t('fit_practical', { n: i18n.num(practical) })}`) : null,
          over ? h('span', { class: 'flag' }, ` · ${t('fit_over')}`) : null,
          c.native_math === false ? h('span', { class: 'flag weight-only', title: t('weight_only_hint') }, ` · ${t('weight_only')}`) : null);
      }));
  }));
  morph($('fit-table'), h('caption', { class: 'visually-hidden' }, t('fits_h')), thead, tbody);
  const filter = $('fit-filter');
  if (filter) filter.value = shown;
  setText($('fits-note'), t('fits_note', { basis: t(`basis_${fit.capacity_basis}`) }));
}

// A weight format as the page names it: `native` (the release's own) in words, the rest in capitals.
const precisionLabel = (w) => (w === 'native' ? t('weights_native') : w.toUpperCase());

/** The precision filter above the table (its choices are the schema's for `weights`). */
export function buildFitFilter() {
  const old = $('fit-filter-row');
  if (old) old.remove();
  const choices = (keyInfo('weights') || {}).choices || [...$('in-weights').options].map((o) => o.value);
  const select = h('select', { id: 'fit-filter' },
    h('option', { value: 'all' }, t('fit_all')),
    ...choices.map((w) => h('option', { value: w }, precisionLabel(w))));
  select.addEventListener('change', () => { state.fitWeights = select.value; hooks.render(); });
  const row = h('p', { id: 'fit-filter-row', class: 'filter' }, h('label', { for: 'fit-filter' }, t('fit_filter')), ' ', select);
  $('fits-note').after(row);
}
