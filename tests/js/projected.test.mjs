// The 2026 line-up on the page, in headless Chromium: the offering pickers list the new GPUs'
// racks and servers, the projected ones labelled; a projected result carries a badge and a
// sentence (en, zh). Screenshots go to build/screenshots/projected-*.png (look at them).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { browserSuite, screenshotsDir, repo, openCalculator, fullScreenshot } from './browser-lib.mjs';

const shots = screenshotsDir();
const dict = Object.fromEntries(['en', 'zh'].map((l) => [l, JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/${l}.json`), 'utf8'))]));
const offerings = JSON.parse(fs.readFileSync(path.join(repo, 'data/offerings.json'), 'utf8')).offerings;
const projectedGpus = JSON.parse(fs.readFileSync(path.join(repo, 'data/gpus.json'), 'utf8')).gpus
  .filter((g) => g.projected).map((g) => g.id);

const suite = browserSuite({ before, after });

test('pickers list the 2026 racks, projected ones labelled; a projected result has a badge and a sentence', async () => {
  assert.deepEqual(projectedGpus.sort(), ['mi455x', 'vr200']);
  for (const lang of ['en', 'zh']) {
    const d = dict[lang];
    const { page, problems } = await openCalculator(suite.context,
      `${suite.calc.url}?lang=${lang}#v=1&model=deepseek-v3&weights=fp8&users=64&compare=rack-72x-mi455x,fullgpu-8x-mi355x`);
    const options = await page.locator('#in-offering-0 option').evaluateAll((os) => os.map((o) => ({ id: o.value, text: o.textContent })));
    const ids = options.map((o) => o.id);
    for (const id of ['ref-8x-b300-hyperscaler', 'ref-nvl72-gb200-hyperscaler', 'ref-nvl72-gb300-neocloud', 'rack-72x-mi455x', 'rack-72x-vr200']) {
      assert.ok(ids.includes(id), `${lang}: picker lists ${id}`);
    }
    for (const o of options) {
      const offering = offerings.find((x) => x.id === o.id);
      const projected = offering && projectedGpus.includes(offering.gpu);
      assert.equal(o.text.includes(d.projected_tag), Boolean(projected), `${lang}: ${o.id} labelled projected only if it is`);
    }
    const ev = await page.evaluate(() => window.gpucalcPage.state.evaluation);
    assert.equal(ev.results[0].projected, true);
    assert.equal(ev.results[1].projected, false);
    // The badge and the sentence stand in the projected offering's column only.
    const columns = page.locator('#verdict .verdict-col');
    assert.equal(await columns.nth(0).locator('.projected-badge').innerText(), d.projected_badge);
    assert.equal(await columns.nth(0).locator('.projected-note').innerText(), d.projected_sentence);
    assert.equal(await columns.nth(1).locator('.projected-badge').count(), 0);
    // Unpriced and projected: never the recommendation.
    assert.notEqual(ev.recommended, 'rack-72x-mi455x');
    await fullScreenshot(page, path.join(shots, `projected-${lang}.png`));
    assert.deepEqual(problems, []);
    await page.close();
  }
});
