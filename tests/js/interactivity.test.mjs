// The serving section (interactivity chart and its table, cost at
// a chosen speed, latency limits, engines, error bands, "How accurate is this?"), links that
// carry the serving keys, zh and en, and screenshots of the section at 1280 and 390 px in both
// languages (build/screenshots/). One browser, few page loads.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, serve, repo, until, openCalculator, clickSettled } from './browser-lib.mjs';
import * as gpucalc from '../../web/gpucalc.js';

const shots = path.join(repo, 'build', 'screenshots');
fs.mkdirSync(shots, { recursive: true });

// Three offerings, two vendors, a model with MLPerf limits (Llama 2 70B).
const THREE = 'compare=fullgpu-8x-mi355x,fullgpu-8x-h200,server-8x-b200';
const LLAMA = `v=1&model=llama-2-70b&${THREE}`;
// Throughput and latency figures the serving model predicts (the test's own list: the page's
// mapping to error bands must cover every one of them).
const PREDICTED = ['decode_tokens_per_s_per_user', 'ttft_median_s', 'tpot_s', 'max_throughput_tokens_per_s',
  'total_tokens_per_s_per_gpu', 'output_tokens_per_s_per_gpu', 'tokens_per_s_per_user',
  'usd_per_million_tokens', 'usd_per_million_total_tokens'];

let calc;
let context;
let closeBrowser;
let en; // {page, problems}: the English page at 1280 px, opened on LLAMA, shared by the tests
let validation; // the core's validation tables, computed here in node from the same module

before(async () => {
  calc = await serve();
  ({ context, close: closeBrowser } = await launch());
  await gpucalc.load({ wasmBinary: fs.readFileSync(path.join(repo, 'web/gen/gpucalc_wasm.wasm')) });
  validation = gpucalc.validation();
  en = await openPage(`${calc.url}#${LLAMA}`);
});

after(async () => {
  await closeBrowser();
  calc.server.close();
});

const openPage = (url, viewport) => openCalculator(context, url, viewport);

const content = (page, sel) => page.locator(sel).evaluate((el) => el.textContent.replace(/\s+/g, ' ').trim());
const num = (s) => Number(String(s).replace(/[^0-9.]/g, ''));
const results = (page) => page.evaluate(() => window.gpucalcPage.state.evaluation.results);

/** The serving table's rows: {label: [cell per offering]}, in order (labels repeat). */
async function servingRows(page) {
  return page.evaluate(() => [...document.querySelectorAll('#serving-table tbody tr')].map((tr) =>
    [...tr.children].map((c) => c.textContent.replace(/\s+/g, ' ').trim())));
}

/** Clicks a preset button by its text and waits for the recomputed result. */
async function preset(page, group, label) {
  const button = page.locator(`#${group} button`, { hasText: label }).first();
  await button.click();  // the page recomputes within the click
  assert.equal(await button.getAttribute('aria-pressed'), 'true', `${label} pressed`);
}

async function showServing(page) {
  await page.evaluate(() => document.getElementById('sec-serving').scrollIntoView());
  await until(page, () => document.querySelectorAll('#curve-chart circle.point').length > 0);
}

