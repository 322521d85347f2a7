// The page's call in the WASM module under node: decode + evaluate + JSON of the same scenario as
// tests/perf/eval_rate.cpp (`make perf` runs both).
// usage: node eval_rate_wasm.mjs [NATIVE_RATE | PATH_TO_perf_eval_rate]
// With a native rate (calls per second) it prints the native/WASM ratio as well. With the path of
// perf_eval_rate it measures both in alternating rounds (native --page-rate and the module) and
// prints each round's ratio and their median: on a shared machine the speed drifts by a third
// within a minute, and one window of each, a minute apart, reads that drift as well. It first
// checks that both sides give the same reply (perf_eval_rate --page-reply), and prints the
// machine's load average after each round.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

const root = new URL('../../', import.meta.url);
const scenario = 'v=1';  // kPageScenario in eval_rate.cpp
// The module the page calls: its first one (gpucalc_wasm_page, wasm/CMakeLists.txt).
// Its C exports through web/gpucalc.js's wrapper, as the page calls them (text in and out of the
// module's memory).
const { instantiate } = await import(new URL('web/gpucalc.js', root).href);
const m = await instantiate(new URL('web/gen/gpucalc_wasm_page.mjs', root).href,
  { wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm_page.wasm', root)) });

/** CPU seconds of this process (as perf_eval_rate counts): on a shared machine wall time counts
 *  the other jobs too. */
function cpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Calls per CPU second of `body`, in growing batches until `minS` CPU seconds pass. */
function ratePerS(body, minS) {
  let done = 0;
  let batch = 64;
  const t0 = cpuSeconds();
  let elapsed = 0;
  while (elapsed < minS) {
    for (let i = 0; i < batch; ++i) body();
    done += batch;
    elapsed = cpuSeconds() - t0;
    if (batch < 1 << 16) batch *= 2;
  }
  return done / elapsed;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let sink = 0;
const call = () => { sink += m.evaluate(scenario, false).length; };
ratePerS(call, 0.5);  // warm up the JIT
const arg = process.argv[2];
const nativeBinary = arg && !/^[0-9.]+$/.test(arg) ? arg : null;
// Nine rounds, each a pair measured back to back, the pair's order alternating (native first in
// even rounds, the module first in odd ones), so a load that rises or falls through the run
// weighs on both sides alike; the ratio is the median of the pairs' ratios.
const rounds = nativeBinary ? 9 : 1;
const wasmRates = [];
const nativeRates = [];
const loads = [];  // the machine's 1-minute load average after each round
const nativeRate = () => Number(execFileSync(nativeBinary, ['--page-rate']).toString());
// Both sides must do the same work: the module's reply and the native one (perf_eval_rate
// --page-reply, the call --page-rate times) are the same text.
const sha = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);
let sameReply = '';
if (nativeBinary) {
  const nativeReply = execFileSync(nativeBinary, ['--page-reply'], { maxBuffer: 1 << 26 }).toString();
  const wasmReply = m.evaluate(scenario, false);
  if (nativeReply !== wasmReply) {
    throw new Error(`the module's reply (sha256 ${sha(wasmReply)}, ${wasmReply.length} bytes) differs from the native one (${sha(nativeReply)}, ${nativeReply.length} bytes): the two sides do not do the same work`);
  }
  sameReply = `${sha(wasmReply)} (${wasmReply.length} bytes)`;
}
for (let round = 0; round < rounds; ++round) {
  if (nativeBinary && round % 2 === 0) nativeRates.push(nativeRate());
  wasmRates.push(ratePerS(call, 2.0));
  if (nativeBinary && round % 2 === 1) nativeRates.push(nativeRate());
  loads.push(os.loadavg()[0]);
}
if (!nativeBinary && Number(arg) > 0) nativeRates.push(Number(arg));
const evaluateParsed = ratePerS(() => { sink += JSON.parse(m.evaluate(scenario, false)).results.length; }, 1.0);
if (sink === 0) throw new Error('no output');

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const line = (label, x) => console.log(`  ${label.padEnd(44)}${fmt(x).padStart(10)} /s`);
console.log(`WASM module under node ${process.version}, scenario '${scenario}':`);
line('decode + evaluate + JSON (module.evaluate)', median(wasmRates));
console.log(rounds > 1 ? `  (calls per CPU second of this process, median of ${rounds} rounds)` : '  (calls per CPU second of this process)');
line('the same + JSON.parse in JS', evaluateParsed);
if (nativeRates.length > 0) {
  line('natively (perf_eval_rate --page-rate)', median(nativeRates));
  if (rounds > 1) {
    const each = nativeRates.map((n, i) => `${fmt(n)} / ${fmt(wasmRates[i])} = ${(n / wasmRates[i]).toFixed(2)}x (load ${loads[i].toFixed(1)})`);
    console.log(`  rounds (native / WASM, the machine's load average after the round): ${each.join(', ')}`);
  }
  if (sameReply) console.log(`  the same reply natively and in the module: sha256 ${sameReply}`);
  const ratio = median(nativeRates.map((n, i) => n / wasmRates[i]));
  console.log(`  native / WASM: ${ratio.toFixed(2)}x${rounds > 1 ? ' (median of the rounds)' : ''}  (the target is <= 2x)  ${ratio <= 2 ? 'ok' : 'ABOVE TARGET'}`);
  // For `make perf`'s summary (tests/js/bench.mjs prints it with the page's figures).
  const out = new URL('build/web/', root);
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(new URL('eval-rate.json', out), `${JSON.stringify({ native_over_wasm: ratio, rounds, load_average: loads, measured_at: new Date().toISOString() })}\n`);
}
