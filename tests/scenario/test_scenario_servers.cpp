// The scenario keys servers and kwh: decode, encode, errors.
#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

TEST_CASE("scenario keys servers and kwh: decode, encode, errors") {
  auto s = decode_scenario("v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x&servers=2,-&kwh=0.12");
  REQUIRE(s.ok());
  CHECK(s.value().servers == std::vector<int>{2, 1});
  CHECK(s.value().usd_per_kwh == 0.12);
  const std::string canon = encode_scenario(s.value());
  CHECK(canon.find("&servers=2") != std::string::npos);
  CHECK(canon.find("&kwh=0.12") != std::string::npos);
  auto again = decode_scenario(canon);
  REQUIRE(again.ok());
  CHECK(again.value() == s.value());
  CHECK(decode_scenario("v=1&compare=fullgpu-8x-h200,fullgpu-8x-mi355x&servers=1,0").value().servers ==
        std::vector<int>{1, 0});
  CHECK(decode_scenario("v=1").value().usd_per_kwh == 0.08);
  for (const char* bad : {"v=1&servers=x", "v=1&servers=-1", "v=1&servers=1,1,1", "v=1&servers=129",
                          "v=1&servers=1.5"}) {
    CAPTURE(bad);
    auto e = decode_scenario(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == "servers");
  }
  for (const char* bad : {"v=1&kwh=0", "v=1&kwh=-1", "v=1&kwh=abc", "v=1&kwh=1000"}) {
    CAPTURE(bad);
    auto e = decode_scenario(bad);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == "kwh");
  }
  const Evaluation ev = eval_ok(default_catalog(), "v=1&compare=fullgpu-8x-h200&servers=2");
  const std::string json = evaluation_to_json(ev, true);
  for (const char* key : {"\"servers_needed\":1", "\"servers\":2", "\"deployed_gpus\":16",
                          "\"energy_joules_per_output_token\":", "\"output_tokens_per_s_per_mw\":",
                          "\"energy_usd_per_million_tokens\":", "\"unit_price_month_usd\":23900",
                          "\"price_month_usd\":47800", "\"scale_out_network\":\"8x400g-connectx7\""}) {
    CAPTURE(key);
    CHECK(json.find(key) != std::string::npos);
  }
  CHECK(json.find("NaN") == std::string::npos);
}
