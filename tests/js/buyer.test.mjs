// What a buyer and an embedding vendor see, in both languages, at
// 1280 and 390 px. One browser; pages are reused where a state follows from the previous one.
// Screenshots of each state go to build/screenshots/buyer-*.png (look at them).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, serve, repo, fullScreenshot, until, axeViolations, postMessageComplaints } from './browser-lib.mjs';

const shots = path.join(repo, 'build', 'screenshots');
fs.mkdirSync(shots, { recursive: true });
const dict = Object.fromEntries(['en', 'zh'].map((l) => [l, JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/${l}.json`), 'utf8'))]));
const LANGS = ['en', 'zh'];
const WIDTHS = [1280, 390];
const HEIGHT = { 1280: 900, 390: 844 };

let calc; // the calculator, 127.0.0.1
let host; // a vendor's page on another origin (localhost), serving its own price list
let hostDir;
let browser;
let context;
let closeBrowser;

before(async () => {
  calc = await serve();
  const calcOrigin = new URL(calc.url).origin;
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpucalc-buyer-'));
  fs.writeFileSync(path.join(hostDir, 'favicon.ico'), '');
  fs.writeFileSync(path.join(hostDir, 'vendor-prices.json'), JSON.stringify({ offerings: [
    { id: 'vendor-8x-mi355x', name: 'Vendor 8x MI355X', provider: 'Vendor', gpu: 'mi355x', gpu_count: 8, kind: 'server',
      price_usd_per_month: 17000, availability: 'in stock', availability_zh: '现货', zh_source: 'the vendor', sources: ['test'] },
    { id: 'vendor-8x-h200', name: 'Vendor 8x H200', provider: 'Vendor', gpu: 'h200-sxm', gpu_count: 8, kind: 'server',
      price_usd_per_month: 21000, sources: ['test'] }] }));
  for (const lang of LANGS) {
    // The host page's language, no lang= on the frame: the frame follows the host (EMBED.md).
    fs.writeFileSync(path.join(hostDir, `vendor-${lang}.html`), `<!doctype html><html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>Vendor</title></head>
<body><iframe id="calc" data-gpucalc data-catalog="vendor-prices.json" data-catalog-mode="replace" src="${calcOrigin}/?embed=1#v=1&users=2" title="GPU calculator" width="100%" height="300"></iframe>
<script src="${calcOrigin}/embed.js" async></script></body></html>`);
  }
  host = await serve({ root: hostDir, host: 'localhost', csp: `default-src 'self'; script-src 'self' ${calcOrigin}; frame-src ${calcOrigin}; connect-src 'self'` });
  ({ browser, context, close: closeBrowser } = await launch());
});

after(async () => {
  await closeBrowser();
  calc.server.close();
  host.server.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

/** A page of the calculator that records console errors, page errors and CSP violations. */
async function openPage(url, { width = 1280, ctx = context } = {}) {
  const page = await ctx.newPage();
  await page.setViewportSize({ width, height: HEIGHT[width] });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  return { page, problems };
}

const evaluation = (page) => page.evaluate(() => window.gpucalcPage.state.evaluation);
const innerText = (page, sel) => page.locator(sel).innerText();
const shot = (page, name) => page.screenshot({ path: path.join(shots, `buyer-${name}.png`) });


// Latin words allowed on the Chinese page: units, number formats, model, GPU, product and
// company names, engines and standard abbreviations. Anything else is English text (or a code).
const ALLOWED = new Set(`
US$ GPU GPUs HBM HBM3 HBM3e HBM3E GB MB TB KB GiB MiB TB/s GB/s TFLOPS PF W kW kWh J h s ms K M
token tokens/s token/s TTFT TPOT KV TP PP EP DP DPA MTP MoE FP4 FP6 FP8 BF16 FP16 FP64 TF32 INT4 MXFP4 NVFP4 E4M3 E4M3FNUZ
AMD Instinct MI300X MI325X MI350X MI355X NVIDIA HGX H100 H200 B200 SXM SXM5 OAM CDNA Hopper Blackwell
NVLink Infinity Fabric xGMI ROCm CUDA RCCL NCCL vLLM SGLang TensorRT-LLM TensorRT LLM ATOM AITER TRT
Llama Meta DeepSeek V3 R1 V3.2 Qwen Qwen2.5 Qwen3 Mixtral gpt-oss GLM Kimi Scout Maverick Gemma Mistral
B A22B A3B x7B x22B
EPYC Xeon DDR5 NVMe RoCE ConnectX-7 vCPU Gbps G
FullGPU MLPerf InferenceX SemiAnalysis Hugging Face JSON CSV config.json URL SVG PDF
seed gpucalc English x i CPU LoRA QLoRA PyTorch MLPerf Server Interactive
`.trim().split(/\s+/));

/** Latin words of the page's visible text (and its option labels) outside the allow-list. */
async function englishWords(page) {
  const text = await page.evaluate(() => {
    const parts = [document.body.innerText];
    for (const o of document.querySelectorAll('select option')) parts.push(o.textContent);
    for (const el of document.querySelectorAll('[aria-label]')) parts.push(el.getAttribute('aria-label'));
    return parts.join('\n').replace(/US\$/g, ' ');
  });
  const words = new Map();
  // A word starts after a space or punctuation (not inside 9575F or 3-year), and stops at a slash.
  for (const m of text.matchAll(/(?<![A-Za-z0-9.-])[A-Za-z](?:[A-Za-z0-9.+-]*[A-Za-z0-9+])?/g)) {
    const w = m[0];
    if (ALLOWED.has(w) || /^\d/.test(w)) continue;
    // Model and offering ids are names too (llama-3.1-70b); so are numbers with a unit or x.
    if (/^(\d+x|x\d+|[A-Z]\d+[A-Za-z]*|v\d+|\d+[A-Za-z]+)$/.test(w)) continue;
    // A parallel layout is written the same in both languages (TP8, EP8: tensor and expert parallel).
    if (/^(TP|EP|PP|DP)\d+$/.test(w)) continue;
    if (!words.has(w)) words.set(w, text.slice(Math.max(0, m.index - 40), m.index + w.length + 40).replace(/\s+/g, ' '));
  }
  if (process.env.BUYER_DEBUG) for (const [w, c] of words) console.log(`[${w}] ${c}`);
  return [...words.keys()];
}

// The names of models and GPUs: names, not prose (offering names carry words and have name_zh).
async function catalogNames(page) {
  return page.evaluate(() => {
    const s = window.gpucalcPage.state;
    return [...s.models, ...s.gpus].map((o) => o.name).filter(Boolean);
  });
}

async function zhEnglish(page) {
  const names = new Set((await catalogNames(page)).flatMap((n) => n.split(/[\s·,()]+/)));
  return (await englishWords(page)).filter((w) => !names.has(w));
}

test('captions name the request shape or the context; one layout per card; 128K requests slow decode (en, zh, 1280, 390)', async () => {
  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      const { page, problems } = await openPage(`${calc.url}?lang=${lang}#v=1&users=32`, { width });
      const d = dict[lang];
      const ev = await evaluation(page);
      // The figures of the request shape say it; the memory view says the context it holds.
      assert.match(await innerText(page, '#perf-note'), /1,024[\s\S]*1,024/, `${lang} ${width}: perf note`);
      const cardPoint = await page.locator('#keyfigs .card-point').allInnerTexts();
      assert.equal(cardPoint.length, ev.results.length);
      for (const c of cardPoint) assert.match(c, /32[\s\S]*1,024[\s\S]*1,024/, `${lang} ${width}: card caption ${c}`);
      if (lang === 'en') {
        assert.match(await innerText(page, '#perf-note'), /1,024 input and 1,024 output/);
        assert.match(await innerText(page, '#keyfigs'), /32 concurrent users with requests of 1,024 in \/ 1,024 out/);
      }
      const context = Number(await page.evaluate(() => window.gpucalcPage.state.inputs.get('context')));
      const contextText = context % 1024 === 0 ? `${(context / 1024).toLocaleString('en-US')}K` : context.toLocaleString('en-US');
      assert.ok((await innerText(page, '#memory-note')).includes(contextText), `${lang} ${width}: the memory note names the context ${contextText}`);
      // One deployment per card: the operating point's figures in its list, under its layout;
      // the cost per token, from the maximum-throughput point, in its own block with its layout.
      const cards = await page.locator('#keyfigs article.keyfig').evaluateAll((els) => els.map((el) => ({
        main: [...el.querySelectorAll(':scope > dl [data-f]')].map((b) => b.dataset.f),
        mainText: el.querySelector(':scope > dl').innerText,
        max: el.querySelector('.card-max') ? { label: el.querySelector('.card-max > p').innerText,
          fields: [...el.querySelectorAll('.card-max [data-f]')].map((b) => b.dataset.f) } : null })));
      ev.results.forEach((r, i) => {
        const card = cards[i];
        assert.ok(card.mainText.includes(`TP ${r.tensor_parallel} × PP ${r.pipeline_parallel}`), `${lang} ${width} card ${i}: ${card.mainText}`);
        for (const f of card.main) assert.ok(!/usd_per_million|max_throughput/.test(f), `${lang} ${width} card ${i}: ${f} beside the operating point`);
        assert.ok(card.max, `card ${i}: the cost per token has its own block`);
        assert.deepEqual(card.max.fields.filter((f) => /usd_per_million/.test(f)).sort(), ['usd_per_million_tokens', 'usd_per_million_total_tokens'].filter((f) => r[f] !== null).sort());
        const p = r.max_throughput_point;
        if (p) {
          assert.ok(card.max.label.includes(`TP ${p.tp}`), `${lang} ${width} card ${i}: ${card.max.label}`);
          assert.ok(card.max.label.includes(p.users.toLocaleString('en-US')), `${lang} ${width} card ${i}: ${card.max.label}`);
          // The cost is the maximum-throughput point's, not the operating point's.
          assert.ok(Math.abs(p.usd_per_million_tokens - r.usd_per_million_tokens) <= 1e-9 * r.usd_per_million_tokens);
        }
      });
      if (width === 390) {
        // Phone first: the verdict is on the first screen.
        const box = await page.locator('#verdict-summary').boundingBox();
        assert.ok(box && box.y >= 0 && box.y + box.height <= HEIGHT[width], `${lang}: verdict at ${box && box.y}px`);
        assert.ok((await innerText(page, '#verdict-summary')).length > 10);
        await shot(page, `first-screen-${lang}-390`);
        // A skip link past each table of figures; the fragment keeps the scenario.
        assert.equal(await page.locator('a.skip-table').count(), 6);
        await page.locator('#sec-price a.skip-table').focus();
        await page.keyboard.press('Enter');
        await until(page, () => document.activeElement && document.activeElement.id === 'sec-specs');
        await until(page, () => /#v=1&/.test(location.href));
        await page.evaluate(() => window.scrollTo(0, 0));
      }
      if (width === 1280) {
        // TPOT at 32 users with 128K requests (the long-context preset) is more than twice TPOT at 1K.
        const short = ev.results.map((r) => r.tpot_s);
        await page.click('#workload-presets button:nth-child(4)');
        await until(page, () => location.hash.includes('input=130048'));
        const long = (await evaluation(page)).results.map((r) => r.tpot_s);
        long.forEach((t, i) => assert.ok(t > 2 * short[i], `${lang} offering ${i}: TPOT ${t} s at 128K vs ${short[i]} s at 1K`));
        assert.match(await innerText(page, '#perf-note'), /130,048/);
        for (const c of await page.locator('#keyfigs .card-point').allInnerTexts()) assert.match(c, /130,048/);
        assert.ok((await innerText(page, '#batch-caption')).length > 5);
        // The context chart's axis and the users chart's axis say which length they use.
        await page.locator('#sec-perf').scrollIntoViewIfNeeded();
        await until(page, () => document.querySelectorAll('#batch-chart svg, #context-chart svg').length === 2, null, 15000);
        const axes = await page.locator('#sec-perf svg.chart').evaluateAll((svgs) => svgs.map((s) => s.textContent));
        assert.ok(axes.some((a) => a.includes('130,048')), 'the users chart names the request shape');
        assert.ok(axes.some((a) => a.includes(d.context_axis)), 'the context chart names the context');
        await page.evaluate(() => window.scrollTo(0, 0));
      }
      await fullScreenshot(page, path.join(shots, `buyer-default-${lang}-${width}.png`));
      await page.close();
      assert.deepEqual(problems, []);
    }
  }
});

