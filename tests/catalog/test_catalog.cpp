// Catalog: the built-in data validates, every figure has a source, errors name file, entry and
// field, extension replaces and appends, Hugging Face configs import.
#include <nlohmann/json.hpp>

#include "gpucalc/units.hpp"
#include "test_support.hpp"

using namespace gpucalc;

namespace {
const char* kGpu = R"({"id": "x1", "name": "X1", "vendor": "nvidia", "architecture": "Test",
  "hbm_gb": 100, "memory_bandwidth_tbps": 4, "peak_tflops": {"bf16": 1000, "fp8": 2000},
  "tdp_w": 700, "interconnect": {"kind": "NVLink", "topology": "switch", "links": 18, "link_gbps": 50, "per_gpu_gbps": 900, "scale_up_gpus": 8, "scale_up_source": "test"},
  "sources": ["test"]})";

Error parse_error(const std::string& doc) {
  auto r = parse_catalog_json(doc, "vendor.json");
  REQUIRE_FALSE_MESSAGE(r.ok(), doc);
  return r.error();
}

std::string with_field(std::string doc, const std::string& from, const std::string& to) {
  const auto pos = doc.find(from);
  REQUIRE(pos != std::string::npos);
  return doc.replace(pos, from.size(), to);
}
}  // namespace

TEST_CASE("the built-in catalog validates and covers the brief") {
  auto built = build_default_catalog();
  REQUIRE_MESSAGE(built.ok(), (built.ok() ? "" : built.error().to_string()));
  const Catalog& c = built.value();
  for (const char* id : {"mi300x", "mi325x", "mi350x", "mi355x", "h100-sxm", "h200-sxm", "b200"}) {
    const Gpu* g = c.find_gpu(id);
    REQUIRE_MESSAGE(g != nullptr, id);
    CHECK_FALSE(g->sources.empty());
    CHECK(g->peak_flops_per_s[index_of(Precision::kBf16)].has_value());
    CHECK(g->interconnect.per_gpu_bandwidth_bytes_per_s > 0);
    for (const auto& a : g->achieved_matmul_flops_per_s) {
      if (a) {
        CHECK_FALSE(a->source.empty());
        // achieved never above the dense peak: sparse figures would break this
      }
    }
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
      if (g->achieved_matmul_flops_per_s[i] && g->peak_flops_per_s[i]) {
        CHECK(g->achieved_matmul_flops_per_s[i]->value < *g->peak_flops_per_s[i]);
      }
    }
    if (g->achieved_hbm_bytes_per_s) CHECK(g->achieved_hbm_bytes_per_s->value < g->memory_bandwidth_bytes_per_s);
    // Hopper and CDNA 3 have no FP4/FP6 matrix path.
    const bool fp4 = std::string(id) == "mi350x" || std::string(id) == "mi355x" || std::string(id) == "b200";
    CHECK(g->peak_flops_per_s[index_of(Precision::kFp4)].has_value() == fp4);
  }
  for (const char* id : {"llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "deepseek-v3",
                         "qwen2.5-72b", "qwen3-235b-a22b", "mixtral-8x7b", "mixtral-8x22b", "gpt-oss-120b",
                         "llama-4-scout", "llama-4-maverick"}) {
    const Model* m = c.find_model(id);
    REQUIRE_MESSAGE(m != nullptr, id);
    CHECK_FALSE(m->sources.empty());
    CHECK(m->params_active <= m->params_total);
  }
  int unpriced = 0;
  for (const auto& o : c.offerings) {
    CHECK_FALSE(o.sources.empty());
    unpriced += o.price_usd_per_month ? 0 : 1;
  }
  CHECK(unpriced >= 5);  // an unpriced 8-GPU server for every GPU the seeds do not price
  CHECK(default_catalog().gpus.size() == c.gpus.size());
}

