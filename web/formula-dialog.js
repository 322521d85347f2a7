// The formula dialog: the core's trace of one figure (formula, inputs, note). Loaded with its
// strings (i18n/formula/) when a formula is first opened (formula.js openFormula).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, table, setText } from './dom.js';
import { state } from './state.js';
import { fmtField, offeringName } from './format.js';
import { ratesText } from './sections/perf.js';

const UNIT_SUFFIX = [['_bytes_per_s', 'bytes/s'], ['_flops_per_s', 'FLOP/s'], ['_per_s', '/s'], ['_bytes', 'bytes'],
  ['_usd', 'US$'], ['_gb', 'GB'], ['_mib', 'MiB'], ['_tokens', 'tokens'], ['_s', 's']];

/** A trace input's label with its unit: the dictionary's, else its name in words. */
function inputLabel(name) {
  if (i18n.has(`fi_${name}`)) return t(`fi_${name}`);
  const suffix = UNIT_SUFFIX.find(([s]) => name.endsWith(s));
  const words = (suffix ? name.slice(0, -suffix[0].length) : name).replace(/_/g, ' ');
  return suffix ? `${words} (${suffix[1]})` : words;
}

/** The note's parts (the core's note ids), each worded from the dictionaries with the trace's
 *  own inputs and the result's codes (its network, the source of its rates). */
function noteText(r, tr) {
  const ids = (tr.note_id || '').split('+').filter(Boolean);
  if (!ids.length) return '';
  if (!ids.every((id) => i18n.has(`fn_${id}`))) return tr.note || '';
  const params = { network: r.scale_out_network || i18n.DASH, source: ratesText(r),
    engine: r.engine && i18n.has(`engine_name_${r.engine}`) ? t(`engine_name_${r.engine}`) : r.engine || i18n.DASH,
    engine_version: r.engine_version || '' };
  for (const [k, v] of Object.entries(tr.inputs || {})) if (typeof v === 'number') params[k] = i18n.num(v);
  return ids.map((id) => t(`fn_${id}`, params)).join(t('list_sep'));
}

/** Opens the formula of `field` for the offering at `index` of the evaluation on screen. */
export function showFormula(index, field) {
  const traced = gpucalc.evaluate(state.evaluation.scenario, { trace: true });
  const r = traced.results[index];
  const tr = r && r.trace && r.trace[field];
  if (!tr) return;
  setText($('formula-h'), t(`f_${field}`, { context: i18n.num(Number(state.inputs.get('context'))) }));
  setText($('formula-offering'), `${offeringName(r)}: ${fmtField(field, r[field])}`);
  // The core's codes worded in the page's language; its English prose only for a code the
  // dictionaries do not have.
  setText($('formula-text'), i18n.has(`ff_${tr.formula_id}`) ? t(`ff_${tr.formula_id}`) : tr.formula);
  const inputs = Object.entries(tr.inputs || {});
  table($('formula-inputs'), {
    head: [t('input_col'), t('value_col')],
    rows: inputs.map(([k, v]) => ({ cells: [inputLabel(k),
      typeof v === 'number' ? i18n.num(v, Math.abs(v) < 1 ? 6 : 3) : i18n.DASH] })),
  });
  $('formula-inputs').hidden = inputs.length === 0;
  setText($('formula-note'), noteText(r, tr));
  const dialog = $('formula');
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
}
