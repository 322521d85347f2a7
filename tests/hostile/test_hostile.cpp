// Reproductions of hostile inputs that were accepted, or gave a negative, zero or
// wrong-basis figure. Each is refused with an error naming the field, or computed sanely; the
// output invariants (core/src/evaluate/invariants.cpp) hold on every evaluation. Fixtures:
// tests/fixtures/hostile/ (README there). Runs natively, under ASan/UBSan and under Emscripten.
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "evaluate/invariants.hpp"
#include "gpucalc/text.hpp"
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;

namespace {

std::string hostile_text(const std::string& name) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/hostile/" + name,
                   std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "fixture missing: " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Error catalog_error(const std::string& text, const std::string& source = "hostile.json") {
  auto c = extend_catalog(default_catalog(), text, source);
  REQUIRE_MESSAGE(!c.ok(), source << " was accepted");
  return c.error();
}

const OfferingResult& result_for(const Evaluation& ev, const std::string& offering) {
  for (const auto& r : ev.results) {
    if (r.offering_id == offering) return r;
  }
  FAIL("no result for " << offering);
  return ev.results.front();
}

using test::has_warning;

/** The default catalog's H200 entry as JSON, to derive hostile GPUs from. */
nlohmann::json h200_json() {
  for (const auto& f : embedded_data_files()) {
    if (std::string(f.name) != "gpus.json") continue;
    const auto doc = nlohmann::json::parse(f.text, nullptr, false);
    for (const auto& g : doc["gpus"]) {
      if (g["id"] == "h200-sxm") return g;
    }
  }
  FAIL("h200-sxm is not in gpus.json");
  return {};
}

void require_invariants(const Evaluation& ev) {
  const auto bad = check_output_invariants(ev);
  REQUIRE_MESSAGE(!bad, (bad ? bad->to_string() : ""));
}

}  // namespace

TEST_CASE(
    "pretraining DeepSeek-V3 on 8 GPUs does not fit: training memory, not the inference fit") {
  const Evaluation ev = test::eval_ok(default_catalog(), "v=1&workload=pretrain&model=deepseek-v3");
  const Model& m = *default_catalog().find_model("deepseek-v3");
  // By hand: TP 8 (the largest tried), ZeRO 1 over DP 1: 16 B per parameter / 8; selective
  // recomputation keeps 34 x hidden bytes per token per layer, / TP; plus the 5 GB reserve.
  const double state = m.params_total / 8.0 * (2.0 + 2.0 + 12.0);
  const double activations = m.layers * 4096.0 * 34.0 * m.hidden_size / 8.0;
  const double expected = state + activations + 5e9;
  CHECK(expected == doctest::Approx(1.3546e12).epsilon(1e-3));  // "about 1.36 TB per GPU"
  for (const auto& r : ev.results) {
    CAPTURE(r.offering_id);
    REQUIRE(r.train_memory_bytes_per_gpu);
    CHECK(*r.train_memory_bytes_per_gpu == doctest::Approx(expected));
    CHECK_FALSE(r.fit.fits);
    CHECK(std::string(r.fit.reason) == "training_does_not_fit");
    CHECK_FALSE(r.run_cost_usd);
    CHECK_FALSE(r.train_hours);
    CHECK(has_warning(r, "training_does_not_fit"));
  }
  CHECK(ev.recommended_offering_id.empty());
  require_invariants(ev);
  const std::string json = evaluation_to_json(ev, false);
  CHECK(json.find("\"fits\":true") == std::string::npos);
  CHECK(json.find("\"recommended\":null") != std::string::npos);
}

TEST_CASE("a training run that fits keeps its fit, time and cost") {
  const Evaluation ev = test::eval_ok(default_catalog(), "v=1&workload=lora&model=llama-3.1-8b");
  for (const auto& r : ev.results) {
    CAPTURE(r.offering_id);
    REQUIRE(r.train_memory_bytes_per_gpu);
    CHECK(*r.train_memory_bytes_per_gpu <= r.fit.capacity_bytes_per_gpu);
    CHECK(r.fit.fits);
    REQUIRE(r.run_cost_usd);
    CHECK(*r.run_cost_usd > 0.0);
  }
  CHECK_FALSE(ev.recommended_offering_id.empty());
  require_invariants(ev);
}

TEST_CASE("catalog dimensions whose products overflowed are refused, naming the field") {
  SUBCASE("big-moe.json: 65,536 experts of 2^22 x 2^20 over 10,000 layers") {
    const Error e = catalog_error(hostile_text("big-moe.json"), "big-moe.json");
    CHECK(e.field == "big-moe.json: models[0](big).params_total_b");
    CHECK(e.message.find("at most 1,000,000 B") != std::string::npos);
  }
  SUBCASE("mla.json: kv_lora_rank x heads passes 2^31 within the field limits") {
    const Error e = catalog_error(hostile_text("mla.json"), "mla.json");
    CHECK(e.field == "mla.json: models[0](mla).params_total_b");
    CHECK(e.message.find("1.883e+06 B") != std::string::npos);  // was 4,611 B (int overflow)
  }
}