TEST_CASE("catalog parameter counts match the models' published totals") {
  const Catalog& c = default_catalog();
  // count_params from the architecture vs the published figure (within 2 %)
  for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-72b", "mixtral-8x7b",
                         "mixtral-8x22b", "qwen3-235b-a22b", "llama-4-scout", "llama-4-maverick", "deepseek-v3"}) {
    const Model* m = c.find_model(id);
    CAPTURE(id);
    Model copy = *m;
    if (copy.attention == AttentionKind::kMla) {  // DeepSeek-V3 MLA dims from its config
      copy.q_lora_rank = 1536;
      copy.qk_nope_head_dim = 128;
      copy.v_head_dim = 128;
    }
    const ParamCount p = count_params(copy, false);
    CHECK(p.total == doctest::Approx(m->params_total).epsilon(0.02));
    CHECK(p.active == doctest::Approx(m->params_active).epsilon(0.06));
  }
}

TEST_CASE("catalog errors name the file, the entry and the field") {
  const std::string ok = std::string(R"({"gpus": [)") + kGpu + "]}";
  REQUIRE(parse_catalog_json(ok, "vendor.json").ok());
  struct Case {
    std::string doc;
    std::string field_part;
  };
  const Case cases[] = {
      {"{", "vendor.json"},
      {"[]", "vendor.json"},
      {"{}", "vendor.json"},
      {R"({"gpus": {}})", "vendor.json: gpus"},
      {R"({"gpus": [1]})", "vendor.json: gpus[0]"},
      {with_field(ok, R"("hbm_gb": 100)", R"("hbm_gb": -1)"), "vendor.json: gpus[0](x1).hbm_gb"},
      {with_field(ok, R"("hbm_gb": 100)", R"("hbm_gb": "100")"), "vendor.json: gpus[0](x1).hbm_gb"},
      {with_field(ok, R"("sources": ["test"])", R"("sources": [])"), "vendor.json: gpus[0](x1).sources"},
      {with_field(ok, R"("vendor": "nvidia")", R"("vendor": "intel")"), "vendor.json: gpus[0](x1).vendor"},
      {with_field(ok, R"("topology": "switch")", R"("topology": "ring")"), "vendor.json: gpus[0](x1).interconnect.topology"},
      {with_field(ok, R"("bf16": 1000)", R"("bf16": "fast")"), "vendor.json: gpus[0](x1).peak_tflops.bf16"},
      {with_field(ok, R"("id": "x1")", R"("id": "X 1")"), "vendor.json: gpus[0](X 1).id"},
      {R"({"offerings": [{"id": "o", "name": "o", "gpu": "x", "gpu_count": 0, "sources": ["s"]}]})", "vendor.json: offerings[0](o).gpu_count"},
      {R"({"models": [{"id": "m", "name": "m", "layers": 2, "hidden_size": 64, "intermediate_size": 128, "heads": 6, "kv_heads": 4, "vocab_size": 10, "sources": ["s"]}]})", "vendor.json: models[0](m).kv_heads"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.doc);
    const Error e = parse_error(c.doc);
    CHECK(e.field.rfind(c.field_part, 0) == 0);
    CHECK_FALSE(e.message.empty());
  }
  // Cross references are checked when a document extends the catalog.
  auto bad_ref = extend_catalog(default_catalog(),
                                R"({"offerings": [{"id": "o", "name": "o", "gpu": "nope", "gpu_count": 8, "sources": ["s"]}]})",
                                "prices.json");
  REQUIRE_FALSE(bad_ref.ok());
  CHECK(bad_ref.error().field.find("prices.json") == 0);
  CHECK(bad_ref.error().field.find("offerings(o).gpu") != std::string::npos);
}

