// The calculator page, wiring only: start-up, the form's events, and the pipeline
//   form or fragment -> core (schema.js, compute.js) -> one evaluation -> sections/*.js.
// Every figure on the page is the core's; the modules format and draw it (web/README.md).
import * as gpucalc from './gpucalc.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';
import { $, setText, bindInPageLinks } from './dom.js';
import { state, query, embedded, hooks } from './state.js';
import { initSchema, useFieldUnits, decodeLenient, inputsOf, keys } from './schema.js';
import { evaluateText, computeSweeps, fragmentText, scheduleUrl, shareUrl, onUrlChange } from './compute.js';
import { afterFirstPaint, isPainted, firstResultDrawn, memo, redrawAll, observeChartWidths, whenIdle, figuresFirst, layOut } from './schedule.js';
import { readForm, writeForm, renderOfferingRows, showCutNames, renderModelOptions, addOffering, syncWorkloadFields,
  clearErrors, showFieldError, setStale, showNotice } from './form.js';
import { errorText, loadErrorStrings } from './format.js';
import { renderPresets, markPresets, hideUnknownKeys } from './form-presets.js';
import { learnTracedFields, openFormula } from './formula.js';
import { bindActions } from './actions.js';
import { applyTheme } from './theme.js';
import { updateLangLinks, bindLanguage, switchLanguage } from './language.js';
import { refreshCatalog, loadQueryCatalog, applyHostCatalog, keepListedOfferings, bindCatalog } from './catalog.js';
import { bindCalibration, restoreCalibration, loadQueryCalibration, useSuppliedCalibration } from './calibrate.js';
import { renderVerdict } from './sections/verdict.js';
import { renderKeyFigures } from './sections/keyfigs.js';
import { renderServing, renderAccuracy } from './sections/serving.js';
import { renderMemory } from './sections/memory.js';
import { renderPerf } from './sections/perf.js';
import { renderPrice } from './sections/price.js';
import { renderSpecs } from './sections/specs.js';
import { renderFits, buildFitFilter } from './sections/fits.js';
import { renderNotes } from './sections/notes.js';

let firstDrawn = false;

/** Draws every section from the evaluation on screen. */
function render() {
  const ev = state.evaluation;
  if (!ev) return;
  const inputs = state.inputs;
  $('results').setAttribute('aria-busy', 'false');
  renderVerdict(ev, inputs);
  renderKeyFigures(ev, inputs);
  renderServing(ev, inputs);
  renderMemory(ev, inputs);
  renderPerf(ev, inputs);
  memo('price', `${ev.scenario}|${state.catalogVersion}|${i18n.language()}`, () => renderPrice(ev));
  memo('specs', `${ev.results.map((r) => r.gpu).join(',')}|${state.catalogVersion}|${i18n.language()}`, () => renderSpecs(ev));
  scheduleFits();
  renderNotes(ev);
  setText($('print-scenario'), t('print_scenario', { url: shareUrl() }));
  if (!firstDrawn) {
    firstDrawn = true;
    firstResultDrawn();
  }
}

// The what-fits table covers every model and precision. Its text is there with the first
// result; after an edit it is redrawn at once when on screen (or embedded), else when idle.
let fitsVisible = false;
let fitsIdle = 0;
function scheduleFits() {
  if (!firstDrawn || fitsVisible || embedded || state.printing) { drawFits(); return; }
  if (!fitsIdle) fitsIdle = whenIdle(() => { fitsIdle = 0; drawFits(); layOut(); });
}
function drawFits() { if (state.evaluation) renderFits(state.evaluation, state.inputs); }

/** Shows a computed evaluation: state, formula buttons (learnt after the first paint), sections. */
function apply({ evaluation, inputs }) {
  learnTracedFields(evaluation, afterFirstPaint, () => { redrawAll(); render(); });
  const modelChanged = inputs.get('model') !== state.inputs.get('model');
  state.evaluation = evaluation;
  state.inputs = inputs;
  // The sweeps are computed when their charts or tables are drawn (after the figures).
  state.sweeps = evaluation.workload === 'inference' ? null : false;
  const t0 = performance.now();
  render();
  if (modelChanged) renderPresets(inputs.get('model')); else markPresets();
  performance.measure('gpucalc:render', { start: t0, end: performance.now() });
}

// A training run's strings (i18n/training/) are fetched the first time one is shown.
let trainingStrings = null;
let trainingLoaded = false;
/** Null when `evaluation` can be drawn now, else the promise of the strings it needs. */
function stringsFor(evaluation) {
  if (evaluation.workload === 'inference' || trainingLoaded) return null;
  if (!trainingStrings) trainingStrings = i18n.loadPart('training').catch(() => { /* the keys show */ }).then(() => { trainingLoaded = true; });
  return trainingStrings;
}

