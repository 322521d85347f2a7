// One answer a buyer can act on, in headless Chromium: the fit and the speeds agree on one
// deployment, the headline names the speed and the token kind it is priced at, training shows
// training memory, the page writes the core's defaults, the curve sets the operating point, the
// phone keeps the answer in sight, the levers have controls, and the smaller findings. Each
// test names the finding it covers. Screenshots go to build/screenshots/answer-*.png.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserSuite, screenshotsDir, until, openCalculator, axeViolations, clickSettled } from './browser-lib.mjs';

const shots = screenshotsDir();
const suite = browserSuite({ before, after });

const openPage = (url, { width = 1280, height = 900 } = {}) => openCalculator(suite.context, url, { width, height });

const evaluation = (page) => page.evaluate(() => window.gpucalcPage.state.evaluation);
const scenario = (page) => page.evaluate(() => window.gpucalcPage.state.evaluation.scenario);
const text = (page, sel) => page.locator(sel).innerText();
const shot = (page, name) => page.screenshot({ path: path.join(shots, `answer-${name}.png`) });

const DEEPSEEK_CHAT = 'v=1&model=deepseek-r1-0528&weights=fp8&users=64&input=1024&output=1024&context=131072';

test('finding 1: DeepSeek-R1, 64 users of chat 1K/1K fit one 8-GPU server, and the full-context worst case is its own figure', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#${DEEPSEEK_CHAT}`);
  const ev = await evaluation(page);
  for (const r of ev.results) {
    assert.equal(r.fits, true, `${r.offering}: ${r.fit_reason}`);
    assert.ok(r.decode_tokens_per_s_per_user > 0);
    assert.equal(r.serving_tensor_parallel, r.instance_gpus, `${r.offering}: the speeds are for the fit's deployment`);
  }
  const h200 = ev.results.find((r) => r.offering === 'fullgpu-8x-h200');
  assert.ok(h200.gpus_needed_full_context > 8, `every user at 128K: ${h200.gpus_needed_full_context}`);
  const cards = await text(page, '#keyfigs');
  assert.match(cards, /Every user at the full context/);
  assert.doesNotMatch(cards, /Does not fit/);
  await shot(page, 'deepseek-chat');
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 2: a request-shape preset carries its speed, and the verdict names the speed it is priced at', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`);
  await page.click('#workload-presets button:first-child');
  await until(page, () => /interactivity=25/.test(window.gpucalcPage.state.evaluation.scenario));
  const ev = await evaluation(page);
  assert.equal(ev.inputs.interactivity, 25);
  if (ev.recommended) assert.match(await text(page, '#verdict .badge'), /25 tokens\/s per user/);
  // Any speed: the badge names the speed of the recommended offering's highest-throughput point.
  await page.fill('#in-interactivity', '0');
  await until(page, () => !/interactivity=/.test(window.gpucalcPage.state.evaluation.scenario));
  const any = await evaluation(page);
  if (any.recommendation_basis === 'usd_per_million_tokens') {
    const r = any.results.find((x) => x.offering === any.recommended);
    assert.match(await text(page, '#verdict .badge'), /tokens\/s per user/);
    assert.ok(r.max_throughput_point);
  }
  await page.close();
});

