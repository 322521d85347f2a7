// Disaggregated prefill/decode serving (core/src/model/disagg.cpp): the keys, the model's
// terms, the KV path, pd=auto against pd=0, and the measured table.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
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
  const std::string listing = disagg_report_to_text(r);
  MESSAGE(listing);
  // Every scored row is listed with its layout and measured throughput, so residuals can be read.
  std::size_t listed = 0;
  for (const auto& row : r.rows) {
    if (!row.newest) continue;
    char measured[32];
    std::snprintf(measured, sizeof measured, "%10.1f", row.measured_throughput_per_gpu);
    const std::string head = row.layout + " ";
    for (std::size_t at = listing.find(head); at != std::string::npos; at = listing.find(head, at + 1)) {
      const std::size_t eol = listing.find('\n', at);
      if (listing.substr(at, eol - at).find(measured) != std::string::npos) {
        ++listed;
        break;
      }
    }
  }
  CHECK(listed == static_cast<std::size_t>(r.all.n_throughput));
}

TEST_CASE("disaggregated: a prefill-bound deployment decodes the batch Little's law gives") {
  ServingContext c = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp8&input=922&output=922");
  c.input_tokens = c.output_tokens = 921.6;
  // One prefill worker feeding five decode workers at 4096 requests: the prefill pool is the
  // bottleneck (busy all the time), so most requests wait for it, outside the decode batches.
  const DisaggLayout l{Parallel{8, 8, true}, 1, Parallel{8, 8, true}, 5};
  const DisaggPoint p = serve_disaggregated(c, l, 4096);
  REQUIRE(p.fits);
  CHECK(p.prefill_utilization >= 0.98);
  CHECK(p.prefill_queue_s > 1.0);
  // Completions per second x the time a request decodes (its first step and the rest), per worker.
  const double rate = p.output_tokens_per_s / c.output_tokens;
  const double decoding = rate * (p.first_decode_step_s + (c.output_tokens - 1.0) * p.tpot_s) / 5.0;
  CHECK(decoding < 0.5 * 4096 / 5.0);
  CHECK(decoding >= 1.0);
  // The reported step is the step at that batch (the fixed point, within its 0.1 % stop).
  ServingContext unmixed_c = c;
  unmixed_c.mixes_prefill = false;
  const StepBreakdown at_batch = step_cost(unmixed_c, l.decode, decoding, 1.0, 921.6 * 1.5, true);
  CHECK(p.decode.total_s == doctest::Approx(at_batch.total_s).epsilon(2e-3));
  CHECK(p.first_decode_step_s == doctest::Approx(p.decode.total_s));
  // With every request it holds decoding, a worker's step would be slower: the batch matters.
  const double held = std::min(4096 / 5.0, max_sequences(unmixed_c, l.decode));
  CHECK(held > 2.0 * decoding);
  const StepBreakdown all = step_cost(unmixed_c, l.decode, held, 1.0, 921.6 * 1.5, true);
  CHECK(all.total_s > p.decode.total_s);
}

TEST_CASE("disaggregated: prefill runs at prefill_worker_fraction of the step model's prefill") {
  ServingContext c = context_on("ref-8x-mi355x-hyperscaler", "v=1&model=deepseek-v3&weights=fp8&input=922&output=922");
  ModelConstants k = *c.constants;
  const DisaggLayout l{Parallel{8, 1, false}, 1, Parallel{8, 1, false}, 2};
  for (double fraction : {1.0, 0.5, 0.25}) {
    CAPTURE(fraction);
    k.prefill_worker_fraction = fraction;
    c.constants = &k;
    for (double users : {1.0, 64.0, 1024.0}) {
      const DisaggPoint p = serve_disaggregated(c, l, users);
      REQUIRE(p.fits);
      ServingContext u = c;
      u.mixes_prefill = false;
      CHECK(p.prefill_s == doctest::Approx(prefill_time_s(u, prefill_fit(u, l.prefill), p.prefill_batch) / fraction));
    }
  }
  // A slower prefill pool never serves more.
  double last = 1e300;
  for (double fraction : {1.0, 0.6, 0.3, 0.15}) {
    k.prefill_worker_fraction = fraction;
    const DisaggPoint p = serve_disaggregated(c, l, 1024);
    CHECK(p.total_tokens_per_s_per_gpu <= last * (1.0 + 1e-9));
    last = p.total_tokens_per_s_per_gpu;
  }
}

