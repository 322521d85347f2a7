// Disaggregated prefill/decode serving (core/src/model/disagg.cpp): the keys, the model's
// terms, the KV path, pd=auto against pd=0, and the measured table.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "model/disagg.hpp"
#include "gpucalc/evaluate.hpp"
#include "model/scale_out.hpp"
#include "gpucalc/validation_disagg.hpp"

using namespace gpucalc;

namespace {

ServingContext context_on(const char* offering_id, const char* scenario_text) {
  const Catalog& cat = default_catalog();
  auto s = decode_scenario(scenario_text);
  REQUIRE(s);
  const Offering* off = cat.find_offering(offering_id);
  REQUIRE(off != nullptr);
  const Gpu* gpu = cat.find_gpu(off->gpu_id);
  const Model* model = cat.find_model(s.value().model);
  REQUIRE(model != nullptr);
  auto engine = select_engine(catalog_engines(cat), "sglang", *gpu, *model);
  REQUIRE(engine);
  ServingContext c = make_serving_context(cat, s.value(), *model, *gpu, *engine.value(), "");
  if (const Network* n = cat.scale_out_of(*off)) c.scale_out = make_scale_out_link(*n, off->gpu_count, 2);
  return c;
}

const char* validation_text(const char* name) {
  for (const auto& f : embedded_validation_files()) {
    if (std::string(f.name) == name) return f.text;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("disaggregated: the keys decode, encode and read back") {
  const std::string text =
      "v=1&model=deepseek-v3&pd=1&prefill_workers=1&prefill_tp=4&prefill_ep=4&prefill_dpa=1"
      "&decode_workers=2&decode_tp=8&decode_ep=8&decode_dpa=1";
  auto s = decode_scenario(text);
  REQUIRE(s);
  CHECK(s.value().pd == PdMode::kDisaggregated);
  CHECK(s.value().prefill_tp == 4);
  CHECK(s.value().decode_workers == 2);
  CHECK(s.value().decode_dpa);
  const std::string encoded = encode_scenario(s.value());
  CHECK(encoded.find("&pd=1&prefill_workers=1&prefill_tp=4&prefill_ep=4&prefill_dpa=1&decode_workers=2") != std::string::npos);
  auto again = decode_scenario(encoded);
  REQUIRE(again);
  CHECK(again.value() == s.value());
  auto a = decode_scenario("v=1&pd=auto");
  REQUIRE(a);
  CHECK(a.value().pd == PdMode::kAuto);
  CHECK(encode_scenario(decode_scenario("v=1").value()).find("pd=") == std::string::npos);  // default 0
  auto bad = decode_scenario("v=1&pd=2");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "pd");
  bool listed = false;
  for (const auto& k : scenario_keys()) listed = listed || std::string(k.key) == "decode_dpa";
  CHECK(listed);
}

TEST_CASE("disaggregated: TTFT is its parts, throughput divides by every GPU of both pools") {
  const ServingContext c = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  DisaggLayout l{Parallel{4, 4, true}, 1, Parallel{8, 8, true}, 2};
  const DisaggPoint p = serve_disaggregated(c, l, 256);
  REQUIRE(p.fits);
  CHECK(l.gpus() == 20);
  CHECK(p.ttft_s == doctest::Approx(c.request_overhead_s + p.prefill_queue_s + p.prefill_s + p.kv_transfer_s +
                                    p.first_decode_step_s + p.slot_queue_s));
  // 20 GPUs over two 8-GPU domains: the KV crosses the scale-out network.
  CHECK_FALSE(p.kv_over_scale_up);
  CHECK(p.kv_transfer_s == doctest::Approx(c.scale_out.latency_s + p.kv_bytes_per_request /
                                           (c.scale_out.bytes_per_s_per_gpu * 4 * c.constants->kv_transfer_fraction)));
  const double in = c.input_tokens, out = c.output_tokens;
  CHECK(p.total_tokens_per_s_per_gpu * 20 == doctest::Approx(p.output_tokens_per_s * (in + out) / out));
  CHECK(p.tokens_per_s_per_user == doctest::Approx(1.0 / p.tpot_s));
  CHECK(disagg_layout_code(l) == "1x(tp4,ep4,dpa)+2x(tp8,ep8,dpa)");
}

TEST_CASE("disaggregated: inside one NVL72 domain the KV moves over NVLink, and faster") {
  const ServingContext rack = context_on("ref-nvl72-gb200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  DisaggLayout l{Parallel{4, 4, true}, 1, Parallel{8, 8, true}, 2};
  const DisaggPoint in_rack = serve_disaggregated(rack, l, 256);
  REQUIRE(in_rack.fits);
  CHECK(in_rack.kv_over_scale_up);
  const ServingContext servers = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  const DisaggPoint across = serve_disaggregated(servers, l, 256);
  REQUIRE(across.fits);
  CHECK(in_rack.kv_transfer_s < across.kv_transfer_s);
}

TEST_CASE("disaggregated: pd=auto never serves less than pd=0 at the same target") {
  const char* const bases[] = {
      "v=1&model=deepseek-v3&weights=fp4&compare=ref-8x-b200-hyperscaler&servers=3",
      "v=1&model=deepseek-v3&weights=fp8&compare=ref-8x-mi355x-hyperscaler&servers=2",
      "v=1&model=qwen3-235b-a22b&weights=fp8&compare=ref-nvl72-gb200-hyperscaler",
      "v=1&model=llama-3.1-70b&weights=fp8&compare=ref-8x-b200-hyperscaler&servers=2",
  };
  int disaggregated_chosen = 0;
  for (const char* base : bases) {
    for (const char* extra : {"&users=8", "&users=256", "&users=64&interactivity=50", "&users=512&interactivity=20"}) {
      const std::string agg_text = std::string(base) + extra + "&context=4096&input=922&output=922";
      CAPTURE(agg_text);
      auto agg = evaluate_text(default_catalog(), agg_text, false);
      auto aut = evaluate_text(default_catalog(), agg_text + "&pd=auto", false);
      REQUIRE(agg);
      REQUIRE(aut);
      const OfferingResult& a = agg.value().results[0];
      const OfferingResult& b = aut.value().results[0];
      if (a.total_tokens_per_s_per_gpu) {
        REQUIRE(b.total_tokens_per_s_per_gpu);
        CHECK(*b.total_tokens_per_s_per_gpu >= *a.total_tokens_per_s_per_gpu);
      }
      if (a.max_throughput_point) {
        REQUIRE(b.max_throughput_point);
        CHECK(b.max_throughput_point->total_tokens_per_s_per_gpu >= a.max_throughput_point->total_tokens_per_s_per_gpu);
      }
      if (a.interactivity_point) {
        REQUIRE(b.interactivity_point);
        CHECK(b.interactivity_point->total_tokens_per_s_per_gpu >= a.interactivity_point->total_tokens_per_s_per_gpu);
        // A point taken from the disaggregated search says so.
        const bool said = std::find(b.warnings.begin(), b.warnings.end(), "pd_at_speed") != b.warnings.end();
        CHECK(said == (b.interactivity_point->total_tokens_per_s_per_gpu > a.interactivity_point->total_tokens_per_s_per_gpu));
      }
      disaggregated_chosen += b.pd_layout.empty() ? 0 : 1;
    }
  }
  MESSAGE("pd=auto chose the disaggregated layout in " << disaggregated_chosen << " of 16 scenarios");
}

TEST_CASE("disaggregated: pd=1 names its layout and stays within the deployed GPUs") {
  auto ev = evaluate_text(default_catalog(),
                          "v=1&model=deepseek-v3&weights=fp4&compare=ref-8x-b200-hyperscaler&servers=3&users=256"
                          "&context=4096&input=922&output=922&pd=1&prefill_tp=4&decode_tp=8&decode_dpa=1", false);
  REQUIRE(ev);
  const OfferingResult& r = ev.value().results[0];
  CHECK_FALSE(r.pd_layout.empty());
  CHECK(r.pd_layout.find("(tp4,") != std::string::npos);
  CHECK(r.pd_layout.find("+") != std::string::npos);
  CHECK(r.prefill_gpus + r.decode_gpus <= r.deployed_gpus);
  // The pools as numbers (the page words them): the forced shapes, workers x GPUs = pool GPUs.
  CHECK(r.prefill_tp == 4);
  CHECK(r.decode_tp == 8);
  CHECK(r.decode_dpa);
  CHECK(r.prefill_workers * r.prefill_tp == r.prefill_gpus);
  CHECK(r.decode_workers * r.decode_tp == r.decode_gpus);
  CHECK(r.prefill_ep >= 1);
  CHECK(r.decode_ep == r.expert_parallel);
  CHECK(r.serving_replicas == 0);
  CHECK(r.kv_transfer_fabric == "scale_out");
  REQUIRE(r.kv_transfer_s);
  CHECK(*r.kv_transfer_s > 0.0);
  // A dense model on one GPU has no pools to split: pd=1 says so and keeps the aggregated figures.
  auto one = evaluate_text(default_catalog(), "v=1&model=llama-3.1-8b&compare=fullgpu-1x-h200&pd=1", false);
  REQUIRE(one);
  const OfferingResult& a = one.value().results[0];
  CHECK(a.pd_layout.empty());
  CHECK(a.decode_workers == 0);
  CHECK(a.serving_replicas * a.serving_tensor_parallel == 1);
}

TEST_CASE("disaggregated: the measured table runs, in sample and leave one group out") {
  const char* text = validation_text("validation-disagg.json");
  REQUIRE(text != nullptr);
  auto report = run_disagg_validation(default_catalog(), text, true);
  REQUIRE(report);
  const DisaggValidationReport& r = report.value();
  CHECK(r.rows.size() == 200);
  int fitted = 0;
  for (const auto& row : r.rows) fitted += row.predicted_throughput_per_gpu > 0.0 ? 1 : 0;
  CHECK(fitted == 200);
  REQUIRE(r.folds.size() == kDisaggFoldKinds);
  CHECK(r.all.n_throughput > 0);
  CHECK(r.folds[0].all.n_throughput == r.all.n_throughput);  // every newest row held out once
  MESSAGE(disagg_report_to_text(r));
}