TEST_CASE("MLA parameter count is computed in floating point (no int overflow)") {
  Model m;
  m.attention = AttentionKind::kMla;
  m.layers = 61;
  m.hidden_size = 7168;
  m.intermediate_size = 18432;
  m.heads = 1 << 16;
  m.kv_heads = m.heads;
  m.vocab_size = 129280;
  m.kv_lora_rank = 1 << 20;
  m.q_lora_rank = 1 << 20;
  m.qk_rope_head_dim = 64;
  m.qk_nope_head_dim = 128;
  m.v_head_dim = 128;
  const double h = 7168, heads = 65536, r = 1048576, qk = 192, v = 128;
  const double q = h * r + r + r * heads * qk;
  const double kv = h * (r + 64) + r + r * heads * (128 + v);
  const double attn = q + kv + heads * v * h;
  const double expected =
      129280.0 * h * 2.0 + h + 61.0 * (attn + 2.0 * h) + 61.0 * 3.0 * h * 18432.0;
  CHECK(count_params(m, false).total == doctest::Approx(expected));
  CHECK(expected > 1e15);  // beyond the catalog's 1,000,000 B limit, hence the error above
}

TEST_CASE("GPUs for the weights alone never comes out negative (double-to-int overflow)") {
  Catalog c = default_catalog();
  Model m = *c.find_model("llama-3.1-70b");
  m.id = "huge";
  m.params_total = 1e22;  // past any parse bound: 1e22 B of weights over ~150 GB per GPU
  m.params_active = 1e22;
  for (double& g : m.param_groups) g = 1e22 / static_cast<double>(m.param_groups.size());  // weights follow the groups
  c.models.push_back(m);
  Scenario s;
  s.model = "huge";
  const MemoryFit fit =
      fit_memory(m, *c.find_gpu("h200-sxm"), *c.find_offering("fullgpu-8x-h200"), s);
  CHECK(fit.gpus_needed_weights_only == -1);  // checked cast: "cannot compute", not INT_MIN
  auto ev = evaluate(c, s, false);
  REQUIRE_FALSE(ev.ok());
  CHECK(ev.error().field == "results[0](fullgpu-8x-mi355x).gpus_needed_weights_only");
  CHECK(ev.error().code == ErrorCode::kOutOfRange);
  auto table = fit_table_json(c, s);
  REQUIRE_FALSE(table.ok());
  CHECK(table.error().field.find(
            "fit_table(huge, bf16, fullgpu-8x-mi355x).gpus_needed_weights_only") == 0);
}

TEST_CASE("catalog counts: a uint64 gpu_count is reported as written, not as -1") {
  const Error e = catalog_error(R"({"offerings":[{"id":"e","name":"a","gpu":"h200-sxm",
      "gpu_count":18446744073709551615,"sources":["s"]}]})");
  CHECK(e.field == "hostile.json: offerings[0](e).gpu_count");
  CHECK(e.message.find("got 18446744073709551615") != std::string::npos);
  CHECK(e.message.find("-1") == std::string::npos);
  const Error big = catalog_error(R"({"offerings":[{"id":"e","name":"a","gpu":"h200-sxm",
      "gpu_count":9223372036854775807,"sources":["s"]}]})");
  CHECK(big.message.find("got 9223372036854775807") != std::string::npos);
  const Error frac = catalog_error(R"({"offerings":[{"id":"e","name":"a","gpu":"h200-sxm",
      "gpu_count":8.5,"sources":["s"]}]})");
  CHECK(frac.message == "must be an integer");
}

