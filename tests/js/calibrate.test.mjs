// "Calibrate with your benchmark results" in headless Chromium: a result file dropped onto the
// page is read by the WASM core (never uploaded), the before/after error and the measured
// markers appear, and after a reload the page is still calibrated; the same under a vendor's
// embed that names a calibration document on its own origin (data-calibration). Screenshots:
// build/screenshots/.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, serve, repo, until, brokenWords, openPage as openIn, postMessageComplaints } from './browser-lib.mjs';
import * as gpucalc from '../../web/gpucalc.js';

const shots = path.join(repo, 'build', 'screenshots');
fs.mkdirSync(shots, { recursive: true });
// The MI300X / SGLang rows of the measured table, as a user's InferenceX-style CSV.
const table = fs.readFileSync(path.join(repo, 'tests/fixtures/bench-results/serving-measured.csv'), 'utf8').split('\n');
const csv = [table[0], ...table.filter((l) => l.includes(',mi300x,') && l.includes(',sglang,'))].join('\n');
const SCENARIO = 'v=1&model=deepseek-v3&compare=server-8x-mi300x,fullgpu-8x-h200&engine=sglang&tp=8&users=16';

let calc;
let host;
let hostDir;
let context;
let closeBrowser;
const requests = [];

const catalogOrigins = [];  // origins the calculator may fetch from (read per request)

