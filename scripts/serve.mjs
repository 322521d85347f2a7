#!/usr/bin/env node
// Static server for the page (build/web-dist/ or web/): the right MIME types (application/wasm),
// gzip (a precompressed `<file>.gz` beside a file when it holds the file's current bytes, else gzip -9 on the fly), and the strict
// Content-Security-Policy the page must run under. Used by `make serve` and the browser tests.
//
//   node scripts/serve.mjs [--root web] [--host 127.0.0.1] [--port 8000] [--base /sub/path/]
//                          [--catalog-origin https://vendor.example]...
//
// --catalog-origin lets the page fetch price lists from that origin (connect-src): a link made
// in a vendor's embed carries `catalog=<the vendor's list>` (web/EMBED.md).
// --base serves the page under a sub-path (the tests check it works from one).
//
// No request can stop the server: a path that does not decode or parse gets 400, a method other
// than GET and HEAD 405, a handler failure 500, a malformed request line 400 from the socket
// handler. Every response carries the security headers (tests/js/serve.test.mjs checks it).
// Framing (web/EMBED.md): only the embed view (`?embed=1`, as web/app.js selects it) may be
// framed by any site; the full page, with its price-list loader, sends frame-ancestors 'none'.
import crypto from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const CSP_BASE = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'";
/** The full page and every other response: no site may frame it. */
export const CSP = `${CSP_BASE}; frame-ancestors 'none'`;
/** The embed view (`?embed=1`): any site may frame it. */
export const EMBED_CSP = `${CSP_BASE}; frame-ancestors *`;

/** The page's policy when it may fetch price lists (`catalog=<url>`, links made in a vendor's
 *  embed) from `catalogOrigins` as well as its own origin; the plain policy when none. */
export function policy(catalogOrigins, frameable) {
  const base = frameable ? EMBED_CSP : CSP;
  const origins = (catalogOrigins || []).map((o) => new URL(o).origin);
  return origins.length ? `${base}; connect-src 'self' ${origins.join(' ')}` : base;
}

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
const STATUS_TEXT = { 400: 'bad request', 404: 'not found', 405: 'method not allowed', 500: 'server error' };

/** `<file>.gz` beside the file (the page build writes them with zopfli) when it holds exactly
 *  `body`, the file as it is now; else null. A modification time proves nothing here: a copy or
 *  an update that keeps an older or equal mtime leaves a stale .gz that looks new. */
function precompressed(file, body) {
  try {
    const gz = fs.readFileSync(`${file}.gz`);
    return zlib.gunzipSync(gz).equals(body) ? gz : null;
  } catch {
    return null;
  }
}

