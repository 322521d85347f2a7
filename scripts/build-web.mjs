#!/usr/bin/env node
// The page as it ships: web/ (sources) + web/gen/ (the WASM module, `make wasm`) -> build/web-dist/.
// `make web-dist` runs it; `make serve`, the browser tests and the benchmark serve its output.
//
//   node scripts/build-web.mjs [--src web] [--out build/web-dist]
//
//   app.js (+ every module it imports, i18n/en.json inlined)  -> app.js, minified ES module;
//     modules loaded with import() stay separate chunks, fetched only when imported
//     (embed-frame.js: the embed view, catalog=opener)
//   style.css                     -> minified
//   embed.js                      -> minified classic script (host pages load it, async, any time)
//   gen/gpucalc_wasm.mjs          -> minified (the Emscripten glue); gen/gpucalc_wasm.wasm copied
//   i18n/<lang>.json but English  -> minified, fetched only for that language
//   index.html                    -> module preloads of what the bundle imports, the module's
//                                    preload first; indentation dropped
//   favicon.png, oembed.json (minified), EMBED.md -> copied
//
// esbuild (scripts/package.json, `npm ci` from the lock file) emits no eval or new Function, so
// the page keeps its CSP (script-src 'self' 'wasm-unsafe-eval'). Prints each file's size, raw
// and gzip, and the total without the .wasm.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
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
const GLUE = 'gen/gpucalc_wasm.mjs';
const WASM = 'gen/gpucalc_wasm.wasm';
// Source checks of what a bundle must never contain under the page's CSP.
const FORBIDDEN = [/\beval\s*\(/, /\bnew\s+Function\s*\(/, /\bFunction\s*\(\s*["'`]/];

for (const f of [GLUE, WASM]) {
  if (!fs.existsSync(path.join(src, f))) {
    console.error(`${path.join(src, f)} is missing: run \`make wasm\` first.`);
    process.exit(1);
  }
}
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'gen'), { recursive: true });
fs.mkdirSync(path.join(out, 'i18n'), { recursive: true });

// 1. The page's modules: one bundle, dynamic imports as chunks beside it (flat, so that
//    import.meta.url-relative paths such as gen/ and i18n/ resolve as they do in web/).
const js = await esbuild.build({
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
});
const appOut = Object.entries(js.metafile.outputs).find(([, o]) => o.entryPoint)[1];
// Chunks app.js imports statically (shared code) are preloaded; dynamic ones are not.
const staticChunks = appOut.imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path));

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
await transform(GLUE, { format: 'esm' });
fs.copyFileSync(path.join(src, WASM), path.join(out, WASM));

// 3. Dictionaries other than English (inlined into the bundle), oEmbed: minified JSON.
const minJson = (from, to) => fs.writeFileSync(to, JSON.stringify(JSON.parse(fs.readFileSync(from, 'utf8'))));
for (const f of fs.readdirSync(path.join(src, 'i18n'))) {
  if (f.endsWith('.json') && f !== 'en.json') minJson(path.join(src, 'i18n', f), path.join(out, 'i18n', f));
}
minJson(path.join(src, 'oembed.json'), path.join(out, 'oembed.json'));
for (const f of ['favicon.png', 'EMBED.md']) fs.copyFileSync(path.join(src, f), path.join(out, f));

// 4. index.html: the source's preloads (one per module) become the bundle's: the module first
//    (the largest fetch), then the glue and any static chunk; the entry script last.
let html = fs.readFileSync(path.join(src, 'index.html'), 'utf8');
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
// Indentation is whitespace between tags (one space or newline renders the same), except in
// <pre> and <textarea>, whose content is kept as written.
html = html.split(/(<(?:pre|textarea)\b[\s\S]*?<\/(?:pre|textarea)>)/).map((part, i) =>
  (i % 2 ? part : part.replace(/\n[ \t]+/g, '\n').replace(/\n{2,}/g, '\n'))).join('');
fs.writeFileSync(path.join(out, 'index.html'), html);

// 5. Checks and sizes.
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p); else files.push(p);
  }
};
walk(out);
for (const f of files.filter((x) => /\.(m?js)$/.test(x))) {
  const code = fs.readFileSync(f, 'utf8');
  const hit = FORBIDDEN.find((re) => re.test(code));
  if (hit) throw new Error(`${path.relative(repo, f)} matches ${hit}: the page's CSP forbids eval and new Function`);
}
let total = 0;
let totalGzip = 0;
let restGzip = 0;
console.log(`page build: ${path.relative(repo, out)}/ (from ${path.relative(repo, src)}/, esbuild ${esbuild.version})`);
for (const f of files.sort()) {
  const body = fs.readFileSync(f);
  const gz = zlib.gzipSync(body, { level: 9 }).length;
  total += body.length;
  totalGzip += gz;
  if (!f.endsWith('.wasm')) restGzip += gz;
  console.log(`  ${path.relative(out, f).padEnd(28)} ${(body.length / 1024).toFixed(1).padStart(7)} KB  ${(gz / 1024).toFixed(1).padStart(6)} KB gzip`);
}
console.log(`  all files: ${(total / 1024).toFixed(1)} KB, ${(totalGzip / 1024).toFixed(1)} KB gzip; without the .wasm ${(restGzip / 1024).toFixed(1)} KB gzip`);
