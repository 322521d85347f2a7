// The page's call in the WASM module under node: decode + evaluate + JSON of the same scenario as
// tests/perf/eval_rate.cpp (`make perf` runs both). usage: node eval_rate_wasm.mjs [NATIVE_RATE]
// With the native rate (calls per second) it prints the native/WASM ratio as well.
import fs from 'node:fs';

const root = new URL('../../', import.meta.url);
const scenario = 'v=1';  // kPageScenario in eval_rate.cpp
const { default: factory } = await import(new URL('web/gen/gpucalc_wasm.mjs', root).href);
const m = await factory({ wasmBinary: fs.readFileSync(new URL('web/gen/gpucalc_wasm.wasm', root)) });

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

let sink = 0;
ratePerS(() => { sink += m.evaluate(scenario, false).length; }, 0.5);  // warm up the JIT
const evaluateJson = ratePerS(() => { sink += m.evaluate(scenario, false).length; }, 2.0);
const evaluateParsed = ratePerS(() => { sink += JSON.parse(m.evaluate(scenario, false)).results.length; }, 1.0);
if (sink === 0) throw new Error('no output');

const line = (label, x) => console.log(`  ${label.padEnd(44)}${Math.round(x).toLocaleString('en-US').padStart(10)} /s`);
console.log(`WASM module under node ${process.version}, scenario '${scenario}':`);
line('decode + evaluate + JSON (module.evaluate)', evaluateJson);
console.log('  (calls per CPU second of this process)');
line('the same + JSON.parse in JS', evaluateParsed);
const native = Number(process.argv[2]);
if (native > 0) {
  line('natively (perf_eval_rate --page-rate)', native);
  const ratio = native / evaluateJson;
  console.log(`  native / WASM: ${ratio.toFixed(2)}x  (issue 9 wants <= 2x)  ${ratio <= 2 ? 'ok' : 'ABOVE TARGET'}`);
}
