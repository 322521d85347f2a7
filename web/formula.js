// Which figures carry a formula (they become buttons), and opening the formula dialog
// (formula-dialog.js, fetched when a formula is first opened).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { state } from './state.js';

/** Opens the formula of `field` for the offering at `index` of the evaluation on screen: the
 *  dialog's code (formula-dialog.js) and its input labels (i18n/formula/) are fetched the first
 *  time. */
export async function openFormula(index, field) {
  const [dialog] = await Promise.all([import('./formula-dialog.js'),
    i18n.loadPart('formula').catch(() => { /* unlabelled inputs are named in words */ })]);
  dialog.showFormula(index, field);
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
