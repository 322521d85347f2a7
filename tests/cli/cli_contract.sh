#!/usr/bin/env bash
# End-to-end contract of the gpucalc CLI: the issue's done-when scenario and its error paths.
# usage: cli_contract.sh PATH/TO/gpucalc SOURCE_DIR
set -u
bin=$1
src=$2
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# Bad input: one line on stderr, non-zero exit, nothing on stdout.
expect_error() {  # expect_error NAME FIELD ARGS...
  local name=$1 field=$2
  shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "$name: non-zero exit" test "$rc" -ne 0
  check "$name: one line on stderr" test "$(wc -l <"$tmp/err")" -eq 1
  check "$name: names $field" grep -q -- "$field" "$tmp/err"
  check "$name: no stdout" test ! -s "$tmp/out"
}

expect_error "unknown model" "model" 'v=1&model=no-such-model'
expect_error "weights=fp3" "weights" 'v=1&weights=fp3'
expect_error "context=-5" "context" 'v=1&context=-5'
expect_error "context=1e30" "context" 'v=1&context=1e30'
expect_error "empty string" "scenario" ''
# Linux caps one argument at 128 KiB: a 100 KB argument, and 1 MB through standard input.
expect_error "100 KB string" "scenario" "$(head -c 100000 /dev/zero | tr '\0' 'a')"
head -c 1048576 /dev/zero | tr '\0' 'a' >"$tmp/big"
"$bin" - <"$tmp/big" >"$tmp/out" 2>"$tmp/err"
check "1 MB string on stdin: non-zero exit" test $? -ne 0
check "1 MB string on stdin: one line naming scenario" test "$(grep -c scenario "$tmp/err")" -eq 1
echo '{"gpus": [{"id": "x", "name": "x", "hbm_gb": "lots"}]}' >"$tmp/bad.json"
expect_error "malformed catalog" "bad.json" --catalog "$tmp/bad.json" 'v=1'
echo '{"gpus": [' >"$tmp/broken.json"
expect_error "broken JSON catalog" "broken.json" --catalog "$tmp/broken.json" 'v=1'
expect_error "missing catalog file" "nope.json" --catalog "$tmp/nope.json" 'v=1'
expect_error "unknown option" "--frobnicate" --frobnicate 'v=1'
expect_error "future version" "v" 'v=2'
expect_error "bad format" "--format" --format xml 'v=1'

# The done-when scenario, marketed basis.
scenario='v=1&model=llama-3.1-70b&weights=fp8&kv=fp8&context=131072&users=1&capacity=marketed&reserve=0&compare=fullgpu-8x-mi355x,fullgpu-8x-h200'
"$bin" --format json "$scenario" >"$tmp/m.json" 2>"$tmp/err"
check "json exit 0" test $? -eq 0
py() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }
check "scenario canonical" py "$tmp/m.json" "assert d['scenario'].startswith('v=1&model=llama-3.1-70b&weights=fp8&kv=fp8&context=131072&users=1&compare=fullgpu-8x-mi355x,fullgpu-8x-h200&capacity=marketed&reserve=0'), d['scenario']"
check "capacity basis said" py "$tmp/m.json" "assert d['capacity_basis'] == 'marketed'"
check "163,840 KV bytes per token" py "$tmp/m.json" "assert all(r['kv_bytes_per_token'] == 163840 for r in d['results'])"
check "KV free, whole server" py "$tmp/m.json" "r=d['results']; assert abs(r[0]['kv_free_bytes'] - (8*288e9 - 70.55e9)) < 1e3 and abs(r[1]['kv_free_bytes'] - (8*141e9 - 70.55e9)) < 1e3"
check "full contexts" py "$tmp/m.json" "r=d['results']; assert r[0]['full_contexts'] == 104 and r[1]['full_contexts'] == 49, (r[0]['full_contexts'], r[1]['full_contexts'])"
check "prices" py "$tmp/m.json" "r=d['results']; assert r[0]['price_month_usd'] == 19900 and round(r[1]['price_gpu_hour_usd'], 2) == 4.09 and round(r[1]['price_gb_month_usd'], 2) == 21.19"
check "required fields" py "$tmp/m.json" "
keys = 'offering gpu gpu_count weights_bytes kv_bytes_per_token gpus_needed_weights_only gpus_needed kv_free_bytes full_contexts price_month_usd price_gpu_hour_usd price_gb_month_usd'.split()
assert all(k in r for r in d['results'] for k in keys)"
# Per GPU, as the seed's paragraph counts it: about 70 GB / 3 contexts and 218 GB / 10 contexts.
"$bin" --format json "$scenario&tp=1" >"$tmp/p.json"
check "seed paragraph per GPU" py "$tmp/p.json" "r=d['results']; assert round(r[1]['kv_free_bytes_per_gpu']/1e9) == 70 and r[1]['full_contexts_per_instance'] == 3 and abs(r[0]['kv_free_bytes_per_gpu']/1e9 - 218) < 1 and r[0]['full_contexts_per_instance'] == 10"
# Device basis: the H200 reports 143,771 MiB.
"$bin" --format json "${scenario/capacity=marketed/capacity=device}" >"$tmp/d.json"
check "device basis" py "$tmp/d.json" "r=d['results']; assert d['capacity_basis'] == 'device' and r[1]['capacity_bytes_per_gpu'] == 143771*1048576 and r[0]['capacity_assumed'] and not r[1]['capacity_assumed']"

