// What a supplied price list may change, in headless Chromium: a host's `gpucalc:catalog`
// message with GPU figures or error bands changes no figure; the user's own file that does is
// named beside the figures; a vendor's list survives the links made in its embed; the page's
// link handling (one decode of the fragment, cross-key rules, tiny prices, notices that stay).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, serve, repo, until, fullScreenshot } from './browser-lib.mjs';

const shots = path.join(repo, 'build', 'screenshots');
fs.mkdirSync(shots, { recursive: true });
const data = (name) => JSON.parse(fs.readFileSync(path.join(repo, 'data', name), 'utf8'));

/** The built-in H200 with 100,000 GB of HBM at 1,000 TB/s. */
function forgedGpus() {
  const h200 = data('gpus.json').gpus.find((g) => g.id === 'h200-sxm');
  return JSON.stringify({ gpus: [{ ...h200, hbm_gb: 100000, memory_bandwidth_tbps: 1000,
    achieved: { ...h200.achieved, hbm_tbps: { value: 1000, source: 'forged' } } }] });
}

/** gpucalc's error bands with every error set to 0 %. */
function zeroBands() {
  const zero = (v) => (Array.isArray(v) ? v.map(zero) : v && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'mape' ? 0 : zero(x)])) : v);
  return JSON.stringify(zero(data('error-bands.json')));
}

const VENDOR_PRICES = { offerings: [
  { id: 'vendor-8x-mi355x', name: 'Vendor 8x MI355X', provider: 'Vendor', gpu: 'mi355x', gpu_count: 8, kind: 'server',
    price_usd_per_month: 17000, sources: ['test'] },
  { id: 'vendor-8x-h200', name: 'Vendor 8x H200', provider: 'Vendor', gpu: 'h200-sxm', gpu_count: 8, kind: 'server',
    price_usd_per_month: 21000, sources: ['test'] }] };

let calc; // the calculator (127.0.0.1), which may fetch price lists from the vendor's origin
let host; // the vendor's site (localhost), serving its list with CORS
let hostDir;
let calcOrigin;
let context;
let browser;
let closeBrowser;
const catalogOrigins = [];

