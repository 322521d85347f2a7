#!/usr/bin/env node
// The page as it ships: web/ (sources) + web/gen/ (the WASM module, `make wasm`) -> build/web-dist/.
// `make web-dist` runs it; `make serve`, the browser tests and the benchmark serve its output.
//
//   node scripts/build-web.mjs [--src web] [--out build/web-dist]
//
//   app.js (+ every module it imports, i18n/en.json inlined)  -> app.js, minified ES module;
//     modules loaded with import() stay separate chunks, fetched only when imported
//     (embed-frame.js: the embed view, catalog=opener; the views in LAZY: chunks of their own
//     code only, which take the bundle's modules from app.js's export __shared)
//   style.css                     -> minified
//   embed.js                      -> minified classic script (host pages load it, async, any time)
//   gen/gpucalc_wasm_page.mjs, gen/gpucalc_wasm.mjs -> minified (the Emscripten glue of the page's
//                                    first module and of the whole one); their .wasm copied
//   i18n/<lang>.json but English  -> minified, fetched only for that language
//   i18n/<part>/<lang>.json       -> minified, fetched when the view that needs them opens
//   index.html                    -> module preloads of what the bundle imports, the module's
//                                    preload first; indentation dropped; the English strings
//                                    it carries are not repeated in the bundle's en.json;
//                                    the default scenario's result (the first answer, drawn
//                                    before the module loads) in a JSON data block, only the
//                                    paths the page reads to draw it
//   favicon.png, oembed.json (minified) -> copied (web/EMBED.md is the hoster's guide, not part
//                                    of the page: it does not ship)
//
// esbuild (scripts/package.json, `npm ci` from the lock file) emits no eval or new Function, so
// the page keeps its CSP (script-src 'self' 'wasm-unsafe-eval'). Each text file and the module
// get a `<file>.gz` beside them (zopfli, Debian package; scripts/serve.mjs sends it). Prints
// each file's size, raw and gzip, and the total without the .wasm.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return path.resolve(repo, i >= 0 && i + 1 < args.length ? args[i + 1] : fallback);
};
const src = opt('src', 'web');
const out = opt('out', 'build/web-dist');
// The browsers the page supports (ES modules with import(), ?? and ?.).
const TARGET = ['es2020'];
// The page's first module (preloaded) and the whole one, fetched when the page first needs a
// function the first lacks (web/gpucalc.js loadWhole; wasm/CMakeLists.txt).
const GLUE = 'gen/gpucalc_wasm_page.mjs';
const WASM = 'gen/gpucalc_wasm_page.wasm';
const WHOLE_GLUE = 'gen/gpucalc_wasm.mjs';
const WHOLE_WASM = 'gen/gpucalc_wasm.wasm';
// What scripts/serve.mjs compresses (its COMPRESSIBLE), here precompressed.
const COMPRESSED = /\.(html|m?js|css|json|wasm|svg|md|txt)$/;
// What a bundle must never contain under the page's CSP.
const FORBIDDEN = [/\beval\s*\(/, /\bnew\s+Function\s*\(/, /\bFunction\s*\(\s*["'`]/];

/** Runs `cmd args`, its stdout into `to` (written whole or not at all). */
const run = (cmd, argv, to) => new Promise((resolve, reject) => {
  const chunks = [];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (c) => chunks.push(c));
  child.on('error', reject);
  child.on('close', (code) => {
    if (code !== 0) { reject(new Error(`${cmd} ${argv.join(' ')}: exit ${code}`)); return; }
    fs.writeFileSync(`${to}.tmp`, Buffer.concat(chunks));
    fs.renameSync(`${to}.tmp`, to);
    resolve();
  });
});

/**
 * key -> English string, for each data-i18n key whose every element in `html` carries the same
 * plain text (no child element, no character reference), and each data-i18n-<attr> key whose
 * every element's <attr> is the same plain value: what web/i18n.js reads from the markup.
 */
function markupStrings(text) {
  const values = new Map();
  const uses = new Map();
  const note = (key, value) => {
    uses.set(key, (uses.get(key) || 0) + 1);
    if (value === null || value.includes('&')) values.set(key, null);
    else if (!values.has(key)) values.set(key, value);
    else if (values.get(key) !== value) values.set(key, null);
  };
  for (const m of text.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/g)) {
    const [tag, name, attrs] = m;
    const key = /\sdata-i18n="([^"]+)"/.exec(attrs);
    if (key) {
      const rest = text.slice(m.index + tag.length);
      const close = rest.indexOf(`</${name}>`);
      const inner = close >= 0 ? rest.slice(0, close) : null;
      note(key[1], inner !== null && !inner.includes('<') ? inner : null);
    }
    for (const a of attrs.matchAll(/\sdata-i18n-([a-z-]+)="([^"]+)"/g)) {
      const value = new RegExp(`\\s${a[1]}="([^"]*)"`).exec(attrs);
      note(a[2], value ? value[1] : null);
    }
  }
  // Every use of a key must have been seen (a key on an element the patterns miss keeps its entry).
  const all = (text.match(/\sdata-i18n(?:-[a-z-]+)?="[^"]+"/g) || []).map((x) => x.split('"')[1]);
  for (const k of all) if ((uses.get(k) || 0) !== all.filter((x) => x === k).length) values.set(k, null);
  return new Map([...values].filter(([, v]) => v !== null));
}

for (const f of [GLUE, WASM, WHOLE_GLUE, WHOLE_WASM]) {
  if (!fs.existsSync(path.join(src, f))) {
    console.error(`${path.join(src, f)} is missing: run \`make wasm\` first.`);
    process.exit(1);
  }
}
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'gen'), { recursive: true });
fs.mkdirSync(path.join(out, 'i18n'), { recursive: true });

