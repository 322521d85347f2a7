# Web front end: the WASM module, the page's tests and its benchmark.
#   make wasm       build the modules (build/wasm: the page's first, gpucalc_wasm_page, and the
#                   whole one, gpucalc_wasm; wasm/CMakeLists.txt) and copy them into web/gen/
#   make web-dist   the page as it ships: web/ + web/gen/ bundled and minified into build/web-dist/
#                   (scripts/build-web.mjs, esbuild from scripts/package-lock.json; the first
#                   answer is drawn into index.html in headless Chromium, with playwright-core
#                   from tests/js/package-lock.json: web-node-modules); what
#                   `make serve`, test-web and perf-web serve (`make serve-src` serves web/ itself)
#   make test-wasm  doctest suite under Emscripten in node + node tests of the binding, and the
#                   page module's replies against the native CLI's (tests/js/embedded-data.test.mjs:
#                   the modules embed data/ stripped by scripts/embed-data.mjs)
#   make test-web   the built page in headless Chromium (tests/js/browser.test.mjs, interactivity.test.mjs, buyer.test.mjs, answer.test.mjs,
#                   trust.test.mjs,
#                   calibrate.test.mjs, projected.test.mjs, layout.test.mjs, first-answer.test.mjs,
#                   lazy-views.test.mjs)
#   make perf-web   transfer size, first answer and live result painted, update time (headless
#                   Chromium); with perf-wasm first (`make perf`) it prints every page figure in one block
#   make perf-wasm  the page's call (decode + evaluate + JSON) natively and in the module (node)
WEB_PKGS := emscripten node-acorn chromium fonts-wqy-microhei zopfli
WASM_BUILD := $(BUILD)/wasm
WASM_JOBS ?= 2
# Debian's emcc needs acorn from Debian's node module folder; it uses Debian's prebuilt cache.
EMSDK_ENV := NODE_PATH=/usr/share/nodejs

.PHONY: deps-web wasm web-dist serve-src test-wasm test-web perf-web perf-wasm web-node-modules web-build-node-modules

deps-web:
	@scripts/install-deps.sh $(WEB_PKGS)
	@command -v npm >/dev/null || scripts/install-deps.sh npm

$(WASM_BUILD)/CMakeCache.txt: | deps-web
	$(EMSDK_ENV) emcmake cmake -S . -B $(WASM_BUILD) -DCMAKE_BUILD_TYPE=MinSizeRel -DGPUCALC_BUILD_TESTS=ON

wasm: deps-web $(WASM_BUILD)/CMakeCache.txt
	$(EMSDK_ENV) cmake --build $(WASM_BUILD) -j $(WASM_JOBS) --target gpucalc_wasm gpucalc_wasm_page
	@mkdir -p web/gen
	cp $(WASM_BUILD)/wasm/gpucalc_wasm.mjs $(WASM_BUILD)/wasm/gpucalc_wasm.wasm $(WASM_BUILD)/wasm/gpucalc_wasm_page.mjs $(WASM_BUILD)/wasm/gpucalc_wasm_page.wasm web/gen/
	@for m in gpucalc_wasm_page gpucalc_wasm; do gzip -9 -c web/gen/$$m.wasm | wc -c | awk -v m=$$m '{printf "web/gen/%s.wasm: %.1f KB gzip\n", m, $$1/1024}'; done

# playwright-core only (no browser download: the tests drive Debian's /usr/bin/chromium).
tests/js/node_modules/.package-lock.json: tests/js/package.json tests/js/package-lock.json
	cd tests/js && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error

web-node-modules: deps-web tests/js/node_modules/.package-lock.json

# esbuild and its platform binary (an optional dependency), both from the npm registry; its
# install script only checks that binary, so it is skipped.
WEB_DIST := $(BUILD)/web-dist
scripts/node_modules/.package-lock.json: scripts/package.json scripts/package-lock.json
	cd scripts && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

web-build-node-modules: deps-web scripts/node_modules/.package-lock.json

web-dist: wasm web-build-node-modules web-node-modules
	node scripts/build-web.mjs --src web --out $(WEB_DIST)

serve-src: wasm
	@echo "gpucalc (sources, unbundled): http://127.0.0.1:8000/"
	node scripts/serve.mjs --root web --host 127.0.0.1 --port 8000

test-wasm: wasm native
	$(EMSDK_ENV) cmake --build $(WASM_BUILD) -j $(WASM_JOBS) --target gpucalc_tests
	@echo "doctest suite under Emscripten, in node:"
	node --no-experimental-fetch $(WASM_BUILD)/tests/gpucalc_tests.js
	node --disallow-code-generation-from-strings --test tests/js/binding.test.mjs
	GPUCALC_CLI=$(BUILD)/native/cli/gpucalc node --disallow-code-generation-from-strings --test tests/js/embedded-data.test.mjs

test-web: web-dist web-node-modules
	node --test tests/js/export.test.mjs
	node tests/js/browser.test.mjs
	node --test tests/js/interactivity.test.mjs
	node tests/js/buyer.test.mjs
	node --test tests/js/answer.test.mjs
	node tests/js/trust.test.mjs
	node --test tests/js/calibrate.test.mjs
	node --test tests/js/projected.test.mjs
	node --test tests/js/layout.test.mjs
	node --test tests/js/first-answer.test.mjs
	node --test tests/js/lazy-views.test.mjs

perf-web: web-dist web-node-modules
	node tests/js/bench.mjs


perf-wasm: native wasm
	node tests/perf/eval_rate_wasm.mjs $(BUILD)/native/tests/perf_eval_rate

TEST_STEPS += test-wasm test-web
PERF_STEPS += perf-wasm perf-web
