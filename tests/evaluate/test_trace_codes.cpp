// Trace codes: every traced figure names its formula and its note's parts by id, so the page can
// word them in its own language; one id is one formula.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "test_support.hpp"

using namespace gpucalc;

TEST_CASE("trace: every entry has a formula id, one id per formula, and a note id when it has a note") {
  const char* scenarios[] = {
      "v=1",                                                                     // GQA, serving model
      "v=1&model=deepseek-r1-0528&weights=fp8&users=64",                         // MLA, MTP layers
      "v=1&model=deepseek-v3.2&compare=fullgpu-8x-h200,ref-8x-b200-neocloud",   // MLA + DSA indexer
      "v=1&model=gpt-oss-120b&capacity=marketed",                                // sliding window, marketed GB
      "v=1&model=qwen3-next-80b-a3b&weights=fp4",                                // linear attention, 4-bit MoE
      "v=1&model=deepseek-v4-flash",                                             // compressed attention
      "v=1&model=llama-3.1-405b&compare=fullgpu-1x-h200,ref-8x-mi355x-neocloud&servers=4,1",
      "v=1&model=deepseek-r1-0528&compare=ref-8x-b200-neocloud&servers=2&ep=16&users=256",  // EP16 across servers, RDMA
      "v=1&model=llama-3.1-8b&workload=lora&tokens=100000000&compare=fullgpu-8x-h200,ref-8x-h200-neocloud",
      "v=1&model=llama-3.1-70b&workload=finetune&tokens=100000000&compare=fullgpu-8x-mi355x,server-8x-b200",
  };
  std::map<std::string, std::string> formula_of;  // id -> formula text
  std::map<std::string, std::string> id_of;       // formula text -> id
  std::set<std::string> note_ids;
  int entries = 0;
  for (const char* text : scenarios) {
    CAPTURE(text);
    auto ev = evaluate_text(default_catalog(), text, true);
    REQUIRE_MESSAGE(ev.ok(), (ev.ok() ? "" : ev.error().to_string()));
    for (const auto& r : ev.value().results) {
      for (const TraceEntry& e : r.trace) {
        CAPTURE(e.field);
        ++entries;
        REQUIRE_FALSE(e.formula_id.empty());
        CHECK(e.note_id.empty() == e.note.empty());
        CHECK(e.note_id.rfind("note_", 0) != 0);  // every note has a code of its own
        for (std::size_t at = 0; !e.note_id.empty() && at != std::string::npos;) {
          const std::size_t plus = e.note_id.find('+', at);
          note_ids.insert(e.note_id.substr(at, plus == std::string::npos ? plus : plus - at));
          at = plus == std::string::npos ? plus : plus + 1;
        }
        const auto [f, new_id] = formula_of.emplace(e.formula_id, e.formula);
        CHECK_MESSAGE(f->second == e.formula, e.formula_id << " names two formulas");
        const auto [g, new_text] = id_of.emplace(e.formula, e.formula_id);
        CHECK_MESSAGE(g->second == e.formula_id, e.formula << " has two ids");
      }
    }
  }
  CHECK(entries > 200);
  // The page words each id in English and Chinese (web/i18n/formula/<lang>.json).
  for (const char* lang : {"en", "zh"}) {
    std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/web/i18n/formula/" + lang + ".json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    const auto words = nlohmann::json::parse(text.str());
    // Not a structured binding: clang (C++17) cannot capture one in CHECK_MESSAGE's lambda.
    for (const auto& entry : formula_of) {
      const std::string& id = entry.first;
      CHECK_MESSAGE(words.contains("ff_" + id), lang << ": ff_" << id);
    }
    for (const auto& id : note_ids) CHECK_MESSAGE(words.contains("fn_" + id), lang << ": fn_" << id);
  }
  // The variants are told apart: each attention kind's KV formula, the engine pool's fit.
  for (const char* id : {"kv_bytes_per_token_gqa", "kv_bytes_per_token_mla", "kv_bytes_per_token_mla_dsa",
                         "kv_bytes_per_token_compressed", "gpus_needed_engine_pool", "capacity_bytes_per_gpu_marketed",
                         "capacity_bytes_per_gpu_device", "step_s", "run_cost_usd", "train_memory_bytes_per_gpu",
                         "scale_out_s_expert_parallel_rdma"}) {
    CHECK_MESSAGE(formula_of.count(id) == 1, id);
  }
}

TEST_CASE("trace: the ids are in the JSON beside the formula and the note") {
  auto ev = evaluate_text(default_catalog(), "v=1&model=deepseek-r1-0528", true);
  REQUIRE(ev.ok());
  const auto d = nlohmann::json::parse(evaluation_to_json(ev.value(), true));
  int seen = 0;
  for (std::size_t i = 0; i < ev.value().results.size(); ++i) {
    const auto& trace = d["results"][i]["trace"];
    for (const TraceEntry& e : ev.value().results[i].trace) {
      CAPTURE(e.field);
      CHECK(trace[e.field]["formula_id"].is_string());
      CHECK(trace[e.field]["note_id"].is_string());
      seen += trace[e.field]["formula_id"] == e.formula_id ? 1 : 0;
    }
  }
  CHECK(seen > 50);
  CHECK(d["results"][0]["trace"]["kv_bytes_per_token"]["formula_id"] == "kv_bytes_per_token_mla");
  CHECK(d["results"][0]["trace"]["weights_bytes"]["formula_id"] == "weights_bytes");
  CHECK(d["results"][0]["trace"]["weights_bytes"]["note_id"].get<std::string>().find("mtp_layers") != std::string::npos);
}
