// Scenario codec: defaults, round trips, canonical form, rejections that name the key.
#include "gpucalc/scenario.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <vector>

using namespace gpucalc;

namespace {
Error decode_error(const std::string& text) {
  auto r = decode_scenario(text);
  REQUIRE_FALSE_MESSAGE(r.ok(), text << " decoded although it is invalid");
  return r.error();
}
}  // namespace

TEST_CASE("every key has a default: v=1 is the default scenario") {
  auto r = decode_scenario("v=1");
  REQUIRE(r.ok());
  CHECK(r.value() == Scenario{});
  CHECK(encode_scenario(r.value()) ==
        "v=1&model=llama-3.1-70b&weights=fp8&kv=fp8&context=131072&users=1"
        "&compare=fullgpu-8x-mi355x,fullgpu-8x-h200&capacity=device&reserve=5");
  // The documented key table covers every key the decoder accepts.
  for (const auto& k : scenario_keys()) {
    if (std::string(k.key) == "v" || std::string(k.key) == "price") continue;
    auto d = decode_scenario(std::string("v=1&") + k.key + "=" + k.default_text);
    CHECK_MESSAGE(d.ok(), k.key);
    if (d.ok()) CHECK_MESSAGE(d.value() == Scenario{}, k.key);
  }
}

TEST_CASE("decode then encode gives the canonical string") {
  const char* inputs[] = {
      "v=1&model=deepseek-v3&weights=fp4&kv=bf16&context=8192&users=64&compare=server-8x-b200,fullgpu-8x-mi355x,server-8x-h100,fullgpu-1x-h200&capacity=marketed&reserve=0",
      "compare=fullgpu-8x-h200&v=1&users=3",  // any order, missing keys
      "#v=1&workload=qlora&rank=64&seq=8192&tokens=250000000&zero=3&recompute=full&mb=2&util=0.55",
      "v=1&storage=100&network=50.5&software=20&engineering=1000&porting=25000&recovery=0.05&flops_eff=0.6&bw_eff=0.85&cudaonly=1&kernels=1&trtllm=1",
      "v=1&price=-,21000&compare=fullgpu-8x-mi355x,fullgpu-8x-h200&tp=4&input=2048&output=256",
      "v=1&reserve=2.5&compare=fullgpu-8x-mi355x%2Cfullgpu-8x-h200",
  };
  for (const char* text : inputs) {
    CAPTURE(text);
    auto a = decode_scenario(text);
    REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().to_string()));
    const std::string canonical = encode_scenario(a.value());
    auto b = decode_scenario(canonical);
    REQUIRE(b.ok());
    CHECK(encode_scenario(b.value()) == canonical);
    CHECK(b.value() == a.value());
    CHECK(canonical.rfind("v=1&", 0) == 0);
  }
  auto p = decode_scenario("v=1&price=-,21000");
  REQUIRE(p.ok());
  CHECK(encode_scenario(p.value()).find("&price=-,21000") != std::string::npos);
  CHECK(p.value().reserve_gb_per_gpu == 5.0);
  auto r = decode_scenario("v=1&reserve=2.5&util=0.123456789");
  REQUIRE(r.ok());
  CHECK(encode_scenario(r.value()).find("reserve=2.5&") != std::string::npos);
  CHECK(encode_scenario(r.value()).find("util=0.123456789") != std::string::npos);
}