before(async () => {
  calc = await serve({ catalogOrigins });
  ({ context, close: closeBrowser } = await launch());
  context.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
  // The vendor's document, made by the same core in node.
  await gpucalc.load({ wasmBinary: fs.readFileSync(path.join(repo, 'web/gen/gpucalc_wasm.wasm')) });
  const doc = gpucalc.calibrateServing('v=1&compare=server-8x-mi300x&engine=sglang', [{ name: 'runs.csv', text: csv }], '2026-12-02');
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpucalc-calib-'));
  fs.writeFileSync(path.join(hostDir, 'favicon.ico'), '');
  fs.writeFileSync(path.join(hostDir, 'calibration.json'), doc);
  const calcOrigin = new URL(calc.url).origin;
  fs.writeFileSync(path.join(hostDir, 'vendor.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor</title></head>
<body><iframe id="calc" data-gpucalc data-calibration="calibration.json" src="${calcOrigin}/?embed=1#${SCENARIO}" title="GPU calculator" width="100%" height="300"></iframe>
<script src="${calcOrigin}/embed.js" async></script></body></html>`);
  host = await serve({ root: hostDir, host: 'localhost', headers: { 'Access-Control-Allow-Origin': calcOrigin },
    csp: `default-src 'self'; script-src 'self' ${calcOrigin}; frame-src ${calcOrigin}; connect-src 'self'` });
  catalogOrigins.push(new URL(host.url).origin);
});

after(async () => {
  await closeBrowser();
  calc.server.close();
  host.server.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

const openPage = (url) => openIn(context, url);
const calibrated = (page) => page.evaluate(() => window.gpucalcPage.state.evaluation.results.map((r) => [r.rates_source, r.calibration_device]));
const calibRows = (page) => page.evaluate(() => [...document.querySelectorAll('#calib-table tbody tr')].map((tr) =>
  [...tr.children].map((c) => c.textContent.trim())));
const markers = (page, cls = '') => page.evaluate((c) => document.querySelectorAll(`#curve-chart path.measured${c}`).length, cls);

test('a dropped result file calibrates the page, shows before/after and markers, and survives a reload', async () => {
  const { page, problems } = await openPage(`${calc.url}#${SCENARIO}`);
  const before = await page.evaluate(() => window.gpucalcPage.state.evaluation.results[0].tpot_s);
  // Before: gpucalc's own measured runs of this configuration (both GPUs, SGLang, 1k/1k).
  await page.evaluate(() => document.getElementById('sec-serving').scrollIntoView());
  await until(page, () => document.querySelectorAll('#curve-chart path.measured.validation').length > 0);
  assert.equal(await markers(page, '.calibration'), 0);
  await page.evaluate(() => { document.getElementById('calibrate').open = true; document.getElementById('calibrate').scrollIntoView(); });
  const sent = requests.length;
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'mi300x-sglang.csv', { type: 'text/csv' }));
    document.getElementById('calib-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, csv);
  await until(page, () => !document.getElementById('ok-calib').hidden || !document.getElementById('err-calib').hidden, undefined, 60000);
  assert.equal(await page.locator('#err-calib').isHidden(), true, await page.locator('#err-calib').textContent());
  // Nothing is sent: the only requests are the GETs of the calculator's whole module, which the
  // page fetches (once) in place of its smaller first one when a calibration is first asked for,
  // and of the calibrate panel's code and strings (fetched when the panel is first used). The
  // browser may also fetch the page's own icon (<link rel="icon">) late, whenever it gets to it:
  // a GET of a static file on the page's origin, not the user's data.
  const whole = [`GET ${calc.url}gen/gpucalc_wasm.mjs`, `GET ${calc.url}gen/gpucalc_wasm.wasm`, `GET ${calc.url}i18n/calibrate/en.json`,
    `GET ${calc.url}favicon.png`];
  const panelCode = new RegExp(`^GET ${calc.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}calibrate-files(-[A-Z0-9]+)?\\.js$`);
  assert.deepEqual(requests.slice(sent).filter((r) => !whole.includes(r) && !panelCode.test(r)), [], 'nothing is sent while calibrating');
  const rows = await calibRows(page);
  assert.equal(rows.length, 3, 'interactivity, throughput per GPU, TTFT');
  for (const r of rows) {
    assert.match(r[1], /%$/);
    assert.match(r[2], /%$/);
    assert.ok(Number.parseFloat(r[2]) <= Number.parseFloat(r[1]), `after <= before in sample: ${r}`);
  }
  const [mi, h200] = await calibrated(page);
  assert.equal(mi[0], 'calibrated_serving');
  assert.match(mi[1], /^serving-mi300x-sglang-/);
  assert.notEqual(h200[0], 'calibrated_serving');
  assert.notEqual(await page.evaluate(() => window.gpucalcPage.state.evaluation.results[0].tpot_s), before);
  await page.evaluate(() => document.getElementById('sec-serving').scrollIntoView());
  await until(page, () => document.querySelectorAll('#curve-chart path.measured.calibration').length > 0);
  // The core's markers: the calibration's 1k/1k runs (two dates x five concurrencies) and the
  // table's, each labelled by its source.
  const fromCore = await page.evaluate(() => window.gpucalcPage.state.evaluation.results[0].measured_points.filter((m) => m.source === 'calibration').length);
  assert.equal(fromCore, 10);
  assert.equal(await markers(page, '.calibration'), fromCore, 'a marker per calibration run of this shape');
  assert.ok((await markers(page, '.validation')) > 0);
  const titles = await page.evaluate(() => [...document.querySelectorAll('#curve-chart path.measured title')].map((t) => t.textContent));
  assert.ok(titles.some((x) => /serving-mi300x-sglang-.*mi300x-sglang\.csv:\d+/.test(x)), titles.join(' | '));
  assert.ok(titles.some((x) => /validation table/.test(x)), titles.join(' | '));
  await page.locator('#sec-serving').screenshot({ path: path.join(shots, 'calibrate-after.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  // On a phone the table's headings break between words only (the table scrolls sideways).
  assert.ok((await calibRows(page)).length > 0);
  assert.deepEqual(await brokenWords(page, '#calib-table thead th'), [], 'calibration headings at 390 px');
  await page.locator('#calibrate').screenshot({ path: path.join(shots, 'calibrate-table-390.png') });
  await page.evaluate(() => document.getElementById('sec-serving').scrollIntoView());
  await until(page, () => document.querySelectorAll('#curve-chart path.measured.calibration').length > 0);
  await page.locator('#sec-serving').screenshot({ path: path.join(shots, 'calibrate-after-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
  await page.waitForSelector('html.ready', { timeout: 30000 });
  assert.equal((await calibrated(page))[0][0], 'calibrated_serving', 'still calibrated after a reload');
  assert.equal((await calibRows(page)).length, 3);
  await page.evaluate(() => document.getElementById('sec-serving').scrollIntoView());
  await until(page, () => document.querySelectorAll('#curve-chart path.measured').length > 0);
  assert.deepEqual(problems, []);
  // Removing it goes back to the model as it was.
  await page.evaluate(() => { document.getElementById('calibrate').open = true; });
  await page.click('#do-calib-clear');
  await page.waitForSelector('html.ready', { timeout: 30000 });
  assert.notEqual((await calibrated(page))[0][0], 'calibrated_serving');
  await page.close();
});

test('a bad file gives the core\'s error, naming file, line and field, as text', async () => {
  const { page } = await openPage(`${calc.url}#${SCENARIO}`);
  await page.evaluate(() => { document.getElementById('calibrate').open = true; });
  await page.fill('#in-calib-paste', '{"completed": 10, "mean_ttft_ms": "<b>fast</b>"}');
  await page.click('#do-calib');
  await until(page, () => !document.getElementById('err-calib').hidden);
  const err = await page.locator('#err-calib').textContent();
  assert.match(err, /pasted: mean_ttft_ms/);
  assert.equal(await page.locator('#err-calib b').count(), 0, 'never rendered as markup');
  await page.close();
});

// The same under the embed with a vendor calibration document: the host names it
// (data-calibration, on its own origin), the frame takes it as a serving calibration only and
// says whose runs it is calibrated to, with the error before and after.
test('the same under the embed with a vendor calibration document', async () => {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // The host's console (the frame's included): no message went to a window of another origin.
  const complaints = postMessageComplaints(page);
  await page.goto(`${host.url}vendor.html`);
  const frame = page.frameLocator('#calc');
  await frame.locator('html.ready').waitFor({ timeout: 30000 });
  const f = page.frames().find((x) => x.url().startsWith(new URL(calc.url).origin));
  await until(f, () => window.gpucalcPage.state.evaluation.results[0].rates_source === 'calibrated_serving', undefined, 30000);
  const hostOrigin = new URL(host.url).origin;
  const [mi, h200] = await f.evaluate(() => window.gpucalcPage.state.evaluation.results.map((r) =>
    ({ rates: r.rates_source, supplied: r.supplied_by, band: r.error_band, markers: r.measured_points.map((m) => m.source) })));
  assert.equal(mi.supplied, `${hostOrigin}/calibration.json`);
  // Its cross-validated error is the band of every figure built on it (metric -> band).
  const bands = Object.values(mi.band);
  assert.ok(bands.length > 0 && bands.every((b) => b.group.startsWith('calibrated serving-mi300x-sglang')), JSON.stringify(mi.band));
  assert.ok(mi.markers.includes('calibration'));
  assert.notEqual(h200.rates, 'calibrated_serving');
  assert.equal(h200.supplied, null);
  const sentence = await frame.locator('#calib-supplied-text').textContent();
  assert.ok(sentence.includes(`Calibrated to runs supplied by ${hostOrigin}`), sentence);
  const rows = await f.evaluate(() => [...document.querySelectorAll('#calib-supplied-table tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  assert.equal(rows.length, 3, 'interactivity, throughput per GPU, TTFT: before and after');
  for (const r of rows) assert.match(r[2], /%$/);
  assert.equal(await frame.locator('#calib-supplied').isVisible(), true);
  await frame.locator('#calib-supplied').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(shots, 'calibrate-embed.png') });
  assert.deepEqual(problems, []);
  assert.deepEqual(complaints, [], 'the host page\'s console');
  await page.close();
});

test('a link naming a calibration on another site (calibration=) is taken as a calibration, naming it', async () => {
  const url = `${host.url}calibration.json`;
  const { page, problems } = await openPage(`${calc.url}?calibration=${encodeURIComponent(url)}#${SCENARIO}`);
  const [mi, h200] = await page.evaluate(() => window.gpucalcPage.state.evaluation.results.map((r) => [r.rates_source, r.supplied_by]));
  assert.deepEqual(mi, ['calibrated_serving', url]);
  assert.notEqual(h200[0], 'calibrated_serving');
  assert.match(await page.locator('#calib-supplied-text').textContent(), new RegExp(`supplied by ${new URL(host.url).origin}`));
  assert.deepEqual(problems, []);
  await page.close();
});