// 0. index.html without its indentation (whitespace between tags: one space or newline renders
//    the same), except in <pre> and <textarea>, whose content is kept as written. The English
//    strings it carries verbatim are left out of the bundled en.json: web/i18n.js reads them
//    from the markup before translating anything.
let html = fs.readFileSync(path.join(src, 'index.html'), 'utf8');
html = html.split(/(<(?:pre|textarea)\b[\s\S]*?<\/(?:pre|textarea)>)/).map((part, i) =>
  (i % 2 ? part : part.replace(/\n[ \t]+/g, '\n').replace(/\n{2,}/g, '\n'))).join('');
const enSource = JSON.parse(fs.readFileSync(path.join(src, 'i18n', 'en.json'), 'utf8'));
const inMarkup = markupStrings(html);
const enBundled = Object.fromEntries(Object.entries(enSource).filter(([k, v]) => inMarkup.get(k) !== v));
const enFile = path.join(src, 'i18n', 'en.json');
const enPlugin = {
  name: 'en-json-without-markup-strings',
  setup(b) {
    b.onLoad({ filter: /[\\/]i18n[\\/]en\.json$/ }, (a) => (path.resolve(a.path) === enFile
      ? { contents: JSON.stringify(enBundled), loader: 'json' } : undefined));
  },
};

