// Shared by the browser tests and the benchmark: Debian's Chromium through playwright-core, and
// the static server with the page's CSP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The page the tests and the benchmark serve: the build that ships (`make web-dist`,
 *  scripts/build-web.mjs), or another folder from GPUCALC_PAGE_ROOT (e.g. `web` for the sources). */
export const webRoot = path.resolve(repo, process.env.GPUCALC_PAGE_ROOT || path.join('build', 'web-dist'));
if (!fs.existsSync(path.join(webRoot, 'index.html')) || !fs.existsSync(path.join(webRoot, 'gen', 'gpucalc_wasm.wasm'))) {
  throw new Error(`${webRoot}: no built page (index.html and gen/gpucalc_wasm.wasm): run \`make web-dist\` first`);
}
export const outDir = path.join(repo, 'build', 'web');

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', '--font-render-hinting=none'];

/**
 * Debian's Chromium with a fresh, temporary profile (playwright-core's launch() passes its own
 * --user-data-dir and removes it on close). `context` is a first browser context.
 */
export async function launch(contextOptions = {}) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, locale: 'en-US', ...contextOptions });
  const close = async () => { await browser.close(); };
  return { browser, context, close };
}

export async function serve(options = {}) {
  return startServer({ root: webRoot, port: 0, ...options });
}

/**
 * Full-page screenshot. Sections below the fold use content-visibility: auto, so the viewport
 * is first grown to the page's height (everything on screen, everything rendered).
 */
export async function fullScreenshot(page, file) {
  const size = page.viewportSize();
  for (let i = 0; i < 3; i++) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: size.width, height });
    await page.waitForTimeout(200);
  }
  await page.screenshot({ path: file, fullPage: true });
  await page.setViewportSize(size);
}

/** CPU time (clock ticks) used so far by the Chromium processes of this machine. */
function chromiumTicks() {
  let ticks = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (!fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('chromium')) continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch { /* the process ended */ }
  }
  return ticks;
}

/**
 * Waits until the browser itself is idle: after launch, headless Chromium spends a couple of
 * CPU-seconds on its own start-up (its top-chrome WebUI renderer preloads the omnibox popup),
 * which on a 2-core machine would be measured as the page's load time. Idle: under 5 % of one
 * core over 500 ms. Gives up after `timeoutMs`; returns the ms waited.
 */
export async function settle(timeoutMs = 15000) {
  const t0 = Date.now();
  let last = chromiumTicks();
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = chromiumTicks();
    if (now - last <= 2 || Date.now() - t0 > timeoutMs) return Date.now() - t0;
    last = now;
  }
}

/** Clicks `locator` once it has stopped moving. Sections below the fold render as they scroll
 *  into view (content-visibility: auto), which moves what follows; on a loaded machine that move
 *  can land between Playwright's own stability check and its click, and the click then hits the
 *  section instead (seen opening a formula: 1 in 6 runs beside two busy loops). */
export async function clickSettled(page, locator) {
  await locator.scrollIntoViewIfNeeded();
  let last = null;
  for (let i = 0; i < 50; i++) {
    const box = await locator.boundingBox();
    if (box && last && box.x === last.x && box.y === last.y && box.height === last.height) break;
    last = box;
    await page.waitForTimeout(100);
  }
  await locator.click();
}

/** Polls `fn` in the page (page.waitForFunction would need eval, which the page's CSP forbids). */
export async function until(page, fn, arg, timeout = 10000) {
  const end = Date.now() + timeout;
  for (;;) {
    if (await page.evaluate(fn, arg)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${fn.toString().slice(0, 120)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A page of the calculator at `url`, ready (html.ready), recording console and page errors. */
export async function openCalculator(context, url, viewport = { width: 1280, height: 900 }) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('html.ready', { timeout: 30000 });
  return { page, problems };
}

/**
 * What `page` and its frames log about a postMessage sent to a window of another origin
 * (Playwright reports a frame's console on its page). Chromium logs it as a warning, not an
 * error ("Failed to execute 'postMessage' on 'DOMWindow': The target origin provided (...) does
 * not match the recipient window's origin (...)"), when the recipient is in the sender's process:
 * e.g. a host page greeting a frame still on its initial about:blank. The array fills as it runs.
 */
export function postMessageComplaints(page) {
  const seen = [];
  page.on('console', (m) => {
    if ((m.type() === 'error' || m.type() === 'warning') && /postMessage|target origin/i.test(m.text())) seen.push(`${m.type()}: ${m.text()}`);
  });
  return seen;
}

/** axe-core's serious and critical violations of `target` (a page or frame), run through
 *  DevTools, not under the page's CSP. */
export async function axeViolations(target) {
  const source = fs.readFileSync(path.join(repo, 'tests/js/node_modules/axe-core/axe.min.js'), 'utf8');
  await target.evaluate(source);
  const result = await target.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.length} nodes, e.g. ${v.nodes[0].target.join(' ')} ${v.nodes[0].failureSummary.split('\n')[1] || ''}`);
}

/** build/screenshots/, where the browser tests write their screenshots (made if missing). */
export function screenshotsDir() {
  const dir = path.join(repo, 'build', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * One static server and one Chromium for a node:test file: registers the file's `before` and
 * `after` hooks (passed in: the benchmark uses this module without node:test) and returns
 * `{calc, context}`, filled once `before` has run (`calc.url`: the page's address).
 */
export function browserSuite({ before, after }, serveOptions = {}) {
  const suite = { calc: null, context: null };
  let close = null;
  before(async () => {
    suite.calc = await serve(serveOptions);
    ({ context: suite.context, close } = await launch());
  });
  after(async () => {
    if (close) await close();
    if (suite.calc) suite.calc.server.close();
  });
  return suite;
}

/** The words of the elements at `selector` that are broken across lines (mid-word, or at a
 *  hyphen the browser added), as [word, ...]; a break at a hyphen the text has is fine. */
export function brokenWords(page, selector) {
  return page.evaluate((sel) => {
    const broken = [];
    for (const el of document.querySelectorAll(sel)) {
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (const m of n.data.matchAll(/[^\s\-‐/]+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** The same as openCalculator (the calibration tests' name for it). */
export const openPage = openCalculator;