test('no verdict pro for an offering that does not fit; no recommendation by a missing figure; every verdict item names its basis', async () => {
  for (const lang of LANGS) {
    const { page, problems } = await openPage(`${calc.url}?lang=${lang}#v=1&model=deepseek-v3&weights=bf16&compare=fullgpu-8x-mi355x,fullgpu-1x-h200&users=8`);
    const ev = await evaluation(page);
    const small = ev.results[1];
    assert.equal(small.fits, false, 'DeepSeek-V3 BF16 does not fit one H200');
    for (const v of ev.verdict) assert.ok(typeof v.basis === 'string' && v.basis.length > 0, `${v.code} names its basis`);
    assert.deepEqual(ev.verdict.filter((v) => v.offering === small.offering && v.kind === 'pro').map((v) => v.code), []);
    assert.ok(ev.verdict.some((v) => v.offering === small.offering && v.code === 'does_not_fit' && v.kind === 'con'));
    assert.notEqual(ev.recommended, small.offering);
    const cols = page.locator('#verdict .verdict-col');
    assert.equal(await cols.nth(1).locator('li.reason.pro').count(), 0, `${lang}: no pro on the page`);
    const con = await cols.nth(1).locator('li.reason.con').allInnerTexts();
    assert.ok(con.some((c) => c.includes('1')), `${lang}: does not fit, with the GPUs it has: ${con}`);
    // Its card shows no negative size (the KV shortfall is said in words) and no cost-per-token block.
    const smallCard = page.locator('#keyfigs article.keyfig').nth(1);
    assert.doesNotMatch(await smallCard.innerText(), /(^|\s)[-−]\d/, `${lang}: a negative figure on the card`);
    assert.ok((await smallCard.innerText()).includes(dict[lang].bytes_short.split('{')[0].trim()));
    assert.equal(await smallCard.locator('.card-max').count(), 0);
    await shot(page, `no-fit-${lang}-1280`);
    if (lang === 'zh') {
      assert.doesNotMatch(await page.evaluate(() => document.getElementById('results').innerText), /\b[a-z]+_[a-z_]+\b/, 'a snake_case code in the zh results');
      assert.deepEqual(await zhEnglish(page), [], 'zh page, an offering that does not fit');
    }
    await page.close();
    // An unpriced, faster B200: no recommendation by cost per token; the page says what is missing.
    const { page: p2, problems: pr2 } = await openPage(`${calc.url}?lang=${lang}#v=1&compare=fullgpu-8x-h200,server-8x-b200`);
    const ev2 = await evaluation(p2);
    assert.equal(ev2.results[1].usd_per_million_tokens, null);
    assert.notEqual(ev2.recommendation_basis, 'usd_per_million_tokens');
    assert.ok(ev2.verdict.some((v) => v.code === 'recommendation_missing_figure'), 'the missing figure is said');
    assert.ok(!ev2.verdict.some((v) => /cheaper_per_million_tokens/.test(v.code)), 'no cost-per-token comparison against an unpriced offering');
    const missing = dict[lang].v_recommendation_missing_figure_note;
    assert.ok((await innerText(p2, '#verdict')).includes(missing.slice(0, 8)), `${lang}: ${missing}`);
    await p2.close();
    assert.deepEqual([...problems, ...pr2], []);
  }
});

