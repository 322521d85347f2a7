// gpucalc's JS API: a thin, friendly layer over the WASM module (web/gen/gpucalc_wasm.mjs, or
// first the page's smaller gpucalc_wasm_page.mjs: load({page: true}), then loadWhole()).
//
//   import * as gpucalc from './gpucalc.js';
//   await gpucalc.load();
//   const evaluation = gpucalc.evaluate('v=1&model=llama-3.1-70b&weights=fp8');
//
// Everything returned is a plain object. A failed call throws GpucalcError, whose `code` is the
// core's stable error name ("unknown_id", "bad_value", ...) and `field` the offending key.

export class GpucalcError extends Error {
  /** @param {{code: string, field?: string, message: string}} error */
  constructor(error) {
    super(error.message || error.code);
    this.name = 'GpucalcError';
    this.code = error.code;
    this.field = error.field || '';
    /** Numbers the message names ({min, max, version, ...}), for a page that words it itself. */
    this.params = error.params && typeof error.params === 'object' ? error.params : {};
  }
}

let module = null;
let loading = null;
let loadingWhole = null;

// The two builds of the module (wasm/CMakeLists.txt): the whole one, and the page's first, which
// lacks loadCatalog, importHfConfig and calibrateServing (about 30 KB gzip less to fetch).
const WHOLE = './gen/gpucalc_wasm.mjs';
const PAGE = './gen/gpucalc_wasm_page.mjs';

/**
 * The module's C exports (wasm/bindings.cpp) as the methods the rest of this file calls, each
 * taking and returning strings (JSON text; evaluateFields: arrays of numbers). Text goes into the
 * module's memory as UTF-8 (malloc'd, freed after the call) and the reply is decoded from there.
 * The page's first module lacks loadCatalog, importHfConfig and calibrateServing.
 */
export function wrapModule(raw) {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const held = [];
  const alloc = (bytes) => {
    const p = raw._malloc(Math.max(1, bytes));
    held.push(p);
    return p;
  };
  /** `s` in the module's memory: [pointer, byte length]. */
  const put = (s) => {
    // Encoded straight into the module's memory (no array in between): at most 3 bytes per
    // UTF-16 unit.
    const most = 3 * s.length;
    const p = alloc(most);
    return [p, encoder.encodeInto(s, raw.HEAPU8.subarray(p, p + most)).written];
  };
  /** A list of strings: a pointer to its (pointer, length) pairs. */
  const putList = (strings) => {
    const pairs = strings.flatMap(put);
    const p = alloc(pairs.length * 4);
    raw.HEAPU32.set(pairs, p >> 2);
    return p;
  };
  /** Calls `fn` on `args()` (the arguments, written now) and frees them. */
  const call = (fn, args, read) => {
    try {
      const out = fn(...args());
      return read(out, raw._gpucalc_reply_size());
    } finally {
      for (const p of held.splice(0)) raw._free(p);
    }
  };
  const textReply = (out, size) => decoder.decode(raw.HEAPU8.subarray(out, out + size));
  /** A function of string arguments with a text reply. */
  const texts = (fn) => (...strings) => call(fn, () => strings.flatMap(put), textReply);
  const m = {
    evaluate: (scenario, trace) => call(raw._gpucalc_evaluate, () => [...put(scenario), trace ? 1 : 0], textReply),
    evaluateFields: (scenarios, fields) => call(raw._gpucalc_evaluate_fields,
      () => [putList(scenarios), scenarios.length, putList(fields), fields.length], (out, size) => {
        const v = raw.HEAPF64.subarray(out >> 3, (out >> 3) + size);
        const result = [];
        let i = 0;
        while (i < size) {
          const n = v[i++];
          if (n < 0) { result.push(null); continue; }
          const rows = [];
          for (let r = 0; r < n; r++, i += fields.length) rows.push(Array.from(v.subarray(i, i + fields.length), (x) => (Number.isNaN(x) ? null : x)));
          result.push(rows);
        }
        return result;
      }),
    fitTable: texts(raw._gpucalc_fit_table),
    catalogJson: texts(raw._gpucalc_catalog_json),
    resetCatalog: () => raw._gpucalc_reset_catalog(),
    scenarioVersion: () => raw._gpucalc_scenario_version(),
    scenarioSchema: texts(raw._gpucalc_scenario_schema),
    scenarioKeys: () => JSON.parse(m.scenarioSchema()).map((k) => ({ key: k.key, defaultText: k.default_text, description: k.description })),
    decodeScenario: texts(raw._gpucalc_decode_scenario),
    resultFields: texts(raw._gpucalc_result_fields),
  };
  // The accuracy panel's summary: the whole module only.
  if (typeof raw._gpucalc_validation_json === 'function') m.validationJson = texts(raw._gpucalc_validation_json);
  if (typeof raw._gpucalc_load_catalog === 'function') {
    m.loadCatalog = texts(raw._gpucalc_load_catalog);
    m.importHfConfig = texts(raw._gpucalc_import_hf_config);
    m.calibrateServing = (scenario, names, files, date) => call(raw._gpucalc_calibrate_serving,
      () => [...put(scenario), putList(names), putList(files), Math.min(names.length, files.length), ...put(date)], textReply);
  }
  return m;
}