// 1. The page's modules: one bundle, dynamic imports as chunks beside it (flat, so that
//    import.meta.url-relative paths such as gen/ and i18n/ resolve as they do in web/).
//    The views a user opens later (LAZY) are chunks of their own code only: what they import
//    from the bundle's modules they take from app.js (its export __shared: those modules'
//    namespaces), so the bundle stays one file (esbuild's splitting would cut the modules they
//    share with it into chunks of their own, fetched by every cold load and compressed apart).
const LAZY = ['formula-dialog.js', 'export-files.js', 'calibrate-files.js', 'catalog-files.js', 'sections/accuracy.js'];
const lazyFiles = new Map(LAZY.map((f) => [path.join(src, f), null]));  // source -> chunk name
const mainBuild = (plugins, write) => esbuild.build({
  entryPoints: [path.join(src, 'app.js')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: TARGET,
  charset: 'utf8',
  legalComments: 'none',
  chunkNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  write,
  plugins: [enPlugin, {
    name: 'lazy-views-external',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        const file = path.resolve(a.resolveDir, a.path);
        if (!lazyFiles.has(file)) return undefined;
        if (a.kind !== 'dynamic-import') throw new Error(`page build: ${path.relative(src, file)} is a lazy view: import() it only`);
        return { path: `./${lazyFiles.get(file) || path.basename(file)}`, external: true };
      });
    },
  }, ...plugins],
});
// What the lazy views import from the bundle's modules: bundled module -> names, read from the
// sources (`import { a, b as c } from './x.js'`; `import * as x from './x.js'` and each `x.name`),
// through the modules a view bundles itself.
const graph = await mainBuild([], false);
const bundled = new Set(Object.keys(graph.metafile.inputs).map((f) => path.resolve(f)).filter((f) => f.endsWith('.js')));
const exportsOf = (file) => new Set([...fs.readFileSync(file, 'utf8')
  .matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|class)\s+([\w$]+)/gm)].map((m) => m[1]));
const needed = new Map();
const need = (target, names) => {
  if (!needed.has(target)) needed.set(target, new Set());
  for (const n of names) needed.get(target).add(n);
};
const walkImports = (file, seen = new Set()) => {
  if (seen.has(file)) return;
  seen.add(file);
  const code = fs.readFileSync(file, 'utf8');
  for (const m of code.matchAll(/^import\s+(?:\{([^}]*)\}|\*\s+as\s+([\w$]+))\s+from\s+'(\.[^']+)';/gm)) {
    const target = path.resolve(path.dirname(file), m[3]);
    if (!bundled.has(target)) { walkImports(target, seen); continue; }
    need(target, m[1] !== undefined ? m[1].split(',').map((x) => x.trim().split(/\s+as\s+/)[0]).filter(Boolean)
      : [...code.matchAll(new RegExp(`(?<![\\w$./'"])${m[2].replace('$', '\\$')}\\.([\\w$]+)`, 'g'))].map((x) => x[1])
        .filter((n) => exportsOf(target).has(n)));
  }
};
for (const file of lazyFiles.keys()) walkImports(file);
const shared = new Map([...needed.keys()].map((f, i) => [f, `m${i}`]));  // bundled module -> its key in __shared
for (const file of lazyFiles.keys()) {
  const lazy = await esbuild.build({
    entryPoints: [file], bundle: true, format: 'esm', minify: true, target: TARGET, charset: 'utf8',
    legalComments: 'none', write: false, outfile: path.join(out, path.basename(file)), logLevel: 'warning',
    plugins: [enPlugin, {
      name: 'bundled-modules-from-app',
      setup(b) {
        b.onResolve({ filter: /^\.\/app\.js$/, namespace: 'app-shared' }, () => ({ path: './app.js', external: true }));
        b.onResolve({ filter: /^\./ }, (a) => {
          const target = path.resolve(a.resolveDir, a.path);
          return bundled.has(target) ? { path: target, namespace: 'app-shared' } : undefined;
        });
        b.onLoad({ filter: /.*/, namespace: 'app-shared' }, (a) => ({ loader: 'js',
          contents: `import { __shared } from './app.js';\nexport const { ${[...(needed.get(a.path) || [])].join(', ')} } = __shared.${shared.get(a.path)};` }));
      },
    }],
  });
  const code = lazy.outputFiles[0].contents;
  const name = `${path.basename(file, '.js')}-${crypto.createHash('sha256').update(code).digest('hex').slice(0, 8).toUpperCase()}.js`;
  lazyFiles.set(file, name);
  fs.writeFileSync(path.join(out, name), code);
}
const appFile = path.join(src, 'app.js');
const js = await mainBuild([{
  name: 'app-exports-shared',
  setup(b) {
    b.onLoad({ filter: /[\\/]app\.js$/ }, (a) => {
      if (path.resolve(a.path) !== appFile) return undefined;
      // Plain objects of the names the views use (no module namespace: esbuild's helper for those
      // would be a chunk of its own); the bundle's modules export no `let`, so values are final.
      const modules = [...shared].map(([f, key]) => [f, key, [...needed.get(f)]]);
      const imports = modules.map(([f, key, names]) => `import { ${names.map((n) => `${n} as ${key}_${n}`).join(', ')} } from ${JSON.stringify(`./${path.relative(src, f).split(path.sep).join('/')}`)};`);
      const objects = modules.map(([, key, names]) => `${key}: { ${names.map((n) => `${n}: ${key}_${n}`).join(', ')} }`);
      return { contents: `${fs.readFileSync(appFile, 'utf8')}\n${imports.join('\n')}\nexport const __shared = { ${objects.join(', ')} };\n`, loader: 'js', resolveDir: src };
    });
  },
}], true);
const appOut = Object.entries(js.metafile.outputs).find(([, o]) => o.entryPoint)[1];
// Chunks app.js imports statically (shared code) are preloaded; dynamic ones are not.
const staticChunks = appOut.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => path.basename(i.path));