test('links keep what they can: one bad key names itself (en, zh); v=9 keeps the known keys', async () => {
  for (const lang of LANGS) {
    const d = dict[lang];
    const frag = 'v=1&users=abc&context=4096&weights=bf16';
    const { page, problems } = await openPage(`${calc.url}?lang=${lang}#${frag}`);
    assert.equal(await page.inputValue('#in-context'), '4096');
    assert.equal(await page.inputValue('#in-weights'), 'bf16');
    const label = d.key_users || d.users;
    const notice = await innerText(page, '#notice');
    assert.ok(notice.includes(label), `${lang}: the notice names the key: ${notice}`);
    assert.ok((await innerText(page, '#err-users')).includes(label));
    assert.ok((await innerText(page, '#err-users')).includes('abc'));
    assert.equal(await page.getAttribute('#in-users', 'aria-invalid'), 'true');
    await page.waitForTimeout(400);
    assert.equal(new URL(page.url()).hash, `#${frag}`, 'the address is left alone until an edit');
    if (lang === 'zh') assert.deepEqual((await zhEnglish(page)).filter((w) => w !== 'abc'), [], 'zh: a bad link');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHT[width] });
      await shot(page, `bad-link-${lang}-${width}`);
    }
    await page.close();
    const { page: v9, problems: p9 } = await openPage(`${calc.url}?lang=${lang}#v=9&model=llama-3.1-8b&users=4&weights=bf16&newkey=1`);
    assert.equal(await v9.inputValue('#in-model'), 'llama-3.1-8b');
    assert.equal(await v9.inputValue('#in-users'), '4');
    assert.equal(await v9.inputValue('#in-weights'), 'bf16');
    const futureLead = d.notice_future_link.split('{')[0].slice(0, 10);
    assert.ok((await innerText(v9, '#notice')).includes(futureLead), `${lang}: says a newer version made it`);
    if (lang === 'zh') assert.deepEqual((await zhEnglish(v9)).filter((w) => w !== 'newkey'), [], 'zh: a newer link');
    await shot(v9, `v9-${lang}-1280`);
    await v9.close();
    assert.deepEqual([...problems, ...p9], []);
  }
});

