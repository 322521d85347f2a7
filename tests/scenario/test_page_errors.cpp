// What the page reads from the core's errors: the numbers a rule names travel with the error
// (error_to_json's `params`), so the page words the rule the value breaks in its own language.
#include <nlohmann/json.hpp>

#include "gpucalc/evaluate.hpp"
#include "test_support.hpp"

using namespace gpucalc;

TEST_CASE(
    "cross-key errors (tp against the heads, ep against the experts and tp) carry their numbers") {
  const struct {
    const char* scenario;
    const char* field;
    const char* param;
    double value;
  } cases[] = {
      {"v=1&model=deepseek-v3&tp=8&ep=16", "ep", "tp", 8},
      {"v=1&model=deepseek-v3&ep=3", "ep", "experts", 256},
      {"v=1&model=llama-3.1-70b&ep=2", "ep", "experts", 0},
      {"v=1&model=llama-3.1-70b&tp=3", "tp", "heads", 64},
  };
  for (const auto& c : cases) {
    auto ev = evaluate_text(default_catalog(), c.scenario, false);
    REQUIRE_FALSE_MESSAGE(ev.ok(), c.scenario);
    const auto j = nlohmann::json::parse(error_to_json(ev.error()));
    CAPTURE(c.scenario);
    CHECK(j["error"]["code"] == "bad_value");
    CHECK(j["error"]["field"] == c.field);
    CHECK(j["error"]["params"][c.param] == c.value);
    CHECK(j["error"]["params"].contains("value"));
  }
}
