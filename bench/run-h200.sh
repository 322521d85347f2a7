#!/usr/bin/env bash
# One-shot calibration run on a lent H200 (the `device` tool's nvidia-h200 machine).
#   run: command "bash bench/run-h200.sh", timeout_s 540
# Builds gpucalc-bench with nvcc for sm_90 on that machine, runs every test (HBM, GEMM BF16/FP8,
# P2P, and the serving-model tests gemm-small, grouped-gemm, attention-decode, allreduce, launch)
# in about four minutes of GPU time (the whole script stays under ~8 minutes), and leaves in $OUT:
#   h200-sxm-<date>.json   the calibration record (commit it as data/calibration/h200-sxm-<date>.json)
#   run-h200.log           build and run log, nvidia-smi before and after
#   dmon.log               nvidia-smi dmon (power, clocks, temperature) every second during the run
# Never changes clocks, power limits or other GPU settings: it measures the card as found.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-$PWD/build/run-h200-out}"
mkdir -p "$OUT"
LOG="$OUT/run-h200.log"
DATE="$(date -u +%F)"
RECORD="$OUT/h200-sxm-$DATE.json"
BUILD_DIR="${BUILD_DIR:-/tmp/gpucalc-bench-build}"
exec > >(tee -a "$LOG") 2>&1
step() { echo "== $(date -u +%T) $*"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv || true
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
"$NVCC" --version | tail -2
cmake --version | head -1

step "build (sm_90)"
extra=()
cuda_include="$(dirname "$(dirname "$NVCC")")/include"
if [ ! -f "$cuda_include/cublasLt.h" ]; then
  # The toolkit lacks cuBLASLt headers: use the pip package nvidia-cublas where PyTorch has it.
  root="$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__))' 2>/dev/null || true)"
  [ -n "$root" ] && [ -f "$root/include/cublasLt.h" ] && extra+=("-DGPUCALC_CUBLASLT_ROOT=$root")
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S bench -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUCALC_BENCH_BACKEND=cuda \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DGPUCALC_BENCH_CUDA_ARCHS=90 "${extra[@]}" || exit 1
cmake --build "$BUILD_DIR" -j "$(nproc)" || exit 1
BENCH="$BUILD_DIR/gpucalc-bench"
"$BENCH" --version

step "run"
nvidia-smi dmon -s pucm -d 1 > "$OUT/dmon.log" 2>&1 &
dmon_pid=$!
# About 4 minutes: HBM 2 GiB arrays x 3 kernel variants (~20 s); GEMM 12 shapes x (BF16, FP8), 10 s
# warm-up each, 10 samples of 0.1 s per shape (~50 s); gemm-small M = 1..512 over the 25 layer
# shapes of data/models.json x (BF16, FP8), 5 samples of 10 ms per point (~60 s); grouped-gemm
# 12 expert shapes x 8/32 experts x 5 token counts x (BF16, FP8) (~30 s); attention-decode 15
# points (~10 s); launch (~1 s); allreduce and p2p are skipped with a reason on a one-GPU machine.
# FP4 is not on sm_90 (reported unsupported).
timeout 420 "$BENCH" --gpu-id h200-sxm --precisions bf16,fp8 \
  --tests hbm,gemm,p2p,gemm-small,grouped-gemm,attention-decode,allreduce,launch \
  --hbm-bytes 2GiB --hbm-samples 30 --hbm-launches 5 \
  --gemm-warmup-s 10 --gemm-samples 10 --gemm-sample-s 0.1 \
  --small-warmup-s 3 --small-samples 5 --small-sample-s 0.01 \
  --attn-batches 1,8,32,64,128 --attn-contexts 1024,4096,16384 \
  --note "gpucalc-bench on the device tool's nvidia-h200 machine; clocks and power left as found" \
  --date "$DATE" --out "$RECORD"
rc=$?
kill "$dmon_pid" 2>/dev/null
wait "$dmon_pid" 2>/dev/null
echo "gpucalc-bench exit status: $rc"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv || true

step "targets: triad >= 85% of 4.8 TB/s = 4.08 TB/s; BF16 >= 750 TFLOP/s"
python3 - "$RECORD" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
ms = {m["id"]: m for m in r["measurements"]}
def show(mid, scale, unit, target):
    m = ms.get(mid)
    if not m or m.get("status") != "ok":
        print(f"{mid:14s} {m.get('status') if m else 'absent'}")
        return
    v, med = m["value"] / scale, (m.get("median") or 0) / scale
    eff = m.get("efficiency")
    verdict = "" if target is None else ("MEETS" if v >= target else "MISSES") + f" target {target}"
    print(f"{mid:14s} best {v:8.1f} {unit}  median {med:8.1f}  eff {eff if eff is None else round(eff, 3)}  {verdict}")
show("hbm_copy", 1e9, "GB/s", None)
show("hbm_triad", 1e9, "GB/s", 4080)
show("hbm_dot", 1e9, "GB/s", None)
show("matmul_bf16", 1e12, "TFLOP/s", 750)
show("matmul_fp8", 1e12, "TFLOP/s", None)
print("best bf16 shape:", ms.get("matmul_bf16", {}).get("best_shape"))

# Serving-model figures against the public ones (shared/reference/engines.md sections 2-6).
def points(mid):
    m = ms.get(mid)
    if not m or m.get("status") != "ok":
        print(f"{mid:22s} {m.get('status') if m else 'absent'} {m.get('note', '') if m else ''}")
        return []
    return m["points"]
for p in points("gemm_small_bf16"):
    if p["n"] == 8192 and p["k"] == 8192 and p["m"] in (1, 16, 64, 128, 256):
        print(f"gemm_small_bf16 M={p['m']:3d} 8192x8192: {p['seconds']*1e6:6.1f} us "
              f"(TRT-LLM on H200: M=1 35.6, 16 35.7, 64 38.7, 128 38.6, 256 49.0 us)")
for p in points("grouped_gemm_fp8"):
    if p["n"] == 4096 and p["k"] == 7168 and p["experts"] == 8:
        print(f"grouped_gemm_fp8 8 experts x {p['tokens_per_expert']:3d} tokens 4096x7168: "
              f"{p['value']/1e12:6.1f} TFLOP/s, weights {8*4096*7168/p['seconds']/1e12:5.2f} TB/s")
for p in points("attention_decode"):
    print(f"attention_decode batch {p['batch']:3d} ctx {p['context_tokens']:5d}: {p['value']/1e12:5.2f} TB/s "
          f"({p['seconds']*1e6:7.1f} us; TRT-LLM on H200 bs64 ctx4096: 4.09 TB/s, bs16 ctx16384 4.12)")
for mid in ("launch_latency", "graph_launch_latency"):
    m = ms.get(mid)
    if m and m.get("status") == "ok":
        print(f"{mid:22s} median {m['value']*1e6:6.2f} us (public: a launch costs about 4-6 us of host time)")
    else:
        print(f"{mid:22s} {m.get('status') if m else 'absent'}")
for p in points("allreduce"):
    print(f"allreduce {p['bytes']:>10d} B: {p['value']*1e6:8.1f} us, bus {p['bus_bytes_per_s']/1e9:6.1f} GB/s")
PY
ls -la "$OUT"
exit $rc