test('a vendor price list served from another origin shows in the embed (en, zh) and survives "Open the full calculator"', async () => {
  for (const lang of LANGS) {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // The host's console (the frame's included): no message went to a window of another origin.
    const complaints = postMessageComplaints(page);
    await page.goto(`${host.url}vendor-${lang}.html`);
    const frame = page.frameLocator('#calc');
    await frame.locator('html.ready').waitFor({ timeout: 30000 });
    await frame.locator('#keyfigs', { hasText: '17,000' }).waitFor({ timeout: 10000 });
    await frame.locator(`html[lang^="${lang}"]`).waitFor({ timeout: 5000 });
    const keyfigs = await frame.locator('#keyfigs').innerText();
    assert.match(keyfigs, /Vendor 8x MI355X[\s\S]*17,000/);
    assert.match(keyfigs, /Vendor 8x H200[\s\S]*21,000/);
    assert.doesNotMatch(keyfigs, /FullGPU|8x AMD Instinct MI355X/, 'replace mode: the built-in offers are gone');
    const options = await frame.locator('#in-offering-0 option').allTextContents();
    assert.ok(options.every((o) => o.split(' · ')[1].startsWith('Vendor')), options.join(' | '));
    // The vendor's own Chinese text is shown on the zh page.
    const price = await frame.locator('#price-table').evaluate((el) => el.textContent);
    assert.ok(price.includes(lang === 'zh' ? '现货' : 'in stock'), `${lang}: the vendor's availability text`);
    await until(page, () => parseInt(document.getElementById('calc').style.height || '0', 10) > 600, null, 15000);
    if (lang === 'zh') assert.deepEqual((await zhEnglish(page.frames().find((f) => f !== page.mainFrame()))).filter((w) => w !== 'Vendor' && w !== 'vendor-prices.json'), [], 'zh embed, language from the host page (the vendor\'s names and file name)');
    await fullScreenshot(page, path.join(shots, `buyer-vendor-embed-${lang}-1280.png`));
    assert.deepEqual(await axeViolations(page.frames().find((f) => f !== page.mainFrame())), [], `axe, embed ${lang}`);
    const [full] = await Promise.all([context.waitForEvent('page'), frame.locator('a.open-full').click()]);
    await full.waitForSelector('html.ready', { timeout: 30000 });
    await until(full, () => document.getElementById('keyfigs').textContent.includes('17,000'));
    assert.match(full.url(), /catalog=opener/);
    assert.match(full.url(), /users=2/);
    assert.doesNotMatch(await full.locator('#keyfigs').innerText(), /FullGPU|8x AMD Instinct MI355X/);
    await full.close();
    await page.close();
    assert.deepEqual(problems, []);
    assert.deepEqual(complaints, [], `${lang}: the host page's console`);
  }
});