TEST_CASE("a vendor's price list replaces and extends the catalog") {
  const char* prices = R"J({"offerings": [
    {"id": "fullgpu-8x-h200", "name": "8x HGX H200 (vendor price)", "gpu": "h200-sxm", "gpu_count": 8, "price_usd_per_month": 20000, "sources": ["vendor list 2026-11"]},
    {"id": "vendor-8x-mi300x", "name": "8x MI300X", "gpu": "mi300x", "gpu_count": 8, "price_usd_per_month": 12000, "sources": ["vendor list 2026-11"]}]})J";
  auto c = extend_catalog(default_catalog(), prices, "prices.json");
  REQUIRE(c.ok());
  CHECK(*c.value().find_offering("fullgpu-8x-h200")->price_usd_per_month == 20000);
  CHECK(c.value().offerings.size() == default_catalog().offerings.size() + 1);
  auto ev = evaluate_text(c.value(), "v=1&compare=vendor-8x-mi300x,fullgpu-8x-h200", false);
  REQUIRE(ev.ok());
  CHECK(*ev.value().results[0].price_usd_per_gpu_hour == doctest::Approx(12000.0 / 8 / 730));
}

TEST_CASE("Hugging Face config.json import") {
  // Llama 3.1 70B's config.json (the fields that matter)
  const char* llama = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "intermediate_size": 28672,
    "max_position_embeddings": 131072, "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  auto m = import_hf_config(llama, "my-llama");
  REQUIRE(m.ok());
  CHECK(m.value().params_total == doctest::Approx(70.55e9).epsilon(0.002));
  CHECK(m.value().head_dim == 128);
  CHECK(m.value().max_context_tokens == 131072);
  const Catalog& c = default_catalog();
  CHECK(kv_bytes_per_token(m.value(), KvFormat::kFp8) == kv_bytes_per_token(*c.find_model("llama-3.1-70b"), KvFormat::kFp8));
  // Mixtral 8x7B: 46.7B total, 12.9B active
  const char* mixtral = R"({"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8,
    "num_experts_per_tok": 2, "max_position_embeddings": 32768})";
  auto mx = import_hf_config(mixtral, "mixtral");
  REQUIRE(mx.ok());
  CHECK(mx.value().params_total == doctest::Approx(46.7e9).epsilon(0.01));
  CHECK(mx.value().params_active == doctest::Approx(12.9e9).epsilon(0.01));
  // DeepSeek-V3: MLA
  const char* ds = R"({"hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_attention_heads": 128, "num_hidden_layers": 61, "num_key_value_heads": 128, "vocab_size": 129280,
    "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
    "max_position_embeddings": 163840, "quantization_config": {"quant_method": "fp8"}})";
  auto d = import_hf_config(ds, "ds");
  REQUIRE(d.ok());
  CHECK(d.value().attention == AttentionKind::kMla);
  CHECK(d.value().params_total == doctest::Approx(671e9).epsilon(0.01));
  CHECK(d.value().params_active == doctest::Approx(37e9).epsilon(0.03));
  CHECK(kv_bytes_per_token(d.value(), KvFormat::kBf16) == 61.0 * 576 * 2);
  CHECK(d.value().native_weights == "fp8");
  // gpt-oss: sliding layers from layer_types
  const char* oss = R"({"hidden_size": 2880, "intermediate_size": 2880, "num_attention_heads": 64, "head_dim": 64,
    "num_hidden_layers": 4, "num_key_value_heads": 8, "vocab_size": 201088, "num_local_experts": 128,
    "experts_per_token": 4, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})";
  auto g = import_hf_config(oss, "oss");
  REQUIRE(g.ok());
  CHECK(g.value().sliding_window_layers == 2);
  CHECK(g.value().sliding_window_tokens == 128);
  // Errors name the field.
  auto bad = import_hf_config(R"({"hidden_size": 4096})", "x");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "config.json: num_hidden_layers");
  CHECK_FALSE(import_hf_config("not json", "x").ok());
  CHECK_FALSE(import_hf_config(llama, "Bad Id").ok());
  auto kv = import_hf_config(R"({"hidden_size": 64, "num_attention_heads": 6, "num_key_value_heads": 4, "num_hidden_layers": 2, "vocab_size": 10})", "x");
  REQUIRE_FALSE(kv.ok());
  CHECK(kv.error().field == "config.json: num_key_value_heads");
}

