#!/usr/bin/env bash
# One-shot calibration run on a lent H200 (the `device` tool's nvidia-h200 machine).
#   run: command "bash bench/run-h200.sh", timeout_s 540
# Builds gpucalc-bench with nvcc for sm_90 on that machine, runs HBM and GEMM (BF16, FP8) within
# a few minutes, and leaves in $OUT:
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
# About 2 minutes: HBM 2 GiB arrays x 3 kernel variants; GEMM 12 shapes x (BF16, FP8), 10 s
# warm-up each, 10 samples of 0.1 s per shape. FP4 is not on sm_90 (reported unsupported).
timeout 360 "$BENCH" --gpu-id h200-sxm --tests hbm,gemm,p2p --precisions bf16,fp8 \
  --hbm-bytes 2GiB --hbm-samples 30 --hbm-launches 5 \
  --gemm-warmup-s 10 --gemm-samples 10 --gemm-sample-s 0.1 \
  --note "gpucalc-bench on the device tool's nvidia-h200 machine; clocks and power left as found" \
  --date "$DATE" --out "$RECORD"
rc=$?
kill "$dmon_pid" 2>/dev/null
wait "$dmon_pid" 2>/dev/null
echo "gpucalc-bench exit status: $rc"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv || true

step "targets (issue 5): triad >= 85% of 4.8 TB/s = 4.08 TB/s; BF16 >= 750 TFLOP/s"
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
PY
ls -la "$OUT"
exit $rc