TEST_CASE("disaggregated: the per-sequence cost of DP attention falls on its ranks' sequences only") {
  ServingContext c = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  ModelConstants k = *c.constants;
  c.constants = &k;
  const DisaggLayout dpa{Parallel{4, 4, true}, 1, Parallel{8, 8, true}, 2};
  const DisaggLayout tp{Parallel{4, 4, true}, 1, Parallel{8, 8, false}, 2};
  k.dpa_sequence_overhead_s = 0.0;
  const DisaggPoint dpa0 = serve_disaggregated(c, dpa, 64), tp0 = serve_disaggregated(c, tp, 64);
  k.dpa_sequence_overhead_s = 1e-4;
  const DisaggPoint dpa1 = serve_disaggregated(c, dpa, 64), tp1 = serve_disaggregated(c, tp, 64);
  REQUIRE(dpa0.fits);
  REQUIRE(dpa1.fits);
  CHECK(dpa1.tpot_s > dpa0.tpot_s);
  CHECK(tp1.tpot_s == doctest::Approx(tp0.tpot_s));
  CHECK(dpa1.decode.engine_s > dpa0.decode.engine_s);
}

TEST_CASE("disaggregated: with MTP each verified token on a DP-attention rank pays dpa_sequence_overhead_s") {
  // One draft token: the verify step carries two tokens per sequence, so the per-rank term is
  // twice the one-token figure at the same batch (the rows without MTP set it, one per sequence).
  ServingContext c = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp8&input=922&output=922&mtp=1");
  REQUIRE(c.mtp_draft_tokens == 1);
  ModelConstants k = *c.constants;
  k.dpa_sequence_overhead_s = 2e-4;
  c.constants = &k;
  const DisaggLayout l{Parallel{8, 8, true}, 1, Parallel{8, 8, true}, 2};
  const DisaggPoint p = serve_disaggregated(c, l, 512);
  REQUIRE(p.fits);
  const double rate = p.output_tokens_per_s / c.output_tokens;
  const double decoding = rate * (p.first_decode_step_s + (c.output_tokens - 1.0) * p.tpot_s) / 2.0;
  REQUIRE(decoding > 8.0);
  // The step's kernels: the same step with the per-token term at 0. With DP attention that
  // term holds SGLang's speculative per-sequence work, which is then not charged on its own.
  ServingContext u = c;
  u.mixes_prefill = false;
  ModelConstants none = k;
  none.dpa_sequence_overhead_s = 0.0;
  u.constants = &none;
  REQUIRE(c.engine->spec_sequence_overhead_s > 0.0);
  const StepBreakdown kernels = step_cost(u, l.decode, decoding, 2.0, 921.6 * 1.5, true);
  const double per_token = 2e-4 * decoding * 2.0 / 8.0;
  CHECK(p.decode.total_s == doctest::Approx(kernels.total_s + per_token).epsilon(2e-3));
  // The per-sequence reading would leave half of it out: far outside the loop's 0.1 % stop.
  CHECK(p.decode.total_s > (kernels.total_s + per_token / 2.0) * 1.01);
}