TEST_CASE("duplicate ids and duplicate JSON keys are refused with the path") {
  SUBCASE("dup.json: the duplicate key is found first") {
    const Error e = catalog_error(hostile_text("dup.json"), "dup.json");
    CHECK(e.field == "dup.json: offerings[1].gpu_count");
    CHECK(e.message.find("twice") != std::string::npos);
  }
  SUBCASE("a duplicate id in one file") {
    const Error e = catalog_error(R"({"offerings":[
        {"id":"x","name":"x","gpu":"h200-sxm","gpu_count":8,"sources":["s"]},
        {"id":"x","name":"y","gpu":"h200-sxm","gpu_count":1,"sources":["s"]}]})");
    CHECK(e.field == "hostile.json: offerings[1](x).id");
    CHECK(e.message.find("first at offerings[0]") != std::string::npos);
  }
  SUBCASE("a nested duplicate key") {
    nlohmann::json g = h200_json();
    g["id"] = "h200-dup";
    std::string text = nlohmann::json{{"gpus", {g}}}.dump();
    const std::string bf16 = "\"bf16\":989";
    const auto at = text.find(bf16);
    REQUIRE(at != std::string::npos);
    text.insert(at, "\"bf16\":1,");
    const Error e = catalog_error(text);
    CHECK(e.field == "hostile.json: gpus[0].peak_tflops.bf16");
  }
  SUBCASE("a duplicate key at the top level and inside arrays of arrays") {
    CHECK(catalog_error(R"({"models":[],"models":[]})").field == "hostile.json: models");
    CHECK(catalog_error(R"({"x":[[1,{"a":1}],[2,{"b":1,"b":2}]],"models":[]})").field ==
          "hostile.json: x[1][1].b");
  }
  SUBCASE("in a config.json") {
    auto m =
        import_hf_config(R"({"hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":32,
        "num_hidden_layers":2,"vocab_size":32000,"intermediate_size":14336})",
                         "dup");
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().field == "config.json: num_hidden_layers");
  }
  SUBCASE("in a calibration record") {
    std::string text = hostile_text("cal-tiny.json");
    text.insert(text.find("\"gpu_id\""), "\"gpu_id\": \"mi355x\", ");
    auto rec = parse_calibration_record(text, "cal.json");
    REQUIRE_FALSE(rec.ok());
    CHECK(rec.error().field == "cal.json: gpu_id");
  }
  SUBCASE("the same key in two objects is fine") {
    auto c = extend_catalog(default_catalog(), R"({"offerings":[
        {"id":"a1","name":"x","gpu":"h200-sxm","gpu_count":8,"sources":["s"]},
        {"id":"a2","name":"x","gpu":"h200-sxm","gpu_count":8,"sources":["s"]}]})",
                            "ok.json");
    CHECK_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  }
}

TEST_CASE("a derived head_dim of 0 is refused") {
  const Error e = catalog_error(R"({"models":[{"id":"t","name":"t","layers":2,"hidden_size":16,
      "intermediate_size":64,"heads":64,"kv_heads":64,"vocab_size":100,"sources":["s"]}]})");
  CHECK(e.field == "hostile.json: models[0](t).head_dim");
}

TEST_CASE("a zero calibration rate is never priced at US$0 nor recommended") {
  // In memory, past the record parser's own checks: the invariants hold whatever it admits.
  Catalog c = default_catalog();
  CalibrationRecord rec;
  rec.gpu_id = "h200-sxm";
  rec.device_name = "NVIDIA H200";
  rec.arch_target = "sm_90";
  rec.date = "2026-01-01";
  rec.source_name = "tiny";
  SUBCASE("HBM dot 5e-324 B/s") { rec.hbm_dot_bytes_per_s = 5e-324; }
  SUBCASE("FP8 matmul 5e-324 FLOP/s") {
    rec.matmul_best_flops_per_s[index_of(Precision::kFp8)] = 5e-324;
  }
  SUBCASE("HBM 1e-300 B/s (normal, absurdly small)") { rec.hbm_dot_bytes_per_s = 1e-300; }
  c.calibrations.push_back(rec);
  const Evaluation ev = test::eval_ok(c, "v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x");
  const OfferingResult& h200 = result_for(ev, "fullgpu-8x-h200");
  CHECK_FALSE(h200.max_throughput_tokens_per_s);
  CHECK_FALSE(h200.usd_per_million_tokens);
  CHECK_FALSE(h200.tpot_s);
  CHECK(has_warning(h200, "rate_not_computable"));
  CHECK(ev.recommended_offering_id == "fullgpu-8x-mi355x");
  require_invariants(ev);
  const std::string json = evaluation_to_json(ev, false);
  CHECK(json.find("\"usd_per_million_tokens\":0,") == std::string::npos);
  CHECK(json.find("\"usd_per_million_tokens\":0}") == std::string::npos);
}

TEST_CASE("cal-tiny.json: refused at parse time, or never priced at US$0") {
  auto c = extend_catalog(default_catalog(), hostile_text("cal-tiny.json"), "cal-tiny.json");
  if (!c.ok()) {
    CHECK(c.error().field.find("cal-tiny.json") == 0);  // the plausibility check refused it
    return;
  }
  const Evaluation ev = test::eval_ok(c.value(), "v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x");
  CHECK_FALSE(result_for(ev, "fullgpu-8x-h200").usd_per_million_tokens);
  CHECK(ev.recommended_offering_id != "fullgpu-8x-h200");
  require_invariants(ev);
}

