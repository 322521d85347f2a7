// Which figures carry a formula (they become buttons), and opening the formula dialog
// (formula-dialog.js, fetched when a formula is first opened).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { state } from './state.js';

/** Opens the formula of `field` for the offering at `index` of the evaluation on screen: the
 *  dialog's code (formula-dialog.js), its input labels (i18n/formula/) and the whole module
 *  (the page's first one writes no traces) are fetched the first time. */
export async function openFormula(index, field) {
  const [dialog] = await Promise.all([import('./formula-dialog.js'),
    i18n.loadPart('formula').catch(() => { /* unlabelled inputs are named in words */ }),
    gpucalc.loadWhole()]);
  dialog.showFormula(index, field);
}

/** Fields that carry a formula in the workload kind of `evaluation`, as the core's field
 *  registry lists them (`formula`: all, inference or training), once per kind (after the first
 *  paint); `done` redraws so the figures become buttons. */
export function learnTracedFields(evaluation, schedule, done) {
  const kind = evaluation.workload === 'inference' ? 'inference' : 'training';
  if (state.traced.has(kind)) return;
  state.traced.set(kind, new Set());
  schedule(() => {
    const fields = gpucalc.resultFields() || [];
    state.traced.set(kind, new Set(fields.filter((f) => f.formula === 'all' || f.formula === kind).map((f) => f.name)));
    done();
  });
}
