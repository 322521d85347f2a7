// The layout of the chosen operating point in words, in headless Chromium: the core gives the
// pools as numbers (prefill/decode workers, GPUs per worker, EP, DP attention; aggregated:
// replicas x serving_tensor_parallel), the page words them (en, zh); the form's advanced section
// holds the pd choice. Screenshots go to build/screenshots/layout-*.png (look at them).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { browserSuite, screenshotsDir, openCalculator, fullScreenshot, until, repo } from './browser-lib.mjs';

const shots = screenshotsDir();

const DISAGG = '#v=1&model=deepseek-r1-0528&pd=1&weights=fp4&compare=ref-8x-b200-hyperscaler&servers=2&users=64'
  + '&prefill_workers=1&prefill_tp=4&prefill_ep=4&decode_workers=1&decode_tp=8&decode_ep=8&decode_dpa=1';
const AGG_ONE = '#v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200&users=64';
const AGG_REPLICAS = '#v=1&model=deepseek-r1-0528&pd=0&compare=ref-8x-b200-hyperscaler&servers=2&users=256';

const expected = {
  en: {
    disagg: '4 prefill GPUs (TP4, EP4) + 8 decode GPUs (TP8, EP8, DP attention)',
    one: '8 GPUs (TP8)',
    replicas: '2 replicas of TP8',
    pd1: 'Disaggregated (separate pools)',
  },
  zh: {
    disagg: '4 张预填充 GPU（TP4，EP4） + 8 张解码 GPU（TP8，EP8，数据并行注意力）',
    one: '8 张 GPU（TP8）',
    replicas: '2 个 TP8 副本',
    pd1: '分离（独立的池）',
  },
};

const suite = browserSuite({ before, after });

const dict = (lang) => JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/${lang}.json`), 'utf8'));
/** The error bands beside the results' figures: the figure's field and the band's tooltip. */
const bandHints = (page) => page.evaluate(() => [...document.querySelectorAll('#results .band')]
  .map((b) => ({ field: b.parentElement.querySelector('[data-f]').dataset.f, title: b.title, extrapolated: b.classList.contains('extrapolated') })));

const layoutText = (page) => page.locator('#verdict .verdict-col').nth(0).locator('.layout-text').innerText();

test('a disaggregated point says its prefill and decode pools; pd is in the form', async () => {
  for (const lang of ['en', 'zh']) {
    const e = expected[lang];
    for (const [width, height] of [[1280, 900], [390, 844]]) {
      const { page, problems } = await openCalculator(suite.context, `${suite.calc.url}?lang=${lang}${DISAGG}`, { width, height });
      const r = await page.evaluate(() => window.gpucalcPage.state.evaluation.results[0]);
      // The sentence's numbers are the core's fields.
      assert.deepEqual([r.prefill_workers, r.prefill_tp, r.prefill_ep, r.prefill_dpa, r.prefill_gpus],
        [1, 4, 4, false, 4]);
      assert.deepEqual([r.decode_workers, r.decode_tp, r.decode_ep, r.decode_dpa, r.decode_gpus],
        [1, 8, 8, true, 8]);
      assert.equal(r.serving_replicas, null);
      assert.equal(await layoutText(page), e.disagg, `${lang} ${width}px`);
      // Its bands are widened for the disaggregated layout (the core's flag), and say so; its
      // TTFT band is the aggregated one (no disaggregated TTFT is published), said as extrapolated.
      assert.ok(['interactivity', 'throughput_per_gpu', 'ttft'].every((m) => r.error_band[m].disaggregated));
      const hints = await bandHints(page);
      const ttft = hints.filter((h) => h.field.startsWith('ttft'));
      const others = hints.filter((h) => !h.field.startsWith('ttft'));
      assert.ok(ttft.length > 0 && ttft.every((h) => h.title.endsWith(dict(lang).band_disaggregated_ttft) && h.extrapolated),
        JSON.stringify(ttft));
      assert.ok(others.length > 0 && others.every((h) => h.title.endsWith(dict(lang).band_disaggregated)), JSON.stringify(others));
      assert.equal(await page.locator('#in-pd').inputValue(), '1');
      assert.equal(await page.locator('#in-pd').evaluate((s) => s.selectedOptions[0].textContent), e.pd1);
      await fullScreenshot(page, path.join(shots, `layout-disagg-${lang}-${width}.png`));
      assert.deepEqual(problems, []);
      await page.close();
    }
  }
});

test('an aggregated point says its GPUs or replicas; choosing pd=0 in the form drops the pools', async () => {
  for (const lang of ['en', 'zh']) {
    const e = expected[lang];
    const one = await openCalculator(suite.context, `${suite.calc.url}?lang=${lang}${AGG_ONE}`);
    assert.equal(await layoutText(one.page), e.one);
    assert.deepEqual(one.problems, []);
    await one.page.close();
    const many = await openCalculator(suite.context, `${suite.calc.url}?lang=${lang}${AGG_REPLICAS}`);
    const r = await many.page.evaluate(() => window.gpucalcPage.state.evaluation.results[0]);
    assert.deepEqual([r.serving_replicas, r.serving_tensor_parallel, r.prefill_gpus], [2, 8, null]);
    assert.equal(await layoutText(many.page), e.replicas);
    assert.equal(r.error_band.interactivity.disaggregated, false);
    const hints = await bandHints(many.page);
    const said = [dict(lang).band_disaggregated, dict(lang).band_disaggregated_ttft];
    assert.ok(hints.length > 0 && !hints.some((h) => said.some((w) => h.title.includes(w))), JSON.stringify(hints));
    assert.deepEqual(many.problems, []);
    await many.page.close();
  }
  const { page, problems } = await openCalculator(suite.context, `${suite.calc.url}?lang=en${DISAGG}`);
  await page.locator('#advanced summary').click();
  await page.locator('#in-pd').selectOption('0');
  await until(page, () => window.gpucalcPage.state.evaluation.results[0].prefill_gpus === null);
  await until(page, () => !window.location.hash.includes('pd=1'));
  assert.match(await layoutText(page), /^\d+ (GPUs \(TP\d+|replicas of TP\d+)/);
  assert.deepEqual(problems, []);
  await page.close();
});