/** Headers every response carries; `frameable` only for the embed view's HTML. */
function securityHeaders(csp, frameable, catalogOrigins) {
  const headers = {
    'Content-Security-Policy': csp ?? policy(catalogOrigins, frameable),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
  // Older browsers without frame-ancestors: X-Frame-Options has no "any site", so only deny.
  if (!frameable) headers['X-Frame-Options'] = 'DENY';
  return headers;
}

/** Starts a server; resolves to {server, url}. `extraRoutes` maps a path to a file. `csp`, when
 *  given, replaces the policy of every response (the tests' host page uses its own).
 *  `catalogOrigins`: origins the page may fetch vendors' price lists from (connect-src), read at
 *  each response; `headers`: added to every response (a vendor's host sending CORS headers). */
export function startServer({ root, host = '127.0.0.1', port = 8000, base = '/', csp,
  catalogOrigins = [], headers: extraHeaders = {}, extraRoutes = {}, log = false } = {}) {
  const headersFor = (frameable) => ({ ...securityHeaders(csp, frameable, catalogOrigins), ...extraHeaders });
  const rootDir = path.resolve(root);
  const prefix = base.endsWith('/') ? base : `${base}/`;
  const gzipCache = new Map(); // file -> {hash, gz}: the compressed body of the file's content

  const plain = (req, res, status, extra = {}) => {
    const body = `${STATUS_TEXT[status] || 'error'}\n`;
    res.writeHead(status, {
      ...headersFor(false),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      ...extra,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    if (log) console.log(`${status} ${JSON.stringify(req.url)}`);
  };

  const handle = (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      plain(req, res, 405, { Allow: 'GET, HEAD' });
      return;
    }
    let url;
    try {
      url = new URL(req.url, 'http://localhost');
    } catch {
      plain(req, res, 400);
      return;
    }
    let file = null;
    if (extraRoutes[url.pathname]) {
      file = extraRoutes[url.pathname];
    } else if (url.pathname.startsWith(prefix) || `${url.pathname}/` === prefix) {
      let rel;
      try {
        rel = decodeURIComponent(url.pathname.slice(prefix.length));
      } catch {
        plain(req, res, 400);  // "%ZZ", "%", "%ff": not a path
        return;
      }
      if (rel.includes('\0')) {
        plain(req, res, 400);
        return;
      }
      if (rel === '' || rel.endsWith('/')) rel += 'index.html';
      file = path.resolve(rootDir, rel);
      if (file !== rootDir && !file.startsWith(rootDir + path.sep)) file = null;
    }
    if (url.pathname === prefix.slice(0, -1) && prefix !== '/') {
      res.writeHead(301, { ...headersFor(false), Location: prefix + url.search, 'Content-Length': 0 });
      res.end();
      return;
    }
    let stat = null;
    try { stat = file && fs.statSync(file); } catch { stat = null; }
    if (!stat || !stat.isFile()) {
      plain(req, res, 404);
      return;
    }
    const ext = path.extname(file).toLowerCase();
    const frameable = ext === '.html' && url.searchParams.get('embed') === '1';
    const headers = {
      ...headersFor(frameable),
      'Content-Type': TYPES[ext] || 'application/octet-stream',
    };
    let body = fs.readFileSync(file);
    if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      // Keyed by the content itself, not its mtime or size (an update may keep both).
      const hash = crypto.createHash('sha256').update(body).digest('base64');
      let cached = gzipCache.get(file);
      if (!cached || cached.hash !== hash) {
        cached = { hash, gz: precompressed(file, body) || zlib.gzipSync(body, { level: 9 }) };
        gzipCache.set(file, cached);
      }
      body = cached.gz;
      headers['Content-Encoding'] = 'gzip';
      headers.Vary = 'Accept-Encoding';
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    if (log) console.log(`200 ${JSON.stringify(req.url)} ${body.length} B`);
  };

  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch (e) {
      if (log) console.log(`500 ${JSON.stringify(req.url)} ${e && e.message}`);
      if (!res.headersSent) plain(req, res, 500);
      else res.destroy();
    }
  });
  // CONNECT and Upgrade requests bypass the request handler: refuse them on their socket.
  const refuseOnSocket = (status, reason, extra) => (req, socket) => {
    const body = `${STATUS_TEXT[status]}\n`;
    const head = Object.entries({
      ...headersFor(false),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
      ...extra,
    }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\n${head}\r\n${body}`);
    else socket.destroy();
  };
  server.on('connect', refuseOnSocket(405, 'Method Not Allowed', { Allow: 'GET, HEAD' }));
  server.on('upgrade', refuseOnSocket(400, 'Bad Request', {}));
  // A request Node's parser refuses (bad request line, oversized headers) never reaches the
  // handler: answer 400 with the same headers, then close that connection only.
  server.on('clientError', (err, socket) => {
    if (err.code === 'ECONNRESET') socket.destroy();
    else refuseOnSocket(400, 'Bad Request', {})(null, socket);
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
  const catalogOrigins = args.flatMap((a, i) => (a === '--catalog-origin' && i + 1 < args.length ? [args[i + 1]] : []));
  const { url } = await startServer({
    root, host: opt('host', '127.0.0.1'), port: Number(opt('port', '8000')), base: opt('base', '/'),
    catalogOrigins, log: args.includes('--log'),
  });
  console.log(`gpucalc is served at ${url}  (Ctrl-C stops)`);
}
