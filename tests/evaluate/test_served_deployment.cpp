// One deployment on the card: without the scenario's tp, the serving figures at the users run on
// the layout the serving search picks for them, and the fit describes that same instance. On a
// 72-GPU rack the whole domain (TP64) is not the answer for one user.
#include <algorithm>
#include <doctest/doctest.h>
#include <string>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using gpucalc::test::eval_ok;

namespace {

const std::string kNvl72 = "v=1&model=deepseek-r1-0528&compare=ref-nvl72-gb200-neocloud";

}  // namespace

TEST_CASE("served deployment: DeepSeek-R1 on GB200 NVL72 at 1 user serves at least as fast as the best 8-GPU instance") {
  const Catalog& cat = default_catalog();
  const OfferingResult a = eval_ok(cat, kNvl72 + "&users=1").results.front();
  REQUIRE(a.decode_tokens_per_s_per_user);
  REQUIRE(a.output_tokens_per_s_per_gpu);
  // The 8-GPU instances the search offers (experts split by TP, or 8 ways), each asked for.
  double best_user = 0.0, best_gpu = 0.0;
  for (const char* ep : {"", "&ep=1", "&ep=8"}) {
    const OfferingResult t = eval_ok(cat, kNvl72 + "&users=1&tp=8" + ep).results.front();
    REQUIRE(t.decode_tokens_per_s_per_user);
    CHECK(t.serving_tensor_parallel == 8);
    best_user = std::max(best_user, *t.decode_tokens_per_s_per_user);
    best_gpu = std::max(best_gpu, *t.output_tokens_per_s_per_gpu);
  }
  CHECK(*a.decode_tokens_per_s_per_user >= best_user * (1.0 - 1e-9));
  CHECK(*a.output_tokens_per_s_per_gpu >= best_gpu * (1.0 - 1e-9));
  // One user is one user's tokens however many replicas stand by: over all 72 GPUs.
  CHECK(*a.output_tokens_per_s_per_gpu ==
        doctest::Approx(*a.decode_tokens_per_s_per_user / 72.0).epsilon(0.05));
}

TEST_CASE("served deployment: the fit and the speeds name the same instance") {
  const Catalog& cat = default_catalog();
  for (const std::string& scenario :
       {kNvl72 + "&users=1", kNvl72 + "&users=64", kNvl72 + "&users=1024", kNvl72 + "&users=4096",
        kNvl72 + "&users=64&interactivity=50", kNvl72 + "&users=1024&engine=trtllm",
        std::string("v=1&model=deepseek-r1-0528&compare=ref-8x-b200-neocloud&users=64"),
        std::string("v=1&model=llama-3.1-70b&compare=ref-nvl72-gb300-neocloud&users=256"),
        std::string("v=1&model=llama-3.1-8b&compare=ref-8x-h100-neocloud,ref-8x-mi355x-neocloud&users=4096")}) {
    const Evaluation ev = eval_ok(cat, scenario);
    for (const OfferingResult& r : ev.results) {
      CAPTURE(scenario);
      CAPTURE(r.offering_id);
      REQUIRE(r.fit.fits);
      REQUIRE(r.serving_tensor_parallel > 0);
      REQUIRE(r.pd_layout.empty());
      CHECK(r.fit.deployment.gpus == r.serving_tensor_parallel);
      CHECK(r.fit.replicas == r.serving_replicas);
    }
  }
}