test('finding 3: every per-million-tokens label names its token kind (output, or input + output)', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b&ttft_max=2&tpot_max=0.2`);
  const labels = await page.locator('#keyfigs dt, #perf-table th, #serving-table th').allInnerTexts();
  for (const l of labels.filter((x) => /per million/i.test(x))) assert.match(l, /output|input \+ output/, l);
  const verdict = await text(page, '#verdict');
  for (const line of verdict.split('\n').filter((x) => /per million/i.test(x))) assert.match(line, /output tokens/, line);
  // The limits the cost was priced within are named with it.
  if (/per million/i.test(verdict)) assert.match(verdict, /time to first token ≤ 2 s/);
  await page.close();
});

test('finding 5: training shows training memory by part and bills a monthly plan by the month', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud`);
  const cards = await text(page, '#keyfigs');
  assert.doesNotMatch(cards, /KV/);
  assert.doesNotMatch(cards, /Full-length contexts/);
  const legend = await text(page, '#memory-legend');
  assert.match(legend, /Adapters/);
  assert.match(legend, /Activations/);
  assert.doesNotMatch(legend, /KV/);
  const ev = await evaluation(page);
  const monthly = ev.results.find((r) => r.offering === 'fullgpu-8x-h200');
  assert.equal(monthly.billed_months, 1);
  assert.ok(monthly.run_cost_usd >= monthly.price_month_usd, `${monthly.run_cost_usd} for ${monthly.train_hours} h`);
  assert.match(cards, /Months billed/);
  // The run's optimizer steps, the core's figure, on each card.
  for (const [i, r] of ev.results.entries()) {
    assert.ok(r.train_steps > 0, `${r.offering}: train_steps ${r.train_steps}`);
    const shown = await page.locator('#keyfigs .keyfig').nth(i).locator('[data-f="train_steps"]').innerText();
    assert.equal(shown.replace(/\D/g, ''), String(r.train_steps));
  }
  assert.match(cards, /Optimizer steps/);
  assert.deepEqual(await axeViolations(page), [], 'training view');
  await shot(page, 'training');
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 6: one deployment per card: the GPUs said are the deployment\'s, never "n of m"', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=deepseek-r1-0528&weights=fp8&compare=fullgpu-8x-h200&servers=2`);
  const ev = await evaluation(page);
  const cards = await text(page, '#keyfigs');
  assert.doesNotMatch(cards, /needs \d+ of \d+/);
  if (ev.results[0].fits) assert.match(cards, new RegExp(`Yes, on ${ev.results[0].deployed_gpus} GPUs`));
  await page.close();
});

test('finding 7: the release format by default: gpt-oss keeps MXFP4 on load and after an edit, and on a model switch', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=gpt-oss-120b`);
  assert.equal(await page.inputValue('#in-weights'), 'native');
  await page.fill('#in-users', '3');
  await until(page, () => /users=3/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.doesNotMatch(await scenario(page), /weights=fp8/);
  assert.equal((await evaluation(page)).inputs.weights, 'native');
  await page.close();
  const { page: p2 } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`);
  await p2.selectOption('#in-model', 'kimi-k2.5');
  await until(p2, () => /model=kimi-k2.5/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.equal((await evaluation(p2)).inputs.weights, 'native');
  await p2.close();
});

test('finding 8: context is explained, and its chart stops at the model\'s maximum on a doubling axis', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`);
  assert.match(await page.getAttribute('#in-context', 'aria-describedby'), /context-help/);
  assert.ok((await text(page, '#context-help')).length > 20);
  await clickSettled(page, page.locator('#sec-perf .chart-data summary'));
  await until(page, () => document.querySelectorAll('#context-table tbody tr').length > 0, undefined, 30000);
  const rows = await page.locator('#context-table tbody tr').count();
  const max = (await evaluation(page)).model.max_context_tokens;
  assert.equal(rows, Math.log2(max / 4096) + 1, `${rows} context rows for a ${max}-token model`);
  await page.close();
});