before(async () => {
  calc = await serve({ catalogOrigins });
  calcOrigin = new URL(calc.url).origin;
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpucalc-trust-'));
  fs.writeFileSync(path.join(hostDir, 'favicon.ico'), '');
  fs.writeFileSync(path.join(hostDir, 'vendor-prices.json'), JSON.stringify(VENDOR_PRICES));
  const frame = (attrs, src) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor</title></head>
<body><iframe id="calc" data-gpucalc ${attrs} src="${calcOrigin}/${src}" title="GPU calculator" width="100%" height="300"></iframe>
<script src="${calcOrigin}/embed.js" async></script></body></html>`;
  // No parent= in the frame's address: any page may frame it and talk to it.
  fs.writeFileSync(path.join(hostDir, 'plain.html'), frame('', '?embed=1&lang=en#v=1&users=4'));
  fs.writeFileSync(path.join(hostDir, 'vendor.html'), frame('data-catalog="vendor-prices.json" data-catalog-mode="replace"', '?embed=1&lang=en#v=1&users=2'));
  host = await serve({ root: hostDir, host: 'localhost', headers: { 'Access-Control-Allow-Origin': calcOrigin },
    csp: `default-src 'self'; script-src 'self' ${calcOrigin}; frame-src ${calcOrigin}; connect-src 'self'` });
  catalogOrigins.push(new URL(host.url).origin);
  ({ browser, context, close: closeBrowser } = await launch());
});

after(async () => {
  for (const stop of [closeBrowser, () => calc.server.close(), () => host.server.close(),
    () => fs.rmSync(hostDir, { recursive: true, force: true })]) await stop();
});

/** A page that records page errors and console errors (CSP violations included), and the
 *  warnings of a postMessage to a window of another origin. */
async function open(url, ctx = context) {
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  // A message to a window of another origin is logged as a warning: a problem too.
  page.on('console', (m) => { if (m.type() === 'warning' && /postMessage|target origin/i.test(m.text())) problems.push(`console: ${m.text()}`); });
  await page.goto(url);
  return { page, problems };
}

const figures = (target) => target.evaluate(() => window.gpucalcPage.state.evaluation.results.map((r) => ({
  offering: r.offering, max: r.max_throughput_tokens_per_s, decode: r.decode_tokens_per_s_per_user,
  fits: r.fits, rates: r.rates_source, supplied: r.supplied_by, bands: r.error_bands_supplied_by,
  band: JSON.stringify(r.error_band), price: r.price_month_usd })));

test('a host without parent= that posts GPU figures or error bands changes no figure; its price list is taken', async () => {
  const { page, problems } = await open(`${host.url}plain.html`);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await frame.waitForSelector('html.ready', { timeout: 30000 });
  await until(page, () => parseInt(document.getElementById('calc').style.height || '0', 10) > 300, null, 15000);
  const before = await figures(frame);
  const textBefore = await frame.locator('#keyfigs').innerText();
  assert.ok(before.some((r) => r.offering === 'fullgpu-8x-h200'));
  const post = (text, name) => page.evaluate(([t, n, origin]) => document.getElementById('calc').contentWindow
    .postMessage({ type: 'gpucalc:catalog', text: t, name: n, mode: 'add' }, origin), [text, name, calcOrigin]);
  await post(forgedGpus(), 'forged-gpus.json');
  await post(zeroBands(), 'forged-bands.json');
  await post(JSON.stringify(data('performance.json')), 'forged-constants.json');
  // The same as a serving calibration: the frame takes a calibration document only.
  const calibration = (text) => page.evaluate(([t, origin]) => document.getElementById('calc').contentWindow
    .postMessage({ type: 'gpucalc:calibration', text: t, name: 'calibration.json', url: 'https://elsewhere.example/c.json' }, origin), [text, calcOrigin]);
  await calibration(forgedGpus());
  await calibration(zeroBands());
  // They reached the frame and were refused by name (not ignored).
  await until(frame, () => /calibration supplied by .* could not be used.*gpus/.test(document.getElementById('notice').textContent));
  // Then a list of prices alone: taken, which shows the forged ones reached the frame too.
  const h200 = data('offerings.json').offerings.find((o) => o.id === 'fullgpu-8x-h200');
  await post(JSON.stringify({ offerings: [{ ...h200, price_usd_per_month: 12345 }] }), 'host-prices.json');
  await until(frame, () => window.gpucalcPage.state.evaluation.results.some((r) => r.price_month_usd === 12345));
  const after = await figures(frame);
  assert.deepEqual(after.map(({ price, ...r }) => r), before.map(({ price, ...r }) => r), 'no figure but the price changed');
  assert.ok(after.every((r) => r.rates === 'measured' && r.supplied === null && r.bands === null));
  assert.notEqual(await frame.locator('#keyfigs').innerText(), textBefore);
  assert.doesNotMatch(await frame.locator('#results').innerText(), /forged|not gpucalc's/);
  await page.close();
  assert.deepEqual(problems, []);
});

test('the user\'s own file may replace GPU figures and error bands, and the page names it beside them', async () => {
  const { page, problems } = await open(`${calc.url}?lang=en`);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  const before = await figures(page);
  const h200 = before.findIndex((r) => r.offering === 'fullgpu-8x-h200');
  assert.ok(h200 >= 0);
  await page.setInputFiles('#in-pricelist', { name: 'my-gpus.json', mimeType: 'application/json', buffer: Buffer.from(forgedGpus()) });
  await until(page, (i) => window.gpucalcPage.state.evaluation.results[i].rates_source === 'supplied', h200);
  const after = await figures(page);
  assert.equal(after[h200].supplied, 'my-gpus.json');
  assert.notEqual(after[h200].max, before[h200].max, 'the file changed the H200 figures');
  assert.equal(after[1 - h200].rates, 'measured', 'the other offering keeps gpucalc\'s figures');
  const cells = await page.locator('#perf-table tbody tr').evaluateAll((rows) => rows.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.match(cells[0][1 + h200], /figures from my-gpus\.json, not gpucalc's data/);
  assert.doesNotMatch(cells[0][2 - h200], /my-gpus/);
  // Beside the figures themselves: the key figures and the throughput table.
  const keyCards = await page.locator('#keyfigs > *').allInnerTexts();
  assert.ok(keyCards.some((c) => /my-gpus\.json/.test(c)), keyCards.join(' | '));
  assert.ok(cells.slice(1).some((row) => /my-gpus\.json/.test(row[1 + h200])));
  await page.setInputFiles('#in-pricelist', { name: 'my-bands.json', mimeType: 'application/json', buffer: Buffer.from(zeroBands()) });
  await until(page, () => window.gpucalcPage.state.evaluation.results[0].error_bands_supplied_by === 'my-bands.json');
  await until(page, () => [...document.querySelectorAll('.band')].some((b) => b.textContent.includes('my-bands.json')));
  const bands = await page.locator('.band').allTextContents();
  assert.ok(bands.length > 0 && bands.every((b) => /error bands from my-bands\.json, not gpucalc's/.test(b)), bands.join(' | '));
  await fullScreenshot(page, path.join(shots, 'trust-user-file-en-1280.png'));
  await page.close();
  assert.deepEqual(problems, []);
});

test('a vendor\'s list: "Open the full calculator" names it, links made there carry catalog=<url>, a missing list says so and keeps the ids', async () => {
  const { page, problems } = await open(`${host.url}vendor.html`);
  const frame = page.frameLocator('#calc');
  await frame.locator('#keyfigs', { hasText: '17,000' }).waitFor({ timeout: 30000 });
  assert.match(await frame.locator('a.open-full').innerText(), /vendor-prices\.json/);
  const [full] = await Promise.all([context.waitForEvent('page'), frame.locator('a.open-full').click()]);
  await full.waitForSelector('html.ready', { timeout: 30000 });
  await until(full, () => document.getElementById('keyfigs').textContent.includes('17,000'));
  assert.match(await full.locator('#notice').innerText(), /Prices from vendor-prices\.json \(localhost:\d+\)/);
  const share = await full.evaluate(() => document.getElementById('print-scenario').textContent.match(/https?:\/\/\S+/)[0]);
  const listUrl = `${host.url}vendor-prices.json`;
  assert.equal(new URL(share).searchParams.get('catalog'), listUrl, share);
  assert.match(share, /#v=1&.*compare=vendor-8x-mi355x,vendor-8x-h200/);
  await full.close();
  await page.close();
  // A colleague opens the link: the vendor's prices, fetched from the vendor's site.
  const colleague = await browser.newContext();
  const { page: shared, problems: p2 } = await open(share, colleague);
  await shared.waitForSelector('html.ready', { timeout: 30000 });
  await until(shared, () => document.getElementById('keyfigs').textContent.includes('17,000'));
  assert.match(await shared.locator('#keyfigs').innerText(), /Vendor 8x H200[\s\S]*21,000/);
  const again = await shared.evaluate(() => document.getElementById('print-scenario').textContent.match(/https?:\/\/\S+/)[0]);
  assert.equal(new URL(again).searchParams.get('catalog'), listUrl, 'its own links keep the list');
  await shared.close();
  // The list is gone: the page says so, the link's own notice follows it (not over it), the
  // vendor's ids stay visible, and the links keep the reference.
  const missing = share.replace(encodeURIComponent('vendor-prices.json'), 'gone.json').replace('vendor-prices.json', 'gone.json');
  const { page: gone } = await open(missing, colleague);
  await gone.waitForSelector('html.ready', { timeout: 30000 });
  const notice = await gone.locator('#notice').innerText();
  assert.match(notice, /price list .*gone\.json could not be loaded/);
  assert.match(notice, /vendor-8x-mi355x/);
  const kept = await gone.evaluate(() => document.getElementById('print-scenario').textContent.match(/https?:\/\/\S+/)[0]);
  assert.match(new URL(kept).searchParams.get('catalog'), /gone\.json$/);
  await gone.close();
  await colleague.close();
  assert.deepEqual(problems, []);
  assert.deepEqual(p2, []);
});

test('links: the fragment is decoded once, cross-key rules are stated, a tiny price stays a number', async () => {
  // "%26users%3D7" is part of the model's value, not a key of its own.
  const { page, problems } = await open(`${calc.url}?lang=en#v=1&model=llama-3.1-70b%26users%3D7`);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  assert.notEqual(await page.inputValue('#in-users'), '7');
  assert.match(await page.locator('#notice').innerText(), /Model/);
  await page.close();
  // ep against tp: the rule the value breaks, not the key's range (which 16 is within).
  const { page: ep } = await open(`${calc.url}?lang=en#v=1&model=deepseek-v3&tp=8&ep=16`);
  await ep.waitForSelector('html.ready', { timeout: 30000 });
  const epNotice = await ep.locator('#notice').innerText();
  assert.match(epNotice, /must divide tp \(8\)/);
  assert.doesNotMatch(epNotice, /whole number from/);
  await ep.close();
  // A tiny price (String() would write "1e-7", which the scenario grammar refuses) stays a
  // plain decimal in the form, and an edit elsewhere does not turn it into an error.
  const { page: tiny } = await open(`${calc.url}?lang=en#v=1&price=0.0000001,-`);
  await tiny.waitForSelector('html.ready', { timeout: 30000 });
  assert.doesNotMatch(await tiny.inputValue('#in-price-0'), /e/i);
  await tiny.fill('#in-users', '5');
  await until(tiny, () => location.hash.includes('users=5'));
  assert.equal(await tiny.locator('#err-price').isVisible(), false, await tiny.locator('#err-price').textContent());
  await tiny.close();
  const { page: tp } = await open(`${calc.url}?lang=zh#v=1&model=llama-3.1-70b&tp=3`);
  await tp.waitForSelector('html.ready', { timeout: 30000 });
  assert.match(await tp.locator('#notice').innerText(), /注意力头/);
  await tp.close();
  assert.deepEqual(problems, []);
});

test('names that could reorder a sentence are isolated (an RTL offering name in the verdict line)', async () => {
  const { page, problems } = await open(`${calc.url}?lang=en`);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  const name = '\u05e9\u05e8\u05ea 8x H200';
  await page.setInputFiles('#in-pricelist', { name: 'rtl.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ offerings: [
    { id: 'rtl-8x-h200', name, provider: 'Test', gpu: 'h200-sxm', gpu_count: 8, kind: 'server', price_usd_per_month: 20000, sources: ['test'] }] })) });
  await until(page, () => window.gpucalcPage.state.offerings.some((o) => o.id === 'rtl-8x-h200'));
  await page.selectOption('#in-offering-0', 'rtl-8x-h200');
  await until(page, () => window.gpucalcPage.state.evaluation.results[0].offering === 'rtl-8x-h200');
  const summary = await page.locator('#verdict-summary').textContent();
  assert.ok(summary.includes(`\u2068${name}\u2069`), JSON.stringify(summary));
  await page.close();
  assert.deepEqual(problems, []);
});
