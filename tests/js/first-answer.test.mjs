// The first answer, in headless Chromium: the built index.html carries the default scenario's
// result, computed by the same WASM core in node at build time (scripts/build-web.mjs); the page
// draws its verdict and key figures with its own section code while the module is still loading
// (here: its .wasm request held back), and the live result, once the module has loaded, shows
// the same text. The English answer is in the HTML itself (drawn by the same code at build
// time), readable at its first paint and without JavaScript. A link with its own scenario never
// shows the build's answer.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserSuite, screenshotsDir, until } from './browser-lib.mjs';

const shots = screenshotsDir();
const suite = browserSuite({ before, after });

/** A new tab at `url` whose .wasm request waits until `release()` is called. */
async function openHeld(url, viewport = { width: 1280, height: 900 }) {
  const page = await suite.context.newPage();
  await page.setViewportSize(viewport);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(url);
  return { page, problems, release };
}

const answerText = (page) => page.evaluate(() => ['verdict-summary', 'verdict', 'keyfigs']
  .map((id) => document.getElementById(id).innerText));
const moduleLoaded = (page) => page.evaluate(() => performance.getEntriesByName('gpucalc:loaded').length > 0);

test('the verdict and the key figures are on screen before the module loads, and the same once it has', async () => {
  for (const [lang, viewport] of [['en', { width: 1280, height: 900 }], ['zh', { width: 390, height: 844 }]]) {
    const { page, problems, release } = await openHeld(`${suite.calc.url}?lang=${lang}`, viewport);
    await until(page, () => document.documentElement.classList.contains('first-answer'));
    const first = await answerText(page);
    assert.equal(await moduleLoaded(page), false, `${lang}: drawn while the .wasm is held`);
    const answer = await page.evaluate(() => JSON.parse(document.getElementById('first-answer').textContent));
    // The summary names the model and every compared offering; each offering has its card.
    assert.ok(first[0].includes(answer.evaluation.model.name), `${lang}: ${first[0]}`);
    assert.equal(await page.locator('#keyfigs .keyfig').count(), answer.evaluation.results.length);
    assert.match(first[2], /\d/);
    // Readable: laid out and on screen, not under the form or a hidden section.
    for (const id of ['#verdict-summary', '#keyfigs .keyfig']) {
      const box = await page.locator(id).first().boundingBox();
      assert.ok(box && box.height > 0 && box.y < viewport.height * 3, `${lang}: ${id} laid out (${JSON.stringify(box)})`);
      assert.equal(await page.locator(id).first().evaluate((e) => getComputedStyle(e).visibility), 'visible');
    }
    if (lang === 'en') {
      await page.screenshot({ path: path.join(shots, 'first-answer-en.png') });
      // In the HTML as served: shown at its first paint, before any script has run.
      const served = await (await fetch(suite.calc.url)).text();
      assert.ok(served.includes(`elementtiming="first-result">${first[0]}</p>`), 'the summary is in the served HTML');
      assert.match(served, /<html lang="en" class="first-answer">/);
    }
    release();
    await page.waitForSelector('html.ready', { timeout: 30000 });
    assert.equal(await moduleLoaded(page), true);
    assert.deepEqual(await answerText(page), first, `${lang}: the live result reads the same`);
    const live = await page.evaluate(() => window.gpucalcPage.state.evaluation.scenario);
    assert.equal(live, answer.evaluation.scenario);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('a link with its own scenario waits for the module: the build\'s answer is not its answer', async () => {
  const { page, problems, release } = await openHeld(`${suite.calc.url}#v=1&model=llama-3.1-8b`);
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.documentElement.classList.contains('first-answer')), false);
  // The markup's answer (the default scenario's) is there but not shown: nothing is laid out.
  assert.equal(await page.locator('#verdict-summary').isVisible(), false);
  release();
  await page.waitForSelector('html.ready', { timeout: 30000 });
  assert.match(await page.locator('#verdict-summary').innerText(), /Llama 3\.1 8B/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('with JavaScript off, the build\'s HTML shows the verdict and the key figures (en)', async () => {
  const context = await suite.context.browser().newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  try {
    const page = await context.newPage();
    await page.goto(suite.calc.url);
    const answer = JSON.parse(await page.locator('#first-answer').textContent());
    const summary = page.locator('#verdict-summary');
    assert.equal(await summary.isVisible(), true);
    assert.ok((await summary.innerText()).includes(answer.evaluation.model.name));
    assert.equal(await page.locator('#keyfigs .keyfig').count(), answer.evaluation.results.length, 'a card per compared offering');
    // The summary on the first screen; the verdict's columns and the cards laid out under it.
    for (const [sel, below] of [['#verdict-summary', 900], ['#verdict .verdict-col', 900 * 3], ['#keyfigs .keyfig', 900 * 3]]) {
      const box = await page.locator(sel).first().boundingBox();
      assert.ok(box && box.height > 0 && box.y < below, `${sel} laid out (${JSON.stringify(box)})`);
    }
    await page.screenshot({ path: path.join(shots, 'first-answer-nojs-en.png') });
  } finally {
    await context.close();
  }
});