test('finding 9: click or Enter on a curve point sets the operating point', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`);
  await page.locator('#curve-chart').scrollIntoViewIfNeeded();
  await page.waitForSelector('#curve-chart circle.point');
  const point = await page.evaluate(() => {
    const c = document.querySelector('#curve-chart circle.point[data-s="0"]');
    const p = window.gpucalcPage.state.evaluation.results[0].curve[Number(c.dataset.p)];
    return { users: Math.round(p.users), speed: p.tokens_per_s_per_user };
  });
  await page.locator('#curve-chart circle.point[data-s="0"]').first().click();
  await until(page, (u) => window.gpucalcPage.state.evaluation.inputs.users === u, point.users);
  const ev = await evaluation(page);
  assert.ok(ev.inputs.interactivity > 0 && ev.inputs.interactivity <= point.speed);
  // The keyboard: focus a point, Enter.
  await page.locator('#curve-chart circle.point[tabindex="0"]').first().focus();
  await page.keyboard.press('End');
  const last = await page.evaluate(() => {
    const c = document.activeElement;
    return Math.round(window.gpucalcPage.state.evaluation.results[Number(c.dataset.s)].curve[Number(c.dataset.p)].users);
  });
  await page.keyboard.press('Enter');
  await until(page, (u) => window.gpucalcPage.state.evaluation.inputs.users === u, last);
  await page.close();
});

test('finding 10: on a phone the answer stays in sight while the form is edited, with a way back', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`, { width: 390, height: 844 });
  await page.locator('#in-users').scrollIntoViewIfNeeded();
  await page.fill('#in-users', '5');
  await until(page, () => /users=5/.test(window.gpucalcPage.state.evaluation.scenario));
  const box = await page.locator('#phone-summary').boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 844 + 1, `summary at ${box && box.y}`);
  assert.equal(await text(page, '#phone-summary-text'), await text(page, '#verdict-summary'));
  await shot(page, 'phone-edit');
  assert.deepEqual(await axeViolations(page), [], 'phone after an edit');
  await page.click('#phone-summary a');
  await until(page, () => location.hash.includes('v=1') || document.activeElement.id === 'results');
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 11: servers, expert parallelism and DP attention have controls; up to 8 configurations, a longer link names what it dropped', async () => {
  const { page } = await openPage(`${suite.calc.url}#v=1&model=deepseek-r1-0528&weights=fp8`);
  await page.click('#advanced > summary');
  await page.fill('#in-ep', '8');
  await until(page, () => /ep=8/.test(window.gpucalcPage.state.evaluation.scenario));
  await page.check('#in-dpa');
  await until(page, () => /dpa=1/.test(window.gpucalcPage.state.evaluation.scenario));
  await page.fill('#in-servers-0', '2');
  await until(page, () => /servers=2/.test(window.gpucalcPage.state.evaluation.scenario));
  assert.equal((await evaluation(page)).results[0].servers, 2);
  await page.close();
  const ids = ['fullgpu-8x-mi355x', 'fullgpu-8x-h200', 'fullgpu-1x-h200', 'ref-8x-h100-neocloud', 'ref-8x-h200-neocloud',
    'ref-8x-b200-neocloud', 'ref-8x-mi300x-neocloud', 'ref-8x-mi325x-neocloud', 'ref-8x-mi355x-neocloud', 'ref-8x-h100-hyperscaler'];
  const { page: seven } = await openPage(`${suite.calc.url}#v=1&compare=${ids.slice(0, 7).join(',')}`);
  assert.equal(await seven.locator('#offerings li').count(), 7);
  assert.deepEqual(await axeViolations(seven), [], '7 configurations');
  await shot(seven, 'seven');
  await seven.close();
  const { page: ten } = await openPage(`${suite.calc.url}#v=1&compare=${ids.join(',')}`);
  assert.equal(await ten.locator('#offerings li').count(), 8);
  const notice = await text(ten, '#notice');
  assert.match(notice, /ref-8x-mi355x-neocloud/);
  assert.match(notice, /ref-8x-h100-hyperscaler/);
  await ten.close();
});

test('finding 12: the smaller items', async () => {
  // Three offerings: one cost sentence per offering, no "the other", no "1.0×".
  const { page } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,ref-8x-h100-neocloud`);
  const verdict = await text(page, '#verdict');
  assert.doesNotMatch(verdict, /the other\b/);
  assert.doesNotMatch(verdict, /\b1\.0×/);
  for (const col of await page.locator('#verdict .verdict-col').allInnerTexts()) {
    assert.ok((col.match(/Per million output tokens/g) || []).length <= 1, col);
  }
  // The price's source, date and billing.
  const prices = await text(page, '#price-table');
  assert.match(prices, /Price source and date/);
  assert.match(prices, /2026-10-22/);
  assert.match(prices, /per GPU-hour/);
  assert.doesNotMatch(await text(page, '#sec-price'), /all plans bill a fixed monthly price/);
  // The curve table's scroll box takes focus.
  assert.equal(await page.getAttribute('#curve-data .table-scroll', 'tabindex'), '0');
  await page.close();
  // A key given twice names the value left out.
  const { page: twice } = await openPage(`${suite.calc.url}#v=1&users=4&users=8`);
  const n1 = await text(twice, '#notice');
  assert.match(n1, /given twice/);
  assert.match(n1, /["“]8["”]/);
  assert.equal((await evaluation(twice)).inputs.users, 4);
  await twice.close();
  // A bad id in compare: that id is named and dropped, the others stay.
  const { page: bad } = await openPage(`${suite.calc.url}#v=1&compare=fullgpu-8x-mi355x,nope-8x,fullgpu-8x-h200`);
  assert.match(await text(bad, '#notice'), /nope-8x/);
  assert.deepEqual((await evaluation(bad)).inputs.compare, ['fullgpu-8x-mi355x', 'fullgpu-8x-h200']);
  await bad.close();
  // The embed has a heading for assistive technology.
  const { page: embed } = await openPage(`${suite.calc.url}?embed=1`);
  assert.equal(await embed.evaluate(() => [...document.querySelectorAll('h1')].some((h) => getComputedStyle(h).display !== 'none')), true);
  assert.deepEqual(await axeViolations(embed), [], 'embed');
  await embed.close();
  const { page: summary } = await openPage(`${suite.calc.url}?embed=1&view=summary`);
  assert.deepEqual(await axeViolations(summary), [], 'summary embed');
  await summary.close();
});

