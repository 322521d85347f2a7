# scripts/serve.mjs under hostile requests, and the embed view's parent= matching:
# node only, no browser, no node_modules.
#   make test-serve   malformed paths, unknown methods, headers on every status, framing rule
.PHONY: test-serve

test-serve:
	node --test tests/js/serve.test.mjs

TEST_STEPS += test-serve
