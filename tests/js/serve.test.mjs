// scripts/serve.mjs under hostile requests: bounded, to 127.0.0.1 only. No request may
// stop the server; every answer carries the security headers; only the embed view is frameable.
// Run by `make test-serve` (part of `make test`); needs node only, no browser, no node_modules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, CSP, EMBED_CSP } from '../../scripts/serve.mjs';

let server;
let port;
let root;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gpucalc-serve-'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(root, 'app.js'), 'export {};');
  const started = await startServer({ root, host: '127.0.0.1', port: 0, base: '/sub/' });
  server = started.server;
  port = server.address().port;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  server.closeAllConnections?.();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Sends raw request bytes, returns {status, headers, body}; fails after 5 s. */
function raw(request) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer to ${JSON.stringify(request)}`)); }, 5000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const status = Number((lines[0].match(/^HTTP\/1\.[01] (\d{3})/) || [])[1]);
      const headers = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(request);
  });
}
const get = (target, method = 'GET') =>
  raw(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);

function assertSecurityHeaders(r, what) {
  assert.ok(r.headers['content-security-policy'], `${what}: no CSP`);
  assert.match(r.headers['content-security-policy'], /default-src 'self'/, what);
  assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(r.headers['referrer-policy'], 'no-referrer', what);
}

test('malformed paths get 400 with the security headers and the server keeps serving', async () => {
  const hostile = ['/sub/%ZZ', '/sub/%', '/sub/%ff', '/sub/%E0%A4%A', '/sub/a%00b', 'http://[::1/',
    'http://[::1/sub/', '/sub/%C0%AF', '/%ZZ', '/%'];
  for (const target of hostile) {
    const r = await get(target);
    assert.ok(r.status === 400 || r.status === 404, `${target}: status ${r.status}`);
    assertSecurityHeaders(r, target);
  }
  for (const target of ['/sub/%ZZ', '/sub/%', '/sub/%ff', 'http://[::1/']) {
    assert.equal((await get(target)).status, 400, target);
  }
  // Request lines Node's parser refuses outright: answered 400 on that socket only.
  for (const line of ['GET /sub/ HTTP/9.9\r\n\r\n', 'G\u0001T / HTTP/1.1\r\n\r\n', 'GET  HTTP/1.1\r\n\r\n',
    `GET /sub/ HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20000)}\r\n\r\n`]) {
    const r = await raw(line);
    assert.equal(r.status, 400, JSON.stringify(line.slice(0, 30)));
    assertSecurityHeaders(r, 'clientError');
  }
  const ok = await get('/sub/');
  assert.equal(ok.status, 200);
});

test('only GET and HEAD: other methods get 405 with Allow', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND']) {
    const target = method === 'CONNECT' ? '127.0.0.1:1' : '/sub/';
    const r = await get(target, method);
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.allow, 'GET, HEAD', method);
    assertSecurityHeaders(r, method);
  }
  const upgrade = await raw('GET /sub/ HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
  assert.equal(upgrade.status, 400);
  assertSecurityHeaders(upgrade, 'upgrade');
  const head = await get('/sub/app.js', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});

test('200, 301 and 404 carry the security headers; only the embed view is frameable', async () => {
  const page = await get('/sub/');
  assert.equal(page.status, 200);
  assert.equal(page.headers['content-security-policy'], CSP);
  assert.match(CSP, /frame-ancestors 'none'/);
  assert.equal(page.headers['x-frame-options'], 'DENY');
  const embed = await get('/sub/?embed=1&lang=zh');
  assert.equal(embed.status, 200);
  assert.equal(embed.headers['content-security-policy'], EMBED_CSP);
  assert.match(EMBED_CSP, /frame-ancestors \*/);
  assert.equal(embed.headers['x-frame-options'], undefined);
  // embed=1 on a script or an unknown path does not make it frameable.
  assert.equal((await get('/sub/app.js?embed=1')).headers['content-security-policy'], CSP);
  assert.equal((await get('/sub/?embed=0')).headers['content-security-policy'], CSP);
  const moved = await get('/sub?embed=1');
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.location, '/sub/?embed=1');
  assertSecurityHeaders(moved, '301');
  for (const target of ['/sub/missing.js', '/elsewhere', '/sub/../../etc/passwd', '/sub/%2e%2e/%2e%2e/etc/passwd']) {
    const r = await get(target);
    assert.equal(r.status, 404, target);
    assertSecurityHeaders(r, target);
    assert.equal(r.headers['content-security-policy'], CSP, target);
  }
});

test('a burst of hostile requests, then the page still answers 200', async () => {
  const targets = ['/sub/%ZZ', '/sub/%', '/sub/%ff', 'http://[::1/', '/sub/?catalog=%25ZZ', '/sub/%25ZZ'];
  const burst = [];
  for (let i = 0; i < 60; i++) burst.push(get(targets[i % targets.length], i % 7 === 0 ? 'POST' : 'GET'));
  const answers = await Promise.all(burst);
  for (const r of answers) assert.ok([200, 400, 404, 405].includes(r.status), `status ${r.status}`);
  const page = await get('/sub/');
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>t<\/title>/);
  assert.ok(server.listening);
});

test('parent= origins are normalised before they are matched (web/embed-frame.js)', async () => {
  const { allowedParentOrigins } = await import('../../web/embed-frame.js');
  assert.deepEqual(allowedParentOrigins('https://Host.Example/'), ['https://host.example']);
  assert.deepEqual(allowedParentOrigins('https://a.example:443/path, HTTP://B.example:8080/'),
    ['https://a.example', 'http://b.example:8080']);
  assert.deepEqual(allowedParentOrigins('not a url,,javascript:alert(1) file:///x'), []);
  assert.deepEqual(allowedParentOrigins(null), []);
});

test('a precompressed <file>.gz is sent only while it holds the file as it is; an update with an older or equal mtime is not served stale', async () => {
  const zlib = await import('node:zlib');
  const file = path.join(root, 'big.js');
  const before = 'export const x = 1;\n'.repeat(50);
  fs.writeFileSync(file, before);
  // Level 1, as no server writes it: a body equal to these bytes was the precompressed file.
  const gz = zlib.gzipSync(before, { level: 1 });
  fs.writeFileSync(`${file}.gz`, gz);
  const t = Date.now() / 1000;
  fs.utimesSync(file, t - 10, t - 10);
  fs.utimesSync(`${file}.gz`, t, t);
  const fetchGz = () => raw(`GET /sub/big.js HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`);
  let r = await fetchGz();
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-encoding'], 'gzip');
  assert.ok(Buffer.from(r.body, 'latin1').equals(gz), 'the precompressed file is sent');
  assertSecurityHeaders(r, 'precompressed');
  // Updated (same size), its mtime older than the .gz's, then equal to it: the new text is sent.
  const after = 'export const y = 2;\n'.repeat(50);
  for (const mtime of [t - 20, t]) {
    fs.writeFileSync(file, after);
    fs.utimesSync(file, mtime, mtime);
    r = await fetchGz();
    assert.equal(zlib.gunzipSync(Buffer.from(r.body, 'latin1')).toString(), after, `mtime ${mtime - t} s from the .gz`);
    fs.writeFileSync(file, before);
  }
  // Back to the text the .gz holds: it is sent again.
  fs.utimesSync(file, t - 10, t - 10);
  r = await fetchGz();
  assert.ok(Buffer.from(r.body, 'latin1').equals(gz));
});