# Other faces: lists, csv, table, explain, catalog extension, calibration, HF import.
for what in gpus models offerings; do
  "$bin" --list $what --format json >"$tmp/l.json"
  check "--list $what" py "$tmp/l.json" "assert len(d['$what']) > 0"
done
"$bin" --format csv "$scenario" >"$tmp/c.csv"
check "csv rows" test "$(wc -l <"$tmp/c.csv")" -eq 3
"$bin" --explain "$scenario" >"$tmp/e.txt"
check "explain shows formulas" grep -q "weights_bytes = params_total" "$tmp/e.txt"
cat >"$tmp/prices.json" <<'JSON'
{"offerings": [{"id": "vendor-8x-b200", "name": "8x B200 (vendor)", "gpu": "b200", "gpu_count": 8, "price_usd_per_month": 30000, "sources": ["vendor price list"]}]}
JSON
"$bin" --catalog "$tmp/prices.json" --format json 'v=1&compare=vendor-8x-b200' >"$tmp/v.json"
check "vendor price list" py "$tmp/v.json" "assert d['results'][0]['price_month_usd'] == 30000"
cat >"$tmp/config.json" <<'JSON'
{"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
 "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072}
JSON
"$bin" --hf-config "$tmp/config.json" --model-id my-8b --format json 'v=1&model=my-8b' >"$tmp/h.json"
check "hf config import" py "$tmp/h.json" "assert abs(d['model']['params_total'] - 8.03e9) < 0.05e9"
"$bin" --keys >"$tmp/k.txt"
check "--keys lists keys" grep -q "^compare" "$tmp/k.txt"
# docs/scenario.md's key table is the schema's: regenerate it with gpucalc --keys --format markdown.
"$bin" --keys --format markdown >"$tmp/k.md"
sed -n '/<!-- keys:begin/,/<!-- keys:end/p' "$src/docs/scenario.md" | grep '^|' >"$tmp/readme-keys.md"
check "docs/scenario.md key table matches gpucalc --keys --format markdown" diff "$tmp/k.md" "$tmp/readme-keys.md"
"$bin" --keys --format json >"$tmp/k.json"
check "--keys --format json" py "$tmp/k.json" "assert d[0]['key'] == 'v' and all('kind' in k and 'default' in k for k in d)"
# CSV: RFC 4180 from the core (CRLF lines, the scenario cell quoted: it holds commas).
check "csv quoted scenario, CRLF" python3 -c '
import subprocess, sys
out = subprocess.run([sys.argv[1], "--format", "csv", "v=1"], capture_output=True).stdout
assert out.count(b"\r\n") == 3 and b"\r\n\"v=1&model=" in out, out[:200]' "$bin"
check "json echoes inputs" py "$tmp/m.json" "assert d['inputs']['capacity'] == 'marketed' and d['inputs']['users'] == 1 and d['inputs']['util'] == 0.7"
"$bin" --fit-table --format json 'v=1' >"$tmp/f.json"
check "--fit-table" py "$tmp/f.json" "assert len(d['rows']) > 0"

# Every data/ file but the validation tables loads with --catalog; a changed copy of
# performance.json changes the answer; an invalid one fails loudly, naming the file and field.
for f in "$src"/data/*.json "$src"/data/calibration/*.json; do
  [ -e "$f" ] || continue
  case "$(basename "$f")" in validation*) continue ;; esac
  cp "$f" "$tmp/copy-$(basename "$f")"
  check "--catalog copy of $(basename "$f")" bash -c '"$0" --catalog "$1" --format json v=1 >/dev/null' \
    "$bin" "$tmp/copy-$(basename "$f")"
done
python3 - "$src/data/performance.json" "$tmp/slow.json" "$tmp/broken-perf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["matmul_fraction"]["value"] = d["matmul_fraction"]["value"] / 2
d["large_m_matmul_fraction"]["value"] = d["large_m_matmul_fraction"]["value"] / 2
json.dump(d, open(sys.argv[2], "w"))
del d["hbm_fraction"]
json.dump(d, open(sys.argv[3], "w"))
PY
"$bin" --format json 'v=1' >"$tmp/base.json"
"$bin" --catalog "$tmp/slow.json" --format json 'v=1' >"$tmp/slow-out.json"
check "changed performance.json changes the answer" python3 -c "
import json; a = json.load(open('$tmp/base.json')); b = json.load(open('$tmp/slow-out.json'))
assert b['results'][0]['ttft_s'] > a['results'][0]['ttft_s'], (a['results'][0]['ttft_s'], b['results'][0]['ttft_s'])"
expect_error "performance.json without a constant" "hbm_fraction" --catalog "$tmp/broken-perf.json" 'v=1'
# TTFT: the mean and the median, each named; the band printed beside the median, naming it.
check "json: median TTFT at most the mean, band says median" python3 -c "
import json; r = json.load(open('$tmp/base.json'))['results'][0]
assert 0 < r['ttft_median_s'] <= r['ttft_s'], (r['ttft_median_s'], r['ttft_s'])
assert r['error_band']['ttft']['statistic'].startswith('median'), r['error_band']['ttft']"
"$bin" 'v=1' >"$tmp/table.txt"
check "table: TTFT rows name mean and median" grep -q "TTFT, median" "$tmp/table.txt"
check "table: TTFT band names its statistic" grep -q "ttft (median[^)]*) ±" "$tmp/table.txt"
# Hostile input: bounded reads, escaped control characters, the fixtures' errors.
hostile="$src/tests/fixtures/hostile"
bounded() {  # bounded NAME FIELD ARGS...: refused within 5 s, one line naming FIELD
  local name=$1 field=$2
  shift 2
  timeout 5 "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/zero
  local rc=$?
  check "$name: refused, not read to the end" test "$rc" -eq 2
  check "$name: names $field" grep -q -- "$field" "$tmp/err"
}
bounded "--catalog /dev/zero" "larger than 16 MiB" --catalog /dev/zero 'v=1'
bounded "--hf-config /dev/zero" "larger than 1 MiB" --hf-config /dev/zero 'v=1'
bounded "stdin /dev/zero" "scenario" -
"$bin" --catalog "$hostile/ansi.json" 'v=1&compare=e' >"$tmp/t.txt" 2>&1
check "escape codes in names do not reach the terminal" bash -c "! grep -q \$'\\x1b' '$tmp/t.txt'"
check "escape codes shown escaped" grep -qF '\x1b[2J' "$tmp/t.txt"
"$bin" --list offerings --catalog "$hostile/ansi.json" >"$tmp/t.txt" 2>&1
check "listing escapes names" bash -c "! grep -q \$'\\x1b' '$tmp/t.txt'"
printf 'v=1&model=a\0b\033[2Jc' | "$bin" - >"$tmp/out" 2>"$tmp/err"
check "error line does not stop at a NUL" grep -qF 'a\x00b\x1b[2Jc' "$tmp/err"
check "error line carries no ESC" bash -c "! grep -q \$'\\x1b' '$tmp/err'"
expect_error "duplicate JSON key" "offerings\[1\].gpu_count" --catalog "$hostile/dup.json" 'v=1'
expect_error "big MoE dimensions" "params_total_b" --catalog "$hostile/big-moe.json" 'v=1'
expect_error "MLA rank x heads" "params_total_b" --catalog "$hostile/mla.json" 'v=1'
# The fixtures read end to end (the unit tests rebuild these cases inline).
expect_error "hf-neg.json: 4 x hidden_size overflows" "hidden_size" --hf-config "$hostile/hf-neg.json" --model-id x 'v=1&model=x'
expect_error "hf-mla.json: kv_lora_rank overflows" "kv_lora_rank" --hf-config "$hostile/hf-mla.json" --model-id x 'v=1&model=x'
expect_error "hf-kvstr.json: a string head count" "num_key_value_heads" --hf-config "$hostile/hf-kvstr.json" --model-id x 'v=1&model=x'
"$bin" --catalog "$hostile/csv.json" --format csv 'v=1&compare=e' >"$tmp/hostile.csv"
check "csv.json: every row as wide as the header, the formula inert" python3 -c "
import csv; rows = list(csv.reader(open('$tmp/hostile.csv', newline='')))
name = rows[1][rows[0].index('offering_name')]
assert len(rows) == 2 and len(rows[1]) == len(rows[0]) and name.startswith(\"'=HYPERLINK\"), rows[1][:4]"
printf '{"offerings":[{"id":"e","name":"a","gpu":"h200-sxm","gpu_count":18446744073709551615,"sources":["s"]}]}' >"$tmp/u64.json"
expect_error "uint64 gpu_count" "gpu_count" --catalog "$tmp/u64.json" 'v=1'
check "uint64 gpu_count: says what was written" grep -q "got 18446744073709551615" "$tmp/err"
"$bin" --format json 'v=1&workload=pretrain&model=deepseek-v3' >"$tmp/p.json"
check "pretraining DeepSeek-V3 does not fit, no cost, not recommended" py "$tmp/p.json" "assert all(not r['fits'] and r['fit_reason'] == 'training_does_not_fit' and r['run_cost_usd'] is None for r in d['results']) and d['recommended'] is None"
# Reference prices with tier and source, two servers, energy, bad keys.
"$bin" --list offerings >"$tmp/o.txt"
check "--list offerings shows tier and source" grep -q "ref-8x-mi300x-neocloud .*neocloud .*InferenceX" "$tmp/o.txt"
check "--list offerings flags the MI350X estimate" grep -q "ref-8x-mi350x-hyperscaler .*(estimate)" "$tmp/o.txt"
"$bin" --list models >"$tmp/lm.txt"
"$bin" --list models --format json >"$tmp/lm.json"
check "--list models shows each model's source" py "$tmp/lm.json" "t=open('$tmp/lm.txt').read().splitlines(); assert t[0].rstrip().endswith('source') and len(t) == len(d['models']) + 1 and all(m['sources'] and m['sources'][0] in t[i + 1] for i, m in enumerate(d['models']))"
check "--list models: a 2026 model names its config.json" grep -q "deepseek-v4-pro .*DeepSeek-V4-Pro.config.json" "$tmp/lm.txt"
"$bin" --list networks --format json >"$tmp/n.json"
check "--list networks" py "$tmp/n.json" "assert {n['id'] for n in d['networks']} >= {'8x400g-connectx7', '8x400g-roce'}"
"$bin" --format json 'v=1&model=deepseek-v3&weights=bf16&context=4096&compare=fullgpu-8x-h200' >"$tmp/s1.json"
check "DeepSeek BF16 needs 2 servers" py "$tmp/s1.json" "r=d['results'][0]; assert r['servers_needed'] == 2 and not r['fits'] and any(v['code'] == 'needs_servers' for v in d['verdict'])"
"$bin" --format json 'v=1&model=deepseek-v3&weights=bf16&context=4096&compare=fullgpu-8x-h200&servers=2' >"$tmp/s2.json"
check "DeepSeek BF16 on 2 servers" py "$tmp/s2.json" "r=d['results'][0]; assert r['fits'] and r['deployed_gpus'] == 16 and r['price_month_usd'] == 47800 and r['scale_out_s'] > 0 and r['max_throughput_tokens_per_s'] > 0"
check "energy fields" py "$tmp/m.json" "r=d['results'][1]; assert abs(r['energy_joules_per_output_token'] - 1730*8/r['max_throughput_tokens_per_s']) < 1e-9 and r['output_tokens_per_s_per_mw'] > 0"
expect_error "servers=-1" "servers" 'v=1&servers=-1'
expect_error "kwh=0" "kwh" 'v=1&kwh=0'

# Calibrating to benchmark result files: the document on stdout, loaded with --catalog.
bench="$src/tests/fixtures/bench-results"
"$bin" --calibrate-serving 'v=1&compare=server-8x-mi300x&engine=sglang' "$bench/serving-measured.csv" >"$tmp/cal.json" 2>"$tmp/err"
check "--calibrate-serving exit 0" test $? -eq 0
check "calibration document" py "$tmp/cal.json" "assert d['schema'] == 'gpucalc-serving-calibration/1' and len(d['points']) == 25 and d['error']['after']['ttft'] < d['error']['before']['ttft']"
"$bin" --catalog "$tmp/cal.json" --format json 'v=1&model=deepseek-v3&compare=server-8x-mi300x&engine=sglang&users=32' >"$tmp/c.json"
check "results say calibrated_serving" py "$tmp/c.json" "r=d['results'][0]; assert r['rates_source'] == 'calibrated_serving' and r['calibration_device'].startswith('serving-mi300x-sglang') and r['error_band']['ttft']['group'].startswith('calibrated')"
expect_error "NaN in a result file" "nan.jsonl:2: mean_tpot_ms" --calibrate-serving 'v=1&compare=fullgpu-8x-h200&engine=sglang' "$bench/hostile/nan.jsonl"
expect_error "result file lacks the model" "vllm.json: model" --calibrate-serving 'v=1&compare=fullgpu-8x-h200&engine=vllm' "$bench/vllm.json"
expect_error "no result file" "--calibrate-serving" --calibrate-serving 'v=1'
# Round 3: text that rewrites the screen, invalid UTF-8 in errors, CSV cells, unpriced curves.
"$bin" 'v=1&model=%00%ff' >"$tmp/out" 2>"$tmp/err"
check "error line for %00%ff is valid UTF-8" python3 -c "open('$tmp/err', 'rb').read().decode('utf-8')"
check "error line for %00%ff shows the bytes" grep -qF '\x00\xff' "$tmp/err"
printf '%s' '{"offerings":[{"id":"rlo","name":"cheap \u202eH200 US$1\u202c \u200b\u0007","gpu":"h200-sxm","gpu_count":8,"sources":["s"]}]}' >"$tmp/rlo.json"
"$bin" --catalog "$tmp/rlo.json" 'v=1&compare=rlo,fullgpu-8x-h200' >"$tmp/t.txt" 2>&1
check "bidi override escaped in the table" bash -c "! grep -q \$'\\xe2\\x80\\xae' '$tmp/t.txt' && grep -qF '\u202e' '$tmp/t.txt'"
check "zero-width space and BEL escaped in the table" bash -c "! grep -q \$'\\xe2\\x80\\x8b\\|\\x07' '$tmp/t.txt'"
"$bin" --catalog "$hostile/ansi.json" --format csv 'v=1&compare=e' >"$tmp/t.csv" 2>&1
check "CSV carries no ESC" bash -c "! grep -q \$'\\x1b' '$tmp/t.csv'"
check "CSV shows the escape" grep -qF '\x1b[2J' "$tmp/t.csv"
"$bin" --catalog "$tmp/rlo.json" --curve --format csv 'v=1&compare=rlo' >"$tmp/c.csv" 2>&1
check "curve CSV: unpriced cost is an empty cell" python3 -c "
import csv; rows = list(csv.reader(open('$tmp/c.csv', newline='')))
assert rows[0][6] == 'US\$/M output tok' and len(rows) > 1 and all(r[6] == '' for r in rows[1:]), rows[:2]"
"$bin" --catalog "$tmp/rlo.json" --curve --format json 'v=1&compare=rlo,fullgpu-8x-h200' >"$tmp/c.json"
check "curve JSON: unpriced cost is null, priced a number" py "$tmp/c.json" "
assert d[0]['curve'] and all(p['usd_per_million_tokens'] is None for p in d[0]['curve'])
assert all(p['usd_per_million_tokens'] > 0 for p in d[1]['curve'])"
# pd=auto: the curve's points say their layout (disaggregated ones as prefill + decode pools),
# in the table, CSV and JSON alike; the result says the operating point's layout.
rack='v=1&model=deepseek-r1&weights=fp4&compare=ref-nvl72-gb200-hyperscaler&context=4096&input=1024&output=1024&interactivity=50&pd=auto'
"$bin" --curve --format csv "$rack" >"$tmp/pd.csv"
check "pd curve CSV: a layout column, a disaggregated point" python3 -c "
import csv; rows = list(csv.reader(open('$tmp/pd.csv', newline='')))
i = rows[0].index('layout'); assert rows[0][i - 1] == 'gpus', rows[0]
assert all(r[i] for r in rows[1:]) and any('+' in r[i] for r in rows[1:]), rows"
"$bin" --curve "$rack" >"$tmp/pd.txt"
check "pd curve table: the layout column" grep -qE '^ref-nvl72-gb200-hyperscaler .* [0-9]+x\(tp[0-9]+,ep[0-9]+(,dpa)?\)\+[0-9]+x\(tp' "$tmp/pd.txt"
"$bin" --curve --format json "$rack" >"$tmp/pd.json"
check "pd curve JSON: layout and disaggregated on every point" py "$tmp/pd.json" "
assert all(p['layout'] and isinstance(p['disaggregated'], bool) for p in d[0]['curve'])
assert any(p['disaggregated'] for p in d[0]['curve'])"
"$bin" "$rack" >"$tmp/pd-result.txt"
check "result table: the operating point's layout" grep -qE '^layout at the interactivity target +[0-9]+x\(tp' "$tmp/pd-result.txt"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$tmp/big-config.json"
expect_error "--hf-config over 1 MiB" "larger than 1 MiB" --hf-config "$tmp/big-config.json" 'v=1'
printf '{"offerings":[{"id":"t","name":"t","gpu":"h200-sxm","gpu_count":8,"price_usd_per_mnth":9,"sources":["s"]}]}' >"$tmp/typo.json"
expect_error "misspelt price key" "offerings\[0\](t).price_usd_per_mnth" --catalog "$tmp/typo.json" 'v=1'
printf '{"offerings":[{"id":"t","name":"t","gpu":"h200-sxm","gpu_count":8,"price_usd_per_month":0,"sources":["s"]}]}' >"$tmp/zero.json"
expect_error "price 0" "price_usd_per_month" --catalog "$tmp/zero.json" 'v=1'

# The band lines: one header, even when the first offering has no band (it cannot serve the
# model), and each metric's band separated by "; " with none trailing.
"$bin" 'v=1&model=deepseek-r1-0528&compare=fullgpu-1x-h200,fullgpu-8x-h200&users=8' >"$tmp/band.txt"
check "band header before the first band" grep -qx 'error band (out of sample):' "$tmp/band.txt"
check "band line without a trailing separator" grep -qE '^  fullgpu-8x-h200: interactivity .*unseen points\)$' "$tmp/band.txt"
"$bin" "${rack%pd=auto}pd=1" >"$tmp/pd-band.txt"
check "a disaggregated layout's band says so" grep -q 'disaggregated layout: interactivity and throughput widened by validation-disagg.json.s folds, TTFT the aggregated band' "$tmp/pd-band.txt"

# Every row of the result table is labelled in words, not a JSON field name: inference
# (aggregated, disaggregated, a linear-attention model) and training (LoRA, pretraining).
for sc in 'v=1' "${rack%pd=auto}pd=1" 'v=1&model=qwen3-next-80b-a3b' 'v=1&workload=lora' 'v=1&workload=pretrain'; do
  "$bin" "$sc" >"$tmp/rows.txt"
  check "row labels in words: $sc" python3 -c "
import re, sys
lines = open('$tmp/rows.txt').read().split('\n\n')[1].splitlines()[1:]  # the table, header dropped
raw = [l.strip().split('  ')[0] for l in lines if re.fullmatch(r'[a-z0-9]+(_[a-z0-9]+)+', l.strip().split('  ')[0])]
assert len(lines) > 20 and not raw, raw"
done

# A warning line gives the code and the page's English sentence for it (web/i18n's w_ strings).
"$bin" 'v=1&users=2000' >"$tmp/warn.txt"
check "warning line: code and sentence" grep -qx 'warning: fullgpu-8x-h200: users_exceed_kv_slots: More users than the KV cache of NVIDIA H200 SXM holds at once: .*' "$tmp/warn.txt"
check "every warning line has its sentence" test "$(grep -c '^warning: [^:]*: [a-z0-9_]*$' "$tmp/warn.txt")" -eq 0
# A catalog GPU's name in a warning's sentence is escaped like every other name.
python3 -c "
import json; g = next(x for x in json.load(open('$src/data/gpus.json'))['gpus'] if x['id'] == 'mi355x')
g = dict(g, id='evil', name='\x1b[2JPWN')
json.dump({'gpus': [g], 'offerings': [{'id': 'e', 'name': 'e', 'gpu': 'evil', 'gpu_count': 8, 'sources': ['s']}]}, open('$tmp/evil.json', 'w'))"
"$bin" --catalog "$tmp/evil.json" 'v=1&compare=e&users=2000' >"$tmp/evil.txt" 2>&1
check "a warning's sentence names the GPU escaped" grep -qF 'More users than the KV cache of \x1b[2JPWN holds' "$tmp/evil.txt"
check "no escape code reaches the terminal from a warning" bash -c "! grep -q \$'\\x1b' '$tmp/evil.txt'"

echo "cli contract: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