test('a late embed.js still resizes the compact embed (view=summary, self-hosted catalog=), which follows the host page language', async (t) => {
  // The vendor hosts the calculator itself, with its price list beside it (catalog=, same origin).
  const prices = path.join(hostDir, 'prices.json');
  fs.writeFileSync(prices, JSON.stringify({ offerings: [{ id: 'fullgpu-8x-mi355x', name: '8x AMD Instinct MI355X',
    provider: 'FullGPU', gpu: 'mi355x', gpu_count: 8, kind: 'server', price_usd_per_month: 18500, sources: ['test'] }] }));
  const vendor = await serve({ extraRoutes: { '/prices.json': prices } });
  const vendorOrigin = new URL(vendor.url).origin;
  fs.writeFileSync(path.join(hostDir, 'late.html'), `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>Late</title></head>
<body><iframe id="calc" data-gpucalc src="${vendorOrigin}/?embed=1&view=summary&catalog=prices.json#v=1&users=4" title="GPU calculator" width="100%" height="300"></iframe></body></html>`);
  const late = await serve({ root: hostDir, host: 'localhost', csp: `default-src 'self'; script-src 'self' ${vendorOrigin}; frame-src ${vendorOrigin}` });
  t.after(() => { vendor.server.close(); late.server.close(); });
  const page = await context.newPage();
  const complaints = postMessageComplaints(page);
  await page.goto(`${late.url}late.html`);
  const frame = page.frameLocator('#calc');
  await frame.locator('html.ready').waitFor({ timeout: 30000 });
  assert.equal(await frame.locator('#controls').isVisible(), false);
  assert.equal(await frame.locator('#sec-fits').isVisible(), false);
  assert.equal(await frame.locator('#sec-verdict').isVisible(), true);
  assert.match(await frame.locator('#keyfigs').innerText(), /18,500/);
  assert.match(await frame.locator('a.open-full').getAttribute('href'), /[?&]catalog=prices\.json.*#v=1&.*users=4/);
  // embed.js arrives after the frame has stopped announcing itself (~10 s).
  await page.waitForTimeout(11000);
  assert.equal(await page.evaluate(() => document.getElementById('calc').style.height), '', 'nothing resized it yet');
  await page.addScriptTag({ url: `${vendorOrigin}/embed.js` });
  await until(page, () => parseInt(document.getElementById('calc').style.height || '0', 10) > 300, null, 5000);
  const height = await page.evaluate(() => document.getElementById('calc').clientHeight);
  assert.ok(height < 2500, `compact embed ${height}px`);
  // No lang= in the frame's address: it follows the host page's language once embed.js greets it.
  await frame.locator('html[lang="zh-CN"]').waitFor({ timeout: 5000 });
  assert.equal(await frame.locator('#verdict-h').innerText(), dict.zh.verdict_h || '简而言之');
  assert.deepEqual(await zhEnglish(page.frames().find((f) => f !== page.mainFrame())), [], 'the late embed re-worded in Chinese');
  await fullScreenshot(page, path.join(shots, 'buyer-late-summary-zh-1280.png'));
  await page.close();
  assert.deepEqual(complaints, [], 'the host page\'s console');
});

// embed.js run at once after the frame's tag (no async): the frame is still on its initial
// about:blank, in the host page's process, where a hello for the calculator's origin would be
// refused and logged in the host's console. The frame is greeted once its page has loaded.
test('the host page\'s console shows no postMessage origin error when embed.js runs before the frame has loaded', async (t) => {
  const calcOrigin = new URL(calc.url).origin;
  fs.writeFileSync(path.join(hostDir, 'early.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Early</title></head>
<body><iframe id="calc" data-gpucalc data-catalog="vendor-prices.json" data-catalog-mode="replace" src="${calcOrigin}/?embed=1#v=1&users=2" title="GPU calculator" width="100%" height="300"></iframe>
<script src="${calcOrigin}/embed.js"></script></body></html>`);
  const early = await serve({ root: hostDir, host: 'localhost', csp: `default-src 'self'; script-src 'self' ${calcOrigin}; frame-src ${calcOrigin}; connect-src 'self'` });
  t.after(() => early.server.close());
  const page = await context.newPage();
  const complaints = postMessageComplaints(page);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${early.url}early.html`);
  const frame = page.frameLocator('#calc');
  await frame.locator('html.ready').waitFor({ timeout: 30000 });
  // The protocol ran: the host's list reached the frame and the frame's height the host.
  await frame.locator('#keyfigs', { hasText: '17,000' }).waitFor({ timeout: 10000 });
  await until(page, () => parseInt(document.getElementById('calc').style.height || '0', 10) > 600, null, 15000);
  await page.close();
  assert.deepEqual(complaints, [], 'the host page\'s console');
  assert.deepEqual(problems, []);
});

test('zh page: no raw code and no English catalog text (default, error, embed; 1280 and 390 px)', async () => {
  for (const [name, q] of [['page', ''], ['embed', 'embed=1&'], ['summary', 'embed=1&view=summary&']]) {
    for (const width of WIDTHS) {
      const { page, problems } = await openPage(`${calc.url}?${q}lang=zh#v=1&compare=fullgpu-8x-mi355x,fullgpu-1x-h200,fullgpu-8x-h200&users=16`, { width });
      const body = await page.evaluate(() => document.body.innerText);
      assert.doesNotMatch(body, /\b[a-z]+_[a-z_]+\b/, `${name} ${width}: a snake_case code on the zh page`);
      assert.deepEqual(await zhEnglish(page), [], `${name} ${width}: English words on the zh page`);
      if (name === 'page') {
        // The vendor's Chinese catalog text where it gives one.
        const price = await page.locator('#price-table').evaluate((el) => el.textContent);
        assert.ok(price.includes('库存有限，付款后 7 个工作日内交付'), 'availability in the vendor\'s Chinese');
        assert.ok((await page.locator('#spec-table').evaluate((el) => el.textContent)).includes('OAM 模组 · 液冷'));
        if (width === 1280) {
          for (const sec of ['keyfigs', 'price', 'specs']) await page.locator(`#sec-${sec}`).screenshot({ path: path.join(shots, `buyer-${sec}-zh-1280.png`) });
        }
        await page.fill('#in-context', '-5');
        await page.waitForSelector('#err-context:not([hidden])');
        assert.deepEqual(await zhEnglish(page), [], `error state ${width}: English words on the zh page`);
        await shot(page, `error-zh-${width}`);
      }
      await page.close();
      assert.deepEqual(problems, []);
    }
  }
});

test('axe-core: no serious or critical violation in the default, error and embed states (en, zh, 1280, 390)', async () => {
  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      const { page, problems } = await openPage(`${calc.url}?lang=${lang}`, { width });
      assert.deepEqual(await axeViolations(page), [], `default ${lang} ${width}`);
      await page.fill('#in-context', '-5');
      await page.waitForSelector('#err-context:not([hidden])');
      assert.equal(await page.isVisible('#stale-note'), true, 'the stale figures are said in text');
      assert.deepEqual(await axeViolations(page), [], `error ${lang} ${width}`);
      await page.close();
      const { page: embed, problems: p2 } = await openPage(`${calc.url}?embed=1&lang=${lang}`, { width });
      assert.deepEqual(await axeViolations(embed), [], `embed ${lang} ${width}`);
      await shot(embed, `embed-${lang}-${width}`);
      await embed.close();
      assert.deepEqual([...problems, ...p2], []);
    }
  }
});

