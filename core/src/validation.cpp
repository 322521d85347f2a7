#include "gpucalc/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/throughput.hpp"

namespace gpucalc {

namespace {

using Json = nlohmann::json;

std::string str_or(const Json& j, const char* key, std::string fallback = {}) {
  if (j.contains(key) && j.at(key).is_string()) return j.at(key).get<std::string>();
  return fallback;
}

double num_or(const Json& j, const char* key, double fallback) {
  if (j.contains(key) && j.at(key).is_number()) return j.at(key).get<double>();
  return fallback;
}

std::string sources_of(const Json& e) {
  if (e.contains("source") && e.at("source").is_string()) return e.at("source").get<std::string>();
  std::string out;
  if (e.contains("sources") && e.at("sources").is_array()) {
    for (const auto& s : e.at("sources")) {
      if (!s.is_string()) continue;
      if (!out.empty()) out += "; ";
      out += s.get<std::string>();
    }
  }
  return out;
}

Result<ValidationRow> run_entry(const Catalog& catalog, const Json& e, const std::string& path) {
  ValidationRow row;
  row.id = str_or(e, "id");
  row.workload = str_or(e, "workload");
  row.system = str_or(e, "system");
  row.unit = str_or(e, "unit");
  row.conditions = str_or(e, "scenario");
  row.source = sources_of(e);
  row.measured = num_or(e, "measured", 0.0);
  if (row.id.empty() || row.workload.empty() || row.conditions.empty()) {
    return make_error(ErrorCode::kInvalidCatalog, path, "needs id, workload and scenario");
  }
  if (row.source.empty()) {
    return make_error(ErrorCode::kInvalidCatalog, path + ".source", "is required");
  }
  if (!(row.measured > 0.0)) {
    return make_error(ErrorCode::kInvalidCatalog, path + ".measured", "must be a positive number");
  }
  auto sc = decode_scenario(row.conditions);
  if (!sc) {
    Error err = sc.error();
    err.field = path + ".scenario." + err.field;
    return err;
  }
  const Scenario& s = sc.value();
  const Model* model = catalog.find_model(s.model);
  if (model == nullptr || s.compare.empty()) {
    return make_error(ErrorCode::kUnknownId, path + ".scenario", "names an unknown model");
  }
  const Offering* off = catalog.find_offering(s.compare.front());
  const Gpu* gpu = off != nullptr ? catalog.find_gpu(off->gpu_id) : nullptr;
  if (gpu == nullptr) {
    return make_error(ErrorCode::kUnknownId, path + ".scenario.compare", "names an unknown offering");
  }
  row.gpu_id = gpu->id;
  if (!catalog.constants) {
    return make_error(ErrorCode::kInvalidCatalog, "performance", "the catalog holds no model constants");
  }
  const ModelConstants& k = *catalog.constants;
  if (row.unit == "tokens_per_s") {
    const InferenceContext c = make_inference_context(catalog, s, *model, *gpu, k);
    LatencyLimits limits;
    limits.ttft_s = num_or(e, "ttft_limit_s", 0.0);
    limits.tpot_s = num_or(e, "tpot_limit_s", 0.0);
    const auto p = max_throughput(c, off->gpu_count, s.tp, limits);
    row.predicted = p ? p->tokens_per_s : 0.0;
  } else if (row.unit == "minutes") {
    const TrainingEstimate t = estimate_training(catalog, s, *model, *gpu, off->gpu_count,
                                                 capacity_bytes(*gpu, s.capacity), k);
    row.predicted = t.hours * 60.0;
  } else {
    return make_error(ErrorCode::kInvalidCatalog, path + ".unit", "must be tokens_per_s or minutes");
  }
  row.error = row.predicted / row.measured - 1.0;
  return row;
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string pad(std::string s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

Result<ValidationReport> run_validation(const Catalog& catalog, std::string_view validation_json) {
  const Json j = Json::parse(validation_json.begin(), validation_json.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(ErrorCode::kInvalidJson, "validation.json", "is not a JSON object");
  }
  if (!j.contains("entries") || !j.at("entries").is_array() || j.at("entries").empty()) {
    return make_error(ErrorCode::kInvalidCatalog, "validation.json.entries",
                      "must be a non-empty array");
  }
  ValidationReport report;
  report.note = str_or(j, "note");
  std::size_t i = 0;
  for (const auto& e : j.at("entries")) {
    const std::string path = "validation.json.entries[" + std::to_string(i++) + "]";
    if (!e.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
    auto row = run_entry(catalog, e, path);
    if (!row) return row.error();
    report.rows.push_back(std::move(row).value());
  }
  std::vector<double> errs;
  for (const auto& r : report.rows) errs.push_back(std::fabs(r.error));
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  report.median_abs_error = n % 2 == 1 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
  report.max_abs_error = errs.back();

  // Ranks: within a workload, every pair of GPUs must be ordered as measured.
  std::map<std::string, std::vector<const ValidationRow*>> groups;
  for (const auto& r : report.rows) groups[r.workload].push_back(&r);
  report.ranks_match = true;
  for (const auto& [workload, rows] : groups) {
    bool ok = true;
    for (std::size_t a = 0; a < rows.size(); ++a) {
      for (std::size_t b = a + 1; b < rows.size(); ++b) {
        const double dm = rows[a]->measured - rows[b]->measured;
        const double dp = rows[a]->predicted - rows[b]->predicted;
        if (dm * dp <= 0.0 && dm != 0.0) ok = false;
      }
    }
    if (!ok) {
      report.ranks_match = false;
      report.rank_mismatches.push_back(workload);
    }
  }
  return report;
}

std::string validation_report_to_text(const ValidationReport& report) {
  std::size_t w_id = 5;
  for (const auto& r : report.rows) w_id = std::max(w_id, r.id.size());
  std::string out = pad("entry", w_id, false) + "  " + pad("predicted", 12, true) + "  " +
                    pad("measured", 12, true) + "  " + pad("error", 8, true) + "  unit\n";
  for (const auto& r : report.rows) {
    const char* f = r.unit == "minutes" ? "%.2f" : "%.0f";
    out += pad(r.id, w_id, false) + "  " + pad(fmt(f, r.predicted), 12, true) + "  " +
           pad(fmt(f, r.measured), 12, true) + "  " + pad(fmt("%+.1f %%", 100.0 * r.error), 8, true) +
           "  " + r.unit + "\n";
  }
  out += "median absolute error " + fmt("%.1f %%", 100.0 * report.median_abs_error) +
         ", worst " + fmt("%.1f %%", 100.0 * report.max_abs_error) + " over " +
         std::to_string(report.rows.size()) + " entries\n";
  out += std::string("GPU ranking on every workload: ") +
         (report.ranks_match ? "as measured" : "DIFFERS") + "\n";
  for (const auto& w : report.rank_mismatches) out += "  ranking differs: " + w + "\n";
  return out;
}

std::string validation_report_to_json(const ValidationReport& report) {
  Json j;
  j["median_abs_error"] = report.median_abs_error;
  j["max_abs_error"] = report.max_abs_error;
  j["ranks_match"] = report.ranks_match;
  j["rank_mismatches"] = report.rank_mismatches;
  j["note"] = report.note;
  Json rows = Json::array();
  for (const auto& r : report.rows) {
    rows.push_back({{"id", r.id},
                    {"workload", r.workload},
                    {"gpu", r.gpu_id},
                    {"system", r.system},
                    {"unit", r.unit},
                    {"predicted", r.predicted},
                    {"measured", r.measured},
                    {"error", r.error},
                    {"scenario", r.conditions},
                    {"source", r.source}});
  }
  j["rows"] = rows;
  return j.dump(2);
}

}  // namespace gpucalc
