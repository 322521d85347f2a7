// The views a user opens later, in headless Chromium: a cold load of the default view fetches
// none of their code or strings (the formula dialog, the CSV/JSON export, the calibrate panel,
// the user's own model or price list, the accuracy tables, the words of a training run, of
// errors and of most warnings); each fetches its own the first time it opens and draws in words, never a dictionary
// key, in English and Chinese; a link opening on a training run draws it right on its first
// load. Screenshots: build/screenshots/lazy-*.png.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { browserSuite, screenshotsDir, until, webRoot, repo, clickSettled } from './browser-lib.mjs';

const suite = browserSuite({ before, after });
const shots = screenshotsDir();
const built = webRoot.endsWith(path.join('build', 'web-dist'));
// A chunk's name in the built page (name-HASH.js) or the source's file.
const LAZY = ['formula-dialog', 'export-files', 'calibrate-files', 'catalog-files', 'accuracy'];
const chunk = (name) => new RegExp(`/${name}(-[A-Z0-9]+)?\\.js$`);
const PARTS = ['formula', 'calibrate', 'accuracy', 'training', 'errors', 'warnings'];
// Every key of the parts' dictionaries: none may show as text.
const partKeys = PARTS.flatMap((p) => Object.keys(JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/${p}/en.json`), 'utf8'))));

/** A page at `url` (ready), the paths it requested, kept filling as it runs. */
async function open(url, { locale = 'en-US', viewport = { width: 1280, height: 900 } } = {}) {
  const context = await suite.context.browser().newContext({ locale, viewport, acceptDownloads: true });
  const page = await context.newPage();
  const paths = [];
  const problems = [];
  page.on('request', (r) => paths.push(new URL(r.url()).pathname));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  await page.goto(url);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  return { context, page, paths, problems };
}

const keysShown = (page, selector, keys) => page.evaluate(([sel, ks]) => {
  const text = [...document.querySelectorAll(sel)].map((e) => e.textContent).join('\n');
  return ks.filter((k) => new RegExp(`(^|[^\\w])${k}([^\\w]|$)`).test(text));
}, [selector, keys]);

test('a cold load of the default view fetches no lazy view\'s code or strings', async () => {
  const { context, page, paths, problems } = await open(suite.calc.url);
  await page.waitForTimeout(300);
  for (const name of LAZY) assert.ok(!paths.some((p) => chunk(name).test(p)), `${name} not fetched: ${paths}`);
  for (const part of PARTS) assert.ok(!paths.some((p) => p.startsWith(`/i18n/${part}/`)), `i18n/${part}/ not fetched`);
  if (built) {
    const scripts = paths.filter((p) => /\.m?js$/.test(p)).sort();
    assert.deepEqual(scripts, ['/app.js', '/first-paint.js', '/gen/gpucalc_wasm_page.mjs'], 'one bundle, no shared chunk');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('each lazy view fetches its chunk when first opened and draws in words (en, zh)', async () => {
  for (const [lang, locale] of [['en', 'en-US'], ['zh', 'zh-CN']]) {
    const { context, page, paths, problems } = await open(`${suite.calc.url}?lang=${lang}`, { locale });
    // The formula dialog.
    await until(page, () => document.querySelectorAll('#memory-table button.fig').length > 0);
    await clickSettled(page, page.locator('#memory-table button.fig').first());
    await page.waitForSelector('dialog#formula[open]');
    assert.ok(paths.some((p) => chunk('formula-dialog').test(p)), `${lang}: the dialog's chunk`);
    assert.ok((await page.locator('#formula-text').textContent()).length > 5);
    assert.deepEqual(await keysShown(page, '#formula', partKeys), []);
    await page.keyboard.press('Escape');
    await until(page, () => !document.getElementById('formula').open);
    // The CSV download.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    assert.match(fs.readFileSync(await download.path(), 'utf8'), /^scenario,"v=1&/);
    assert.ok(paths.some((p) => chunk('export-files').test(p)), `${lang}: the export's chunk`);
    // The accuracy tables.
    await clickSettled(page, page.locator('#accuracy summary'));
    await until(page, () => document.querySelectorAll('#accuracy-mlperf tbody tr').length > 0, null, 15000);
    assert.ok(paths.some((p) => chunk('accuracy').test(p)) && paths.includes(`/i18n/accuracy/${lang}.json`), `${lang}: accuracy's chunk and strings`);
    assert.deepEqual(await keysShown(page, '#accuracy', partKeys), []);
    await page.locator('#accuracy').screenshot({ path: path.join(shots, `lazy-accuracy-${lang}.png`) });
    // The calibrate panel: its code and strings come as it opens; a file it cannot use is named.
    await page.evaluate(() => { document.getElementById('calibrate').open = true; document.getElementById('calibrate').scrollIntoView(); });
    await until(page, () => performance.getEntriesByType('resource').some((e) => /calibrate-files/.test(e.name)));
    await page.click('#do-calib');
    await until(page, () => !document.getElementById('err-calib').hidden);
    const none = JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/calibrate/${lang}.json`), 'utf8')).calib_none;
    assert.equal(await page.locator('#err-calib').textContent(), none);
    await page.locator('#calibrate').screenshot({ path: path.join(shots, `lazy-calibrate-${lang}.png`) });
    assert.deepEqual(problems, [], lang);
    await context.close();
  }
});

test('a link opening on a training run draws it on its first load, and an edit into one too', async () => {
  const lora = '#v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud';
  for (const [lang, locale, viewport] of [['en', 'en-US', { width: 1280, height: 900 }], ['zh', 'zh-CN', { width: 390, height: 844 }]]) {
    const { context, page, paths, problems } = await open(`${suite.calc.url}?lang=${lang}${lora}`, { locale, viewport });
    assert.ok(paths.includes(`/i18n/training/${lang}.json`), `${lang}: the training strings`);
    assert.equal(await page.evaluate(() => window.gpucalcPage.state.evaluation.workload), 'lora');
    assert.deepEqual(await keysShown(page, 'main', partKeys), [], lang);
    const gradients = JSON.parse(fs.readFileSync(path.join(repo, `web/i18n/training/${lang}.json`), 'utf8')).f_train_gradient_bytes_per_gpu;
    assert.ok((await page.locator('#sec-memory').textContent()).includes(gradients), `${lang}: the memory table's training rows`);
    await page.screenshot({ path: path.join(shots, `lazy-training-${lang}-${viewport.width}.png`) });
    assert.deepEqual(problems, [], lang);
    await context.close();
  }
  // From the default view: choosing a training workload fetches the strings, then draws.
  const { context, page, paths, problems } = await open(suite.calc.url);
  await page.selectOption('#in-workload', 'lora');
  await until(page, () => window.gpucalcPage.state.evaluation.workload === 'lora');
  assert.ok(paths.includes('/i18n/training/en.json'));
  assert.deepEqual(await keysShown(page, 'main', partKeys), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('when the error strings cannot be fetched, an error still names its field and value', async () => {
  const context = await suite.context.browser().newContext({ locale: 'zh-CN', viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.route('**/i18n/errors/**', (route) => route.abort());
  await page.goto(`${suite.calc.url}?lang=zh#v=1&users=abc&context=4096`);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  await until(page, () => (document.getElementById('err-users')?.textContent || '').includes('abc'));
  const shown = await page.locator('#err-users').textContent();
  assert.ok(shown.includes('users') && shown.includes('abc'), shown);
  assert.deepEqual(await keysShown(page, 'main', partKeys), []);
  assert.equal(await page.inputValue('#in-context'), '4096', 'the other inputs are kept');
  await context.close();
});
