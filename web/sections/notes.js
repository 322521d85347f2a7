// How these figures are made: capacity basis, the rates behind each offering, the core's warnings.
import * as i18n from '../i18n.js';
import { t } from '../i18n.js';
import { $, h, morph } from '../dom.js';
import { ratesText } from './perf.js';
import { offeringName } from '../format.js';

// Most warnings' sentences (i18n/warnings/) are fetched the first time a result carries one; the
// notes are drawn again when they arrive (the figures do not wait for them), and until then a
// warning without its words is left out rather than shown as the generic w_other.
let warningWords = null;
let warningsLoaded = false;
let latest = null;

export function renderNotes(ev) {
  latest = ev;
  const waiting = !warningsLoaded && ev.results.some((r) => r.warnings.some((w) => !i18n.has(`w_${w}`)));
  if (waiting && !warningWords) {
    warningWords = i18n.loadPart('warnings').catch(() => { /* the generic sentence shows */ })
      .then(() => { warningsLoaded = true; renderNotes(latest); });
  }
  const notes = [t(`basis_note_${ev.capacity_basis}`)];
  notes.push(t('rates_note', { list: ev.results.map((r) => `${offeringName(r)}: ${ratesText(r)}`).join(t('list_sep')) }));
  const warnings = new Map(); // code -> GPU names
  ev.results.forEach((r) => r.warnings.forEach((w) => {
    if (!warnings.has(w)) warnings.set(w, new Set());
    warnings.get(w).add(r.gpu_name);
  }));
  for (const [w, gpus] of warnings) {
    if (waiting && !i18n.has(`w_${w}`)) continue;
    const params = { gpus: new Intl.ListFormat(i18n.locale(), { type: 'conjunction' }).format([...gpus]),
      max: i18n.tokens(ev.model.max_context_tokens) };
    notes.push(i18n.has(`w_${w}`) ? t(`w_${w}`, params) : t('w_other', params));
  }
  notes.push(t('note_formulas'));
  morph($('notes'), ...notes.map((n) => h('li', {}, n)));
}