test('the chart draws one front per compared offering, and the table holds the same points', async () => {
  const { page } = en;
  await showServing(page);
  const rs = await results(page);
  assert.equal(rs.length, 3);
  const chart = await page.evaluate(() => [...document.querySelectorAll('#curve-chart g.series')].map((g) =>
    [...g.querySelectorAll('circle.point')].map((c) => ({ label: c.getAttribute('aria-label'), cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')) }))));
  assert.equal(chart.length, 3, 'one front per offering');
  chart.forEach((dots, i) => assert.equal(dots.length, rs[i].curve.length, `${rs[i].offering}: one point per curve entry`));
  assert.ok(chart.every((dots) => dots.length >= 3), 'each front has several points');

  await clickSettled(page, page.locator('#curve-data summary'));
  await until(page, () => document.querySelectorAll('#curve-table tbody tr').length > 0);
  const rows = await page.evaluate(() => [...document.querySelectorAll('#curve-table tbody tr')].map((tr) =>
    [...tr.children].map((c) => (c.querySelector('.val') || c).textContent.trim())));
  assert.equal(rows.length, chart.flat().length, 'as many table rows as points');
  // Every predicted figure of a row has the band of its own point (the core's error_band_index
  // into curve_error_bands), not the scenario's: TTFT and throughput per GPU checked per row.
  const bands = await page.evaluate(() => [...document.querySelectorAll('#curve-table tbody tr')].map((tr) =>
    [...tr.children].slice(2).map((c) => (c.querySelector('.band') ? c.querySelector('.band').firstChild.textContent : null))));
  const expected = rs.flatMap((r) => r.curve.map((p) => {
    const b = r.curve_error_bands[p.error_band_index];
    return [b.throughput_per_gpu, b.ttft].map((m) => `±${Math.round(m.p80 * 100)} %`);
  }));
  assert.deepEqual(bands.map((b) => [b[1], b[3]]), expected);
  // Columns: per user, per GPU, output per GPU, median TTFT (banded), mean TTFT (no band: the
  // TTFT band was measured on the median), TPOT.
  assert.ok(bands.every((b) => [0, 1, 2, 3, 5].every((i) => b[i])), 'a band beside every predicted figure of the curve table');
  assert.ok(bands.every((b) => b[4] === null), 'no band beside the mean TTFT');
  assert.ok(new Set(rs[0].curve.map((p) => p.error_band_index)).size >= 2, 'the front spans more than one users regime');
  // The label a point carries, rebuilt from its table row: config, layout, per user, per GPU, ..., TTFT.
  const fromTable = rows.map(([name, layout, user, gpu, , ttft]) => `${name}: ${layout}: ${gpu} tokens/s per GPU at ${user} tokens/s per user, median TTFT ${ttft}`);
  assert.deepEqual([...chart.flat().map((d) => d.label)].sort(), [...fromTable].sort());
  // The geometry follows the numbers: within a front, more tokens/s per user is further right,
  // more tokens/s per GPU higher up.
  chart.forEach((dots, i) => {
    const name = rs[i].offering_name;
    const pts = dots.map((d) => {
      const row = rows.find((r) => fromTable[rows.indexOf(r)] === d.label);
      return { ...d, x: num(row[2]), y: num(row[3]) };
    }).sort((a, b) => a.x - b.x);
    for (let k = 1; k < pts.length; k++) {
      if (pts[k].x > pts[k - 1].x) assert.ok(pts[k].cx > pts[k - 1].cx, `${name}: x order`);
      if (pts[k].y > pts[k - 1].y) assert.ok(pts[k].cy < pts[k - 1].cy, `${name}: y order`);
      if (pts[k].y < pts[k - 1].y) assert.ok(pts[k].cy > pts[k - 1].cy, `${name}: y order`);
    }
  });
  // The scenario's own operating point: one square per offering, where the core's figures at
  // the scenario's users put it.
  const you = await page.evaluate(() => [...document.querySelectorAll('#curve-chart g.series')].map((g) => g.querySelector('rect.you title').textContent));
  assert.equal(you.length, rs.length);
  you.forEach((title, i) => {
    const m = /^(.*): At your 1 user: ([\d,.]+) tokens\/s per GPU at ([\d,.]+) tokens\/s per user$/.exec(title);
    assert.ok(m, title);
    assert.equal(m[1], rs[i].offering_name);
    assert.ok(Math.abs(num(m[2]) / rs[i].total_tokens_per_s_per_gpu - 1) < 0.005, title);
    assert.ok(Math.abs(num(m[3]) / rs[i].decode_tokens_per_s_per_user - 1) < 0.005, title);
  });
  // Focusing a point shows its configuration.
  await page.focus('#curve-chart circle.point[tabindex="0"]');
  const readout = await content(page, '#curve-readout');
  assert.match(readout, /TP \d+.*users?: .*tokens\/s per GPU.*TTFT/);
});

test('every predicted throughput and latency figure has an error band beside it', async () => {
  const { page } = en;
  const missing = await page.evaluate((fields) => [...document.querySelectorAll('#results [data-f]')]
    .filter((el) => fields.includes(el.dataset.f) && /\d/.test(el.textContent))
    .filter((el) => !(el.parentElement.classList.contains('with-band') && el.parentElement.querySelector('.band')))
    .map((el) => `${el.closest('section').id} ${el.dataset.f}: ${el.textContent}`), PREDICTED);
  assert.deepEqual(missing, []);
  // The check above covers what is shown: these must be (the mean TTFT too, without a band).
  const shown = await page.evaluate(() => [...document.querySelectorAll('#results [data-f]')]
    .filter((el) => /\d/.test(el.textContent)).map((el) => el.dataset.f));
  for (const f of ['decode_tokens_per_s_per_user', 'ttft_median_s', 'ttft_s', 'tpot_s', 'total_tokens_per_s_per_gpu', 'max_throughput_tokens_per_s']) {
    assert.ok(shown.includes(f), `${f} is shown`);
  }
  // The TTFT band is the median's (its statistic): the mean TTFT, labelled as the mean, has none.
  const meanBands = await page.evaluate(() => [...document.querySelectorAll('#results [data-f="ttft_s"]')]
    .filter((el) => el.parentElement.querySelector('.band')).length);
  assert.equal(meanBands, 0, 'no band beside the mean TTFT');
  const labels = await page.evaluate(() => [...document.querySelectorAll('#perf-table tbody tr')]
    .filter((tr) => tr.querySelector('[data-f^="ttft"]')).map((tr) => tr.firstElementChild.textContent));
  assert.deepEqual(labels, ['Time to first token, median', 'Time to first token, mean (first wave included)']);
  // The band is the core's: ±p80 % of the result's error_band, out of sample.
  const rs = await results(page);
  const cells = await page.evaluate(() => [...document.querySelectorAll('#perf-table tbody tr')]
    .filter((tr) => tr.querySelector('[data-f="ttft_median_s"]')).map((tr) => [...tr.querySelectorAll('.band')].map((b) => b.textContent))[0]);
  const words = { model_unmeasured: 'no measured point for this model', users_beyond_measured: 'more users than any measured point',
    engine_unmeasured: 'this engine never measured on this vendor', gpu_unmeasured: 'this GPU never measured' };
  const extrapolated = (b) => {
    const what = Object.keys(words).filter((f) => b[f]).map((f) => words[f]);
    return what.length ? ` Extrapolated: ${what.join(', ')}.` : '';
  };
  assert.ok(rs.every((r) => r.error_band.ttft.statistic.startsWith('median')), 'the built-in TTFT band is the median\'s');
  assert.deepEqual(cells, rs.map((r) => `±${Math.round(r.error_band.ttft.p80 * 100)} % (80 % of ${r.error_band.ttft.points} measured serving points the model had not seen lay within this band${extrapolated(r.error_band.ttft)})`));
});

test('changing the speed per user changes the cost there and its verdict line', async () => {
  const { page } = en;
  const costRow = async () => (await servingRows(page)).find((r) => r[0] === 'US$ per million output tokens there');
  const verdictLines = () => page.evaluate(() => [...document.querySelectorAll('#verdict .speed-cost')].map((p) => p.textContent));
  await preset(page, 'interactivity-presets', '20 tokens/s');
  const slow = await costRow();
  const slowVerdict = await verdictLines();
  const rs20 = await results(page);
  await preset(page, 'interactivity-presets', '100 tokens/s');
  const fast = await costRow();
  const fastVerdict = await verdictLines();
  const rs100 = await results(page);
  // The chart follows (drawn after the figures): the operating point's line at 100.
  await until(page, () => (document.querySelector('#curve-chart .operating-label') || {}).textContent === '100 tokens/s');
  assert.match(slowVerdict[0], /^At 20 tokens\/s per user: \$/);
  assert.match(fastVerdict[0], /^At 100 tokens\/s per user: \$/);
  for (let i = 0; i < 2; i++) {  // the two priced offerings
    assert.notEqual(slow[i + 1], fast[i + 1], `offering ${i}: cost at 20 vs 100 tokens/s per user`);
    assert.ok(rs100[i].interactivity_point.usd_per_million_tokens > rs20[i].interactivity_point.usd_per_million_tokens,
      'faster per user costs more per token');
    assert.ok(slowVerdict[i].includes(slow[i + 1].replace(/ ±.*$/, '')), `verdict line ${i} names the cost in the table`);
    assert.notEqual(slowVerdict[i], fastVerdict[i]);
  }
  assert.match(slow[3], /—/, 'the unpriced B200 has no cost');
  assert.match(slowVerdict[2], /^At 20 tokens\/s per user: enter a price/);
  await preset(page, 'interactivity-presets', 'Any speed');
  assert.equal(await page.locator('#verdict .speed-cost').count(), 0);
});

test('the core\'s verdict reasons use the cost at the chosen speed (en, zh)', async () => {
  // In the core: the cost reasons compare each offering's interactivity_point, name the speed,
  // and change with it.
  const costReasons = (ev) => ev.verdict.filter((v) => /million/.test(v.code));
  const at20 = gpucalc.evaluate('v=1&interactivity=20');
  const at100 = gpucalc.evaluate('v=1&interactivity=100');
  for (const [ev, speed] of [[at20, 20], [at100, 100]]) {
    const reasons = costReasons(ev);
    assert.deepEqual(reasons.map((v) => v.code).sort(), ['cheaper_per_million_tokens_at_speed', 'cheaper_per_million_tokens_than_at_speed']);
    for (const v of reasons) {
      assert.equal(v.basis, 'interactivity');
      assert.equal(v.params.interactivity, speed);
      const mine = ev.results.find((r) => r.offering === v.offering);
      assert.equal(v.params.usd_per_million_tokens, mine.interactivity_point.usd_per_million_tokens, `${v.code} at ${speed}: the cost at the speed`);
    }
    assert.equal(ev.recommendation_basis, 'interactivity');
  }
  assert.notDeepEqual(costReasons(at20).map((v) => v.params), costReasons(at100).map((v) => v.params));
  // 140 tokens/s per user: the MI355X reaches it, the 8x H200 does not: a con, no cost comparison,
  // the one that reaches the speed recommended on its cost at it; a speed neither reaches: none.
  const at140 = gpucalc.evaluate('v=1&interactivity=140');
  assert.ok(at140.results[0].interactivity_point && !at140.results[1].interactivity_point);
  assert.deepEqual(at140.verdict.filter((v) => v.code === 'interactivity_unreachable').map((v) => [v.offering, v.kind, v.basis]),
    [['fullgpu-8x-h200', 'con', 'interactivity']]);
  assert.deepEqual(costReasons(at140), []);
  assert.equal(at140.recommended, 'fullgpu-8x-mi355x');
  assert.equal(at140.recommendation_basis, 'interactivity');
  assert.ok(!at140.verdict.some((v) => v.code === 'recommendation_missing_figure'));
  const at5000 = gpucalc.evaluate('v=1&interactivity=5000');
  assert.equal(at5000.verdict.filter((v) => v.code === 'interactivity_unreachable').length, 2);
  assert.ok(!at5000.recommended, `nothing reaches 5000 tokens/s per user: ${at5000.recommended}`);

  // On the page, both languages: the reason reads the speed and the cost shown at that speed; the
  // badge names the speed; an unreachable speed is the con's sentence, no raw code.
  for (const lang of ['en', 'zh']) {
    const dict = JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/${lang}.json`), 'utf8'));
    const lead = (key) => dict[key].split('{')[0];
    const { page, problems } = await openPage(`${calc.url}?lang=${lang}#v=1&interactivity=100`);
    const col = page.locator('#verdict .verdict-col').first();
    const pros = await col.locator('li.reason.pro').allTextContents();
    // The cost against the other offering (said once: not again against the next best).
    const reason = pros.find((x) => x.includes(lead('v_cheaper_per_million_tokens_than_at_speed')));
    assert.ok(reason, `${lang}: a cost reason at the speed among ${pros}`);
    assert.ok(reason.includes('100'), `${lang}: the reason names the speed: ${reason}`);
    const usd = (await col.locator('.speed-cost').textContent()).match(/(US)?\$[\d.,]+/)[0];
    assert.ok(reason.includes(usd), `${lang}: the reason's figure ${reason} is the cost at the speed ${usd}`);
    assert.ok((await col.locator('.badge').textContent()).includes('100'), `${lang}: the badge names the speed`);
    await page.fill('#in-interactivity', '140');
    await until(page, () => /interactivity=140/.test(window.gpucalcPage.state.evaluation.scenario));
    const h200 = page.locator('#verdict .verdict-col').nth(1);
    const cons = await h200.locator('li.reason.con').allTextContents();
    assert.ok(cons.some((x) => x.includes(lead('v_interactivity_unreachable_con')) && x.includes('140')), `${lang}: ${cons}`);
    assert.equal(await h200.locator('.speed-cost').count(), 0, `${lang}: the con says it once`);
    assert.doesNotMatch(await content(page, '#verdict'), /\b[a-z]+_[a-z_]+\b/, `${lang}: a raw code in the verdict`);
    await page.close();
    assert.deepEqual(problems, []);
  }
});

test('MLPerf Interactive limits on Llama 2 70B give a lower throughput than Offline (no limits)', async () => {
  const { page } = en;
  const best = async () => {
    const rows = await servingRows(page);
    const at = rows.findIndex((r) => /^(Best within|Highest throughput)/.test(r[0]));
    return { layout: rows[at], tput: rows[at + 1].slice(1).map(num) };
  };
  await preset(page, 'latency-presets', 'Batch: no limit');
  const offline = await best();
  assert.match(offline.layout[0], /Highest throughput \(no latency limits\)/);
  await preset(page, 'latency-presets', 'MLPerf Interactive');
  assert.match(await page.evaluate(() => location.hash || ''), /./);
  const inputs = await page.evaluate(() => Object.fromEntries(window.gpucalcPage.state.inputs));
  assert.equal(Number(inputs.ttft_max), 0.45);
  assert.equal(Number(inputs.tpot_max), 0.04);
  const interactive = await best();
  assert.match(interactive.layout[0], /Best within your latency limits/);
  interactive.tput.forEach((x, i) => assert.ok(x > 0 && x < offline.tput[i], `offering ${i}: ${x} < ${offline.tput[i]} tokens/s per GPU`));
  // Limits nothing meets: said plainly.
  await page.fill('#in-ttft_max', '0.001');
  await until(page, () => /ttft_max=0.001/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.match(await content(page, '#serving-table'), /Cannot meet these limits/);
  await preset(page, 'latency-presets', 'Batch: no limit');
});

test('"How accurate is this?" lists the core\'s validation tables per GPU', async () => {
  const { page } = en;
  await clickSettled(page, page.locator('#accuracy summary'));
  await until(page, () => document.querySelectorAll('#accuracy-mlperf tbody tr').length > 0, null, 15000);
  const perGpu = await page.evaluate(() => [...document.querySelectorAll('#accuracy-table tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
  const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
  const pct = (x, n) => (n > 0 ? `${one.format(x * 100)} % (${n})` : '—');
  const names = Object.fromEntries(gpucalc.catalog('gpus').map((g) => [g.id, g.name]));
  // One row per GPU of either table (the core's per-GPU errors), then all GPUs.
  const gpus = [...new Set([...validation.serving.mape_per_gpu.map((m) => m.group), ...validation.mlperf.per_gpu.map((m) => m.gpu)])];
  assert.equal(perGpu.length, gpus.length + 1);
  assert.ok(validation.mlperf.per_gpu.length > 0 && validation.serving.mape_per_gpu.length > 0);
  gpus.forEach((g, i) => {
    const m = validation.mlperf.per_gpu.find((x) => x.gpu === g);
    const s = validation.serving.mape_per_gpu.find((x) => x.group === g);
    assert.equal(perGpu[i][0], names[g], g);
    assert.equal(perGpu[i][1], m ? pct(m.mape, m.points) : '—', `${g} MLPerf`);
    assert.deepEqual(perGpu[i].slice(2), s ? [pct(s.interactivity, s.n_interactivity), pct(s.throughput_per_gpu, s.n_throughput_per_gpu), pct(s.mean_ttft, s.n_mean_ttft)] : ['—', '—', '—'], `${g} serving`);
  });
  const all = validation.serving.mape_all;
  assert.deepEqual(perGpu.at(-1), ['All GPUs', '—', pct(all.interactivity, all.n_interactivity), pct(all.throughput_per_gpu, all.n_throughput_per_gpu), pct(all.mean_ttft, all.n_mean_ttft)]);
  const mlperf = await page.evaluate(() => [...document.querySelectorAll('#accuracy-mlperf tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(mlperf.length, validation.mlperf.rows.length);
  validation.mlperf.rows.forEach((r, i) => assert.equal(mlperf[i][4], `${r.error > 0 ? '+' : ''}${one.format(r.error * 100)} %`, r.id));
  assert.match(await content(page, '#accuracy-note'), new RegExp(`median error ${one.format(validation.mlperf.median_abs_error * 100)} %`));
});

test('screenshots of the serving section, English at 1280 and 390 px', async () => {
  const { page, problems } = en;
  await showServing(page);
  await page.screenshot({ path: path.join(shots, 'serving-en-1280.png'), fullPage: false, clip: await clip(page) });
  await page.setViewportSize({ width: 390, height: 844 });
  await until(page, () => {
    const svg = document.querySelector('#curve-chart svg');
    return svg && Number(svg.getAttribute('width')) < 400;
  });
  await page.screenshot({ path: path.join(shots, 'serving-en-390.png'), clip: await clip(page) });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no sideways scrolling at 390 px (${overflow} px)`);
  assert.deepEqual(problems, []);
});

/** The serving section's box, the page grown to hold it (sections use content-visibility). */
async function clip(page) {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const vp = page.viewportSize();
  await page.setViewportSize({ width: vp.width, height });
  await page.waitForTimeout(150);
  const box = await page.locator('#sec-serving').boundingBox();
  return { x: 0, y: box.y, width: vp.width, height: box.height };
}

test('Chinese: the serving section and the accuracy panel in zh, screenshots at 1280 and 390 px', async () => {
  const { page, problems } = await openPage(`${calc.url}?lang=zh#${LLAMA}&interactivity=50`);
  await showServing(page);
  const dict = JSON.parse(fs.readFileSync(path.join(repo, 'web/i18n/zh.json'), 'utf8'));
  assert.equal(await page.locator('#serving-sec-h').innerText(), dict.serving_sec_h);
  assert.equal(await page.locator('#accuracy summary').innerText(), dict.accuracy_h);
  const zh = await content(page, '#sec-serving');
  assert.match(zh, /[\u4e00-\u9fff]/);
  assert.doesNotMatch(zh, /Engine behind|Best within|Highest throughput|tokens\/s per GPU/, 'no English left in the section');
  assert.match(await content(page, '#verdict'), /在每用户 50 token\/秒时/);
  assert.ok(await page.locator('#serving-table .band').count() > 0);
  await clickSettled(page, page.locator('#accuracy summary'));
  await until(page, () => document.querySelectorAll('#accuracy-table tbody tr').length > 0, null, 15000);
  assert.match(await content(page, '#accuracy-table'), /全部 GPU/);
  await page.screenshot({ path: path.join(shots, 'serving-zh-1280.png'), clip: await clip(page) });
  await page.setViewportSize({ width: 390, height: 844 });
  await until(page, () => {
    const svg = document.querySelector('#curve-chart svg');
    return svg && Number(svg.getAttribute('width')) < 400;
  });
  await page.screenshot({ path: path.join(shots, 'serving-zh-390.png'), clip: await clip(page) });
  await page.close();
  assert.deepEqual(problems, []);
});

test('the engine shown follows `engine`: vLLM, SGLang, TensorRT-LLM on NVIDIA, ATOM on AMD', async () => {
  const { page } = en;
  const engineRow = async () => (await servingRows(page)).find((r) => r[0] === 'Engine behind the figures').slice(1);
  await page.click('#advanced > summary');  // the engine sits in the advanced section
  await page.selectOption('#in-engine', 'vllm');
  await until(page, () => /engine=vllm/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.ok((await engineRow()).every((c) => /^vLLM /.test(c)), (await engineRow()).join(' | '));
  await page.selectOption('#in-engine', 'sglang');
  await until(page, () => /engine=sglang/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.ok((await engineRow()).every((c) => /^SGLang /.test(c)), (await engineRow()).join(' | '));
  // TensorRT-LLM with an AMD offering compared: the error stands next to the engine field.
  await page.selectOption('#in-engine', 'trtllm');
  await until(page, () => !document.getElementById('err-engine').hidden);
  assert.match(await page.locator('#err-engine').innerText(), /./);
  await page.selectOption('#in-engine', 'auto');
  await until(page, () => document.getElementById('err-engine').hidden);
  // Per vendor: each alone.
  for (const [offering, engine, name] of [['fullgpu-8x-h200', 'trtllm', /^TensorRT-LLM /], ['fullgpu-8x-mi355x', 'atom', /^ATOM /]]) {
    const { page: p, problems } = await openPage(`${calc.url}#v=1&compare=${offering}&engine=${engine}`);
    const row = (await servingRows(p)).find((r) => r[0] === 'Engine behind the figures');
    assert.match(row[1], name);
    const r = (await results(p))[0];
    assert.equal(r.engine, engine);
    assert.ok(row[1].endsWith(r.engine_version), 'the engine version beside it');
    await p.close();
    assert.deepEqual(problems, []);
  }
});

test('links carry every serving key and the request shape, and round-trip', async () => {
  const keys = { model: 'deepseek-v3', ttft_max: '2', tpot_max: '0.2', interactivity: '33', engine: 'sglang', mtp: '2', ep: '8', dpa: '1',
    input: '8192', output: '1024', context: '131072' };
  const link = `v=1&${Object.entries(keys).map(([k, v]) => `${k}=${v}`).join('&')}`;
  const { page, problems } = await openPage(`${calc.url}#${link}`);
  const inputs = () => page.evaluate(() => Object.fromEntries(window.gpucalcPage.state.inputs));
  const opened = await inputs();
  for (const [k, v] of Object.entries(keys)) assert.equal(opened[k], v, k);
  for (const k of ['ttft_max', 'tpot_max', 'interactivity', 'engine', 'mtp', 'input', 'output', 'context']) {
    assert.equal(await page.inputValue(`#in-${k}`), keys[k], `control of ${k}`);
  }
  assert.equal(await page.getAttribute('#workload-presets button:nth-child(3)', 'aria-pressed'), 'true', 'summarisation 8K/1K preset marked');
  // An edit elsewhere keeps them all, in the address bar too.
  await page.fill('#in-users', '4');
  await until(page, () => location.hash.includes('users=4'));
  const hash = await page.evaluate(() => decodeURIComponent(location.hash));
  const defaults = Object.fromEntries(gpucalc.scenarioSchema().map((k) => [k.key, k.default_text]));
  for (const [k, v] of Object.entries(keys)) {
    // The canonical scenario leaves out a key at its default (output=1024 here).
    if (v !== defaults[k]) assert.match(hash, new RegExp(`[#&]${k}=${v.replace('.', '\\.')}(&|$)`), k);
  }
  assert.ok(Object.entries(keys).filter(([k, v]) => v !== defaults[k]).length >= 9, 'the link sets nine keys off their defaults');
  const edited = await inputs();
  const share = await page.evaluate(() => document.getElementById('print-scenario').textContent.match(/https?:\S+/)[0]);
  await page.close();
  const again = await openPage(share);
  assert.deepEqual(await again.page.evaluate(() => Object.fromEntries(window.gpucalcPage.state.inputs)), edited);
  await again.page.close();
  assert.deepEqual([...problems, ...again.problems], []);
});

test('the serving section\'s text is in the page once the first result is painted', async () => {
  const page = await context.newPage();
  await page.goto(`${calc.url}#v=1&interactivity=50`);
  await until(page, () => performance.getEntriesByName('gpucalc:first-result-painted').length > 0, null, 30000);
  const body = await page.evaluate(() => document.body.innerText);
  const rs = await results(page);
  assert.ok(body.includes('Engine behind the figures'));
  assert.ok(body.includes('At 50 tokens/s per user'));
  for (const r of rs) {
    const tput = Math.round(r.max_throughput_point.total_tokens_per_s_per_gpu).toLocaleString('en-US');
    assert.ok(body.includes(tput), `${r.offering}: ${tput} tokens/s per GPU at the best point`);
  }
  await page.close();
});

test('no console errors on the shared page', () => {
  assert.deepEqual(en.problems, []);
});

test('the sweeps behind the charts skip the curve search and give the same figures at the scenario\'s users', () => {
  const texts = ['v=1&users=4', 'v=1&model=llama-2-70b&context=32768&users=64'];
  const swept = gpucalc.evaluateFields(texts, ['decode_tokens_per_s_per_user', 'full_contexts', 'max_throughput_tokens_per_s']);
  texts.forEach((text, i) => {
    const full = gpucalc.evaluate(text).results;
    assert.equal(swept[i].length, full.length);
    full.forEach((r, k) => {
      assert.equal(swept[i][k][0], r.decode_tokens_per_s_per_user, `${text} ${r.offering} decode speed`);
      assert.equal(swept[i][k][1], r.full_contexts, `${text} ${r.offering} full contexts`);
      assert.ok(r.max_throughput_tokens_per_s > 0, 'the page\'s evaluation searches the curve');
      assert.equal(swept[i][k][2], null, 'the sweep does not');
    });
  });
});