TEST_CASE("bad input names the key") {
  struct Case {
    const char* text;
    const char* field;
    ErrorCode code;
  };
  const Case cases[] = {
      {"v=1&weights=fp3", "weights", ErrorCode::kBadValue},
      {"v=1&context=-5", "context", ErrorCode::kOutOfRange},
      {"v=1&context=1e30", "context", ErrorCode::kOutOfRange},
      {"v=1&context=0", "context", ErrorCode::kOutOfRange},
      {"v=1&context=99999999999999999999", "context", ErrorCode::kOutOfRange},
      {"v=1&context=12abc", "context", ErrorCode::kBadValue},
      {"v=1&users=", "users", ErrorCode::kBadValue},
      {"v=1&kv=fp4", "kv", ErrorCode::kBadValue},
      {"v=1&colour=red", "colour", ErrorCode::kUnknownKey},
      {"v=1&compare=", "compare", ErrorCode::kBadValue},
      {"v=1&compare=a,b,c,d,e,f,g,h,i", "compare", ErrorCode::kOutOfRange},
      {"v=1&compare=a,a", "compare", ErrorCode::kBadValue},
      {"v=1&model=<img src=x onerror=alert(1)>", "model", ErrorCode::kBadValue},
      {"v=1&capacity=gib", "capacity", ErrorCode::kBadValue},
      {"v=1&reserve=NaN", "reserve", ErrorCode::kOutOfRange},
      {"v=1&reserve=inf", "reserve", ErrorCode::kOutOfRange},
      {"v=1&util=0", "util", ErrorCode::kOutOfRange},
      {"v=1&util=1.5", "util", ErrorCode::kOutOfRange},
      {"v=1&zero=4", "zero", ErrorCode::kOutOfRange},
      {"v=1&cudaonly=yes", "cudaonly", ErrorCode::kBadValue},
      {"v=1&price=1,2,3", "price", ErrorCode::kOutOfRange},
      {"v=1&price=abc", "price", ErrorCode::kBadValue},
      {"v=2&model=x", "v", ErrorCode::kUnsupportedVersion},
      {"v=1&v=1", "v", ErrorCode::kBadValue},
      {"v=1&users=2&users=3", "users", ErrorCode::kBadValue},
      {"v=1&context", "context", ErrorCode::kBadValue},
      {"v=1&model=%zz", "model", ErrorCode::kBadValue},
      {"", "scenario", ErrorCode::kBadValue},
      {"#", "scenario", ErrorCode::kBadValue},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const Error e = decode_error(c.text);
    CHECK(e.field == c.field);
    CHECK(e.code == c.code);
    CHECK_FALSE(e.message.empty());
    CHECK(e.to_string().find('\n') == std::string::npos);
  }
  const Error big = decode_error(std::string(1 << 20, 'a'));
  CHECK(big.code == ErrorCode::kTooLarge);
  CHECK(big.field == "scenario");
}

TEST_CASE("ids unknown to the catalog are rejected at evaluation, naming the key") {
  const Catalog& c = default_catalog();
  auto m = evaluate_text(c, "v=1&model=gpt-5", false);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().field == "model");
  CHECK(m.error().code == ErrorCode::kUnknownId);
  auto o = evaluate_text(c, "v=1&compare=fullgpu-8x-mi355x,nope", false);
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().field == "compare[1]");  // the entry, so a link keeps the other ids
  auto tp = evaluate_text(c, "v=1&tp=3", false);
  REQUIRE_FALSE(tp.ok());
  CHECK(tp.error().field == "tp");
}