TEST_CASE("an HBM figure of 1e-320 at US$50,000 a month is refused, and never priced") {
  SUBCASE("in a catalog file: refused at parse time") {
    nlohmann::json g = h200_json();
    g["id"] = "h200-tiny";
    g["achieved"]["hbm_tbps"]["value"] = 1e-320;
    const Error e = catalog_error(nlohmann::json{{"gpus", {g}}}.dump());
    CHECK(e.field == "hostile.json: gpus[0](h200-tiny).achieved.hbm_tbps.value");
  }
  SUBCASE("in memory: cannot compute, not recommended") {
    Catalog c = default_catalog();
    Gpu g = *c.find_gpu("h200-sxm");
    g.id = "h200-tiny";
    g.achieved_hbm_bytes_per_s->value = 1e-320 * kBytesPerTB;
    c.gpus.push_back(g);
    Offering o = *c.find_offering("fullgpu-8x-h200");
    o.id = "tiny-offer";
    o.gpu_id = "h200-tiny";
    o.price_usd_per_month = 50000.0;
    c.offerings.push_back(o);
    const Evaluation ev = test::eval_ok(c, "v=1&compare=tiny-offer,fullgpu-8x-h200");
    const OfferingResult& tiny = result_for(ev, "tiny-offer");
    CHECK_FALSE(tiny.usd_per_million_tokens);
    CHECK_FALSE(tiny.max_throughput_tokens_per_s);
    CHECK(has_warning(tiny, "rate_not_computable"));
    CHECK(ev.recommended_offering_id == "fullgpu-8x-h200");
    require_invariants(ev);
  }
  SUBCASE("zero and sub-floor peak figures are refused") {
    nlohmann::json g = h200_json();
    g["id"] = "h200-zero";
    g["achieved"]["matmul_tflops"]["fp8"]["value"] = 0;
    CHECK(catalog_error(nlohmann::json{{"gpus", {g}}}.dump()).field ==
          "hostile.json: gpus[0](h200-zero).achieved.matmul_tflops.fp8.value");
    g = h200_json();
    g["id"] = "h200-zero";
    g["peak_tflops"]["fp8"] = 1e-310;
    CHECK(catalog_error(nlohmann::json{{"gpus", {g}}}.dump()).field ==
          "hostile.json: gpus[0](h200-zero).peak_tflops.fp8");
    g = h200_json();
    g["id"] = "h200-zero";
    g["hbm_device_mib"] = 1;
    CHECK(catalog_error(nlohmann::json{{"gpus", {g}}}.dump()).field ==
          "hostile.json: gpus[0](h200-zero).hbm_device_mib");
  }
}

TEST_CASE("output invariants: enforced in one place") {
  Evaluation ev = test::eval_ok(default_catalog(), "v=1");
  REQUIRE(ev.results.size() == 2);
  SUBCASE("a zero throughput is cleared with its price per token") {
    ev.results[0].max_throughput_tokens_per_s = 0.0;
    ev.results[0].usd_per_million_tokens = 0.0;
    REQUIRE(enforce_output_invariants(ev).ok());
    CHECK_FALSE(ev.results[0].max_throughput_tokens_per_s);
    CHECK_FALSE(ev.results[0].usd_per_million_tokens);
    CHECK(rate_not_computable(ev.results[0]));
    CHECK_FALSE(rate_not_computable(ev.results[1]));
  }
  SUBCASE("a denormal or infinite latency is cleared with the decode rate") {
    ev.results[1].tpot_s = std::numeric_limits<double>::infinity();
    REQUIRE(enforce_output_invariants(ev).ok());
    CHECK_FALSE(ev.results[1].tpot_s);
    CHECK_FALSE(ev.results[1].decode_tokens_per_s_per_user);
    CHECK_FALSE(ev.results[1].ttft_s);
  }
  SUBCASE("a priced offering never costs US$0 per million tokens") {
    REQUIRE(ev.results[0].price_usd_per_month);
    ev.results[0].usd_per_million_tokens = 0.0;
    REQUIRE(enforce_output_invariants(ev).ok());
    CHECK_FALSE(ev.results[0].usd_per_million_tokens);
  }
  SUBCASE("a negative price is an error naming the field") {
    ev.results[1].price_usd_per_gpu_hour = -1.0;
    auto r = enforce_output_invariants(ev);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "results[1](fullgpu-8x-h200).price_gpu_hour_usd");
  }
  SUBCASE("a NaN size is an error") {
    ev.results[0].fit.kv_bytes_per_context = std::nan("");
    auto r = enforce_output_invariants(ev);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "results[0](fullgpu-8x-mi355x).kv_bytes_per_context");
  }
  SUBCASE("a shortfall (negative free memory) is allowed: it is a difference") {
    ev.results[0].fit.kv_free_bytes = -5e9;
    ev.results[0].fit.headroom_bytes_per_gpu = -1e9;
    CHECK(enforce_output_invariants(ev).ok());
  }
  SUBCASE("the check flags a recommended offering whose rates cannot be computed") {
    ev.results[0].warnings.emplace_back("rate_not_computable");
    ev.recommended_offering_id = ev.results[0].offering_id;
    REQUIRE(check_output_invariants(ev));
    CHECK(check_output_invariants(ev)->field == "recommended");
  }
}

