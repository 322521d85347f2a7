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
# README's key table is the schema's: regenerate it with gpucalc --keys --format markdown.
"$bin" --keys --format markdown >"$tmp/k.md"
sed -n '/<!-- keys:begin/,/<!-- keys:end/p' "$src/README.md" | grep '^|' >"$tmp/readme-keys.md"
check "README key table matches gpucalc --keys --format markdown" diff "$tmp/k.md" "$tmp/readme-keys.md"
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

# Issue 11: reference prices with tier and source, two servers, energy, bad keys.
"$bin" --list offerings >"$tmp/o.txt"
check "--list offerings shows tier and source" grep -q "ref-8x-mi300x-neocloud .*neocloud .*InferenceX" "$tmp/o.txt"
check "--list offerings flags the MI350X estimate" grep -q "ref-8x-mi350x-hyperscaler .*(estimate)" "$tmp/o.txt"
"$bin" --list networks --format json >"$tmp/n.json"
check "--list networks" py "$tmp/n.json" "assert {n['id'] for n in d['networks']} >= {'8x400g-connectx7', '8x400g-roce'}"
"$bin" --format json 'v=1&model=deepseek-v3&weights=bf16&context=4096&compare=fullgpu-8x-h200' >"$tmp/s1.json"
check "DeepSeek BF16 needs 2 servers" py "$tmp/s1.json" "r=d['results'][0]; assert r['servers_needed'] == 2 and not r['fits'] and any(v['code'] == 'needs_servers' for v in d['verdict'])"
"$bin" --format json 'v=1&model=deepseek-v3&weights=bf16&context=4096&compare=fullgpu-8x-h200&servers=2' >"$tmp/s2.json"
check "DeepSeek BF16 on 2 servers" py "$tmp/s2.json" "r=d['results'][0]; assert r['fits'] and r['deployed_gpus'] == 16 and r['price_month_usd'] == 47800 and r['scale_out_s'] > 0 and r['max_throughput_tokens_per_s'] > 0"
check "energy fields" py "$tmp/m.json" "r=d['results'][1]; assert abs(r['energy_joules_per_output_token'] - 1730*8/r['max_throughput_tokens_per_s']) < 1e-9 and r['output_tokens_per_s_per_mw'] > 0"
expect_error "servers=-1" "servers" 'v=1&servers=-1'
expect_error "kwh=0" "kwh" 'v=1&kwh=0'

echo "cli contract: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
