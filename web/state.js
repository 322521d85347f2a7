// The page's state: one object, written by the wiring (app.js) and the catalog and form modules,
// read by the sections. Nothing here is a figure: those are in `evaluation`, as the core wrote them.

export const query = new URLSearchParams(location.search);
export const embedded = query.get('embed') === '1';

export const state = {
  evaluation: null, // the core's result for the scenario on screen
  inputs: new Map(), // key -> text of every scenario key, as the core decoded it (defaults applied)
  compare: [], // [{id, price}] as shown in the form
  offerings: [],
  models: [],
  gpus: [],
  catalogVersion: 0,
  offeringFilter: null, // Set of offering ids a vendor's list replaced the built-in ones with
  priceList: null, // {name, url}: the price list a link or an embedding host supplied; url '' when
  // it has none a link can carry
  priceListMissing: '', // the `catalog=` reference that could not be loaded (the link keeps it)
  fit: null, // the what-fits table of the scenario's offerings
  fitKey: '',
  fitWeights: null, // precision filter of the what-fits table; null follows the scenario
  sweeps: null, // null: not computed yet; false: none (training)
  traced: new Map(), // workload kind -> Set of fields with a formula
  linkErrors: [], // per-key errors of the link the page opened on (kept until the user edits)
  printing: false,
  weightsChosen: false, // the user (or the link) named the weights; else the core's default (the release's)
  calibrationSupplier: '', // the origin that supplied it (an embedding host, a calibration= link); '' for the user's own
  calibration: null, // the serving calibration document in use (calibrate.js), as the core wrote it
};

/** What the modules ask the wiring to do (set by app.js): recompute from the form, redraw. */
export const hooks = {
  update() {},
  render() {},
};

export const gpuOf = (r) => state.gpus.find((g) => g.id === r.gpu) || {};
export const offeringOf = (r) => state.offerings.find((o) => o.id === r.offering) || {};