TEST_CASE("output invariants hold over the built-in catalog's models and workloads") {
  for (const auto& m : default_catalog().models) {
    for (const char* w : {"inference", "pretrain", "finetune", "lora", "qlora"}) {
      const std::string s = std::string("v=1&model=") + m.id + "&workload=" + w +
                            "&compare=fullgpu-8x-mi355x,fullgpu-8x-h200,fullgpu-1x-h200";
      CAPTURE(s);
      const Evaluation ev = test::eval_ok(default_catalog(), s);
      require_invariants(ev);
      for (const auto& r : ev.results) {
        if (!r.fit.fits) CHECK(ev.recommended_offering_id != r.offering_id);
        if (ev.scenario.workload != Workload::kInference && !r.fit.fits)
          CHECK_FALSE(r.run_cost_usd);
      }
    }
  }
  auto table = fit_table_json(default_catalog(), Scenario{});
  CHECK_MESSAGE(table.ok(), (table.ok() ? "" : table.error().to_string()));
}

TEST_CASE("error_to_json keeps UTF-8 and replaces bytes that are not UTF-8 by U+FFFD") {
  const Error e = make_error(ErrorCode::kBadValue, "model", "\xe6\xa8\xa1\xe5\x9e\x8b \xff \xed\xa0\x80 \xc3 \"q\" \x01");
  const std::string text = error_to_json(e);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["error"]["code"] == "bad_value");
  CHECK(j["error"]["field"] == "model");
  // Chinese kept; a lone 0xFF, a surrogate's encoding and a cut sequence each become U+FFFD.
  CHECK(j["error"]["message"] ==
        "\xe6\xa8\xa1\xe5\x9e\x8b \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd \"q\" \x01");
}

TEST_CASE("error_to_json escapes a byte that needs it at every position of a long text") {
  // The writer copies eight bytes at a time while none needs an escape: put each kind of byte at
  // each position of texts longer than one, two and three such blocks; nlohmann's parser must
  // read back the text itself (or U+FFFD for the byte that is not UTF-8).
  const std::pair<std::string, std::string> kinds[] = {
      {"\"", "\""}, {"\\", "\\"}, {"\x01", "\x01"}, {"\x1f", "\x1f"}, {" ", " "},
      {"\x7f", "\x7f"}, {"~", "~"}, {"\xc3\xa9", "\xc3\xa9"}, {"\xe6\xa8\xa1", "\xe6\xa8\xa1"},
      {"\xff", "\xef\xbf\xbd"}, {"\x80", "\xef\xbf\xbd"}};
  for (const std::size_t length : {7u, 8u, 9u, 16u, 17u, 25u}) {
    for (std::size_t at = 0; at < length; ++at) {
      for (const auto& [byte, expected] : kinds) {
        const std::string text = std::string(at, 'a') + byte + std::string(length - at, 'b');
        CAPTURE(text);
        const auto j = nlohmann::json::parse(error_to_json(make_error(ErrorCode::kBadValue, "f", text)),
                                             nullptr, false);
        REQUIRE_FALSE(j.is_discarded());
        CHECK(j["error"]["message"] == std::string(at, 'a') + expected + std::string(length - at, 'b'));
      }
    }
  }
}

TEST_CASE("an error quoting bytes that are not UTF-8 is still a JSON error object") {
  // "%FF" decodes to a lone 0xFF byte; the JSON dump used to abort on it (the page and the
  // WASM binding return errors through error_to_json).
  for (const char* text : {"v=1&model=%FF", "v=1&model=\xff\xfe", "v=1&compare=%C3"}) {
    CAPTURE(text);
    auto s = decode_scenario(text);
    const Error e = s.ok() ? evaluate(default_catalog(), s.value(), false).error() : s.error();
    const auto j = nlohmann::json::parse(error_to_json(e), nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["error"]["field"].is_string());
  }
}

// Round 3: every accepted figure within physics, one rule for the buyer's limits, text that
// cannot rewrite the screen. Each case below was accepted (or recommended the wrong offering)
// before the bounds in core/src/catalog/bounds.hpp and the rules they name.
namespace {

/** A built-in data document as JSON, to derive hostile documents from. */
nlohmann::json data_doc(const std::string& name) {
  for (const auto& f : embedded_data_files()) {
    if (std::string(f.name) == name) return nlohmann::json::parse(f.text, nullptr, false);
  }
  FAIL("not compiled in: " << name);
  return {};
}

/** The error of extending the built-in catalog with `doc`, whose field must be `field`. */
void require_refused(const nlohmann::json& doc, const std::string& field) {
  CAPTURE(field);
  auto c = extend_catalog(default_catalog(), doc.dump(), "hostile.json");
  REQUIRE_MESSAGE(!c.ok(), "accepted: " << doc.dump().substr(0, 200));
  CHECK(c.error().field == field);
}

}  // namespace