// 2. The stylesheet, the host pages' embed.js and the Emscripten glue, each minified alone.
await esbuild.build({
  entryPoints: [path.join(src, 'style.css')], outdir: out, bundle: true, minify: true,
  charset: 'utf8', target: ['chrome100', 'firefox100', 'safari15'], logLevel: 'warning',
});
const transform = async (file, options) => {
  const code = fs.readFileSync(path.join(src, file), 'utf8');
  const result = await esbuild.transform(code, { minify: true, target: TARGET, charset: 'utf8', legalComments: 'none', ...options });
  fs.writeFileSync(path.join(out, file), result.code);
};
await transform('embed.js', {});  // a classic script: no format change, its IIFE stays its scope
await transform('first-paint.js', {});  // a classic script in <head>, run before the body is parsed
for (const [glue, wasm] of [[GLUE, WASM], [WHOLE_GLUE, WHOLE_WASM]]) {
  await transform(glue, { format: 'esm' });
  fs.copyFileSync(path.join(src, wasm), path.join(out, wasm));
}

// 3. Dictionaries other than English (inlined into the bundle), the parts, oEmbed: minified JSON.
const minJson = (from, to) => fs.writeFileSync(to, JSON.stringify(JSON.parse(fs.readFileSync(from, 'utf8'))));
for (const f of fs.readdirSync(path.join(src, 'i18n'), { recursive: true })) {
  // i18n/<part>/<lang>.json (strings a later view loads) in every language, English included.
  if (!f.endsWith('.json') || f === 'en.json') continue;
  fs.mkdirSync(path.dirname(path.join(out, 'i18n', f)), { recursive: true });
  minJson(path.join(src, 'i18n', f), path.join(out, 'i18n', f));
}
minJson(path.join(src, 'oembed.json'), path.join(out, 'oembed.json'));
for (const f of ['favicon.png']) fs.copyFileSync(path.join(src, f), path.join(out, f));

