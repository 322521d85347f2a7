#!/usr/bin/env node
// Static server for web/: the right MIME types (application/wasm), gzip, and the strict
// Content-Security-Policy the page must run under. Used by `make serve` and the browser tests.
//
//   node scripts/serve.mjs [--root web] [--host 127.0.0.1] [--port 8000] [--base /sub/path/]
//
// --base serves the page under a sub-path (the tests check it works from one).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors *";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.md', '.txt']);

/** Starts a server; resolves to {server, url}. `extraRoutes` maps a path to a file. */
export function startServer({ root, host = '127.0.0.1', port = 8000, base = '/', csp = CSP,
  extraRoutes = {}, log = false } = {}) {
  const rootDir = path.resolve(root);
  const prefix = base.endsWith('/') ? base : `${base}/`;
  const gzipCache = new Map();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = null;
    if (extraRoutes[url.pathname]) {
      file = extraRoutes[url.pathname];
    } else if (url.pathname.startsWith(prefix) || `${url.pathname}/` === prefix) {
      let rel = decodeURIComponent(url.pathname.slice(prefix.length));
      if (rel === '' || rel.endsWith('/')) rel += 'index.html';
      file = path.resolve(rootDir, rel);
      if (file !== rootDir && !file.startsWith(rootDir + path.sep)) file = null;
    }
    if (url.pathname === prefix.slice(0, -1) && prefix !== '/') {
      res.writeHead(301, { Location: prefix + url.search });
      res.end();
      return;
    }
    let stat = null;
    try { stat = file && fs.statSync(file); } catch { stat = null; }
    if (!stat || !stat.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': csp });
      res.end('not found\n');
      if (log) console.log(`404 ${req.url}`);
      return;
    }
    const ext = path.extname(file).toLowerCase();
    const headers = {
      'Content-Type': TYPES[ext] || 'application/octet-stream',
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    };
    let body = fs.readFileSync(file);
    if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      const key = `${file}:${stat.mtimeMs}:${stat.size}`;
      if (!gzipCache.has(key)) gzipCache.set(key, zlib.gzipSync(body, { level: 9 }));
      body = gzipCache.get(key);
      headers['Content-Encoding'] = 'gzip';
      headers.Vary = 'Accept-Encoding';
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    if (log) console.log(`200 ${req.url} ${body.length} B`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({ server, url: `http://${host}:${actual}${prefix}` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
  };
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = opt('root', path.join(here, '..', 'web'));
  if (!fs.existsSync(path.join(root, 'gen', 'gpucalc_wasm.wasm'))) {
    console.error(`${root}/gen/gpucalc_wasm.wasm is missing: run \`make wasm\` first.`);
    process.exit(1);
  }
  const { url } = await startServer({
    root, host: opt('host', '127.0.0.1'), port: Number(opt('port', '8000')), base: opt('base', '/'),
    log: args.includes('--log'),
  });
  console.log(`gpucalc is served at ${url}  (Ctrl-C stops)`);
}