TEST_CASE("the built-in documents pass their own bounds") {
  for (const char* name : {"engines.json", "kernels.json", "performance.json", "error-bands.json",
                           "gpus.json", "offerings.json", "models.json"}) {
    CAPTURE(name);
    auto c = extend_catalog(default_catalog(), data_doc(name).dump(), name);
    CHECK_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  }
}

TEST_CASE("engine figures beyond physics are refused with their path") {
  using Ptr = nlohmann::json::json_pointer;
  struct Case {
    const char* what;
    const char* pointer;  // into data/engines.json
    nlohmann::json value;
    const char* field;    // after "hostile.json: engines.json.engines"
  };
  const Case cases[] = {
      {"a request overhead of 1e308 s (a 309-digit TTFT)", "/engines/1/request_overhead_s/nvidia", 1e308,
       "[1].request_overhead_s.nvidia"},
      {"a negative KV reserve (DeepSeek-V3 on one H200)", "/engines/1/kv_rule/floor_mb", -1e7, "[1].kv_rule.floor_mb"},
      {"zero running requests, still priced and recommended", "/engines/1/max_running_requests/value", 0,
       "[1].max_running_requests"},
      {"a step overhead of 16 years", "/engines/1/step_overhead_s/value", 5e8, "[1].step_overhead_s"},
      {"a KV fraction of 1e-300", "/engines/0/kv_rule", {{"kind", "utilization"}, {"value", 1e-300}},
       "[0].kv_rule.value"},
      {"a misspelt key", "/engines/1/max_running_request", 1, "[1].max_running_request"},
      {"a misspelt reserve key", "/engines/1/kv_rule/flor_mb", 1, "[1].kv_rule.flor_mb"},
      {"a string for a number (an abort before)", "/engines/1/request_overhead_s/nvidia", "fast",
       "[1].request_overhead_s.nvidia"},
      {"a number for the rule's kind (an abort before)", "/engines/1/kv_rule/kind", 7, "[1].kv_rule.kind"},
  };
  REQUIRE(data_doc("engines.json")["engines"][1]["kv_rule"]["kind"] == "reserved");
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto doc = data_doc("engines.json");
    doc[Ptr(c.pointer)] = c.value;
    require_refused(doc, std::string("hostile.json: engines.json.engines") + c.field);
  }
}

TEST_CASE("model constants, kernels and error bands beyond physics are refused with their path") {
  SUBCASE("hbm_fraction 1e-300: 1e-297 tok/s and US$6.6e300 per Mtok") {
    auto doc = data_doc("performance.json");
    doc["hbm_fraction"]["value"] = 1e-300;
    require_refused(doc, "hostile.json: performance.hbm_fraction");
    doc = data_doc("performance.json");
    doc["hbm_fractoin"] = 0.5;
    require_refused(doc, "hostile.json: performance.hbm_fractoin");
  }
  SUBCASE("MTP: a step with d drafts emits at most d + 1 tokens, more drafts never fewer") {
    auto doc = data_doc("performance.json");
    doc["mtp_acceptance_length"]["models"]["deepseek-v3"] = {64};  // 13x decode speed
    require_refused(doc, "hostile.json: performance.mtp_acceptance_length.models.deepseek-v3[0]");
    doc["mtp_acceptance_length"]["models"]["deepseek-v3"] = {1.9, 2.9, 2.5};
    require_refused(doc, "hostile.json: performance.mtp_acceptance_length.models.deepseek-v3[2]");
    doc["mtp_acceptance_length"]["models"]["deepseek-v3"] = {2.0, 3.0};
    CHECK(extend_catalog(default_catalog(), doc.dump(), "hostile.json").ok());
  }
  SUBCASE("kernel latencies of 1e-300 and 1e300 us name the field instead of nulling the rates") {
    auto doc = data_doc("kernels.json");
    doc["gpus"]["h200-sxm"]["gemm_latency_us"]["value"] = 1e-300;
    require_refused(doc, "hostile.json: kernels.json.gpus.h200-sxm.gemm_latency_us.value");
    doc = data_doc("kernels.json");
    doc["gpus"]["h200-sxm"]["allreduce_us"]["nccl"]["us"][1] = 1e300;
    require_refused(doc, "hostile.json: kernels.json.gpus.h200-sxm.allreduce_us.nccl.us[1]");
    doc = data_doc("kernels.json");
    doc["gpus"]["h200-sxm"]["gemm_latncy_us"] = 1;
    require_refused(doc, "hostile.json: kernels.json.gpus.h200-sxm.gemm_latncy_us");
  }
  SUBCASE("an error band of 5,000 % and a misspelt band key") {
    auto doc = data_doc("error-bands.json");
    doc["bands"][0]["metrics"][0]["mape"] = 50.0;  // 5,000 %
    require_refused(doc, "hostile.json: error-bands.json.bands[0].metrics[0].mape");
    doc = data_doc("error-bands.json");
    doc["bands"][0]["metrics"][0]["mapee"] = 0.1;
    require_refused(doc, "hostile.json: error-bands.json.bands[0].metrics[0].mapee");
  }
}

