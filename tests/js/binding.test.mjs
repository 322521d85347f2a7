// Node tests of the WASM binding's shape and error mapping (web/gpucalc.js over web/gen/).
// Run with --disallow-code-generation-from-strings: the module must work without eval/new Function,
// as the page does under its CSP. The formulas themselves are tested in C++ (tests/*.cpp).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as gpucalc from '../../web/gpucalc.js';

const root = new URL('../../', import.meta.url);
const seed002 = JSON.parse(fs.readFileSync(new URL('tests/fixtures/seed002.json', root), 'utf8'));

test('load() with the module bytes', async () => {
  const module = await gpucalc.load({ wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm.wasm', root)) });
  assert.ok(module);
  assert.equal(gpucalc.isLoaded(), true);
  assert.equal(await gpucalc.load(), module, 'load() is idempotent');
});

test('raw module exports plain-value functions', async () => {
  const m = await gpucalc.load();
  for (const name of ['evaluate', 'fitTable', 'catalogJson', 'loadCatalog', 'resetCatalog', 'importHfConfig',
    'scenarioKeys', 'scenarioVersion']) {
    assert.equal(typeof m[name], 'function', name);
  }
  assert.equal(typeof m.evaluate('v=1', false), 'string');
  assert.equal(m.scenarioVersion(), 1);
});

test('evaluate: the default scenario is MI355X vs H200 with the seed prices', () => {
  const ev = gpucalc.evaluate('v=1');
  assert.equal(ev.schema, 'gpucalc-result/1');
  assert.match(ev.scenario, /^v=1&/);
  assert.deepEqual(ev.results.map((r) => r.offering), ['fullgpu-8x-mi355x', 'fullgpu-8x-h200']);
  for (const p of seed002.prices.filter((x) => x.offering !== 'fullgpu-1x-h200')) {
    const r = ev.results.find((x) => x.offering === p.offering);
    assert.equal(r.price_month_usd, p.price_month_usd);
    assert.equal(Math.round(r.price_gpu_hour_usd * 100) / 100, p.price_gpu_hour_usd);
  }
  assert.equal(ev.results[0].kv_bytes_per_token, seed002.kv_paragraph.kv_bytes_per_token);
  assert.ok(Array.isArray(ev.verdict));
  assert.equal(ev.results[0].trace, undefined, 'no trace unless asked');
});

test('evaluate: trace on request; canonical string round-trips', () => {
  const ev = gpucalc.evaluate('v=1&users=4&context=32768', { trace: true });
  assert.equal(typeof ev.results[0].trace, 'object');
  const trace = Object.values(ev.results[0].trace)[0];
  assert.equal(typeof trace.formula, 'string');
  assert.equal(typeof trace.inputs, 'object');
  assert.equal(gpucalc.evaluate(ev.scenario).scenario, ev.scenario);
});

test('evaluate: every traced formula and note id has its words in the page\'s en and zh dictionaries', () => {
  const dicts = ['en', 'zh'].map((l) => JSON.parse(fs.readFileSync(new URL(`web/i18n/formula/${l}.json`, root), 'utf8')));
  const scenarios = ['v=1', 'v=1&model=deepseek-r1-0528&users=64', 'v=1&model=deepseek-v3.2&compare=fullgpu-8x-h200,ref-8x-b200-neocloud',
    'v=1&model=gpt-oss-120b&capacity=marketed', 'v=1&model=qwen3-next-80b-a3b&weights=fp4', 'v=1&model=deepseek-v4-flash',
    'v=1&model=llama-3.1-405b&compare=fullgpu-1x-h200,ref-8x-mi355x-neocloud&servers=4,1',
    'v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud'];
  const missing = new Set();
  let entries = 0;
  for (const text of scenarios) {
    for (const r of gpucalc.evaluate(text, { trace: true }).results) {
      for (const [field, e] of Object.entries(r.trace)) {
        entries++;
        assert.ok(e.formula_id, `${text} ${field}: a formula id`);
        const keys = [`ff_${e.formula_id}`, ...e.note_id.split('+').filter(Boolean).map((id) => `fn_${id}`)];
        for (const k of keys) for (const [i, d] of dicts.entries()) if (!(k in d)) missing.add(`${['en', 'zh'][i]}: ${k}`);
        assert.equal(Boolean(e.note_id), Boolean(e.note), `${text} ${field}: a note id with a note`);
      }
    }
  }
  assert.ok(entries > 200, `${entries} entries`);
  assert.deepEqual([...missing], []);
});

test('evaluate: marketed basis reproduces the seed per-GB prices', () => {
  const ev = gpucalc.evaluate('v=1&capacity=marketed&reserve=0');
  for (const p of seed002.per_gb_month) {
    const r = ev.results.find((x) => x.offering === p.offering);
    assert.equal(Math.round(r.price_gb_month_usd * 100) / 100, p.price_gb_month_usd);
  }
});

test('errors become GpucalcError with code and field', () => {
  const cases = [
    ['v=1&model=<img src=x onerror=alert(1)>', 'model'],
    ['v=1&model=no-such-model', 'model'],
    ['v=1&weights=fp3', 'weights'],
    ['v=1&context=-5', 'context'],
    ['v=1&context=1e30', 'context'],
    ['v=1&compare=nope', 'compare[0]'],  // the bad id's own place in the list
    ['v=1&bogus=1', 'bogus'],
    ['v=2', 'v'],
  ];
  for (const [text, field] of cases) {
    assert.throws(() => gpucalc.evaluate(text), (e) => {
      assert.ok(e instanceof gpucalc.GpucalcError, text);
      assert.ok(e instanceof Error);
      assert.equal(typeof e.code, 'string');
      assert.notEqual(e.code, '');
      assert.equal(e.field, field, text);
      assert.ok(e.message.length > 0);
      return true;
    });
  }
  assert.throws(() => gpucalc.evaluate('v=2'), { code: 'unsupported_version' });
  assert.throws(() => gpucalc.evaluate('x'.repeat(1 << 20)), { code: 'too_large' });
  assert.throws(() => gpucalc.evaluate(42), { code: 'bad_value' });
  assert.throws(() => gpucalc.catalog('cats'), gpucalc.GpucalcError);
});

test('catalog listings are arrays of plain objects', () => {
  const gpus = gpucalc.catalog('gpus');
  const offerings = gpucalc.catalog('offerings');
  const models = gpucalc.catalog('models');
  assert.ok(gpus.some((g) => g.id === 'mi355x'));
  assert.ok(offerings.some((o) => o.id === 'fullgpu-8x-h200'));
  assert.ok(models.length >= 12);
  const mi355x = gpus.find((g) => g.id === 'mi355x');
  assert.equal(mi355x.hbm_marketed_bytes, 288e9);
  assert.equal(mi355x.peak_flops_per_s.fp4, 10100e12);
});

test('fitTable: one row per model and weight format', () => {
  const fit = gpucalc.fitTable('v=1&capacity=marketed&reserve=0');
  assert.deepEqual(fit.gpus, ['mi355x', 'h200-sxm']);
  assert.equal(fit.rows.length, gpucalc.catalog('models').length * 5);
  const row = fit.rows.find((r) => r.model === 'llama-3.1-405b' && r.weights === 'bf16');
  assert.deepEqual(row.cells.map((c) => c.gpus_needed_weights_only), [3, 6]);
});

test('loadCatalog extends the working catalog; resetCatalog restores it', () => {
  gpucalc.loadCatalog(JSON.stringify({ offerings: [{
    id: 'vendor-8x-b200', name: '8x NVIDIA B200 (vendor)', provider: 'Vendor', gpu: 'b200', gpu_count: 8,
    kind: 'server', price_usd_per_month: 30000, sources: ['test price list'],
  }] }), 'prices.json');
  const ev = gpucalc.evaluate('v=1&compare=fullgpu-8x-mi355x,vendor-8x-b200');
  assert.equal(ev.results[1].price_month_usd, 30000);
  assert.throws(() => gpucalc.loadCatalog('{', 'broken.json'), { code: 'invalid_json' });
  assert.throws(() => gpucalc.loadCatalog('{"offerings":[{"id":"x"}]}', 'bad.json'), gpucalc.GpucalcError);
  gpucalc.resetCatalog();
  assert.throws(() => gpucalc.evaluate('v=1&compare=vendor-8x-b200'), { field: 'compare[0]' });
});

test('loadCatalog: a price list (the default) carries offerings only; the user\'s own file may replace a GPU and is named', () => {
  const h200 = JSON.parse(fs.readFileSync(new URL('data/gpus.json', root), 'utf8')).gpus.find((g) => g.id === 'h200-sxm');
  const forged = JSON.stringify({ gpus: [{ ...h200, hbm_gb: 100000, memory_bandwidth_tbps: 1000 }] });
  const before = gpucalc.evaluate('v=1&compare=fullgpu-8x-h200').results[0];
  assert.throws(() => gpucalc.loadCatalog(forged, 'host.json'), { code: 'not_allowed', field: 'host.json: gpus' });
  assert.throws(() => gpucalc.loadCatalog(forged, 'host.json', { trust: 'price_list' }), { code: 'not_allowed' });
  assert.deepEqual(gpucalc.evaluate('v=1&compare=fullgpu-8x-h200').results[0], before, 'a refused list changes nothing');
  gpucalc.loadCatalog(forged, 'mine.json', { trust: 'user' });
  const mine = gpucalc.evaluate('v=1&compare=fullgpu-8x-h200').results[0];
  assert.equal(mine.rates_source, 'supplied');
  assert.equal(mine.supplied_by, 'mine.json');
  assert.notEqual(mine.offering_hbm_marketed_bytes, before.offering_hbm_marketed_bytes);
  gpucalc.resetCatalog();
  assert.equal(gpucalc.evaluate('v=1&compare=fullgpu-8x-h200').results[0].rates_source, 'measured');
  // trust 'serving_calibration' (an embedding host's): a calibration document only, named.
  assert.throws(() => gpucalc.loadCatalog(forged, 'https://vendor.example/c.json', { trust: 'serving_calibration' }),
    { code: 'not_allowed', field: 'https://vendor.example/c.json: gpus' });
  const csv = fs.readFileSync(new URL('tests/fixtures/bench-results/serving-measured.csv', root), 'utf8').split('\n');
  const rows = [csv[0], ...csv.filter((l) => l.includes(',mi300x,') && l.includes(',sglang,'))].join('\n');
  const doc = gpucalc.calibrateServing('v=1&compare=server-8x-mi300x&engine=sglang', [{ name: 'runs.csv', text: rows }], '2026-12-02');
  assert.throws(() => gpucalc.loadCatalog(doc, 'host.json'), { code: 'not_allowed', field: 'host.json: gpucalc-serving-calibration/1' });
  gpucalc.loadCatalog(doc, 'https://vendor.example/c.json', { trust: 'serving_calibration' });
  const cal = gpucalc.evaluate('v=1&model=deepseek-v3&compare=server-8x-mi300x&engine=sglang&tp=8').results[0];
  assert.equal(cal.rates_source, 'calibrated_serving');
  assert.equal(cal.supplied_by, 'https://vendor.example/c.json');
  assert.ok(cal.measured_points.some((m) => m.source === 'calibration'));
  gpucalc.resetCatalog();
});

test('importHfConfig adds a model the scenario can name', () => {
  const config = {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 14336,
    num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 128256,
    max_position_embeddings: 131072, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  };
  const model = gpucalc.importHfConfig(JSON.stringify(config), 'my-8b');
  assert.equal(model.id, 'my-8b');
  assert.ok(model.params_total > 7e9 && model.params_total < 9e9, String(model.params_total));
  assert.ok(gpucalc.catalog('models').some((m) => m.id === 'my-8b'));
  assert.equal(gpucalc.evaluate('v=1&model=my-8b').model.id, 'my-8b');
  assert.throws(() => gpucalc.importHfConfig('not json', 'x'), { code: 'invalid_json' });
  assert.throws(() => gpucalc.importHfConfig('{}', 'x'), gpucalc.GpucalcError);
  gpucalc.resetCatalog();
});

test('scenarioKeys lists every key with its default', () => {
  const keys = gpucalc.scenarioKeys();
  assert.ok(Array.isArray(keys));
  const byKey = new Map(keys.map((k) => [k.key, k]));
  for (const k of ['v', 'model', 'weights', 'kv', 'context', 'users', 'compare', 'capacity', 'reserve', 'price',
    'workload', 'input', 'output', 'tp', 'util', 'cudaonly', 'kernels', 'trtllm']) {
    assert.ok(byKey.has(k), k);
    assert.equal(typeof byKey.get(k).defaultText, 'string');
  }
  assert.equal(byKey.get('compare').defaultText, 'fullgpu-8x-mi355x,fullgpu-8x-h200');
});

test('validationJson: the precomputed validation summary (data/error-bands.json), nothing run in the page', async () => {
  const m = await gpucalc.load();
  const t0 = performance.now();
  const v = JSON.parse(m.validationJson());
  // Running the validation takes about 1.8 s natively (gpucalc --validate) and twice that in the
  // module; reading the stored summary, milliseconds. 500 ms tells them apart on a loaded machine.
  assert.ok(performance.now() - t0 < 500, 'read, not computed');
  assert.equal(v.mlperf.rows.length, 13);
  for (const r of v.mlperf.rows) {
    assert.equal(typeof r.gpu, 'string');
    assert.ok(Math.abs(r.predicted / r.measured - 1 - r.error) < 1e-4, r.id);
  }
  assert.ok(v.mlperf.median_abs_error <= v.mlperf.max_abs_error);
  assert.equal(v.serving.mape_all.group, 'all');
  const perGpu = v.serving.mape_per_gpu.reduce((n, g) => n + g.n_interactivity, 0);
  assert.equal(perGpu, v.serving.mape_all.n_interactivity);
  // Every predicted serving figure carries its band, per metric.
  const r = gpucalc.evaluate('v=1&compare=fullgpu-8x-h200&users=4').results[0];
  for (const metric of ['interactivity', 'throughput_per_gpu', 'ttft']) {
    assert.ok(r.error_band[metric].points >= 3, metric);
    assert.equal(typeof r.error_band[metric].group, 'string');
    assert.ok(r.error_band[metric].p80 >= r.error_band[metric].p50, metric);
    assert.equal(typeof r.error_band[metric].model_unmeasured, 'boolean');
  }
});

// The page's first module (gpucalc_wasm_page, wasm/CMakeLists.txt) is the whole one less three
// functions and the formula traces: every reply the page reads before it needs them is the same,
// byte for byte.
test('the page\'s first module: no loadCatalog, importHfConfig, calibrateServing or traces; every other reply as the whole module\'s', async () => {
  const instance = (name) => gpucalc.instantiate(new URL(`web/gen/${name}.mjs`, root).href,
    { wasmBinary: fs.readFileSync(new URL(`web/gen/${name}.wasm`, root)) });
  const [page, whole] = [await instance('gpucalc_wasm_page'), await instance('gpucalc_wasm')];
  for (const name of ['loadCatalog', 'importHfConfig', 'calibrateServing']) {
    assert.equal(typeof page[name], 'undefined', name);
    assert.equal(typeof whole[name], 'function', name);
  }
  const scenarios = ['v=1', 'v=1&model=deepseek-r1&users=64&interactivity=30', 'v=1&workload=lora&model=llama-3.1-8b',
    'v=1&compare=fullgpu-8x-mi355x,fullgpu-1x-h200,fullgpu-8x-h200&users=16', 'v=1&model=nope'];
  for (const s of scenarios) {
    assert.equal(page.evaluate(s, false), whole.evaluate(s, false), s);
    // A trace: the page module refuses it (a failing scenario fails first, as in the whole one).
    const traced = JSON.parse(page.evaluate(s, true));
    if (s === 'v=1&model=nope') assert.equal(page.evaluate(s, true), whole.evaluate(s, true), `${s} trace`);
    else assert.deepEqual([traced.error.code, traced.error.field], ['not_allowed', 'trace'], `${s} trace`);
    assert.equal(page.fitTable(s), whole.fitTable(s), s);
    assert.equal(page.decodeScenario(s), whole.decodeScenario(s), s);
  }
  for (const what of ['gpus', 'models', 'offerings']) assert.equal(page.catalogJson(what), whole.catalogJson(what), what);
  for (const name of ['scenarioSchema', 'resultFields', 'scenarioVersion']) assert.equal(page[name](), whole[name](), name);
  assert.equal(typeof page.validationJson, 'undefined', 'the accuracy panel\'s summary: whole module only');
  assert.deepEqual(page.evaluateFields(['v=1', 'v=1&users=8'], ['price_month_usd', 'decode_tokens_per_s_per_user']),
    whole.evaluateFields(['v=1', 'v=1&users=8'], ['price_month_usd', 'decode_tokens_per_s_per_user']));
  // gpucalc.js: the page loads the first module, and the whole one in its place when asked.
  const api = await import(`../../web/gpucalc.js?page-module`);
  await api.load({ page: true, wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm_page.wasm', root)) });
  assert.throws(() => api.loadCatalog('{}'), (e) => e instanceof api.GpucalcError && e.code === 'not_loaded');
  const evaluated = JSON.stringify(api.evaluate('v=1'));
  assert.throws(() => api.evaluate('v=1', { trace: true }), (e) => e instanceof api.GpucalcError && e.code === 'not_loaded');
  assert.ok(api.hasValidation(), 'the panel shows: the whole module carries the summary');
  assert.throws(() => api.validation(), (e) => e instanceof api.GpucalcError && e.code === 'not_loaded');
  await api.loadWhole({ wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm.wasm', root)) });
  assert.equal(JSON.stringify(api.evaluate('v=1')), evaluated);
  assert.equal(typeof api.evaluate('v=1', { trace: true }).results[0].trace, 'object', 'the whole module traces');
  assert.ok(Array.isArray(api.validation().serving.mape_per_gpu));
  api.loadCatalog(JSON.stringify({ offerings: [{ id: 'x-8x-h200', name: 'X', provider: 'X', gpu: 'h200-sxm', gpu_count: 8,
    kind: 'server', price_usd_per_month: 1000, sources: ['test'] }] }));
  assert.ok(api.catalog('offerings').some((o) => o.id === 'x-8x-h200'));
});