TEST_CASE("the schema table: one row per key, defaults from Scenario{}, choices the parsers accept") {
  const auto& keys = scenario_keys();
  REQUIRE(keys.size() > 10);
  CHECK(std::string(keys.front().key) == "v");
  std::vector<std::string> names;
  for (const auto& k : keys) {
    CAPTURE(k.key);
    for (const auto& n : names) CHECK(n != k.key);  // one row per key
    names.emplace_back(k.key);
    CHECK(std::string(k.description).size() > 3);
    if (k.kind == KeyKind::kInteger || k.kind == KeyKind::kNumber) CHECK(k.min <= k.max);
    if (k.kind == KeyKind::kChoice) {
      REQUIRE_FALSE(k.choices.empty());
      for (const auto& c : k.choices) {
        auto d = decode_scenario("v=1&" + std::string(k.key) + "=" + c);
        CHECK_MESSAGE(d.ok(), c);
        const bool written = d.ok() && encode_scenario(d.value()).find(std::string(k.key) + "=" + c) != std::string::npos;
        CHECK((written || c == k.default_text));
      }
      if (std::string(k.key) == "engine") {
        // The engine key lists the built-in engines, but a catalog document may add others: any
        // id decodes, and evaluation refuses one the catalog lacks, naming the key
        // (tests/catalog/test_engines.cpp).
        auto ev = evaluate_text(default_catalog(), "v=1&engine=nonsense", false);
        REQUIRE_FALSE(ev);
        CHECK(ev.error().field == "engine");
        CHECK(ev.error().code == ErrorCode::kBadValue);
      } else {
        CHECK(decode_error("v=1&" + std::string(k.key) + "=nonsense").code == ErrorCode::kBadValue);
      }
    }
    if (k.kind == KeyKind::kInteger && std::string(k.key) != "v") {
      // The bounds are inclusive and one past them is out of range. Input + output must fit in
      // the context (request_fits_context), so those keys' bounds are read with room for them.
      const auto lo = static_cast<long long>(k.min), hi = static_cast<long long>(k.max);
      const std::string longest = std::to_string(kMaxScenarioTokens);
      const std::string room = std::string(k.key) == "context" ? "&input=1&output=1"
                               : std::string(k.key) == "input" ? "&output=1&context=" + longest
                               : std::string(k.key) == "output" ? "&input=1&context=" + longest
                                                                : "";
      CHECK(decode_scenario("v=1&" + std::string(k.key) + "=" + std::to_string(lo) + room).ok());
      CHECK(decode_scenario("v=1&" + std::string(k.key) + "=" + std::to_string(hi) + room).ok());
      CHECK(decode_error("v=1&" + std::string(k.key) + "=" + std::to_string(hi + 1)).code == ErrorCode::kOutOfRange);
    }
  }
  // The weights and kv choices are exactly what the precision parsers accept.
  for (const auto& k : keys) {
    if (std::string(k.key) == "weights") {
      for (const auto& c : k.choices) CHECK(parse_weight_format(c).has_value());
      CHECK(k.choices.size() == 6);  // bf16, fp8, fp6, fp4, int4, native
    }
    if (std::string(k.key) == "kv") {
      for (const auto& c : k.choices) CHECK(parse_kv_format(c).has_value());
    }
  }
}

TEST_CASE("every number round-trips exactly through the canonical string") {
  // Values below 5e-13 used to be written as 0.
  const char* texts[] = {
      "v=1&util=0.0000000000001",        "v=1&reserve=0.0000000000000001",
      "v=1&recovery=0.00000000000000000000000000001", "v=1&price=0.0000001,-",
      "v=1&flops_eff=0.1234567890123456", "v=1&reserve=1023.9999999999999",
      "v=1&storage=999999999999.99",      "v=1&bw_eff=0.30000000000000004",
  };
  for (const char* text : texts) {
    CAPTURE(text);
    auto a = decode_scenario(text);
    REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().to_string()));
    auto b = decode_scenario(encode_scenario(a.value()));
    REQUIRE_MESSAGE(b.ok(), encode_scenario(a.value()));
    const Scenario& x = a.value();
    const Scenario& y = b.value();
    CHECK(x.utilization == y.utilization);
    CHECK(x.reserve_gb_per_gpu == y.reserve_gb_per_gpu);
    CHECK(x.recovery_fraction == y.recovery_fraction);
    CHECK(x.flops_efficiency == y.flops_efficiency);
    CHECK(x.bandwidth_efficiency == y.bandwidth_efficiency);
    CHECK(x.storage_usd == y.storage_usd);
    CHECK(x.price_usd_per_month == y.price_usd_per_month);
  }
  CHECK(format_scenario_number(1e-13) == "0.0000000000001");
  CHECK(format_scenario_number(0.1) == "0.1");
  CHECK(format_scenario_number(-2.5) == "-2.5");
  CHECK(format_scenario_number(123456.75) == "123456.75");
  CHECK(format_scenario_number(1e20) == "100000000000000000000");
  // A sweep over many magnitudes: the text reads back to the same double.
  double x = 1.0 / 3.0;
  for (int i = 0; i < 60; ++i, x /= 7.3) {
    const std::string t = format_scenario_number(x);
    CAPTURE(t);
    CHECK(t.find('e') == std::string::npos);
    CHECK(std::strtod(t.c_str(), nullptr) == x);
  }
}

TEST_CASE("v: older than 1 is out of range, newer is unsupported and says which version") {
  const Error old = decode_error("v=0&users=3");
  CHECK(old.code == ErrorCode::kOutOfRange);
  CHECK(old.message.find("newer") == std::string::npos);
  const Error newer = decode_error("v=7&users=3");
  CHECK(newer.code == ErrorCode::kUnsupportedVersion);
  CHECK(newer.message.find("newer") != std::string::npos);
  CHECK(newer.message.find("7") != std::string::npos);
  REQUIRE(newer.params.size() == 2);
  CHECK(newer.params[0].second == 7.0);
  CHECK(newer.params[1].second == kScenarioVersion);
}