TEST_CASE("prices: at least a cent a month or null; misspelt catalog keys are refused") {
  const std::string at = "hostile.json: offerings[0](cheap)";
  for (const double price : {0.0, 1e-320, 1e-30, 0.009}) {
    CAPTURE(price);
    nlohmann::json o = {{"id", "cheap"}, {"name", "cheap"}, {"gpu", "h200-sxm"}, {"gpu_count", 8},
                        {"price_usd_per_month", price}, {"sources", {"s"}}};
    require_refused({{"offerings", {o}}}, at + ".price_usd_per_month");
    o.erase("price_usd_per_month");
    o["price_usd_per_gpu_hour"] = price * 1e-4;  // x 8 GPUs x 730 h: under a cent a month
    require_refused({{"offerings", {o}}}, at + ".price_usd_per_gpu_hour");
  }
  nlohmann::json o = {{"id", "cheap"}, {"name", "cheap"}, {"gpu", "h200-sxm"}, {"gpu_count", 8},
                      {"price_usd_per_mnth", 100}, {"sources", {"s"}}};
  require_refused({{"offerings", {o}}}, at + ".price_usd_per_mnth");
  nlohmann::json g = h200_json();
  g["id"] = "h200-typo";
  g["interconnect"]["per_gpu_gbs"] = 900;
  require_refused({{"gpus", {g}}}, "hostile.json: gpus[0](h200-typo).interconnect.per_gpu_gbs");
  o["price_usd_per_month"] = 0.01;  // a cent: the floor itself
  o.erase("price_usd_per_mnth");
  CHECK(extend_catalog(default_catalog(), nlohmann::json{{"offerings", {o}}}.dump(), "ok.json").ok());
}

TEST_CASE("latency limits: an offering that misses them is never recommended over one that meets them") {
  // A TTFT limit the H200 server meets (about 0.09 s at one user) and the MI300X server misses.
  const Evaluation ev = test::eval_ok(
      default_catalog(),
      "v=1&model=llama-3.1-70b&ttft_max=0.09&users=64&context=8192&compare=server-8x-mi300x,fullgpu-8x-h200");
  const OfferingResult& mi300x = result_for(ev, "server-8x-mi300x");
  const OfferingResult& h200 = result_for(ev, "fullgpu-8x-h200");
  REQUIRE(has_warning(mi300x, "latency_limits_unmet"));
  REQUIRE(h200.max_throughput_tokens_per_s);
  CHECK(ev.recommended_offering_id == "fullgpu-8x-h200");
  int cons = 0;
  for (const auto& v : ev.verdict) {
    if (v.code != "latency_limits_unmet") continue;
    ++cons;
    CHECK(v.offering_id == "server-8x-mi300x");
    CHECK(v.kind == "con");
    CHECK(v.params[0].second == doctest::Approx(0.09));
  }
  CHECK(cons == 1);
  require_invariants(ev);
  // Limits neither meets: none is recommended, and each offering's con says why.
  const Evaluation none = test::eval_ok(default_catalog(), "v=1&model=llama-3.1-70b&ttft_max=0.001&users=64&context=8192");
  CHECK(none.recommended_offering_id.empty());
  cons = 0;
  for (const auto& v : none.verdict) cons += v.code == "latency_limits_unmet" ? 1 : 0;
  CHECK(cons == 2);
  require_invariants(none);
}