// Chromium draws a select's arrow in its inline end padding box: about 20 px at these sizes.
const SELECT_ARROW_PX = 24;

/** Per offering select: its text box width, the width of the selected label, and the widest
 *  "price · " prefix of any option, measured in the select's own font. */
function offeringSelectWidths(page) {
  return page.evaluate((arrow) => [...document.querySelectorAll('#offerings select')].map((sel) => {
    const cs = getComputedStyle(sel);
    const probe = document.createElement('span');
    probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font:${cs.font};letter-spacing:${cs.letterSpacing}`;
    document.body.append(probe);
    const width = (text) => { probe.textContent = text; return probe.getBoundingClientRect().width; };
    const labels = [...sel.options].map((o) => o.textContent);
    const out = {
      box: sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - arrow,
      selected: sel.options[sel.selectedIndex].textContent,
      selectedWidth: width(sel.options[sel.selectedIndex].textContent),
      title: sel.title,
      priceFirst: labels.every((l) => /^(US\$|\$|your price|自定价格)/.test(l)),
      widestPrice: Math.max(...labels.map((l) => width(l.slice(0, l.indexOf(' · ') + 3)))),
      scroll: sel.scrollWidth, client: sel.clientWidth,
    };
    probe.remove();
    return out;
  }), SELECT_ARROW_PX);
}

test('offering selects never cut the price: whole labels for the defaults, every option\'s price within the box (en, zh, 1280, 390)', async () => {
  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      const { page, problems } = await openPage(`${calc.url}?lang=${lang}#v=1`, { width });
      const perMonth = dict[lang].per_month_short;
      for (const [i, w] of (await offeringSelectWidths(page)).entries()) {
        const where = `${lang} ${width} offering ${i}: "${w.selected}"`;
        assert.ok(w.scroll <= w.client, `${where}: the select overflows`);
        assert.ok(w.priceFirst, `${where}: every option starts with its price`);
        assert.ok(w.selected.startsWith(perMonth.split('{price}')[0]) && w.selected.includes(perMonth.split('{price}')[1]), `${where}: the short price form`);
        assert.ok(w.selectedWidth <= w.box, `${where}: ${w.selectedWidth} px of text in a ${w.box} px box`);
        assert.ok(w.widestPrice <= w.box, `${where}: a price of ${w.widestPrice} px is cut in a ${w.box} px box`);
        assert.equal(w.title, w.selected, `${where}: the whole label as the title`);
      }
      // A long reference name selected: its price is still whole (the name is what may be cut).
      await page.selectOption('#in-offering-0', 'ref-8x-mi350x-hyperscaler');
      await page.waitForFunction(() => window.gpucalcPage.state.evaluation.scenario.includes('ref-8x-mi350x-hyperscaler'));
      const [long] = await offeringSelectWidths(page);
      const price = long.selected.slice(0, long.selected.indexOf(' · '));
      assert.match(price, /\d,\d{3}/, `${lang} ${width}: ${long.selected}`);
      await shot(page, `offering-select-${lang}-${width}`);
      await page.close();
      assert.deepEqual(problems, []);
    }
  }
});

