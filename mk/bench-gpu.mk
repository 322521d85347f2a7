# Calibration microbenchmark (bench/).
#   make bench-gpu       builds gpucalc-bench for this machine: CUDA when nvcc is found, HIP when
#                        ROCm's hipcc is, else the host back end (dry runs only)
#   make test-bench-gpu  (part of `make test`, no GPU needed) compiles the CUDA path with nvcc for
#                        sm_90 (and sm_100 when this nvcc knows it), the HIP path with Debian's hipcc
#                        for gfx90a (every test: hbm, gemm, p2p, gemm-small, grouped-gemm,
#                        attention-decode, allreduce, launch), and runs a host-back-end record, with
#                        every serving-model field, through the core's loader.
NVCC ?= /usr/local/cuda/bin/nvcc
HIPCC ?= hipcc
BENCH_HIP_PKGS := hipcc libamdhip64-dev
BENCH_CUDA_ARCHS = $(shell $(NVCC) --list-gpu-arch 2>/dev/null | grep -qx 'compute_100' && echo '90;100' || echo 90)
BENCH_HIP_ARCHS ?= gfx90a
BENCH_CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

TEST_STEPS += test-bench-gpu
.PHONY: bench-gpu test-bench-gpu test-bench-cuda test-bench-hip test-bench-host deps-bench-hip

deps-bench-hip:
	@scripts/install-deps.sh $(BENCH_HIP_PKGS)

bench-gpu:
	@if [ -x "$(NVCC)" ] || command -v nvcc >/dev/null; then \
	  nvcc="$(NVCC)"; [ -x "$$nvcc" ] || nvcc="$$(command -v nvcc)"; \
	  cmake -S bench -B $(BUILD)/bench-gpu $(BENCH_CMAKE_FLAGS) -DGPUCALC_BENCH_BACKEND=cuda \
	    -DCMAKE_CUDA_COMPILER="$$nvcc" -DGPUCALC_BENCH_CUDA_ARCHS="$${BENCH_GPU_ARCHS:-native}"; \
	elif [ -d /opt/rocm ] && command -v hipcc >/dev/null; then \
	  cmake -S bench -B $(BUILD)/bench-gpu $(BENCH_CMAKE_FLAGS) -DGPUCALC_BENCH_BACKEND=hip \
	    -DCMAKE_CXX_COMPILER=hipcc -DGPUCALC_BENCH_HIP_ARCHS="$${BENCH_GPU_ARCHS:-gfx942;gfx950}"; \
	else \
	  echo "bench-gpu: no nvcc or ROCm hipcc: building the host back end (dry runs only)"; \
	  cmake -S bench -B $(BUILD)/bench-gpu $(BENCH_CMAKE_FLAGS) -DGPUCALC_BENCH_BACKEND=host; \
	fi
	cmake --build $(BUILD)/bench-gpu -j $(JOBS)
	@echo "built $(BUILD)/bench-gpu/gpucalc-bench; run it with --help"

# CUDA compile check: nvcc must be there (CUDA 13 on the CI image).
test-bench-cuda:
	@[ -x "$(NVCC)" ] || { echo "test-bench-cuda: $(NVCC) not found (set NVCC=...)"; exit 1; }
	cmake -S bench -B $(BUILD)/bench-cuda $(BENCH_CMAKE_FLAGS) -DGPUCALC_BENCH_BACKEND=cuda \
	  -DCMAKE_CUDA_COMPILER=$(NVCC) -DGPUCALC_BENCH_CUDA_ARCHS="$(BENCH_CUDA_ARCHS)"
	cmake --build $(BUILD)/bench-cuda -j $(JOBS)
	$(BUILD)/bench-cuda/gpucalc-bench --version
	@echo "test-bench-cuda: compiled for sm_$(subst ;, and sm_,$(BENCH_CUDA_ARCHS))"

# HIP compile check with Debian's HIP 5.2 (no gfx942/gfx950, no hipBLASLt: GEMMs report unsupported).
test-bench-hip: deps-bench-hip
	cmake -S bench -B $(BUILD)/bench-hip $(BENCH_CMAKE_FLAGS) -DGPUCALC_BENCH_BACKEND=hip \
	  -DCMAKE_CXX_COMPILER=$(HIPCC) -DGPUCALC_BENCH_HIP_ARCHS="$(BENCH_HIP_ARCHS)"
	cmake --build $(BUILD)/bench-hip -j $(JOBS)
	$(BUILD)/bench-hip/gpucalc-bench --version
	@echo "test-bench-hip: compiled for $(BENCH_HIP_ARCHS)"

# The whole pipeline on the host back end, its record loaded by the core's parser; plus the
# usage errors' exit codes.
test-bench-host: deps-native
	cmake -S . -B $(BUILD)/bench-host $(BENCH_CMAKE_FLAGS) -DGPUCALC_BUILD_BENCH=ON \
	  -DGPUCALC_BENCH_BACKEND=host -DGPUCALC_BUILD_CLI=OFF -DGPUCALC_BUILD_TESTS=OFF
	cmake --build $(BUILD)/bench-host -j $(JOBS) --target gpucalc-bench gpucalc-bench-check
	$(BUILD)/bench-host/bench/gpucalc-bench --dry-run --quiet --out $(BUILD)/bench-host/dry-run.json
	$(BUILD)/bench-host/bench/gpucalc-bench-check --expect-dry-run --expect-serving $(BUILD)/bench-host/dry-run.json
	@b=$(BUILD)/bench-host/bench/gpucalc-bench; \
	  $$b --help | grep -q -- '--tests' || { echo "--help lacks --tests"; exit 1; }; \
	  for t in gemm-small grouped-gemm attention-decode allreduce launch; do \
	    $$b --help | grep -q -- " $$t " || { echo "--help lacks the $$t test"; exit 1; }; \
	  done; \
	  for bad in "--tests foo" "--precisions fp9" "--hbm-bytes 12" "--gemm-shapes 10x10" \
	             "--small-m 0" "--experts 1.5" "--attn-contexts 8" "--allreduce-max-bytes 1KiB" \
	             "--launch-samples 1" "--tests gemm-small --models no-such-model"; do \
	    $$b --dry-run --quiet $$bad >/dev/null 2>&1; rc=$$?; \
	    [ $$rc -eq 2 ] || { echo "gpucalc-bench $$bad: exit $$rc, expected 2"; exit 1; }; \
	  done; \
	  $$b --quiet >/dev/null 2>&1; rc=$$?; \
	  [ $$rc -eq 1 ] || { echo "host build without --dry-run: exit $$rc, expected 1"; exit 1; }
	@echo "test-bench-host: dry-run record written and loaded by the core"

test-bench-gpu: test-bench-cuda test-bench-hip test-bench-host
	@echo "test-bench-gpu: CUDA and HIP compile checks and the dry-run pipeline passed"