// 3b. The first answer: the default scenario evaluated by the same WASM core, in node, as the
//     page's start would ask it (`v=<version>`, the built-in catalog), with the units of its
//     fields and the compared offerings' catalog entries: what the verdict and the key figures
//     are drawn from (web/app.js draws them with the live result's code before the module has
//     loaded). The curve's points are left out (no chart is drawn from it); the live result has
//     them. It ships in a JSON data block (never run as script, so the page keeps its CSP),
//     trimmed in 3c to the fields the page reads to draw it.
async function firstAnswer() {
  const gpucalc = await import(pathToFileURL(path.join(src, 'gpucalc.js')).href);
  await gpucalc.load({ moduleUrl: pathToFileURL(path.join(src, GLUE)).href, wasmBinary: fs.readFileSync(path.join(src, WASM)) });
  const evaluation = gpucalc.evaluate(`v=${gpucalc.scenarioVersion()}`);
  const compared = new Set(evaluation.results.map((r) => r.offering));
  const fields = new Set(evaluation.results.flatMap((r) => Object.keys(r)));
  for (const r of evaluation.results) {
    r.curve = [];
    // Of the curve's error bands, those of the points the verdict and the cards name (the
    // maximum-throughput and the operating point); the live result has the others.
    const named = new Set([r.max_throughput_point, r.interactivity_point].map((p) => p && p.error_band_index));
    if (Array.isArray(r.curve_error_bands)) r.curve_error_bands = r.curve_error_bands.map((b, i) => (named.has(i) ? b : null));
  }
  return {
    evaluation,
    units: Object.fromEntries(gpucalc.resultFields().filter((f) => fields.has(f.name)).map((f) => [f.name, f.unit])),
    offerings: gpucalc.catalog('offerings').filter((o) => compared.has(o.id)),
  };
}
// "<" escaped: the block's text cannot close its element.
const answerBlock = (answer) => `<script type="application/json" id="first-answer">${JSON.stringify(answer).replace(/</g, '\\u003c')}</script>`;

// Run in the page before its scripts (3c): JSON.parse of the first-answer block returns the
// answer behind proxies that note each path the page reads ("/evaluation/results/*/model",
// array indices as "*"; "/**" where it lists an object's keys: kept whole).
const RECORD_READS = () => {
  const parse = JSON.parse;
  const used = new Set();
  window.firstAnswerReads = used;
  const index = (t, k) => Array.isArray(t) && /^\d+$/.test(k);
  const wrap = (v, p) => (v === null || typeof v !== 'object' ? v : new Proxy(v, {
    get(t, k, r) {
      if (typeof k === 'symbol' || (Array.isArray(t) && !index(t, k))) return Reflect.get(t, k, r);
      const q = `${p}/${index(t, k) ? '*' : k}`;
      used.add(q);
      return wrap(t[k], q);
    },
    has(t, k) { if (typeof k !== 'symbol') used.add(`${p}/${index(t, k) ? '*' : k}`); return k in t; },
    ownKeys(t) { used.add(`${p}/**`); return Reflect.ownKeys(t); },
  }));
  JSON.parse = function (text, ...rest) {
    const value = parse.call(this, text, ...rest);
    const box = document.getElementById('first-answer');
    return box && text === box.textContent ? wrap(value, '') : value;
  };
};

/** `value` with only the paths in `used` (RECORD_READS): every element of an array read, an
 *  object whose keys were listed whole. */