test('a card of an offering that does not fit says the GPUs it needs, with no layout and no speed (en, zh, 1280, 390)', async () => {
  // DeepSeek-V3 BF16 on one H200 (no layout at all) and 16 users of 121K-token requests of
  // DeepSeek-V3 FP8 on 8x H200 (the core still computes a decode speed for its split): neither
  // card shows one.
  const cases = [
    'v=1&model=deepseek-v3&weights=bf16&compare=fullgpu-8x-mi355x,fullgpu-1x-h200&users=8',
    'v=1&model=deepseek-v3&weights=fp8&users=16&input=120000&output=1024',
  ];
  for (const lang of LANGS) {
    const d = dict[lang];
    for (const width of WIDTHS) {
      for (const frag of cases) {
        const { page, problems } = await openPage(`${calc.url}?lang=${lang}#${frag}`, { width });
        const ev = await evaluation(page);
        const where = `${lang} ${width} ${frag}`;
        assert.equal(ev.results[0].fits, true, where);
        assert.equal(ev.results[1].fits, false, where);
        assert.ok(ev.results[1].gpus_needed > 0, where);
        const cards = page.locator('#keyfigs article.keyfig');
        const labels = async (n) => cards.nth(n).locator('dt').allTextContents();
        const noFit = await cards.nth(1).innerText();
        const needs = d.card_no_fit.replace('{n}', new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US').format(ev.results[1].gpus_needed));
        assert.ok(noFit.includes(needs), `${where}: "${needs}" on the card:\n${noFit}`);
        assert.ok(!(await labels(1)).includes(d.instance), `${where}: a layout on the card that does not fit`);
        assert.ok(!(await labels(1)).includes(d.f_decode_tokens_per_s_per_user), `${where}: a speed on the card that does not fit`);
        assert.doesNotMatch(noFit, /TP\s*\d/, `${where}: a layout in the text`);
        assert.equal(await cards.nth(1).locator('.card-max').count(), 0, where);
        // The card that fits keeps its deployment and speed.
        assert.ok((await labels(0)).includes(d.instance), where);
        assert.ok((await labels(0)).includes(d.f_decode_tokens_per_s_per_user), where);
        if (frag === cases[1]) await shot(page, `no-fit-card-${lang}-${width}`);
        await page.close();
        assert.deepEqual(problems, []);
      }
    }
  }
});

test('the compact embed (view=summary) shows the verdict, the key figures and one chart: the interactivity chart, else the decode chart (en, zh, 1280, 390)', async () => {
  const CHARTS = ['curve-chart', 'memory-chart', 'batch-chart', 'context-chart'];
  const visibleCharts = (page) => page.evaluate((ids) => ids.filter((id) => {
    const el = document.getElementById(id);
    return el && el.checkVisibility() && el.getBoundingClientRect().height > 0;
  }), CHARTS);
  const visibleTables = (page) => page.evaluate(() => [...document.querySelectorAll('#results table')].filter((t) => t.checkVisibility()).map((t) => t.id));
  for (const lang of LANGS) {
    for (const width of WIDTHS) {
      // A curve: the interactivity chart, drawn, and nothing else drawn.
      const { page, problems } = await openPage(`${calc.url}?embed=1&view=summary&lang=${lang}#v=1`, { width });
      const where = `${lang} ${width}`;
      assert.ok((await evaluation(page)).results.some((r) => r.curve.length > 0), where);
      await page.waitForSelector('#curve-chart svg', { timeout: 10000 });
      assert.deepEqual(await visibleCharts(page), ['curve-chart'], `${where}: one chart`);
      assert.equal(await page.locator('#sec-verdict').isVisible(), true, where);
      assert.equal(await page.locator('#keyfigs').isVisible(), true, where);
      assert.deepEqual(await visibleTables(page), [], `${where}: no tables in the compact embed`);
      await shot(page, `summary-curve-${lang}-${width}`);
      await page.close();
      // No front has a point (no split of DeepSeek-V3 BF16 holds on one H200): the decode chart.
      const { page: p2, problems: pr2 } = await openPage(`${calc.url}?embed=1&view=summary&lang=${lang}#v=1&model=deepseek-v3&weights=bf16&compare=fullgpu-1x-h200`, { width });
      assert.ok((await evaluation(p2)).results.every((r) => r.curve.length === 0), where);
      await p2.waitForSelector('#batch-chart svg', { timeout: 10000 });
      assert.deepEqual(await visibleCharts(p2), ['batch-chart'], `${where}: the decode chart alone`);
      assert.deepEqual(await visibleTables(p2), [], `${where}: no tables`);
      await p2.close();
      assert.deepEqual([...problems, ...pr2], []);
    }
  }
});