TEST_CASE("JSON output: public fields, no NaN, listings") {
  const Catalog& c = default_catalog();
  auto ev = evaluate_text(c, "v=1", true);
  REQUIRE(ev.ok());
  const auto j = nlohmann::json::parse(evaluation_to_json(ev.value(), true));
  CHECK(j["scenario"] == ev.value().canonical);
  CHECK(j["capacity_basis"] == "device");
  REQUIRE(j["results"].size() == 2);
  for (const char* key : {"offering", "gpu", "gpu_count", "weights_bytes", "kv_bytes_per_token",
                          "gpus_needed_weights_only", "gpus_needed", "kv_free_bytes", "full_contexts",
                          "price_month_usd", "price_gpu_hour_usd", "price_gb_month_usd", "trace"}) {
    CHECK_MESSAGE(j["results"][0].contains(key), key);
  }
  // Every numeric figure of a result has its formula in the trace.
  for (const char* key : {"capacity_bytes_per_gpu", "reserve_bytes_per_gpu", "weights_bytes", "weights_bytes_per_gpu",
                          "kv_bytes_per_token", "kv_bytes_per_context", "gpus_needed_weights_only", "gpus_needed",
                          "kv_free_bytes_per_gpu", "kv_used_bytes_per_gpu", "headroom_bytes_per_gpu", "kv_free_bytes",
                          "full_contexts_per_instance", "full_contexts", "max_context_tokens", "price_month_usd",
                          "price_gpu_hour_usd", "price_gb_month_usd", "price_delta_month_usd",
                          "max_throughput_tokens_per_s", "decode_tokens_per_s_per_user", "ttft_s", "tpot_s",
                          "usd_per_million_tokens"}) {
    CHECK_MESSAGE(j["results"][1]["trace"].contains(key), key);
  }
  // Names with quotes, backslashes and control characters are escaped.
  auto odd = extend_catalog(c, R"J({"models": [{"id": "odd", "name": "a \"quoted\" \\ name\n\u0001", "layers": 2,
      "hidden_size": 64, "intermediate_size": 128, "heads": 4, "vocab_size": 10, "sources": ["test"]}]})J", "odd.json");
  REQUIRE_MESSAGE(odd.ok(), (odd.ok() ? "" : odd.error().to_string()));
  auto odd_ev = evaluate_text(odd.value(), "v=1&model=odd", true);
  REQUIRE(odd_ev.ok());
  const auto oj = nlohmann::json::parse(evaluation_to_json(odd_ev.value(), true), nullptr, false);
  REQUIRE_FALSE(oj.is_discarded());
  CHECK(oj["model"]["name"] == "a \"quoted\" \\ name\n\x01");
  for (const char* what : {"gpus", "models", "offerings"}) {
    auto listed = catalog_to_json(c, what);
    REQUIRE(listed.ok());
    CHECK(nlohmann::json::parse(listed.value())[what].size() > 0);
  }
  CHECK_FALSE(catalog_to_json(c, "cats").ok());
  auto s = decode_scenario("v=1");
  auto table = fit_table_json(c, s.value());
  REQUIRE(table.ok());
  const auto t = nlohmann::json::parse(table.value());
  CHECK(t["rows"].size() == c.models.size() * 5);
  const auto e = nlohmann::json::parse(error_to_json(make_error(ErrorCode::kBadValue, "context", "bad")));
  CHECK(e["error"]["code"] == "bad_value");
  CHECK(e["error"]["field"] == "context");
}

