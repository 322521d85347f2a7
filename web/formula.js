// The formula dialog: the core's trace of one figure (formula, inputs, note).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, table, setText } from './dom.js';
import { state } from './state.js';
import { fmtField, offeringName } from './format.js';

const UNIT_SUFFIX = [['_bytes_per_s', 'bytes/s'], ['_flops_per_s', 'FLOP/s'], ['_per_s', '/s'], ['_bytes', 'bytes'],
  ['_usd', 'US$'], ['_gb', 'GB'], ['_mib', 'MiB'], ['_tokens', 'tokens'], ['_s', 's']];

/** A trace input's label with its unit: the dictionary's, else its name in words. */
function inputLabel(name) {
  if (i18n.has(`fi_${name}`)) return t(`fi_${name}`);
  const suffix = UNIT_SUFFIX.find(([s]) => name.endsWith(s));
  const words = (suffix ? name.slice(0, -suffix[0].length) : name).replace(/_/g, ' ');
  return suffix ? `${words} (${suffix[1]})` : words;
}

/** Opens the formula of `field` for the offering at `index` of the evaluation on screen (its
 *  input labels, i18n/formula/, are fetched the first time). */
export async function openFormula(index, field) {
  try { await i18n.loadPart('formula'); } catch { /* unlabelled inputs are named in words */ }
  const traced = gpucalc.evaluate(state.evaluation.scenario, { trace: true });
  const r = traced.results[index];
  const tr = r && r.trace && r.trace[field];
  if (!tr) return;
  setText($('formula-h'), t(`f_${field}`, { context: i18n.num(Number(state.inputs.get('context'))) }));
  setText($('formula-offering'), `${offeringName(r)}: ${fmtField(field, r[field])}`);
  setText($('formula-text'), tr.formula);
  const inputs = Object.entries(tr.inputs || {});
  table($('formula-inputs'), {
    head: [t('input_col'), t('value_col')],
    rows: inputs.map(([k, v]) => ({ cells: [inputLabel(k),
      typeof v === 'number' ? i18n.num(v, Math.abs(v) < 1 ? 6 : 3) : i18n.DASH] })),
  });
  $('formula-inputs').hidden = inputs.length === 0;
  setText($('formula-note'), tr.note || '');
  const dialog = $('formula');
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
}

/** Fields that carry a formula, learnt from one traced evaluation per workload kind (after the
 *  first paint); `done` redraws so the figures become buttons. */
export function learnTracedFields(evaluation, schedule, done) {
  const kind = evaluation.workload === 'inference' ? 'inference' : 'training';
  if (state.traced.has(kind)) return;
  state.traced.set(kind, new Set());
  schedule(() => {
    const traced = gpucalc.evaluate(evaluation.scenario, { trace: true });
    state.traced.set(kind, new Set(traced.results.flatMap((r) => Object.keys(r.trace || {}))));
    done();
  });
}
