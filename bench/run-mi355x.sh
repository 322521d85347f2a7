#!/usr/bin/env bash
# One-shot calibration run on a lent AMD MI355X machine (ROCm 6.x with hipBLASLt and RCCL), the
# twin of run-h200.sh. run: command "bash bench/run-mi355x.sh", timeout_s 540.
# Builds gpucalc-bench with hipcc for gfx950 on that machine, runs every test (HBM, GEMM BF16/FP8,
# P2P, gemm-small, grouped-gemm, attention-decode, allreduce over every GPU through RCCL, launch)
# in about five minutes, and leaves in $OUT:
#   mi355x-<date>.json     the calibration record (commit it as data/calibration/mi355x-<date>.json)
#   run-mi355x.log         build and run log, rocm-smi before and after
# Never changes clocks, power limits or other GPU settings: it measures the card as found.
# Not yet run: no session so far was lent an AMD machine, and CI compiles the HIP path only with
# Debian's HIP 5.2 for gfx90a, without hipBLASLt; the hipBLASLt GEMM branch and RCCL are first
# exercised here. FP4 (MXFP4) is reported unsupported (not implemented in this tool yet).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-$PWD/build/run-mi355x-out}"
mkdir -p "$OUT"
LOG="$OUT/run-mi355x.log"
DATE="$(date -u +%F)"
RECORD="$OUT/mi355x-$DATE.json"
BUILD_DIR="${BUILD_DIR:-/tmp/gpucalc-bench-build-hip}"
ARCH="${ARCH:-gfx950}"
exec > >(tee -a "$LOG") 2>&1
step() { echo "== $(date -u +%T) $*"; }

step "machine"
rocm-smi --showproductname --showdriverversion --showmeminfo vram --showmaxpower --showtemp || true
HIPCC="$(command -v hipcc || echo /opt/rocm/bin/hipcc)"
"$HIPCC" --version | head -3
cmake --version | head -1
ls /opt/rocm/lib/librccl.so* /opt/rocm/lib/libhipblaslt.so* 2>/dev/null || echo "no RCCL or hipBLASLt under /opt/rocm/lib"

step "build ($ARCH)"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S bench -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUCALC_BENCH_BACKEND=hip \
  -DCMAKE_CXX_COMPILER="$HIPCC" -DCMAKE_PREFIX_PATH=/opt/rocm -DGPUCALC_BENCH_HIP_ARCHS="$ARCH" || exit 1
cmake --build "$BUILD_DIR" -j "$(nproc)" || exit 1
BENCH="$BUILD_DIR/gpucalc-bench"
"$BENCH" --version

step "run"
# Same budget as run-h200.sh; the all-reduce runs over every GPU of the machine (8 on a server).
timeout 420 "$BENCH" --gpu-id mi355x --precisions bf16,fp8 \
  --tests hbm,gemm,p2p,gemm-small,grouped-gemm,attention-decode,allreduce,launch \
  --hbm-bytes 2GiB --hbm-samples 30 --hbm-launches 5 \
  --gemm-warmup-s 10 --gemm-samples 10 --gemm-sample-s 0.1 \
  --small-warmup-s 3 --small-samples 5 --small-sample-s 0.01 \
  --attn-batches 1,8,32,64,128 --attn-contexts 1024,4096,16384 \
  --note "gpucalc-bench on a lent MI355X machine; clocks and power left as found" \
  --date "$DATE" --out "$RECORD"
rc=$?
echo "gpucalc-bench exit status: $rc"
rocm-smi --showtemp --showpower --showclocks || true

step "summary against public figures (measured.md, engines.md)"
python3 - "$RECORD" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
for m in r["measurements"]:
    mid, st = m["id"], m["status"]
    if st != "ok":
        print(f"{mid:22s} {st} {m.get('note', '')}")
    elif "points" in m:
        vals = [p["value"] for p in m["points"]]
        print(f"{mid:22s} {len(vals)} points, {m['unit']} from {min(vals):.3g} to {max(vals):.3g}")
    else:
        print(f"{mid:22s} {m['value']:.4g} {m['unit']} ({m['statistic']})")
print("public: MI355X BF16 GEMM 1565 TFLOP/s (MAMF); vLLM custom all-reduce TP8 ~6-13 us up to 1.5 MB")
PY
ls -la "$OUT"
exit $rc
