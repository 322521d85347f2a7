// Scenario codec: defaults, round trips, canonical form, rejections that name the key.
#include "gpucalc/scenario.hpp"
#include "test_support.hpp"

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
      {"v=1&compare=a,b,c,d,e", "compare", ErrorCode::kOutOfRange},
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
  CHECK(o.error().field == "compare");
  auto tp = evaluate_text(c, "v=1&tp=3", false);
  REQUIRE_FALSE(tp.ok());
  CHECK(tp.error().field == "tp");
}
