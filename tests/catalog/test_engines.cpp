// Serving engines as catalog data: the `engine` key takes any engine id, and a new engine is
// added by a --catalog engines document alone (and its display names in web/i18n), with no
// code change.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/serving.hpp"

using namespace gpucalc;

namespace {

/** The built-in engines document with one more engine, `testllm`: vLLM's profile under a new
 *  id and name, twice its per-step overhead (so its figures differ), on NVIDIA only. */
std::string engines_with_testllm() {
  std::string builtin;
  for (const auto& f : embedded_data_files()) {
    if (std::string_view(f.name) == "engines.json") builtin = f.text;
  }
  REQUIRE(!builtin.empty());
  nlohmann::json doc = nlohmann::json::parse(builtin);
  nlohmann::json added;
  for (const auto& e : doc.at("engines")) {
    if (e.at("id") == "vllm") added = e;
  }
  REQUIRE(added.is_object());
  added["id"] = "testllm";
  added["name"] = "Test LLM";
  added["vendors"] = {"nvidia"};
  nlohmann::json& step = added["step_overhead_s"];
  if (step.is_object()) step["value"] = 2.0 * step["value"].get<double>() + 1e-3;
  else step = 2.0 * step.get<double>() + 1e-3;
  doc["engines"].push_back(added);
  return doc.dump();
}

}  // namespace

TEST_CASE("engines: a new engine profile loads from a catalog document alone and serves") {
  const std::string scenario = "v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200&users=16&engine=testllm";
  // The built-in catalog has no such engine: the error names the key and the catalog's engines.
  auto unknown = evaluate_text(default_catalog(), scenario, false);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "engine");
  CHECK(unknown.error().message == "must be auto, vllm, sglang, trtllm or atom, got \"testllm\"");

  auto cat = extend_catalog(default_catalog(), engines_with_testllm(), "engines.json");
  REQUIRE(cat);
  CHECK(catalog_engines(cat.value()).find("testllm") != nullptr);
  CHECK(engine_choices(catalog_engines(cat.value())).back() == "testllm");
  auto ev = evaluate_text(cat.value(), scenario, false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results.front();
  CHECK(r.engine == "testllm");
  REQUIRE(r.tpot_s);
  // The same scenario on vLLM, whose profile it copies with a larger step overhead: slower.
  auto vllm = evaluate_text(cat.value(), "v=1&model=llama-3.1-70b&compare=fullgpu-8x-h200&users=16&engine=vllm", false);
  REQUIRE(vllm);
  REQUIRE(vllm.value().results.front().tpot_s);
  CHECK(*r.tpot_s > *vllm.value().results.front().tpot_s);
  // Its vendors are data too: on an AMD offering it is refused, naming the key.
  auto amd = evaluate_text(cat.value(), "v=1&model=llama-3.1-70b&compare=server-8x-mi300x&engine=testllm", false);
  REQUIRE_FALSE(amd);
  CHECK(amd.error().field == "engine");
  CHECK(amd.error().message.find("testllm is NVIDIA only") != std::string::npos);
}

TEST_CASE("engines: the key's choices and description come from data/engines.json") {
  const auto& keys = scenario_keys();
  const ScenarioKey* engine = nullptr;
  for (const ScenarioKey& k : keys) {
    if (std::string(k.key) == "engine") engine = &k;
  }
  REQUIRE(engine != nullptr);
  CHECK(engine->choices == engine_choices(default_engines()));
  CHECK(std::string(engine->description) ==
        "serving engine: auto, vllm, sglang, trtllm (NVIDIA only) or atom (AMD only)");
  // Any id decodes (a catalog document may add engines); a malformed one is refused here.
  CHECK(decode_scenario("v=1&engine=testllm"));
  auto bad = decode_scenario("v=1&engine=Test%20LLM");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "engine");
}

TEST_CASE("engines: an engine's own disaggregated values are read within their bounds, and optional") {
  std::string builtin;
  for (const auto& f : embedded_data_files()) {
    if (std::string_view(f.name) == "engines.json") builtin = f.text;
  }
  REQUIRE(!builtin.empty());
  const nlohmann::json doc = nlohmann::json::parse(builtin);
  auto parsed = parse_engines(builtin);
  REQUIRE(parsed);
  // Stated for TensorRT-LLM; SGLang states none (the pooled performance.json values apply).
  CHECK(parsed.value().find("trtllm")->disagg_prefill_fraction ==
        doc.at("engines")[2].at("disagg").at("prefill_worker_fraction").at("value").get<double>());
  CHECK(parsed.value().find("sglang")->disagg_prefill_fraction < 0.0);
  CHECK(parsed.value().find("sglang")->disagg_dpa_sequence_overhead_s < 0.0);
  const auto with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json d = doc;
    d["engines"][2]["disagg"][key] = value;
    return parse_engines(d.dump());
  };
  for (const nlohmann::json& bad : {nlohmann::json(0.0), nlohmann::json(1.5), nlohmann::json("0.9")}) {
    CAPTURE(bad.dump());
    auto r = with("prefill_worker_fraction", bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "engines.json.engines[2].disagg.prefill_worker_fraction");
  }
  auto negative = with("dpa_sequence_overhead_s", -1e-4);
  REQUIRE_FALSE(negative);
  CHECK(negative.error().field == "engines.json.engines[2].disagg.dpa_sequence_overhead_s");
  auto unknown = with("prefill_share", 0.5);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field.find("disagg") != std::string::npos);
}
