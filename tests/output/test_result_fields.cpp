// The result-field registry: the JSON writer and the CSV writer list exactly its fields.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpucalc/result_fields.hpp"
#include "test_support.hpp"

using namespace gpucalc;

TEST_CASE("the JSON result holds every registry field, in registry order, typed by unit") {
  auto ev = evaluate_text(default_catalog(), "v=1", false);
  REQUIRE(ev.ok());
  const auto j =
      nlohmann::ordered_json::parse(evaluation_to_json(ev.value(), false), nullptr, false);
  REQUIRE(j.is_object());
  const auto& r = j["results"][0];
  std::size_t i = 0;
  for (auto it = r.begin(); it != r.end(); ++it) {
    const std::string key = it.key();
    const auto& value = it.value();
    if (key == "warnings") break;  // after the registry: lists
    REQUIRE(i < result_fields().size());
    CHECK(key == result_fields()[i].name);
    const UnitKind unit = result_fields()[i].unit;
    if (!value.is_null()) {
      if (unit == UnitKind::kText)
        CHECK_MESSAGE(value.is_string(), key);
      else if (unit == UnitKind::kFlag)
        CHECK_MESSAGE(value.is_boolean(), key);
      else
        CHECK_MESSAGE(value.is_number(), key);
    }
    ++i;
  }
  CHECK(i == result_fields().size());
  CHECK(find_result_field("weights_bytes")->unit == UnitKind::kBytes);
  CHECK(find_result_field("no_such_field") == nullptr);
  const auto listed = nlohmann::json::parse(result_fields_json(), nullptr, false);
  REQUIRE(listed.is_array());
  CHECK(listed.size() == result_fields().size());
  CHECK(listed[0]["unit"] == "text");
}

TEST_CASE("formula_kinds: exactly the registry fields the traces of each workload kind hold") {
  // The page marks a figure as opening its formula from these lists (its first WASM module
  // writes no traces): each kind's list must be the registry fields the traces carry.
  const std::vector<std::string> inference = {
      "v=1", "v=1&model=deepseek-r1-0528&pd=1", "v=1&model=deepseek-r1-0528&pd=auto&servers=2",
      "v=1&model=kimi-k2.5", "v=1&model=deepseek-r1-0528&mtp=1",
      "v=1&model=llama-3.1-405b&weights=bf16&compare=fullgpu-1x-h200&servers=2",
      "v=1&model=qwen3-235b-a22b&users=256&engine=sglang"};
  const std::vector<std::string> training = {"v=1&model=llama-3.1-8b&workload=lora",
                                             "v=1&workload=pretrain&model=llama-3.1-8b",
                                             "v=1&workload=finetune&model=llama-3.1-8b",
                                             "v=1&workload=qlora&model=llama-3.1-70b"};
  CHECK(traces_linked());  // the native build links the trace code
  // Not a structured binding: clang (C++17) cannot capture one in doctest's message lambda.
  for (const auto& group : {std::pair{std::string("inference"), inference},
                            std::pair{std::string("training"), training}}) {
    const std::string kind = group.first;
    const std::vector<std::string>& scenarios = group.second;
    std::set<std::string> traced;
    for (const auto& s : scenarios) {
      auto ev = evaluate_text(default_catalog(), s, true);
      REQUIRE_MESSAGE(ev.ok(), s);
      for (const auto& r : ev.value().results) {
        for (const auto& e : r.trace) traced.insert(e.field);
      }
    }
    for (const auto& f : result_fields()) {
      const char* kinds = formula_kinds(f.name);
      const bool listed = kinds != nullptr && (std::string(kinds) == "all" || kind == kinds);
      CHECK_MESSAGE(listed == (traced.count(f.name) > 0), kind << ": " << f.name);
    }
  }
  const auto listed = nlohmann::json::parse(result_fields_json(), nullptr, false);
  REQUIRE(listed.is_array());
  for (const auto& f : listed) {
    if (f["name"] == "ttft_s") CHECK(f["formula"] == "inference");
    if (f["name"] == "run_cost_usd") CHECK(f["formula"] == "training");
    if (f["name"] == "weights_bytes") CHECK(f["formula"] == "all");
    if (f["name"] == "offering") CHECK_FALSE(f.contains("formula"));
  }
}