/** The form changed: ask the core, show the result or the error next to its field. */
let updates = 0;
function update() {
  const t0 = performance.now();
  let computed;
  try {
    computed = evaluateText(readForm());
  } catch (e) {
    if (!(e instanceof gpucalc.GpucalcError)) throw e;
    const seq = ++updates;
    setStale(true);
    // Shown once the words of errors are here, unless a later edit came first.
    loadErrorStrings().then(() => {
      if (seq !== updates) return;
      clearErrors();
      showFieldError(e);
      setStale(true);
    });
    return;
  }
  clearErrors();
  const seq = ++updates;
  const strings = stringsFor(computed.evaluation);
  // A later edit's result wins over one still waiting for its strings.
  if (strings) strings.then(() => { if (seq === updates) figuresFirst(() => apply(computed)); });
  else figuresFirst(() => apply(computed));
  scheduleUrl();
  performance.measure('gpucalc:update', { start: t0, end: performance.now() });
}

hooks.update = update;
hooks.render = render;

function redrawWords() {
  renderModelOptions();
  $('in-model').value = state.inputs.get('model');
  renderOfferingRows();
  buildFitFilter();
  renderPresets(state.inputs.get('model'));
  redrawAll();
  render();
}

function bindControls() {
  const form = $('controls');
  form.addEventListener('input', (e) => {
    if (e.target.closest('#offerings') || e.target.closest('#import') || e.target.closest('.pricelist')) return;
    if (e.target.id === 'in-workload') syncWorkloadFields();
    if (e.target.id === 'in-weights') state.weightsChosen = true;
    update();
  });
  form.addEventListener('change', (e) => {
    if (e.target.type === 'checkbox' || e.target.type === 'radio') update();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  $('add-offering').addEventListener('click', addOffering);
  $('reset').addEventListener('click', () => {
    state.fitWeights = null;
    state.weightsChosen = false;
    const computed = evaluateText('v=1');
    clearErrors();
    updates++;
    apply(computed);
    writeForm(computed.inputs);
    scheduleUrl();
  });
  $('results').addEventListener('click', (e) => {
    const fig = e.target.closest('button.fig');
    if (fig) openFormula(Number(fig.dataset.r), fig.dataset.f);
  });
  bindActions();
  bindCatalog();
  bindCalibration();
  bindInPageLinks();
  bindLanguage(redrawWords);
  onUrlChange(updateLangLinks);
  observeChartWidths(['curve-chart', 'memory-chart', 'batch-chart', 'context-chart'], render);
  new IntersectionObserver((entries) => {
    fitsVisible = entries.some((e) => e.isIntersecting);
    if (fitsVisible && isPainted()) drawFits();
  }, { rootMargin: '300px' }).observe($('sec-fits'));
  const dataBox = document.querySelector('#sec-perf .chart-data');
  const fillSweepTables = () => {
    // Opened before the charts were on screen: the sweeps are computed now for the tables.
    if (state.sweeps === null) { computeSweeps(); render(); } else if (state.drawSweepTables) state.drawSweepTables();
  };
  dataBox.addEventListener('toggle', (e) => { if (e.target.open) fillSweepTables(); });
  // 'toggle' comes a task after the click: the tables are filled as the summary opens them.
  dataBox.querySelector('summary').addEventListener('click', () => { if (!dataBox.open) fillSweepTables(); });
  $('curve-data').addEventListener('toggle', (e) => { if (e.target.open && state.drawCurveTable) state.drawCurveTable(); });
  $('accuracy').addEventListener('toggle', (e) => { if (e.target.open) renderAccuracy(); });
  window.addEventListener('beforeprint', () => {
    state.printing = true;
    if (state.drawSweepTables) state.drawSweepTables();
    if (state.drawCurveTable) state.drawCurveTable();
    drawFits();
  });
  window.addEventListener('afterprint', () => { state.printing = false; });
}

/** The scenario a link opened on: its valid keys, each bad one marked at its field and named. */
async function openLink(text) {
  const { scenario, errors, evaluation } = decodeLenient(text);
  const computed = evaluation ? { evaluation, inputs: inputsOf(evaluation) } : evaluateText(scenario);
  state.linkErrors = errors;
  if (errors.length) {
    await loadErrorStrings();
    const future = errors.find((e) => e.code === 'unsupported_version');
    const message = errors.map(errorText).join(t('list_sep'));
    showNotice(future ? t('notice_future_link', { message }) : t('notice_bad_link', { message }));
  }
  return computed;
}

/**
 * The build's first answer (scripts/build-web.mjs): the default scenario's result as the core
 * wrote it at build time, in index.html. It stands for what the page opens on only when that is
 * the default scenario with the built-in catalog: no fragment, no price list or calibration
 * from the link, the embedding host or this browser, as web/first-paint.js found before the
 * body was parsed (data-opens-on). Else null.
 */
function firstAnswer() {
  const box = document.getElementById('first-answer');
  if (!box || document.documentElement.dataset.opensOn !== 'default') return null;
  try { return JSON.parse(box.textContent); } catch { return null; }
}

/** Draws the first answer's verdict and key figures (the same section code as the live result)
 *  while the module loads; the live result replaces them, drawn over the same nodes. */
function showFirstAnswer({ evaluation, units, offerings }) {
  useFieldUnits(units);
  state.offerings = offerings;
  state.evaluation = evaluation;
  state.inputs = inputsOf(evaluation);
  i18n.translateDocument();
  renderVerdict(evaluation, state.inputs);
  renderKeyFigures(evaluation, state.inputs);
  document.documentElement.classList.add('first-answer');
  performance.mark('gpucalc:first-answer');
}

async function start() {
  if (embedded) document.documentElement.classList.add('embed');
  if (query.get('view') === 'summary') document.documentElement.classList.add('view-summary');
  applyTheme();
  const lang = i18n.pickLanguage();
  performance.mark('gpucalc:start');
  const strings = i18n.setLanguage(lang);
  // The smaller first module; gpucalc.loadWhole() when a price list or calibration needs the rest.
  const loading = Promise.all([gpucalc.load({ page: true }), strings]);
  i18n.prepareNumbers(lang);
  const first = firstAnswer();
  if (first) {
    await strings;
    showFirstAnswer(first);
  }
  await loading;
  performance.mark('gpucalc:loaded');
  i18n.translateDocument();
  initSchema();
  hideUnknownKeys();
  renderPresets('');
  refreshCatalog();
  renderModelOptions();
  buildFitFilter();
  bindControls();
  await loadQueryCatalog();
  if (query.get('catalog') === 'opener') {
    const { catalogFromOpener } = await import('./embed-frame.js');
    const passed = await catalogFromOpener();
    if (passed) await applyHostCatalog(passed);
  }
  await restoreCalibration();
  await loadQueryCalibration();

  const fromLink = fragmentText();
  state.weightsChosen = /(^|&)weights=/.test(fromLink);
  let computed = fromLink ? await openLink(fromLink) : evaluateText('v=1');
  state.inputs = computed.inputs;
  writeForm(computed.inputs);
  if (state.offeringFilter) {
    // A vendor's list that replaces the built-in offers (passed on by the embed that opened us).
    keepListedOfferings();
    renderOfferingRows();
    try { computed = evaluateText(readForm()); } catch (e) { if (!(e instanceof gpucalc.GpucalcError)) throw e; }
    state.inputs = computed.inputs;
  }
  renderPresets(computed.inputs.get('model'));
  // The form and results are laid out once, filled (style.css hides them until then).
  await stringsFor(computed.evaluation);
  document.documentElement.classList.add('live');
  apply(computed);
  // A chosen offering's name cut in its select is shown whole under it, measured once the first
  // results are painted: measuring here would lay the whole page out before its first paint, and
  // again for the paint (a quarter of the time from the module's load to the live result).
  afterFirstPaint(showCutNames);
  addEventListener('resize', () => requestAnimationFrame(showCutNames));
  for (const e of state.linkErrors) showFieldError(e);
  // The address bar keeps a link with errors until the user edits (nothing of it is lost).
  if (!state.linkErrors.length && computed.evaluation.scenario !== fromLink) scheduleUrl();
  updateLangLinks();
  // Ready once what waited for the first paint (charts, formula buttons) is drawn too. The
  // embed view starts posting its height then, when the content has its final size.
  // The embed view's protocol (embed-frame.js) is loaded only in the embed view.
  const embedding = embedded ? import('./embed-frame.js') : null;
  afterFirstPaint(async () => {
    render();
    if (embedding) {
      const { initEmbed } = await embedding;
      initEmbed({ allowed: query.get('parent'), fullUrl: shareUrl, label: t('open_full'),
        listLabel: (name) => t('open_full_list', { name }), onCatalog: applyHostCatalog,
        onCalibration: useSuppliedCalibration,
        onLanguage: (lang) => {
          const l = lang.toLowerCase().slice(0, 2);
          if (!query.get('lang') && i18n.LANGS.includes(l) && l !== i18n.language()) switchLanguage(l, redrawWords);
        } });
    }
    document.documentElement.classList.add('ready');
  });
}

start().catch((e) => {
  console.error(e);
  const n = $('notice');
  n.textContent = `gpucalc could not start: ${e && e.message ? e.message : e}`;
  n.hidden = false;
});

// For the tests and the benchmark: the state, read-only use.
window.gpucalcPage = { state, update, render, schema: keys, t };