TEST_CASE("model constants are catalog data: replaced by a document, loud when invalid") {
  const Catalog& base = default_catalog();
  REQUIRE(base.constants.has_value());
  std::string text;
  for (const auto& f : embedded_data_files()) {
    if (std::string(f.name) == "performance.json") text = f.text;
  }
  REQUIRE_FALSE(text.empty());
  auto doc = nlohmann::json::parse(text, nullptr, false);
  REQUIRE(doc["schema"] == "gpucalc-performance/1");
  // The built-in constants are exactly the document's values (no copy of them in C++).
  CHECK(base.constants->matmul_fraction == doc["matmul_fraction"]["value"].get<double>());
  CHECK(base.constants->hbm_fraction == doc["hbm_fraction"]["value"].get<double>());

  // A copy with another value replaces the constants and changes the answer.
  auto changed = doc;
  changed["matmul_fraction"]["value"] = doc["matmul_fraction"]["value"].get<double>() / 2.0;
  // Prefill GEMMs of many rows run at the large-M fraction: halve it too, so TTFT must rise.
  changed["large_m_matmul_fraction"]["value"] = doc["large_m_matmul_fraction"]["value"].get<double>() / 2.0;
  auto extended = extend_catalog(base, changed.dump(), "my-performance.json");
  REQUIRE_MESSAGE(extended.ok(), (extended.ok() ? "" : extended.error().to_string()));
  CHECK(extended.value().constants->matmul_fraction == doctest::Approx(base.constants->matmul_fraction / 2.0));
  auto before = evaluate_text(base, "v=1", false);
  auto after = evaluate_text(extended.value(), "v=1", false);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  REQUIRE(before.value().results[0].ttft_s);
  REQUIRE(after.value().results[0].ttft_s);
  CHECK(*after.value().results[0].ttft_s > *before.value().results[0].ttft_s);

  // A document missing a constant, or with one out of range, is an error naming it and the file.
  auto missing = doc;
  missing.erase("hbm_fraction");
  auto m = extend_catalog(base, missing.dump(), "my-performance.json");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().field.find("my-performance.json") != std::string::npos);
  CHECK(m.error().field.find("hbm_fraction") != std::string::npos);
  auto bad = doc;
  bad["step_overhead_s"]["value"] = -1;
  auto b = extend_catalog(base, bad.dump(), "bad.json");
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().field.find("step_overhead_s") != std::string::npos);

  // A catalog without constants cannot evaluate, and says why.
  Catalog none = base;
  none.constants.reset();
  auto e = evaluate_text(none, "v=1", false);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "performance");
}

TEST_CASE("every data/ file except the validation tables loads as a catalog document") {
  int loaded = 0;
  for (const auto& f : embedded_data_files()) {
    const std::string name = f.name;
    if (name.rfind("validation", 0) == 0) continue;
    CAPTURE(name);
    auto r = extend_catalog(default_catalog(), f.text, name);
    CHECK_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
    ++loaded;
  }
  CHECK(loaded >= 4);  // gpus, models, offerings, performance
}

TEST_CASE("one MoE layer count for the parameter count and the roofline (odd layer counts)") {
  Model m;
  m.layers = 5;
  m.experts_routed = 8;
  m.moe_layer_interval = 2;
  CHECK(m.moe_layer_count() == 2);  // layers 1 and 3 (0-based): (i + 1) % 2 == 0
  m.dense_layers = 1;
  CHECK(m.moe_layer_count() == 2);  // layers 2 and 4
  m.moe_layer_interval = 1;
  CHECK(m.moe_layer_count() == 4);
  m.experts_routed = 0;
  CHECK(m.moe_layer_count() == 0);
}

