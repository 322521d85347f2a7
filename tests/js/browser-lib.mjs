// Shared by the browser tests and the benchmark: Debian's Chromium through playwright-core, and
// the static server with the page's CSP.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const webRoot = path.join(repo, 'web');
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
