// The WASM modules embed the catalog files as scripts/embed-data.mjs writes them (minified, the
// prose keys their loaders ignore left out); the native CLI embeds data/ as written. A key the
// core reads that the script drops shows here: the page module's replies must be the native
// CLI's on scenarios that reach every stripped file (engines, model constants, kernel tables,
// error bands) and every listing the page shows (the price's source and date among them). The
// listings are compared without exactly the entry notes the script drops (ENTRY_PROSE: the page
// shows none of them), and those notes must be absent from the page module's listing.
//
//   GPUCALC_CLI=build/native/cli/gpucalc node --test tests/js/embedded-data.test.mjs
//
// Numbers are compared to 1e-9 relative (the two builds' libm may differ in the last bits);
// everything else, key order included, exactly.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as gpucalc from '../../web/gpucalc.js';
import { ENTRY_PROSE, stripEntryProse } from '../../scripts/embed-data.mjs';

const root = new URL('../../', import.meta.url);
const cli = process.env.GPUCALC_CLI || new URL('build/native/cli/gpucalc', root).pathname;

/** The CLI's stdout for `args`, parsed. */
const native = (args) => JSON.parse(execFileSync(cli, [...args, '--format', 'json'],
  { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] }));

/** Paths where `a` and `b` differ: numbers within 1e-9 relative count as equal. */
function differences(a, b, where = '', out = []) {
  if (out.length >= 5) return out;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b))) out.push(`${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${where}: ${a.length} vs ${b.length} entries`);
    else a.forEach((x, i) => differences(x, b[i], `${where}[${i}]`, out));
  } else if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).join(','), kb = Object.keys(b).join(',');
    if (ka !== kb) out.push(`${where}: keys ${ka} vs ${kb}`);
    else for (const k of Object.keys(a)) differences(a[k], b[k], `${where}.${k}`, out);
  } else if (a !== b) {
    out.push(`${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  return out;
}

const same = (page, cliReply, what) => {
  const d = differences(page, cliReply);
  assert.deepEqual(d, [], `${what}: the page module (embedded data stripped) differs from the native CLI`);
};

// Every engine, both vendors' kernel tables, racks, disaggregated serving, MTP, training, the
// error bands of each vendor and regime, a scenario that fails. The last two leave expert
// parallelism free where two layouts give identical figures: the serving curve's sort breaks
// such ties by the order the layouts were tried in, so libstdc++ (native) and libc++ (the
// module) keep the same layout (they kept different ones before).
const SCENARIOS = [
  'v=1',
  'v=1&model=deepseek-r1-0528&users=64&interactivity=30',
  'v=1&model=deepseek-r1-0528&engine=trtllm&compare=ref-8x-b200-neocloud,ref-8x-h200-neocloud&users=256',
  'v=1&model=deepseek-r1-0528&engine=sglang&compare=fullgpu-8x-mi355x,server-8x-mi300x,server-8x-mi325x&users=16&ep=8&dpa=1',
  'v=1&model=gpt-oss-120b&engine=vllm&compare=fullgpu-1x-h200,server-8x-h100&users=4',
  'v=1&model=llama-3.1-70b&engine=atom&compare=fullgpu-8x-mi355x,server-8x-mi350x&weights=fp8&users=32',
  'v=1&model=kimi-k2.5&compare=ref-nvl72-gb200-neocloud,ref-nvl72-gb300-neocloud&pd=auto&users=512',
  'v=1&model=kimi-k2.5&weights=fp4&compare=rack-72x-vr200,rack-72x-mi455x&users=64&ep=8',
  'v=1&model=qwen3-next-80b-a3b&weights=fp4&compare=ref-8x-b300-neocloud,ref-8x-mi355x-neocloud',
  'v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud',
  'v=1&model=deepseek-v4-flash&users=8&ep=1',
  'v=1&model=nope',
  'v=1&model=deepseek-v4-flash&users=8',
  'v=1&model=kimi-k2.5&weights=fp4&compare=rack-72x-vr200,rack-72x-mi455x&users=64',
];

test('the page module\'s replies are the native CLI\'s (data/ embedded whole)', async () => {
  assert.ok(fs.existsSync(cli), `${cli}: build the native CLI first (make native), or set GPUCALC_CLI`);
  const page = await gpucalc.instantiate(new URL('web/gen/gpucalc_wasm_page.mjs', root).href,
    { wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm_page.wasm', root)) });
  // The page module writes no traces (traces_linked(): its trace code is left out): the whole
  // module, which embeds the same files, writes them.
  const whole = await gpucalc.instantiate(new URL('web/gen/gpucalc_wasm.mjs', root).href,
    { wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm.wasm', root)) });
  const refused = JSON.parse(page.evaluate('v=1', true));
  assert.equal(refused.error && refused.error.code, 'not_allowed', 'the page module refuses a trace');
  assert.equal(refused.error.field, 'trace');
  let evaluated = 0;
  for (const s of SCENARIOS) {
    const reply = JSON.parse(page.evaluate(s, false));
    if (reply.error) {
      // A failing scenario: the CLI exits non-zero with the same message on stderr.
      assert.throws(() => native([s]), (e) => e.status !== 0 && String(e.stderr).includes(reply.error.message), s);
      continue;
    }
    same(reply, native([s]), s);
    ++evaluated;
    same(JSON.parse(whole.evaluate(s, true)), native([s, '--explain']), `${s} (trace, whole module)`);
    same(JSON.parse(page.fitTable(s)), native(['--fit-table', s]), `${s} (fit table)`);
  }
  assert.ok(evaluated >= SCENARIOS.length - 1, 'every scenario but the last evaluates');
  for (const what of ['gpus', 'models', 'offerings']) {
    const lists = { [what]: ENTRY_PROSE[`${what}.json`][what] };
    const listing = JSON.parse(page.catalogJson(what));
    // The listing writes an entry's note as "" where the catalog has none: the page module's
    // are all "", the CLI's hold the text (so the script did drop them, and nothing else).
    for (const [list, keys] of Object.entries(lists)) {
      for (const e of listing[list] || []) for (const k of keys) assert.ok(!e[k], `${what}: ${e.id}.${k} is embedded`);
    }
    const cliListing = native(['--list', what]);
    assert.ok(Object.entries(lists).some(([list, keys]) => (cliListing[list] || []).some((e) => keys.some((k) => e[k]))),
      `${what}: the CLI lists notes`);
    same(stripEntryProse(listing, lists), stripEntryProse(cliListing, lists), what);
  }
  // The price's source and date, as the page shows them, are in the page module's listing.
  const offerings = JSON.parse(page.catalogJson('offerings')).offerings;
  assert.ok(offerings.some((o) => o.price_source && o.price_date), 'an offering with its price source and date');
});