TEST_CASE("output invariants: the curve, both points and the physical caps") {
  Evaluation ev = test::eval_ok(default_catalog(), "v=1&interactivity=20");
  REQUIRE(ev.results.size() == 2);
  OfferingResult& r = ev.results[0];
  REQUIRE(!r.curve.empty());
  REQUIRE(r.max_throughput_point);
  SUBCASE("a curve point at 1e-297 tok/s clears the curve, the points and the throughput") {
    r.curve.back().output_tokens_per_s_per_gpu = 1e-297;
    CHECK(check_output_invariants(ev)->field == "results[0](fullgpu-8x-mi355x).curve[" +
                                                    std::to_string(r.curve.size() - 1) + "].output_tokens_per_s_per_gpu");
    REQUIRE(enforce_output_invariants(ev).ok());
    CHECK(r.curve.empty());
    CHECK_FALSE(r.max_throughput_point);
    CHECK_FALSE(r.max_throughput_tokens_per_s);
    CHECK_FALSE(r.usd_per_million_total_tokens);
    CHECK(rate_not_computable(r));
    build_verdict(ev);
    CHECK_FALSE(check_output_invariants(ev));
  }
  SUBCASE("a TTFT above a day, at the users or at the max-throughput point") {
    r.ttft_s = 1e308;
    CHECK(check_output_invariants(ev)->field == "results[0](fullgpu-8x-mi355x).ttft_s");
    REQUIRE(enforce_output_invariants(ev).ok());
    CHECK_FALSE(r.ttft_s);
    CHECK_FALSE(r.total_tokens_per_s_per_gpu);
    build_verdict(ev);
    CHECK_FALSE(check_output_invariants(ev));
    ev.results[1].max_throughput_point->ttft_s = 2 * kMaxLatencyS;
    CHECK(check_output_invariants(ev)->field == "results[1](fullgpu-8x-h200).max_throughput_point.ttft_s");
  }
  SUBCASE("a rate above the GPU's peak") {
    // By hand: 8x H200 at 1,979 TFLOPS FP8 dense peak, a 70.6 B active model: 2 x 70.6e9 FLOP a
    // token, so no GPU passes 1.979e15 / 1.412e11 = 14,016 tokens/s.
    const double ceiling = r.gpu_peak_flops_per_s / (2.0 * ev.model.params_active);
    CHECK(ceiling > 1000.0);
    r.output_tokens_per_s_per_gpu = ceiling * 1.01;
    CHECK(check_output_invariants(ev)->field == "results[0](fullgpu-8x-mi355x).output_tokens_per_s_per_gpu");
    r.output_tokens_per_s_per_gpu = ceiling * 0.99;
    CHECK_FALSE(check_output_invariants(ev));
    r.max_throughput_tokens_per_s = ceiling * r.deployed_gpus * 1.01;
    CHECK(check_output_invariants(ev)->field == "results[0](fullgpu-8x-mi355x).max_throughput_tokens_per_s");
  }
  SUBCASE("a verdict ratio above 1e6") {
    REQUIRE(!ev.verdict.empty());
    ev.verdict[0].params = {{"ratio", 4.9e34}};
    CHECK(check_output_invariants(ev)->field.rfind("verdict[0]", 0) == 0);
  }
}

TEST_CASE("verdict: no reason compares figures a million times apart") {
  // 1e-30 a month was a ratio of 4.9e34; prices now stop at a cent, and a ratio past 1e6 from
  // figures at the bounds' ends gives no reason.
  const char* doc = R"({"offerings": [{"id": "penny", "name": "penny", "gpu": "h200-sxm", "gpu_count": 8,
      "price_usd_per_month": 0.01, "sources": ["s"]}]})";
  auto c = extend_catalog(default_catalog(), doc, "penny.json");
  REQUIRE(c.ok());
  const Evaluation ev = test::eval_ok(c.value(), "v=1&compare=penny,fullgpu-8x-mi355x");
  for (const auto& v : ev.verdict) {
    for (const auto& [name, x] : v.params) {
      if (name == "ratio") CHECK(x <= kMaxVerdictRatio);
    }
  }
  require_invariants(ev);
}

TEST_CASE("text for the terminal and the spreadsheet: one escaper, one CSV cell writer") {
  // U+202E (right-to-left override) reversed the verdict line; ESC/BEL rewrote the screen; a
  // lone 0xFF made the CLI's error line invalid UTF-8.
  CHECK(escape_for_display("a\xe2\x80\xae" "b") == "a\\u202eb");
  CHECK(escape_for_display("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u2066x\\u2069");  // isolates
  CHECK(escape_for_display("z\xe2\x80\x8bw") == "z\\u200bw");                    // zero-width space
  CHECK(escape_for_display("\xef\xbb\xbf") == "\\ufeff");                         // BOM
  CHECK(escape_for_display("\xf3\xa0\x80\x81") == "\\U000e0001");                 // a tag
  CHECK(escape_for_display("\x1b[2J\a") == "\\x1b[2J\\x07");
  CHECK(escape_for_display(std::string("\0\x7f", 2)) == "\\x00\\x7f");
  CHECK(escape_for_display("\xc2\x9b" "1m") == "\\u009b1m");                      // C1 CSI
  CHECK(escape_for_display("\xff\xfe") == "\\xff\\xfe");
  CHECK(escape_for_display("\xc0\xaf") == "\\xc0\\xaf");          // overlong '/'
  CHECK(escape_for_display("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(escape_for_display("\xe6\xa8\xa1") == "\xe6\xa8\xa1");    // Chinese passes
  CHECK(escape_for_display("H200 \xc3\xa9t\xc3\xa9") == "H200 \xc3\xa9t\xc3\xa9");
  std::string csv;
  append_csv_cell(csv, "=HYPERLINK(\"http://x/\",\"a\"),\"b\"");
  CHECK(csv == "\"'=HYPERLINK(\"\"http://x/\"\",\"\"a\"\"),\"\"b\"\"\"");
  csv.clear();
  append_csv_cell(csv, "\x1b[31mred\a\r\n");  // a line break stays, inside quotes
  CHECK(csv == "\"\\x1b[31mred\\x07\r\n\"");
  csv.clear();
  append_csv_cell(csv, "plain");
  CHECK(csv == "plain");
}