test('the default verdict says it has no speed target, and says the cost per token once', async () => {
  const said = { en: /No speed per user is set/, zh: /未设定单用户速度/ };
  for (const lang of ['en', 'zh']) {
    const { page, problems } = await openPage(`${suite.calc.url}?lang=${lang}`);
    const ev = await evaluation(page);
    assert.equal(ev.inputs.interactivity, 0, 'the default scenario sets no speed');
    assert.equal(ev.recommendation_basis, 'usd_per_million_tokens');
    const r = ev.results.find((x) => x.offering === ev.recommended);
    const badge = await text(page, '#verdict .badge');
    assert.match(badge, said[lang], `${lang}: ${badge}`);
    // The speed it is priced at: the recommended offering's highest-throughput point.
    const speed = r.max_throughput_point.tokens_per_s_per_user.toPrecision(3);
    assert.ok(badge.includes(speed), `${lang}: the badge names the speed priced at (${speed}): ${badge}`);
    // Each column names its cost per output token in one sentence at most.
    for (let i = 0; i < ev.results.length; i++) {
      const reasons = await page.locator('#verdict .verdict-col').nth(i).locator('li.reason').allInnerTexts();
      const own = await page.locator('#keyfigs .keyfig').nth(i).locator('[data-f="usd_per_million_tokens"]').first().innerText();
      assert.ok(/\d/.test(own), own);
      const saying = reasons.filter((x) => x.includes(own));
      assert.ok(saying.length <= 1, `${lang}: ${own} said ${saying.length} times: ${saying.join(' | ')}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('one deployment per card: the only-one-fits reason names the deployment\'s GPUs, not the smallest instance', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=deepseek-r1-0528&weights=fp8&compare=fullgpu-8x-mi355x,ref-8x-h100-neocloud`);
  const [r] = (await evaluation(page)).results;
  assert.ok(r.fits && r.gpus_needed !== r.deployed_gpus, `the smallest instance (${r.gpus_needed}) is not the deployment (${r.deployed_gpus})`);
  const reason = (await page.locator('#verdict .verdict-col').first().locator('li.reason').allInnerTexts()).find((x) => /only one here/.test(x));
  assert.ok(reason, 'the only-one-fits reason');
  assert.match(reason, new RegExp(`on ${r.deployed_gpus} GPUs`));
  assert.doesNotMatch(reason, new RegExp(`\\b${r.gpus_needed} GPUs`));
  assert.match(await text(page, '#keyfigs .keyfig:first-child'), new RegExp(`on ${r.deployed_gpus} GPUs`));
  assert.deepEqual(problems, []);
  await page.close();
  // Fewer GPUs per instance than the other: said as the smallest instance, beside the deployment.
  const { page: chat } = await openPage(`${suite.calc.url}#${DEEPSEEK_CHAT}`);
  const [mi] = (await evaluation(chat)).results;
  assert.ok(mi.gpus_needed < mi.deployed_gpus, `${mi.gpus_needed} < ${mi.deployed_gpus}`);
  const fewer = (await chat.locator('#verdict .verdict-col').first().locator('li.reason').allInnerTexts()).find((x) => /smaller model instance/.test(x));
  assert.ok(fewer, 'the fewer-GPUs reason');
  assert.match(fewer, new RegExp(`for all ${mi.deployed_gpus}\\b`));
  await chat.close();
});

test('on a phone, Tab moves through the form in the order it reads: down, and left to right in a row', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=deepseek-r1-0528`, { width: 390, height: 844 });
  await page.evaluate(() => document.querySelectorAll('#controls details').forEach((d) => { d.open = true; }));
  await page.evaluate(() => document.querySelector('#controls select, #controls input').focus());
  const order = [];
  for (let i = 0; i < 200; i++) {
    const at = await page.evaluate(() => {
      const e = document.activeElement;
      // A control's place is its field's (a label above an input, a checkbox beside its label).
      const r = (e.closest('.field') || e).getBoundingClientRect();
      return { name: e.id || e.textContent.trim().slice(0, 20), top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left,
        inForm: Boolean(e.closest('#controls')), sticky: Boolean(e.closest('#phone-summary')) };
    });
    if (!at.inForm) break;
    // The phone summary stays in sight at the bottom of the screen by design (last in the form).
    if (!at.sticky) order.push(at);
    await page.keyboard.press('Tab');
  }
  assert.ok(order.length > 30, `${order.length} controls`);
  const back = [];
  for (let i = 1; i < order.length; i++) {
    const [a, b] = [order[i - 1], order[i]];
    const sameRow = b.top < a.bottom && a.top < b.bottom;
    if (b.bottom <= a.top || (sameRow && b.left < a.left - 1)) back.push(`${a.name} -> ${b.name}`);
  }
  assert.deepEqual(back, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('every select of the form shows its whole chosen label, at 390 and 1280 px (en, zh)', async () => {
  for (const [lang, width] of [['en', 390], ['zh', 390], ['en', 1280], ['zh', 1280]]) {
    const { page, problems } = await openPage(`${suite.calc.url}?lang=${lang}#v=1&model=deepseek-r1-0528`, { width, height: 844 });
    await page.evaluate(() => document.querySelectorAll('#controls details').forEach((d) => { d.open = true; }));
    const cut = await page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d');
      return [...document.querySelectorAll('#controls select')].filter((s) => s.selectedOptions.length).map((s) => {
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        // The label's room: the box less its padding and the drop-down arrow (about 20 px).
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        const label = s.selectedOptions[0].textContent;
        return ctx.measureText(label).width > room ? `${s.id}: "${label}" in ${Math.round(room)} px` : '';
      }).filter(Boolean);
    });
    assert.deepEqual(cut, [], `${lang} ${width} px`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('screenshots at 1280 and 390 px in en and zh (look at them)', async () => {
  for (const lang of ['en', 'zh']) {
    for (const [width, height] of [[1280, 900], [390, 844]]) {
      const { page, problems } = await openPage(`${suite.calc.url}?lang=${lang}#${DEEPSEEK_CHAT}`, { width, height });
      await shot(page, `${lang}-${width}`);
      assert.deepEqual(await axeViolations(page), [], `${lang} ${width}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  }
});

test('finding 10: on a phone, Tab moves through the page in the order it reads: the results, then the form', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-70b`, { width: 390, height: 844 });
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  const seen = [];
  for (let i = 0; i < 400; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      // A focusable's place is its own, a chart point's its chart's (points move within it).
      const block = e.closest('svg') || e;
      const r = block.getBoundingClientRect();
      return { name: e.id || e.textContent.trim().slice(0, 24), top: r.top + scrollY, region: e.closest('#results') ? 'results' : e.closest('#controls') ? 'form' : 'page',
        sticky: Boolean(e.closest('#phone-summary')), dialog: Boolean(e.closest('dialog')) };
    });
    if (!at || (seen.length && at.name === seen[0].name && at.top === seen[0].top)) break;
    if (!at.sticky && !at.dialog) seen.push(at);
  }
  const regions = seen.map((s) => s.region).filter((r, i, a) => r !== 'page' && r !== a[i - 1]);
  assert.deepEqual(regions.slice(0, 2), ['results', 'form'], `regions in focus order: ${regions}`);
  const back = [];
  // Within a row (a label's checkbox, a price beside its label) tops differ by a few pixels.
  for (let i = 1; i < seen.length; i++) if (seen[i].top < seen[i - 1].top - 12) back.push(`${seen[i - 1].name} -> ${seen[i].name}`);
  assert.deepEqual(back, [], 'focus never moves up the page');
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 12: a long offering name cut in its select is shown whole under it (en, zh, 1280, 390)', async () => {
  for (const [lang, width] of [['en', 1280], ['zh', 1280], ['en', 390], ['zh', 390]]) {
    const { page, problems } = await openPage(`${suite.calc.url}?lang=${lang}#v=1&compare=ref-8x-mi350x-hyperscaler,fullgpu-8x-h200`, { width, height: 900 });
    const rows = await page.evaluate(() => [...document.querySelectorAll('#offerings .offering-row')].map((row) => {
      const sel = row.querySelector('select');
      const full = row.querySelector('.offering-full');
      const cs = getComputedStyle(sel);
      const probe = document.createElement('span');
      probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font:${cs.font}`;
      probe.textContent = sel.selectedOptions[0].textContent;
      document.body.append(probe);
      const label = probe.getBoundingClientRect().width;
      probe.remove();
      const box = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 24;
      return { id: sel.value, label, box, shown: Boolean(full && !full.hidden && full.getClientRects().length),
        text: full ? full.textContent : '', cut: full ? full.scrollWidth > full.clientWidth : true };
    }));
    const offerings = await page.evaluate(() => window.gpucalcPage.state.offerings.map((o) => [o.id, o.name, o.name_zh]));
    for (const r of rows) {
      const where = `${lang} ${width} ${r.id}`;
      const [, name, nameZh] = offerings.find(([id]) => id === r.id);
      if (r.label > r.box) {
        assert.ok(r.shown, `${where}: the label is cut (${Math.round(r.label)} px in ${Math.round(r.box)} px) and its whole name is not shown`);
        assert.equal(r.text, lang === 'zh' && nameZh ? nameZh : name, where);
        assert.equal(r.cut, false, `${where}: the whole name is itself cut`);
      } else {
        assert.equal(r.shown, false, `${where}: a label that fits needs no second line`);
      }
    }
    assert.ok(rows[0].label > rows[0].box || width === 390, `${lang} ${width}: the long reference name is cut in its select`);
    await shot(page, `offering-full-${lang}-${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('finding 12: the zh formula dialog is worded in Chinese from the core\'s formula and note ids', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}?lang=zh#v=1&model=deepseek-r1-0528&compare=fullgpu-8x-mi355x,fullgpu-8x-h200`);
  await until(page, () => document.querySelectorAll('button.fig').length > 5);
  const count = await page.locator('button.fig').count();
  const english = [];
  let notes = 0;
  // Identifiers (snake_case names, acronyms) and function names stay as written; prose must not.
  const ALLOWED = new Set(['min', 'max', 'ceil', 'floor', 'hidden', 'all', 'reduce', 'token', 'dpa']);
  for (let i = 0; i < count; i++) {
    const button = page.locator('button.fig').nth(i);
    if (!(await button.isVisible())) continue;
    await clickSettled(page, button);
    await page.waitForSelector('dialog#formula[open]');
    const formula = await text(page, '#formula-text');
    const note = await page.locator('#formula-note').textContent();
    notes += note ? 1 : 0;
    const words = `${formula} ${note}`.match(/\b[a-z]{3,}\b/g) || [];
    const prose = words.filter((w) => !ALLOWED.has(w));
    if (prose.length) english.push(`${await button.getAttribute('data-f')}: ${prose.join(' ')}`);
    await page.keyboard.press('Escape');
    await until(page, () => !document.getElementById('formula').open);
  }
  assert.deepEqual(english, []);
  assert.ok(notes > 0, 'some formula has a note (the checkpoint, MTP layers)');
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 12: an hourly-billed offering and a monthly plan are compared like with like (a training run)', async () => {
  const { page, problems } = await openPage(`${suite.calc.url}#v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud`);
  const verdict = await text(page, '#verdict');
  const ratios = [...verdict.matchAll(/([\d,.]+)× less/g)].map((m) => Number(m[1].replace(/,/g, '')));
  assert.ok(ratios.length > 0, verdict);
  assert.ok(ratios.every((x) => x < 10), `ratios ${ratios}: a month against a few hours`);
  assert.match(verdict, /Priced alike by the hour/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('finding 12: no link opens raw Markdown (the page, the embed, the summary embed)', async () => {
  for (const url of ['', '?embed=1', '?embed=1&view=summary']) {
    const { page, problems } = await openPage(`${suite.calc.url}${url}`);
    const md = await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a) => a.href).filter((h) => /\.md(\b|$)/i.test(new URL(h).pathname)));
    assert.deepEqual(md, [], url || 'main');
    assert.deepEqual(problems, []);
    await page.close();
  }
});