/** Instantiates the module at `url` (its ES module factory; `wasmBinary`: its bytes, e.g. in
 *  Node) and returns it wrapped (wrapModule). */
export async function instantiate(url, options = {}) {
  const { default: factory } = await import(url);
  const init = {};
  if (options.wasmBinary) init.wasmBinary = options.wasmBinary;
  return wrapModule(await factory(init));
}

/**
 * Loads the WASM module once. In a browser it is fetched next to this file (gen/), so the page
 * works from any sub-path. Options: `wasmBinary` (bytes, e.g. in Node), `moduleUrl`, `page`
 * (true: the page's smaller first module; see loadWhole).
 */
export function load(options = {}) {
  if (module) return Promise.resolve(module);
  if (!loading) {
    loading = (async () => {
      const url = options.moduleUrl || new URL(options.page ? PAGE : WHOLE, import.meta.url).href;
      module = await instantiate(url, options);
      return module;
    })();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/**
 * The whole module, for a price list, a model import or a calibration: after load({page: true})
 * it is fetched once and takes the first one's place. Nothing is carried over: the first module
 * cannot change its catalog, so both hold the built-in one. Options as load()'s.
 */
export function loadWhole(options = {}) {
  if (module && typeof module.loadCatalog === 'function') return Promise.resolve(module);
  if (!loadingWhole) {
    loadingWhole = (async () => {
      await load(options);
      if (typeof module.loadCatalog !== 'function') {
        module = await instantiate(options.moduleUrl || new URL(WHOLE, import.meta.url).href, options);
      }
      return module;
    })();
    loadingWhole.catch(() => { loadingWhole = null; });
  }
  return loadingWhole;
}

export function isLoaded() { return module !== null; }

function requireModule() {
  if (!module) throw new GpucalcError({ code: 'not_loaded', message: 'Call await load() first.' });
  return module;
}

/** The whole module (loadWhole), for the functions the page's first module lacks. */
function requireWhole() {
  const m = requireModule();
  if (typeof m.loadCatalog !== 'function') throw new GpucalcError({ code: 'not_loaded', message: 'Call await loadWhole() first.' });
  return m;
}

/** Parses the module's JSON reply; {"error": {...}} becomes a GpucalcError. */
function unwrap(text) {
  const value = JSON.parse(text);
  if (value && typeof value === 'object' && value.error && typeof value.error === 'object' &&
      typeof value.error.code === 'string') {
    throw new GpucalcError(value.error);
  }
  return value;
}

function text(value, name) {
  if (typeof value !== 'string') {
    throw new GpucalcError({ code: 'bad_value', field: name, message: `${name} must be a string.` });
  }
  return value;
}

/**
 * Evaluates a scenario string (`v=1&model=...`); returns the public result object
 * ({schema, scenario, capacity_basis, model, results, verdict}); `trace` adds formulas, which
 * only the whole module writes (after load({page: true}): await loadWhole() first).
 */
export function evaluate(scenario, { trace = false } = {}) {
  const m = trace ? requireWhole() : requireModule();
  return unwrap(m.evaluate(text(scenario, 'scenario'), Boolean(trace)));
}

/**
 * For sweeps: evaluates every scenario text and returns numbers only, no JSON:
 * result[scenario][offering][field] (null where empty; a failing scenario gives null).
 */
export function evaluateFields(scenarios, fields) {
  if (!Array.isArray(scenarios) || !scenarios.every((x) => typeof x === 'string')) {
    throw new GpucalcError({ code: 'bad_value', field: 'scenarios', message: 'scenarios must be an array of strings.' });
  }
  if (!Array.isArray(fields) || !fields.every((x) => typeof x === 'string')) {
    throw new GpucalcError({ code: 'bad_value', field: 'fields', message: 'fields must be an array of strings.' });
  }
  return requireModule().evaluateFields(scenarios, fields);
}

/** The "what fits" table for the scenario's offerings ({capacity_basis, gpus, rows}). */
export function fitTable(scenario) {
  return unwrap(requireModule().fitTable(text(scenario, 'scenario')));
}

/** Catalog listing: what = "gpus" | "models" | "offerings"; returns the array. */
export function catalog(what) {
  const listing = unwrap(requireModule().catalogJson(text(what, 'what')));
  return listing[what];
}

/**
 * Extends the working catalog by a JSON document. `trust`: 'price_list' (the default: a list from
 * a link or an embedding page, offerings, prices and names only; anything else is refused) or
 * 'user' (the user's own file: it may replace GPU figures, model constants, error bands..., and
 * the results built on them name it in `supplied_by`) or 'serving_calibration' (a serving
 * calibration an embedding page supplies: that one document only, named in `supplied_by`).
 */
export function loadCatalog(jsonText, sourceName = 'catalog.json', { trust = 'price_list' } = {}) {
  const level = ['user', 'serving_calibration'].includes(trust) ? trust : 'price_list';
  unwrap(requireWhole().loadCatalog(text(jsonText, 'json'), text(sourceName, 'sourceName'), level));
}

/**
 * Fits the serving model of the scenario's offering and engine to benchmark result files
 * ([{name, text}], read in this page: nothing is uploaded); returns the calibration document as
 * JSON text (load it with loadCatalog).
 */
export function calibrateServing(scenario, files, date) {
  const m = requireWhole();
  const names = files.map((f) => text(f.name, 'name'));
  const texts = files.map((f) => text(f.text, 'text'));
  const out = m.calibrateServing(text(scenario, 'scenario'), names, texts, text(date, 'date'));
  unwrap(out);
  return out;
}

/** Restores the compiled-in default catalog. */
export function resetCatalog() { requireModule().resetCatalog(); }

/** Imports a Hugging Face config.json as model `id`; returns the model's catalog entry. */
export function importHfConfig(configJson, id) {
  const listing = unwrap(requireWhole().importHfConfig(text(configJson, 'config'), text(id, 'id')));
  return listing.models[0];
}

/** The scenario keys in schema order: [{key, defaultText, description}]. */
export function scenarioKeys() { return requireModule().scenarioKeys(); }

export function scenarioVersion() { return requireModule().scenarioVersion(); }

/** The scenario schema, one row per key in schema order: [{key, kind, min, max, min_exclusive,
 *  choices, default, default_text, description, fit_key}]; null from a module without it. */
export function scenarioSchema() {
  const m = requireModule();
  return typeof m.scenarioSchema === 'function' ? JSON.parse(m.scenarioSchema()) : null;
}

/** Lenient decode of a scenario string: {scenario, inputs, errors: [GpucalcError]}; the keys
 *  that decode are kept, each bad key is one error. null from a module without it. */
export function decodeScenario(scenario) {
  const m = requireModule();
  if (typeof m.decodeScenario !== 'function') return null;
  const value = unwrap(m.decodeScenario(text(scenario, 'scenario')));
  return { ...value, errors: (value.errors || []).map((e) => new GpucalcError(e)) };
}

/** The result-field registry: [{name, unit, scope}]; null from a module without it. */
export function resultFields() {
  const m = requireModule();
  return typeof m.resultFields === 'function' ? JSON.parse(m.resultFields()) : null;
}

/** Whether the validation summary can be read: the module carries it, or it is the page's first
 *  module, whose whole one does (await loadWhole() before validation()). */
export function hasValidation() {
  const m = requireModule();
  return typeof m.validationJson === 'function' || typeof m.loadCatalog !== 'function';
}

/** The validation summary of the working catalog (data/error-bands.json, precomputed from both
 *  tables; the key names of `gpucalc --validate --format json`): {mlperf: {rows, per_gpu,
 *  median_abs_error, max_abs_error, ...}, serving: {mape_per_gpu, mape_all}}. */
export function validation() {
  const m = requireModule();
  return unwrap((typeof m.validationJson === 'function' ? m : requireWhole()).validationJson());
}