TEST_CASE("CSV: RFC 4180 quoting, formula cells neutralised, numbers plain") {
  auto ev = evaluate_text(default_catalog(), "v=1&price=25000", false);
  REQUIRE(ev.ok());
  Evaluation e = ev.value();
  e.results[0].offering_name = "-1+HYPERLINK(\"http://x\")";
  e.results[1].offering_name = "a, \"quoted\"\r\nname";
  e.results[1].gpu_name = "@SUM(A1)";
  const std::string csv = evaluation_to_csv(e);
  // header + 2 rows, CRLF line ends (the embedded CRLF is inside quotes)
  CHECK(csv.find("scenario,offering,offering_name,") == 0);
  CHECK(csv.find(",'-1+HYPERLINK(\"\"http://x\"\")\",") == std::string::npos);
  CHECK(csv.find(",\"'-1+HYPERLINK(\"\"http://x\"\")\",") != std::string::npos);
  CHECK(csv.find(",\"a, \"\"quoted\"\"\r\nname\",") != std::string::npos);
  CHECK(csv.find(",'@SUM(A1),") != std::string::npos);
  // The H200's price delta against a US$25,000 MI355X is negative and stays a plain number.
  REQUIRE(e.results[1].price_delta_usd_per_month.has_value());
  CHECK(*e.results[1].price_delta_usd_per_month < 0);
  CHECK(csv.find(",-1100,") != std::string::npos);
  // The scenario cell holds commas, so it is quoted.
  CHECK(csv.find("\r\n\"v=1&model=") != std::string::npos);
  // Every row has as many cells as the header (quoted commas aside): parse it back.
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    if (quoted) {
      if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"')
        quoted = false;
      else
        cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
    } else if (c == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
      ++i;
    } else {
      cell += c;
    }
  }
  rows.pop_back();  // after the last CRLF
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) CHECK(row.size() == result_fields().size() + 1);
  CHECK(rows[2][2] == "a, \"quoted\"\r\nname");
}

TEST_CASE("rates provenance as codes: measured, calibrated (device and date), override, peak") {
  auto json_of = [](const Catalog& c, const char* text) {
    auto ev = evaluate_text(c, text, false);
    REQUIRE(ev.ok());
    return nlohmann::json::parse(evaluation_to_json(ev.value(), false), nullptr, false);
  };
  const auto pub = json_of(default_catalog(), "v=1&compare=fullgpu-8x-h200");
  CHECK(pub["results"][0]["rates_source"] == "measured");
  CHECK(pub["results"][0]["rates_estimate"] == false);
  CHECK(pub["results"][0]["calibration_device"].is_null());
  // The English rates_label is gone: words are made at the edge from the codes.
  CHECK_FALSE(pub["results"][0].contains("rates_label"));

  Catalog cal = default_catalog();
  CalibrationRecord rec;
  rec.gpu_id = "h200-sxm";
  rec.device_name = "NVIDIA H200";
  rec.date = "2026-11-30";
  rec.hbm_dot_bytes_per_s = 4.5e12;
  rec.matmul_best_flops_per_s[index_of(Precision::kFp8)] = 1500e12;
  cal.calibrations.push_back(rec);
  const auto c = json_of(cal, "v=1&compare=fullgpu-8x-h200");
  CHECK(c["results"][0]["rates_source"] == "calibrated");
  CHECK(c["results"][0]["calibration_device"] == "NVIDIA H200");
  CHECK(c["results"][0]["calibration_date"] == "2026-11-30");
  CHECK_FALSE(c["results"][0].contains("rates_label"));

  const auto o = json_of(cal, "v=1&compare=fullgpu-8x-h200&flops_eff=0.5");
  CHECK(o["results"][0]["rates_source"] == "override");

  Catalog bare = default_catalog();
  for (auto& g : bare.gpus) {
    g.achieved_matmul_flops_per_s = {};
    g.achieved_hbm_bytes_per_s.reset();
    g.achieved_allreduce_bus_bytes_per_s.reset();
  }
  const auto p = json_of(bare, "v=1&compare=fullgpu-8x-h200");
  CHECK(p["results"][0]["rates_source"] == "peak");
}
