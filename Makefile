# gpucalc front door. `make serve` builds and serves the page; `make test` runs every check.
# Feature fragments in mk/*.mk add their steps to TEST_STEPS / PERF_STEPS.
# "bench" means the GPU microbenchmark only (bench/: `make bench` = `make bench-gpu`); `make perf`
# prints the evaluation rates and the page speed figures.
SHELL := /bin/bash
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

# Debian packages for the native build and checks.
NATIVE_PKGS := build-essential cmake g++ nlohmann-json3-dev doctest-dev clang libclang-rt-14-dev python3

TEST_STEPS := test-native test-asan test-fuzz-smoke
PERF_STEPS := perf-native

.PHONY: all native deps-native serve test perf bench fuzz format clean error-bands $(TEST_STEPS) $(PERF_STEPS)

all: native

deps-native:
	@scripts/install-deps.sh $(NATIVE_PKGS)

$(BUILD)/native/CMakeCache.txt: | deps-native
	cmake -S . -B $(BUILD)/native $(CMAKE_FLAGS)

native: deps-native $(BUILD)/native/CMakeCache.txt
	cmake --build $(BUILD)/native -j $(JOBS)

test-native: native
	cd $(BUILD)/native && ctest --output-on-failure -j $(JOBS)

# The ASan and fuzz builds are built once per run, never edited file by file: they compile as
# unity builds (CMake joins a target's sources, 8 to a file), which saves parsing the JSON
# headers in every source. Names local to a source must differ across its target (core, tests).
UNITY := -DCMAKE_UNITY_BUILD=ON

test-asan: deps-native
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DGPUCALC_SANITIZE=ON \
	  -DCMAKE_CXX_COMPILER=clang++ $(UNITY)
	cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# Every target asserts the output invariants (tests/fuzz/fuzz_support.hpp); UBSan is fatal.
FUZZ_TARGETS := scenario training catalog offerings calibration hf_config fit_table listings printers \
  performance engines kernels error_bands bench_results
FUZZ_SECONDS ?= 10
# A 16 MB quarantine (ASan's default is 256 MB) still catches a use after free within a run; a
# large one made every run touch fresh pages (a third of the printers target's time).
FUZZ_ASAN_OPTIONS ?= quarantine_size_mb=16
$(BUILD)/fuzz/CMakeCache.txt: | deps-native
	cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCALC_FUZZ=ON \
	  -DGPUCALC_BUILD_TESTS=ON -DCMAKE_CXX_COMPILER=clang++ $(UNITY)

fuzz-build: deps-native $(BUILD)/fuzz/CMakeCache.txt
	cmake --build $(BUILD)/fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))

# Brief runs in `make test` (14 targets x 10 s; a data document's target is seeded with data/<kind>.json); `make fuzz` runs each FUZZ_LONG_SECONDS (300 s). Findings go to $(BUILD)/fuzz/artifacts-<target>/, never into the source tree.
test-fuzz-smoke: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/corpus-$$t $(BUILD)/fuzz/artifacts-$$t; \
	  seed=data/$$(echo $$t | tr _ -).json; [ ! -f $$seed ] || cp -f $$seed $(BUILD)/fuzz/corpus-$$t/; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=$(FUZZ_ASAN_OPTIONS) \
	  $(BUILD)/fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	    -dict=tests/fuzz/json.dict -artifact_prefix=$(BUILD)/fuzz/artifacts-$$t/ \
	    -print_final_stats=1 $(BUILD)/fuzz/corpus-$$t tests/fuzz/seeds/$$t >$(BUILD)/fuzz/fuzz_$$t.log 2>&1 \
	    || { tail -40 $(BUILD)/fuzz/fuzz_$$t.log; exit 1; }; \
	  grep -E '^(#[0-9]+|Done)' $(BUILD)/fuzz/fuzz_$$t.log | tail -1; \
	  grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz/fuzz_$$t.log; \
	done

FUZZ_LONG_SECONDS ?= 300
fuzz:
	$(MAKE) test-fuzz-smoke FUZZ_SECONDS=$(FUZZ_LONG_SECONDS)

# data/error-bands.json from the validation tables (run after changing the model or the tables;
# the doctest "error bands: data/error-bands.json is fresh" fails until then).
error-bands: native
	$(BUILD)/native/cli/gpucalc --validate --write-error-bands data/error-bands.json
	cmake --build $(BUILD)/native -j $(JOBS)

perf-native: native
	$(BUILD)/native/tests/perf_eval_rate

-include $(wildcard mk/*.mk)

serve: web-dist
	@echo "gpucalc: http://127.0.0.1:8000/"
	node scripts/serve.mjs --root $(BUILD)/web-dist --host 127.0.0.1 --port 8000

test: $(TEST_STEPS)
	@echo "make test: all steps passed ($(TEST_STEPS))"

perf: $(PERF_STEPS)

bench: bench-gpu

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.h')

clean:
	rm -rf $(BUILD)