TEST_CASE("FP4 experts on B200 run FlashInfer's fused MoE kernel: one launch, fewer small kernels") {
  // kernels.json fp4_fused_moe (engines.md 4): the routed experts' grouped GEMM is one kernel
  // of 13.2 us, and it holds 5 of the 7 small MoE kernels; FP8 keeps the two GEMM launches.
  const ServingContext fp4 = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  const ServingContext fp8 = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp8&input=922&output=922");
  REQUIRE(fp4.kernels != nullptr);
  CHECK(fp4.kernels->fp4_moe_latency_s == doctest::Approx(13.2e-6));
  CHECK(fp4.moe_fused_latency_s == doctest::Approx(13.2e-6));
  CHECK(fp8.moe_fused_latency_s == 0.0);
  const Parallel ep8{8, 8, false};
  const StepBreakdown a = step_cost(fp4, ep8, 1.0, 1.0, 1383.0, true);
  const StepBreakdown b = step_cost(fp8, ep8, 1.0, 1.0, 1383.0, true);
  const double moe_layers = fp4.shape.moe_layers;
  REQUIRE(moe_layers > 0.0);
  // The GEMM launches differ only in the routed experts': 2 x gemm_latency against one fused.
  CHECK(b.gemm_latency_s - a.gemm_latency_s ==
        doctest::Approx(moe_layers * (2.0 * fp8.gemm_latency_s - 13.2e-6)).epsilon(1e-9));
  CHECK(b.small_kernels_s - a.small_kernels_s == doctest::Approx(moe_layers * 5.0 * fp8.small_kernel_s).epsilon(1e-9));
  // A GPU without the measured kernel (MI355X) keeps the grouped GEMM for FP4.
  const ServingContext amd = context_on("ref-8x-mi355x-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  CHECK(amd.moe_fused_latency_s == 0.0);
}

TEST_CASE("kernels.json fp4_fused_moe: a bad figure is an error naming its field") {
  const auto bad = parse_kernels(R"({"schema": "gpucalc-kernels/1", "gpus": {"x": {"gemm_latency_us": {"value": 4},
      "fp4_fused_moe": {"latency_us": -1, "fused_small_kernels": 5}}}})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field.find("fp4_fused_moe.latency_us") != std::string::npos);
  const auto missing = parse_kernels(R"({"schema": "gpucalc-kernels/1", "gpus": {"x": {"gemm_latency_us": {"value": 4},
      "fp4_fused_moe": {"latency_us": 13}}}})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field.find("fp4_fused_moe.fused_small_kernels") != std::string::npos);
  const auto good = parse_kernels(R"({"schema": "gpucalc-kernels/1", "gpus": {"x": {"gemm_latency_us": {"value": 4},
      "fp4_fused_moe": {"latency_us": 13, "fused_small_kernels": 5}}}})");
  REQUIRE(good);
  REQUIRE(good.value().find("x") != nullptr);
  CHECK(good.value().find("x")->fp4_moe_latency_s == doctest::Approx(13e-6));
  CHECK(good.value().find("x")->fp4_moe_fused_small_kernels == 5.0);
}

TEST_CASE("disaggregated: an engine's own prefill share and DP-attention cost replace the pooled ones") {
  ServingContext c = context_on("ref-8x-b200-hyperscaler", "v=1&model=deepseek-v3&weights=fp4&input=922&output=922");
  c.input_tokens = c.output_tokens = 921.6;
  // SGLang states none: the pooled data/performance.json values apply.
  REQUIRE(c.engine->disagg_prefill_fraction < 0.0);
  CHECK(prefill_worker_fraction(c) == c.constants->prefill_worker_fraction);
  CHECK(dpa_sequence_overhead_s(c) == c.constants->dpa_sequence_overhead_s);
  // TensorRT-LLM states its own (data/engines.json disagg), and they are what its contexts use.
  const EngineProfile* trt = catalog_engines(default_catalog()).find("trtllm");
  REQUIRE(trt != nullptr);
  CHECK(trt->disagg_prefill_fraction > c.constants->prefill_worker_fraction);
  CHECK(trt->disagg_dpa_sequence_overhead_s >= 0.0);
  CHECK(trt->disagg_dpa_sequence_overhead_s < c.constants->dpa_sequence_overhead_s);
  // The same deployment with an engine that states its own: the prefill runs at its share, the
  // decode step pays its per-token cost, and the pooled values no longer matter.
  EngineProfile own = *c.engine;
  own.disagg_prefill_fraction = 0.9;
  own.disagg_dpa_sequence_overhead_s = 0.0;
  ServingContext o = c;
  o.engine = &own;
  const DisaggLayout l{Parallel{4, 4, true}, 1, Parallel{8, 8, true}, 1};
  const DisaggPoint pooled = serve_disaggregated(c, l, 2048);
  const DisaggPoint stated = serve_disaggregated(o, l, 2048);
  REQUIRE(pooled.fits);
  REQUIRE(stated.fits);
  ServingContext u = o;
  u.mixes_prefill = false;
  CHECK(stated.prefill_s == doctest::Approx(prefill_time_s(u, prefill_fit(u, l.prefill), stated.prefill_batch) / 0.9));
  CHECK(stated.total_tokens_per_s_per_gpu > pooled.total_tokens_per_s_per_gpu);
  ModelConstants k = *c.constants;
  k.prefill_worker_fraction = 0.5 * k.prefill_worker_fraction;
  k.dpa_sequence_overhead_s = 4.0 * k.dpa_sequence_overhead_s;
  o.constants = &k;
  const DisaggPoint again = serve_disaggregated(o, l, 2048);
  CHECK(again.total_tokens_per_s_per_gpu == doctest::Approx(stated.total_tokens_per_s_per_gpu));
  CHECK(again.tpot_s == doctest::Approx(stated.tpot_s));
}