TEST_CASE("Chinese catalog text: <field>_zh strings beside their field, with zh_source, passed through the listings") {
  const std::string offering = R"({"id": "o", "name": "o", "gpu": "mi355x", "gpu_count": 8, "sources": ["s"],
    "availability": "in stock", "availability_zh": "现货", "zh_source": "translated by gpucalc"})";
  auto c = extend_catalog(default_catalog(), R"({"offerings": [)" + offering + "]}", "prices.json");
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  const Offering* o = c.value().find_offering("o");
  REQUIRE(o != nullptr);
  REQUIRE(o->zh.fields.size() == 1);
  CHECK(o->zh.fields[0].first == "availability");
  CHECK(o->zh.fields[0].second == "现货");
  CHECK(o->zh.source == "translated by gpucalc");
  auto listed = catalog_to_json(c.value(), "offerings");
  REQUIRE(listed.ok());
  const auto j = nlohmann::json::parse(listed.value());
  bool seen = false;
  for (const auto& item : j["offerings"]) {
    if (item["id"] != "o") continue;
    seen = true;
    CHECK(item["availability"] == "in stock");
    CHECK(item["availability_zh"] == "现货");
    CHECK(item["zh_source"] == "translated by gpucalc");
  }
  CHECK(seen);

  struct Case {
    std::string from, to, field, message_part;
  };
  const Case cases[] = {
      {R"("availability_zh": "现货")", R"("availability_zh": 7)", "availability_zh", "string"},
      {R"("availability_zh": "现货")", R"("availability_zh": "")", "availability_zh", "empty"},
      {R"("availability_zh": "现货")", R"("availability_zh": ")" + std::string(1001, 'x') + "\"", "availability_zh", "1000 bytes"},
      {R"("availability_zh": "现货")", R"("price_zh": "现货")", "price_zh", "not a translatable field"},
      {R"("availability": "in stock", )", "", "availability_zh", "needs availability"},
      {R"(, "zh_source": "translated by gpucalc")", "", "zh_source", "required"},
  };
  for (const auto& k : cases) {
    const std::string doc = R"({"offerings": [)" + with_field(offering, k.from, k.to) + "]}";
    CAPTURE(doc);
    auto bad = extend_catalog(default_catalog(), doc, "prices.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "prices.json: offerings[0](o)." + k.field);
    CHECK(bad.error().message.find(k.message_part) != std::string::npos);
  }
  // A GPU translates its form factor and note, nothing else.
  const std::string gpu_doc = std::string(R"({"gpus": [)") + kGpu + "]}";
  const std::string gpu_zh = with_field(gpu_doc, R"("tdp_w": 700)",
                                        R"("tdp_w": 700, "form_factor": "SXM", "form_factor_zh": "SXM 模组", "zh_source": "s")");
  auto g = parse_catalog_json(gpu_zh, "vendor.json");
  REQUIRE_MESSAGE(g.ok(), (g.ok() ? "" : g.error().to_string()));
  REQUIRE(g.value().gpus.at(0).zh.fields.size() == 1);
  CHECK(g.value().gpus.at(0).zh.fields[0].second == "SXM 模组");
  const Error e = parse_error(with_field(gpu_doc, R"("tdp_w": 700)", R"("tdp_w": 700, "architecture_zh": "x", "zh_source": "s")"));
  CHECK(e.field == "vendor.json: gpus[0](x1).architecture_zh");
}

TEST_CASE("the built-in catalog's Chinese text: every free-text field the page shows has one where it is English prose") {
  const Catalog& c = default_catalog();
  auto zh_of = [](const ZhText& zh, const std::string& field) {
    for (const auto& [f, text] : zh.fields) {
      if (f == field) return text;
    }
    return std::string();
  };
  for (const auto& g : c.gpus) {
    CAPTURE(g.id);
    if (!g.form_factor.empty()) CHECK_FALSE(zh_of(g.zh, "form_factor").empty());
    if (!g.note.empty()) CHECK_FALSE(zh_of(g.zh, "note").empty());
  }
  for (const auto& o : c.offerings) {
    CAPTURE(o.id);
    if (!o.availability.empty()) CHECK_FALSE(zh_of(o.zh, "availability").empty());
    if (!o.note.empty()) CHECK_FALSE(zh_of(o.zh, "note").empty());
    if (o.cpu.find("cores") != std::string::npos) CHECK_FALSE(zh_of(o.zh, "cpu").empty());
    // Names are brands and sizes, except the words a reference tier or a bare server adds.
    for (const char* prose : {" server", "reference", "estimate"}) {
      if (o.name.find(prose) != std::string::npos) CHECK_FALSE(zh_of(o.zh, "name").empty());
    }
  }
  // The vendor's own Chinese (seed 002's table), not a translation of ours.
  CHECK(zh_of(c.find_offering("fullgpu-8x-mi355x")->zh, "availability") == "库存有限，付款后 7 个工作日内交付");
  CHECK(zh_of(c.find_gpu("mi355x")->zh, "form_factor") == "OAM 模组 · 液冷");
}