TEST_CASE("lenient decode: a bad key is reported and the others are kept") {
  // One bad key must not lose the rest of the link.
  auto d = decode_scenario_lenient("v=1&users=7&context=-5&colour=red&weights=fp4&users=9&tp=2");
  CHECK(d.scenario.users == 7);
  CHECK(d.scenario.weights == WeightFormat::kFp4);
  CHECK(d.scenario.tp == 2);
  CHECK(d.scenario.context_tokens == Scenario{}.context_tokens);
  REQUIRE(d.errors.size() == 3);
  CHECK(d.errors[0].field == "context");
  CHECK(d.errors[0].code == ErrorCode::kOutOfRange);
  CHECK(d.errors[1].field == "colour");
  CHECK(d.errors[1].code == ErrorCode::kUnknownKey);
  CHECK(d.errors[2].field == "users");  // the duplicate; the first value stays

  auto newer = decode_scenario_lenient("v=2&model=deepseek-v3&users=4");
  REQUIRE(newer.errors.size() == 1);
  CHECK(newer.errors[0].code == ErrorCode::kUnsupportedVersion);
  CHECK(newer.scenario.model == "deepseek-v3");
  CHECK(newer.scenario.users == 4);

  auto prices = decode_scenario_lenient("v=1&compare=fullgpu-8x-h200&price=1,2&users=5");
  REQUIRE(prices.errors.size() == 1);
  CHECK(prices.errors[0].field == "price");
  CHECK(prices.scenario.price_usd_per_month.empty());
  CHECK(prices.scenario.users == 5);

  auto ok = decode_scenario_lenient("v=1&users=3");
  CHECK(ok.errors.empty());
  CHECK(ok.scenario == decode_scenario("v=1&users=3").value());

  auto whole = decode_scenario_lenient(std::string(5000, 'a'));
  REQUIRE(whole.errors.size() == 1);
  CHECK(whole.errors[0].code == ErrorCode::kTooLarge);
  CHECK(whole.scenario == Scenario{});
}

TEST_CASE("inputs echo: every key's decoded value, defaults applied, typed by kind") {
  auto d = decode_scenario("v=1&price=-,21000&users=3&cudaonly=1");
  REQUIRE(d.ok());
  const auto j = nlohmann::json::parse(scenario_inputs_json(d.value()), nullptr, false);
  REQUIRE(j.is_object());
  for (const auto& k : scenario_keys()) CHECK_MESSAGE(j.contains(k.key), k.key);
  CHECK(j.size() == scenario_keys().size());
  CHECK(j["users"] == 3);
  CHECK(j["context"] == Scenario{}.context_tokens);
  CHECK(j["weights"] == "fp8");
  CHECK(j["cudaonly"] == true);
  CHECK(j["kernels"] == false);
  CHECK(j["reserve"] == 5.0);
  CHECK(j["compare"] == nlohmann::json::array({"fullgpu-8x-mi355x", "fullgpu-8x-h200"}));
  CHECK(j["price"] == nlohmann::json::parse("[null, 21000]"));

  // The schema document and the lenient decode document parse and agree with the table.
  const auto schema = nlohmann::json::parse(scenario_schema_json(), nullptr, false);
  REQUIRE(schema.is_array());
  REQUIRE(schema.size() == scenario_keys().size());
  CHECK(schema[4]["key"] == scenario_keys()[4].key);
  CHECK(schema[4]["default_text"] == scenario_keys()[4].default_text);
  const auto decoded = nlohmann::json::parse(scenario_decode_json("v=1&users=x&tp=2"), nullptr, false);
  REQUIRE(decoded.is_object());
  CHECK(decoded["inputs"]["tp"] == 2);
  CHECK(decoded["errors"][0]["field"] == "users");
  CHECK(decoded["errors"][0]["code"] == "bad_value");
  CHECK(decoded["scenario"].get<std::string>().find("&tp=2") != std::string::npos);
}