function keepRead(value, used, p = '') {
  if (used.has(`${p}/**`) || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((x) => keepRead(x, used, `${p}/*`));
  return Object.fromEntries(Object.entries(value).filter(([k]) => used.has(`${p}/${k}`))
    .map(([k, v]) => [k, keepRead(v, used, `${p}/${k}`)]));
}

// 3c. The first answer in the markup: the verdict and key figures as app.js draws them from the
//     JSON block (the page's own section code, in headless Chromium, the module blocked so the
//     first answer stays on screen), written into index.html's empty boxes, with
//     <html class="first-answer"> (style.css shows them): readable at the HTML's first paint,
//     before app.js (a deferred module) has loaded, and without JavaScript. web/first-paint.js
//     removes the class where the page opens on another answer; the live result is drawn over
//     the same nodes. The words are English (zh: app.js draws them from the JSON block).
//     The block keeps what the page read to draw it, in English at 1280 px and in Chinese at
//     390 px (the units: those of the result fields kept), and must draw the same text in both.
const PRERENDERED = [
  ['<p id="verdict-summary" class="summary" elementtiming="first-result"></p>', 'verdict-summary'],
  ['<div id="verdict" class="verdict"></div>', 'verdict'],
  ['<div id="keyfigs" class="keyfigs"></div>', 'keyfigs'],
  ['<p id="phone-summary-text"></p>', 'phone-summary-text'],
];
const DRAWN_IN = [['en', 'en-US', { width: 1280, height: 900 }], ['zh', 'zh-CN', { width: 390, height: 844 }]];
async function prerendered(page, answer) {
  const { chromium } = await import(pathToFileURL(path.join(repo, 'tests/js/node_modules/playwright-core/index.mjs')).href)
    .catch(() => { throw new Error('page build: playwright-core is missing (make web-node-modules)'); });
  const { startServer } = await import('./serve.mjs');
  const { server, url } = await startServer({ root: out, port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  // The boxes' HTML as the page draws them from `block` in each of DRAWN_IN, and what it read.
  const draw = async (block, record) => {
    fs.writeFileSync(path.join(out, 'index.html'), page.replace('</body>', `${block}\n</body>`));
    const drawn = [];
    const used = new Set();
    for (const [lang, locale, viewport] of DRAWN_IN) {
      const context = await browser.newContext({ locale, viewport });
      const tab = await context.newPage();
      if (record) await tab.addInitScript(RECORD_READS);
      await tab.route(`**/${WASM}`, (route) => route.abort());
      await tab.goto(`${url}?lang=${lang}`);
      for (let i = 0; !(await tab.evaluate(() => performance.getEntriesByName('gpucalc:first-answer').length)); i++) {
        if (i > 600) throw new Error('page build: the page drew no first answer (gpucalc:first-answer) in 30 s');
        await tab.waitForTimeout(50);
      }
      drawn.push(await tab.evaluate((ids) => ids.map((id) => document.getElementById(id).innerHTML), PRERENDERED.map(([, id]) => id)));
      if (record) for (const p of await tab.evaluate(() => [...window.firstAnswerReads])) used.add(p);
      await context.close();
    }
    return { drawn, used };
  };
  try {
    const whole = await draw(answerBlock(answer), true);
    // The scenario stays too: what the answer is of (the tests compare it with the live one's).
    const trimmed = keepRead(answer, new Set([...whole.used, '/evaluation', '/evaluation/scenario']));
    const kept = new Set(trimmed.evaluation.results.flatMap((r) => Object.keys(r)));
    trimmed.units = Object.fromEntries(Object.entries(answer.units).filter(([k]) => kept.has(k)));
    const block = answerBlock(trimmed);
    const check = await draw(block, false);
    check.drawn.forEach((boxes, i) => boxes.forEach((inner, j) => {
      if (inner !== whole.drawn[i][j]) {
        throw new Error(`page build: #${PRERENDERED[j][1]} (${DRAWN_IN[i][0]}) drawn from the trimmed first answer differs from the whole one's`);
      }
    }));
    const inner = whole.drawn[0];
    let filled = page.replace(/^<html lang="en">/m, '<html lang="en" class="first-answer">').replace('</body>', `${block}\n</body>`);
    PRERENDERED.forEach(([tag, id], i) => {
      if (!filled.includes(tag) || !inner[i]) throw new Error(`page build: ${src}/index.html: no empty ${tag}, or nothing drawn in #${id}`);
      filled = filled.replace(tag, tag.replace('></', `>${inner[i]}</`));
    });
    if (!filled.includes('class="first-answer"')) throw new Error(`page build: ${src}/index.html: no <html lang="en">`);
    console.log(`  (first answer in index.html: ${(answerBlock(answer).length / 1024).toFixed(1)} KB of JSON, ${(block.length / 1024).toFixed(1)} KB with the ${whole.used.size} paths the page reads)`);
    return filled;
  } finally {
    await browser.close();
    server.close();
  }
}

// 4. index.html: the source's preloads (one per module) become the bundle's: the module first
//    (the largest fetch), then the glue and any static chunk; the entry script last.
const preloadRe = /^<link rel="(?:modulepreload|preload)"[^>]*>\n|^<script type="module" src="app\.js"><\/script>\n/gm;
const first = html.search(preloadRe);
if (first < 0 || !html.includes('<script type="module" src="app.js"></script>')) {
  throw new Error(`${src}/index.html: no module preloads or app.js script tag where the build expects them`);
}
html = html.replace(preloadRe, '');
const head = [
  `<link rel="preload" href="${WASM}" as="fetch" type="application/wasm" crossorigin>`,
  `<link rel="modulepreload" href="${GLUE}">`,
  ...staticChunks.map((c) => `<link rel="modulepreload" href="${c}">`),
  '<script type="module" src="app.js"></script>',
].join('\n');
html = `${html.slice(0, first)}${head}\n${html.slice(first)}`;
fs.writeFileSync(path.join(out, 'index.html'), await prerendered(html, await firstAnswer()));

// 5. Checks, precompression and sizes.
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p); else files.push(p);
  }
};
walk(out);
files.sort();
for (const f of files.filter((x) => /\.(m?js)$/.test(x))) {
  const code = fs.readFileSync(f, 'utf8');
  const hit = FORBIDDEN.find((re) => re.test(code));
  if (hit) throw new Error(`${path.relative(repo, f)} matches ${hit}: the page's CSP forbids eval and new Function`);
}
// Every text file and the module get a `<file>.gz` made by zopfli (gzip format, ~4 % smaller
// than gzip -9), which scripts/serve.mjs sends as a static host's gzip_static would. zopfli is
// slow on the module (seconds), so results are kept by content hash between builds.
const zopfli = spawnSync('zopfli', ['-h']).error ? null : 'zopfli';
if (!zopfli) console.warn('page build: zopfli is missing (Debian package zopfli): serve.mjs will gzip -9 on the fly');
const cacheDir = `${out}-zopfli-cache`;
fs.mkdirSync(cacheDir, { recursive: true });
const gzipOf = async (f) => {
  const body = fs.readFileSync(f);
  if (!zopfli || !COMPRESSED.test(f)) return zlib.gzipSync(body, { level: 9 });
  const cached = path.join(cacheDir, `${crypto.createHash('sha256').update(body).digest('hex')}.gz`);
  if (!fs.existsSync(cached)) {
    await run(zopfli, ['-c', f], cached);
  }
  const gz = fs.readFileSync(cached);
  fs.writeFileSync(`${f}.gz`, gz);
  return gz;
};
const sizes = await Promise.all(files.map(async (f) => [f, fs.statSync(f).size, (await gzipOf(f)).length]));
// The cache keeps what this build used, nothing older.
const used = new Set(files.map((f) => `${crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex')}.gz`));
for (const c of fs.readdirSync(cacheDir)) if (!used.has(c)) fs.rmSync(path.join(cacheDir, c), { force: true });
let total = 0;
let totalGzip = 0;
let restGzip = 0;
console.log(`page build: ${path.relative(repo, out)}/ (from ${path.relative(repo, src)}/, esbuild ${esbuild.version}, ${zopfli ? 'zopfli' : 'gzip -9'})`);
for (const [f, raw, gz] of sizes) {
  total += raw;
  totalGzip += gz;
  if (!f.endsWith('.wasm')) restGzip += gz;
  console.log(`  ${path.relative(out, f).padEnd(28)} ${(raw / 1024).toFixed(1).padStart(7)} KB  ${(gz / 1024).toFixed(1).padStart(6)} KB gzip`);
}
console.log(`  (i18n/en.json in app.js: ${Object.keys(enBundled).length} of ${Object.keys(enSource).length} strings; the other ${Object.keys(enSource).length - Object.keys(enBundled).length} ship once, in index.html)`);
console.log(`  all files: ${(total / 1024).toFixed(1)} KB, ${(totalGzip / 1024).toFixed(1)} KB gzip; without the .wasm ${(restGzip / 1024).toFixed(1)} KB gzip`);
