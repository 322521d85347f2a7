#include "gpucalc/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "gpucalc/error_bands.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"
#include "model/serving.hpp"
#include "model/throughput.hpp"
#include "model/training.hpp"

namespace gpucalc {

namespace {

using NlohmannJson = nlohmann::json;

std::string str_or(const NlohmannJson& j, const char* key, std::string fallback = {}) {
  if (j.contains(key) && j.at(key).is_string()) return j.at(key).get<std::string>();
  return fallback;
}

double num_or(const NlohmannJson& j, const char* key, double fallback) {
  if (j.contains(key) && j.at(key).is_number()) return j.at(key).get<double>();
  return fallback;
}

std::string sources_of(const NlohmannJson& e) {
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

Result<ValidationRow> run_entry(const Catalog& catalog, const NlohmannJson& e, const std::string& path) {
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
    // The calculator's own path: max_throughput_tokens_per_s within the entry's limits.
    Scenario limited = s;
    limited.ttft_max_s = num_or(e, "ttft_limit_s", 0.0);
    limited.tpot_max_s = num_or(e, "tpot_limit_s", 0.0);
    limited.compare = {off->id};
    // The engine release the entry ran: the catalog's profile of that engine at that version
    // (its older_versions deltas apply, as on the serving table's rows).
    const std::string version = str_or(e, "engine_version");
    Catalog at_version;
    if (!version.empty()) {
      auto profile = select_engine(catalog_engines(catalog), s.engine, *gpu, *model);
      if (!profile) {
        Error err = profile.error();
        err.field = path + ".scenario." + err.field;
        return err;
      }
      auto engines = std::make_shared<EngineCatalog>(catalog_engines(catalog));
      for (EngineProfile& p : engines->engines) {
        if (p.id == profile.value()->id) p.version = version;
      }
      at_version = catalog;
      at_version.engines = std::move(engines);
    }
    auto ev = evaluate(version.empty() ? catalog : at_version, limited, false);
    if (!ev) {
      Error err = ev.error();
      err.field = path + ".scenario." + err.field;
      return err;
    }
    const auto& res = ev.value().results.front();
    row.predicted = res.max_throughput_tokens_per_s ? *res.max_throughput_tokens_per_s : 0.0;
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
  const NlohmannJson j = NlohmannJson::parse(validation_json.begin(), validation_json.end(), nullptr, false);
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
  // Measured results closer than this are a tie: the same GPU and engine move 5 to 20 percent
  // between runs (shared/reference/serving-measured.md), so a 4 % gap is not an order to predict.
  constexpr double kMeasuredTieFraction = 0.05;
  report.ranks_match = true;
  report.ranks_match_beyond_ties = true;
  for (const auto& [workload, rows] : groups) {
    bool ok = true, ok_beyond_ties = true;
    for (std::size_t a = 0; a < rows.size(); ++a) {
      for (std::size_t b = a + 1; b < rows.size(); ++b) {
        const double dm = rows[a]->measured - rows[b]->measured;
        const double dp = rows[a]->predicted - rows[b]->predicted;
        if (dm * dp <= 0.0 && dm != 0.0) {
          ok = false;
          const double larger = std::max(rows[a]->measured, rows[b]->measured);
          if (std::fabs(dm) > kMeasuredTieFraction * larger) ok_beyond_ties = false;
        }
      }
    }
    if (!ok) {
      report.ranks_match = false;
      report.rank_mismatches.push_back(workload);
    }
    if (!ok_beyond_ties) report.ranks_match_beyond_ties = false;
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
  out += std::string("GPU ranking where measured results differ by more than 5 %: ") +
         (report.ranks_match_beyond_ties ? "as measured" : "DIFFERS") + "\n";
  return out;
}

std::string validation_report_to_json(const ValidationReport& report) {
  NlohmannJson j;
  j["median_abs_error"] = report.median_abs_error;
  j["max_abs_error"] = report.max_abs_error;
  j["ranks_match"] = report.ranks_match;
  j["ranks_match_beyond_ties"] = report.ranks_match_beyond_ties;
  j["rank_mismatches"] = report.rank_mismatches;
  j["note"] = report.note;
  NlohmannJson rows = NlohmannJson::array();
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

// ------------------------------------------------------------------ serving table

namespace gpucalc {

namespace {

double opt_num(const NlohmannJson& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : 0.0;
}

void add_fitted_error(double predicted, double measured, double& sum, int& n) {
  if (measured > 0.0 && predicted > 0.0) {
    sum += std::fabs(predicted / measured - 1.0);
    ++n;
  }
}

Mape mape_of(const std::string& name, const std::vector<const ServingValidationRow*>& rows) {
  Mape m;
  m.group = name;
  for (const auto* r : rows) {
    add_fitted_error(r->predicted_interactivity, r->measured_interactivity, m.interactivity, m.n_interactivity);
    add_fitted_error(r->predicted_throughput_per_gpu, r->measured_throughput_per_gpu, m.throughput, m.n_throughput);
    add_fitted_error(r->predicted_ttft_s, r->measured_ttft_s, m.ttft, m.n_ttft);
  }
  if (m.n_interactivity) m.interactivity /= m.n_interactivity;
  if (m.n_throughput) m.throughput /= m.n_throughput;
  if (m.n_ttft) m.ttft /= m.n_ttft;
  return m;
}

/** Which rows of the serving table an entry applies to ("rows": model, engine,
 *  engine_version, vendor, gpus, users_min, users_max, spec_decode, dp_attention). */
struct RowFilter {
  std::string model, engine, version, vendor;
  std::vector<std::string> gpus;
  double users_min = 0, users_max = 1e300;
  int mtp = -1;  // rows "spec_decode": "mtp" (1), "none" (0), or either (-1)
  int dpa = -1;  // rows "dp_attention": 1, 0, or either (-1)
  bool matches(const ServingValidationRow& r) const {
    if (mtp >= 0 && (r.mtp > 0) != (mtp > 0)) return false;
    if (dpa >= 0 && r.dpa != dpa) return false;
    if (!model.empty() && r.model != model) return false;
    if (!engine.empty() && r.engine != engine) return false;
    if (!version.empty() && r.engine_version.find(version) == std::string::npos) return false;
    if (!vendor.empty() && r.vendor != vendor) return false;
    if (!gpus.empty() && std::find(gpus.begin(), gpus.end(), r.gpu) == gpus.end()) return false;
    return r.concurrency >= users_min && r.concurrency <= users_max;
  }
};

Result<RowFilter> parse_row_filter(const NlohmannJson& rows, const std::string& path) {
  RowFilter f;
  f.model = str_or(rows, "model");
  f.engine = str_or(rows, "engine");
  f.version = str_or(rows, "engine_version");
  f.vendor = str_or(rows, "vendor");
  f.users_min = num_or(rows, "users_min", 0.0);
  f.users_max = num_or(rows, "users_max", 1e300);
  if (rows.contains("spec_decode")) {
    const std::string spec = str_or(rows, "spec_decode");
    if (spec != "mtp" && spec != "none") {
      return make_error(ErrorCode::kInvalidCatalog, path + ".spec_decode", "must be mtp or none");
    }
    f.mtp = spec == "mtp" ? 1 : 0;
  }
  if (rows.contains("dp_attention")) {
    const double d = num_or(rows, "dp_attention", -1.0);
    if (d != 0.0 && d != 1.0) return make_error(ErrorCode::kInvalidCatalog, path + ".dp_attention", "must be 0 or 1");
    f.dpa = static_cast<int>(d);
  }
  if (rows.contains("gpus") && rows.at("gpus").is_array()) {
    for (const auto& g : rows.at("gpus")) {
      if (g.is_string()) f.gpus.push_back(g.get<std::string>());
    }
  }
  return f;
}

/** One constant set against rows of the serving table: which rows, which metrics, and how the
 *  folds re-set it (a grid over `lo`..`hi`; `prior` where a fold leaves it no row). */
struct Calibration {
  std::string constant;
  bool interactivity = false, throughput = false, ttft = false;
  RowFilter rows;
  double lo = 0, hi = 0, prior = 0;
  // "prior_pool": where a fold leaves this constant no row, it takes the mean of the constants
  // of the same pool that the fold did set (an engine nobody measured is assumed to cost what
  // the measured ones do), and `prior` only where the fold set none of them.
  std::string prior_pool;
  bool matches(const ServingValidationRow& r) const { return rows.matches(r); }
};

/** How the runs of some rows were launched, where it differs from the engine's defaults
 *  ("launch": rows, gate, source): the scenario key `gate` their predictions use. */
struct LaunchSetting {
  RowFilter rows;
  int gate_steps = 0;
};

/** One entry of an array of the serving table, with the path its errors name. */
struct TableEntry {
  std::string path;  // "validation-serving.json.<key>[<i>]"
  const NlohmannJson* json;
};

/** The serving table's optional array `key`: its entries (none when absent), or an error naming
 *  the field when it is not an array. */
Result<std::vector<TableEntry>> optional_entries(const NlohmannJson& j, const char* key) {
  std::vector<TableEntry> out;
  const std::string path = std::string("validation-serving.json.") + key;
  if (!j.contains(key)) return out;
  if (!j.at(key).is_array()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an array");
  for (const auto& e : j.at(key)) out.push_back(TableEntry{path + "[" + std::to_string(out.size()) + "]", &e});
  return out;
}

Result<std::vector<LaunchSetting>> parse_launch(const NlohmannJson& j) {
  std::vector<LaunchSetting> out;
  auto entries = optional_entries(j, "launch");
  if (!entries) return entries.error();
  for (const TableEntry& entry : entries.value()) {
    const NlohmannJson& e = *entry.json;
    const std::string& path = entry.path;
    if (!e.is_object() || !e.contains("rows") || !e.at("rows").is_object() || str_or(e, "source").empty()) {
      return make_error(ErrorCode::kInvalidCatalog, path, "needs rows (object), gate and source");
    }
    const double gate = num_or(e, "gate", -1.0);
    if (!(gate >= 1.0 && gate <= 10000.0) || gate != std::floor(gate)) {
      return make_error(ErrorCode::kInvalidCatalog, path + ".gate", "must be a whole number of decode steps, 1 to 10,000");
    }
    auto rows = parse_row_filter(e.at("rows"), path + ".rows");
    if (!rows) return rows.error();
    out.push_back(LaunchSetting{std::move(rows.value()), static_cast<int>(gate)});
  }
  return out;
}

/** A constant another table sets ("external_constants": constant, held_out, held_out_value,
 *  source): the folds of this table do not re-set it, but a fold whose held-out group is one of
 *  that table's (`held_out`, per fold kind: the labels of the rows that set it) runs at
 *  `held_out_value`, as if it had never been measured, so no fold predicts a group with a
 *  value its own measurements set. */
struct ExternalConstant {
  std::string constant;
  std::array<std::vector<std::string>, kFoldKinds> held_out;
  double held_out_value = 0.0;
};

/** The catalog the folds change: its own copies of the constants and engine profiles. */
struct WorkingCatalog {
  Catalog catalog;
  std::shared_ptr<EngineCatalog> engines;
};

WorkingCatalog working_copy(const Catalog& base) {
  WorkingCatalog w{base, std::make_shared<EngineCatalog>(catalog_engines(base))};
  w.catalog.engines = w.engines;
  if (!w.catalog.constants) w.catalog.constants = default_model_constants();
  return w;
}

/** "performance.<key>" or "engines.<engine>.<field>": the slot of the working catalog. */
double* constant_slot(WorkingCatalog& w, std::string_view name) {
  return catalog_constant(*w.catalog.constants, *w.engines, name);
}

Result<std::vector<Calibration>> parse_calibration(const NlohmannJson& j, const Catalog& catalog) {
  std::vector<Calibration> out;
  auto entries = optional_entries(j, "calibration");
  if (!entries) return entries.error();
  WorkingCatalog probe = working_copy(catalog);
  for (const TableEntry& entry : entries.value()) {
    const NlohmannJson& e = *entry.json;
    const std::string& path = entry.path;
    if (!e.is_object() || !e.contains("rows") || !e.at("rows").is_object() ||
        !e.contains("metrics") || !e.at("metrics").is_array()) {
      return make_error(ErrorCode::kInvalidCatalog, path, "needs constant, metrics (array) and rows (object)");
    }
    Calibration c;
    c.constant = str_or(e, "constant");
    if (c.constant.empty() || str_or(e, "how").empty()) {
      return make_error(ErrorCode::kInvalidCatalog, path, "needs constant and how");
    }
    for (const auto& m : e.at("metrics")) {
      const std::string name = m.is_string() ? m.get<std::string>() : "";
      if (name == "interactivity") {
        c.interactivity = true;
      } else if (name == "throughput") {
        c.throughput = true;
      } else if (name == "ttft") {
        c.ttft = true;
      } else {
        return make_error(ErrorCode::kInvalidCatalog, path + ".metrics",
                          "each must be interactivity, throughput or ttft");
      }
    }
    if (str_or(e, "source").empty()) {
      return make_error(ErrorCode::kInvalidCatalog, path + ".source",
                        "must name where the constant's value comes from and the rows it was set on");
    }
    if (constant_slot(probe, c.constant) == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, path + ".constant",
                        "must name a constant of data/performance.json or data/engines.json");
    }
    const NlohmannJson& range = e.contains("range") ? e.at("range") : NlohmannJson();
    if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number() ||
        !(range[0].get<double>() >= 0.0 && range[1].get<double>() > range[0].get<double>()) ||
        !e.contains("prior") || !e.at("prior").is_number()) {
      return make_error(ErrorCode::kInvalidCatalog, path + ".range",
                        "needs range [lo, hi] (0 <= lo < hi) and prior (a number): the folds re-set "
                        "the constant on a grid over the range");
    }
    c.lo = range[0].get<double>();
    c.hi = range[1].get<double>();
    c.prior = e.at("prior").get<double>();
    c.prior_pool = str_or(e, "prior_pool");
    auto rows = parse_row_filter(e.at("rows"), path + ".rows");
    if (!rows) return rows.error();
    c.rows = std::move(rows.value());
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<ExternalConstant>> parse_external(const NlohmannJson& j, const Catalog& catalog) {
  std::vector<ExternalConstant> out;
  auto entries = optional_entries(j, "external_constants");
  if (!entries) return entries.error();
  WorkingCatalog probe = working_copy(catalog);
  for (const TableEntry& entry : entries.value()) {
    const NlohmannJson& e = *entry.json;
    const std::string& path = entry.path;
    if (!e.is_object() || !e.contains("held_out") || !e.at("held_out").is_object() ||
        !e.contains("held_out_value") || !e.at("held_out_value").is_number() || str_or(e, "source").empty()) {
      return make_error(ErrorCode::kInvalidCatalog, path, "needs constant, held_out (object), held_out_value and source");
    }
    ExternalConstant c;
    c.constant = str_or(e, "constant");
    if (constant_slot(probe, c.constant) == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, path + ".constant",
                        "must name a constant of data/performance.json or data/engines.json");
    }
    c.held_out_value = e.at("held_out_value").get<double>();
    for (const auto& [kind, labels] : e.at("held_out").items()) {
      const auto* at = std::find(std::begin(kFoldKindNames), std::end(kFoldKindNames), kind);
      if (at == std::end(kFoldKindNames) || !labels.is_array()) {
        return make_error(ErrorCode::kInvalidCatalog, path + ".held_out." + kind,
                          "must be a fold kind (model, engine, shape, gpu, users) with an array of group labels");
      }
      for (const auto& l : labels) {
        if (!l.is_string()) return make_error(ErrorCode::kInvalidCatalog, path + ".held_out." + kind, "labels must be strings");
        c.held_out[static_cast<std::size_t>(at - std::begin(kFoldKindNames))].push_back(l.get<std::string>());
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string config_key(const ServingValidationRow& r) {
  return r.gpu + "|" + r.model + "|" + r.weights + "|" + r.engine + "|" + std::to_string(r.tp) +
         "|" + std::to_string(r.ep) + "|" + std::to_string(r.dpa) + "|" + std::to_string(r.mtp) +
         "|" + fmt("%g", r.isl) + "|" + fmt("%g", r.osl) + "|" + fmt("%g", r.concurrency);
}

/** What a row needs to be predicted again under other constants. */
struct RowSetup {
  Scenario scenario;
  const Model* model = nullptr;
  const Gpu* gpu = nullptr;
  Parallel par;
  int replicas = 1;
};

ServingPoint predict_row(const Catalog& catalog, const ServingValidationRow& r, const RowSetup& s) {
  auto engine = select_engine(catalog_engines(catalog), r.engine, *s.gpu, *s.model);
  if (!engine) return ServingPoint{};
  ServingContext c = make_serving_context(catalog, s.scenario, *s.model, *s.gpu, *engine.value(),
                                          r.engine_version);
  c.input_tokens = 0.9 * r.isl;  // the mean request, unrounded
  c.output_tokens = 0.9 * r.osl;
  return serve(c, s.par, s.replicas, r.concurrency);
}

/** The row's throughput as it would read with its median TTFT in place of its mean. A
 *  closed-loop run's throughput is its users x (input + output) tokens over the time a request
 *  takes, mean TTFT + output x mean TPOT (Little's law): on the table's 290 rows with both
 *  latencies the measured throughput is 0.96 to 0.99 of that (5th to 95th percentile; the rest
 *  is the last wave's drain). So a warm-up stall that moves a run's mean TTFT (b200 fp4 sglang,
 *  8k/1k, 8 users: mean 9.19 s, median 0.565 s) cuts its throughput as much (356 against about
 *  570 tokens/s per GPU without it). TTFT is scored on the median for that reason; throughput is
 *  scored on the same footing: the verbatim figure x (mean TTFT + o x mean TPOT) / (median TTFT +
 *  o x mean TPOT), o = the mean output less its first token. Rows without a median TTFT or a
 *  mean TPOT keep the verbatim figure. */
double measured_steady_throughput(const ServingValidationRow& r) {
  const double raw = r.measured_run_throughput_per_gpu;
  const double o = 0.9 * r.osl - 1.0;
  if (!(raw > 0.0) || !r.ttft_median || !(r.measured_mean_ttft_s > 0.0) ||
      !(r.measured_mean_tpot_s > 0.0) || !(o > 0.0)) {
    return raw;
  }
  const double decode_s = o * r.measured_mean_tpot_s;
  return raw * (r.measured_mean_ttft_s + decode_s) / (r.measured_ttft_s + decode_s);
}

/** The model's throughput on the same footing as measured_steady_throughput: its running
 *  requests over the steady request's time, median TTFT (less the wait for the KV pool, which
 *  adds latency, not throughput) + (output - 1) x TPOT (less the preempted wait). */
double predicted_steady_throughput(const ServingPoint& pt, const ServingValidationRow& r) {
  if (!r.ttft_median || r.measured_throughput_per_gpu == r.measured_run_throughput_per_gpu) {
    return pt.total_tokens_per_s_per_gpu;
  }
  const double in = 0.9 * r.isl, out = std::max(1.0, 0.9 * r.osl);
  const double request_s =
      (pt.ttft_median_s - pt.queue_s) + (out - 1.0) * (pt.tpot_s - pt.tpot_preempted_s);
  if (!(request_s > 0.0) || pt.par.gpus() < 1) return pt.total_tokens_per_s_per_gpu;
  return pt.running_per_instance * (in + out) / request_s / pt.par.gpus();
}

/** The model's figures in the row's statistics (TTFT: median or mean, as the row scores it;
 *  throughput on the median TTFT's footing where the row's is). */
FoldFigures figures_of(const ServingPoint& pt, const ServingValidationRow& r) {
  if (!pt.fits) return FoldFigures{};
  return FoldFigures{pt.tokens_per_s_per_user, predicted_steady_throughput(pt, r),
                     r.ttft_median ? pt.ttft_median_s : pt.ttft_s};
}

FoldFigures measured_of(const ServingValidationRow& r) {
  return FoldFigures{r.measured_interactivity, r.measured_throughput_per_gpu, r.measured_ttft_s};
}

/** The constants a fold left no row for, in a prior pool: the mean of the pool's constants it
 *  set (Calibration::prior_pool). */
void pool_priors(WorkingCatalog& w, const std::vector<Calibration>& cals, const std::vector<bool>& had_rows,
                 std::vector<double>& chosen) {
  for (std::size_t k = 0; k < cals.size(); ++k) {
    if (had_rows[k] || cals[k].prior_pool.empty()) continue;
    double sum = 0.0;
    int n = 0;
    for (std::size_t j = 0; j < cals.size(); ++j) {
      if (had_rows[j] && cals[j].prior_pool == cals[k].prior_pool) {
        sum += chosen[j];
        ++n;
      }
    }
    if (n == 0) continue;
    chosen[k] = sum / n;
    *constant_slot(w, cals[k].constant) = chosen[k];
  }
}

/**
 * The procedure that sets the constants "set against" the serving table, run on the rows with
 * train[i] true (newest runs only): each constant in the table's order, on the training rows it
 * names, takes the value of a grid over its range (41 points, then 21 within a step of the
 * best) with the least mean |relative error| over its metrics, the constants before it already
 * set; a constant with no training row takes its prior, or its prior pool's mean (pool_priors).
 * Returns the values chosen.
 */
std::vector<double> reset_constants(WorkingCatalog& w, const std::vector<Calibration>& cals,
                                    const std::vector<ServingValidationRow>& rows,
                                    const std::vector<RowSetup>& setups, const std::vector<bool>& train) {
  std::vector<double> chosen;
  std::vector<bool> had_rows;
  for (const Calibration& cal : cals) {
    double* slot = constant_slot(w, cal.constant);
    const bool uses[kFoldMetrics] = {cal.interactivity, cal.throughput, cal.ttft};
    std::vector<std::size_t> on;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!train[i] || !rows[i].newest || !cal.matches(rows[i])) continue;
      const FoldFigures m = measured_of(rows[i]);
      bool any = false;
      for (std::size_t k = 0; k < kFoldMetrics; ++k) any = any || (uses[k] && m[k] > 0.0);
      if (any) on.push_back(i);
    }
    had_rows.push_back(!on.empty());
    if (on.empty()) {
      *slot = cal.prior;
      chosen.push_back(cal.prior);
      continue;
    }
    const auto cost = [&](double v) {
      *slot = v;
      double sum = 0.0;
      int n = 0;
      for (std::size_t i : on) {
        const FoldFigures e = relative_errors(figures_of(predict_row(w.catalog, rows[i], setups[i]), rows[i]),
                                              measured_of(rows[i]));
        for (std::size_t k = 0; k < kFoldMetrics; ++k) {
          if (!uses[k]) continue;
          // A row the model cannot fit counts as fully wrong, so no value wins by dropping rows.
          sum += e[k] >= 0.0 ? e[k] : (measured_of(rows[i])[k] > 0.0 ? 1.0 : 0.0);
          n += measured_of(rows[i])[k] > 0.0 ? 1 : 0;
        }
      }
      return n > 0 ? sum / n : 0.0;
    };
    const double best = grid_minimum(cal.lo, cal.hi, cost);
    *slot = best;
    chosen.push_back(best);
  }
  pool_priors(w, cals, had_rows, chosen);
  return chosen;
}

std::string fold_label(const ServingValidationRow& r, std::size_t kind) {
  if (!r.newest) return "";
  switch (kind) {
    case 0: return r.model;
    case 1: return r.engine;
    case 2: return fmt("%g", r.isl) + "/" + fmt("%g", r.osl);
    case 3: return r.gpu;
    default: return r.concurrency > kFoldUsersMeasured ? "beyond" : "";
  }
}

Mape mape_of_figures(const std::string& name, const std::vector<const ServingValidationRow*>& rows,
                     std::size_t kind) {
  Mape m;
  m.group = name;
  for (const auto* r : rows) {
    const FoldFigures& p = r->out_of_sample[kind];
    add_fitted_error(p[0], r->measured_interactivity, m.interactivity, m.n_interactivity);
    add_fitted_error(p[1], r->measured_throughput_per_gpu, m.throughput, m.n_throughput);
    add_fitted_error(p[2], r->measured_ttft_s, m.ttft, m.n_ttft);
  }
  if (m.n_interactivity) m.interactivity /= m.n_interactivity;
  if (m.n_throughput) m.throughput /= m.n_throughput;
  if (m.n_ttft) m.ttft /= m.n_ttft;
  return m;
}

}  // namespace

const char* const kFoldKindNames[kFoldKinds] = {"model", "engine", "shape", "gpu", "users"};

namespace {

/** Reads row `e` of the serving table, predicts it and appends it (and how it was set up). */
std::optional<Error> read_serving_row(const NlohmannJson& e, const std::string& path, const NlohmannJson& offerings,
                                      const Catalog& catalog, const EngineCatalog& engines,
                                      const std::vector<Calibration>& cals,
                                      const std::vector<LaunchSetting>& launch,
                                      ServingValidationReport& report, std::vector<RowSetup>& setups) {
  if (!e.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  ServingValidationRow r;
  r.date = str_or(e, "date");
  r.gpu = str_or(e, "gpu");
  r.model = str_or(e, "model");
  r.weights = str_or(e, "weights");
  r.engine = str_or(e, "engine");
  r.engine_version = str_or(e, "engine_version");
  r.tp = static_cast<int>(num_or(e, "tp", 0));
  r.ep = static_cast<int>(num_or(e, "ep", 1));
  r.dpa = static_cast<int>(num_or(e, "dp_attention", 0));
  const std::string spec = str_or(e, "spec_decode");
  if (spec != "none" && spec != "mtp" && !spec.empty()) {
    return make_error(ErrorCode::kInvalidCatalog, path + ".spec_decode", "must be none or mtp");
  }
  r.mtp = spec == "mtp" ? 1 : 0;  // serving-measured.md: one draft token
  r.isl = num_or(e, "isl", 0);
  r.osl = num_or(e, "osl", 0);
  r.concurrency = num_or(e, "concurrency", 0);
  r.measured_interactivity = opt_num(e, "interactivity_tokens_per_s_per_user");
  if (r.measured_interactivity <= 0.0 && opt_num(e, "mean_tpot_s") > 0.0) {
    r.measured_interactivity = 1.0 / opt_num(e, "mean_tpot_s");
  }
  r.measured_run_throughput_per_gpu = opt_num(e, "total_tokens_per_s_per_gpu");
  r.measured_mean_ttft_s = opt_num(e, "mean_ttft_s");
  r.ttft_median = opt_num(e, "median_ttft_s") > 0.0;
  r.measured_ttft_s = r.ttft_median ? opt_num(e, "median_ttft_s") : r.measured_mean_ttft_s;
  r.measured_mean_tpot_s = opt_num(e, "mean_tpot_s");
  r.measured_throughput_per_gpu = measured_steady_throughput(r);
  if (r.tp < 1 || r.tp > 8 || r.ep < 1 || r.isl < 1 || r.osl < 1 || r.concurrency < 1) {
    return make_error(ErrorCode::kInvalidCatalog, path, "needs tp 1-8, ep >= 1, isl, osl, concurrency");
  }
  const std::string off_id = str_or(offerings, r.gpu.c_str());
  const Offering* off = catalog.find_offering(off_id);
  const Gpu* gpu = off != nullptr ? catalog.find_gpu(off->gpu_id) : nullptr;
  const Model* model = catalog.find_model(r.model);
  const auto weights = parse_weight_format(r.weights);
  if (gpu == nullptr || model == nullptr || !weights) {
    return make_error(ErrorCode::kUnknownId, path, "names an unknown GPU, model or weights");
  }
  r.gpu_id = gpu->id;
  r.vendor = gpu->vendor;
  r.architecture = gpu->architecture;
  auto engine = select_engine(engines, r.engine, *gpu, *model);
  if (!engine) {
    Error err = engine.error();
    err.field = path + ".engine";
    return err;
  }
  RowSetup setup;
  Scenario& s = setup.scenario;
  s.model = r.model;
  s.weights = *weights;
  s.kv = engine.value()->kv_cache;
  s.input_tokens = std::llround(0.9 * r.isl);
  s.output_tokens = std::llround(0.9 * r.osl);
  s.tp = r.tp;
  s.ep = r.ep;
  s.dpa = r.dpa == 1;
  s.mtp = r.mtp;
  for (const LaunchSetting& l : launch) {
    if (l.rows.matches(r)) s.gate_steps = l.gate_steps;
  }
  if (engines.find(r.engine) != nullptr) s.engine = r.engine;
  s.users = static_cast<long long>(r.concurrency) * (off->gpu_count / r.tp);
  s.compare = {off->id};
  s.context_tokens = s.input_tokens + s.output_tokens;
  r.scenario = encode_scenario(s);
  setup.model = model;
  setup.gpu = gpu;
  setup.par = Parallel{r.tp, r.ep, r.dpa == 1};
  setup.replicas = off->gpu_count / r.tp;
  const ServingPoint pt = predict_row(catalog, r, setup);
  if (pt.fits) {
    r.predicted_interactivity = pt.tokens_per_s_per_user;
    r.predicted_throughput_per_gpu = predicted_steady_throughput(pt, r);
    r.predicted_run_throughput_per_gpu = pt.total_tokens_per_s_per_gpu;
    r.predicted_ttft_s = r.ttft_median ? pt.ttft_median_s : pt.ttft_s;
    r.predicted_tpot_s = pt.tpot_s;
  }
  for (const Calibration& cal : cals) {
    if (cal.matches(r)) r.set_constants.push_back(cal.constant);
  }
  report.rows.push_back(std::move(r));
  setups.push_back(std::move(setup));
  return std::nullopt;
}

/** Marks the newest row of each configuration and concurrency and scores them: per GPU, all,
 *  the older runs (drift) and per group. */
void score_newest(ServingValidationReport& report) {
  // Newest row of each configuration and concurrency.
  std::map<std::string, std::size_t> newest;
  for (std::size_t k = 0; k < report.rows.size(); ++k) {
    const std::string key = config_key(report.rows[k]);
    auto it = newest.find(key);
    if (it == newest.end() || report.rows[k].date > report.rows[it->second].date) newest[key] = k;
  }
  for (const auto& [key, k] : newest) report.rows[k].newest = true;

  std::vector<const ServingValidationRow*> scored, older;
  std::map<std::string, std::vector<const ServingValidationRow*>> by_gpu, by_group;
  for (const auto& r : report.rows) {
    (r.newest ? scored : older).push_back(&r);
    if (!r.newest) continue;
    by_gpu[r.gpu_id].push_back(&r);
    by_group["model " + r.model].push_back(&r);
    by_group["engine " + r.engine].push_back(&r);
    by_group["weights " + r.weights].push_back(&r);
    by_group["vendor " + r.vendor].push_back(&r);
    by_group[std::string("users ") + users_regime(r.concurrency)].push_back(&r);
  }
  for (const auto& [gpu, rows] : by_gpu) report.per_gpu.push_back(mape_of(gpu, rows));
  report.all = mape_of("all", scored);
  report.drift = mape_of("older runs (drift)", older);
  Mape& v = report.verbatim_throughput;
  v.group = "all, verbatim throughput";
  for (const ServingValidationRow* r : scored) {
    add_fitted_error(r->predicted_run_throughput_per_gpu, r->measured_run_throughput_per_gpu,
                     v.throughput, v.n_throughput);
  }
  if (v.n_throughput) v.throughput /= v.n_throughput;
  for (const auto& [name, rows] : by_group) report.groups.push_back(mape_of(name, rows));
}

/** The out-of-sample figures: the constants re-set by the same procedure on every newest row,
 *  then without each group of each fold kind, which is then predicted. */
void run_serving_folds(const Catalog& catalog, const std::vector<Calibration>& cals,
                       const std::vector<ExternalConstant>& externals,
                       const std::vector<RowSetup>& setups, ServingValidationReport& report) {
  // The constants re-set by the same procedure on every newest row, then without each group.
  for (const Calibration& cal : cals) {
    WorkingCatalog probe = working_copy(catalog);
    const double value = *constant_slot(probe, cal.constant);
    report.constants.push_back(RefitConstant{cal.constant, value, 0.0, value, value});
  }
  {
    WorkingCatalog w = working_copy(catalog);
    const std::vector<double> all = reset_constants(w, cals, report.rows, setups,
                                                    std::vector<bool>(report.rows.size(), true));
    for (std::size_t k = 0; k < all.size(); ++k) {
      report.constants[k].all_rows = all[k];
      report.constants[k].fold_min = report.constants[k].fold_max = all[k];
    }
  }
  for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
    std::vector<std::string> labels;
    for (const auto& r : report.rows) labels.push_back(fold_label(r, kind));
    const FitAndPredict fit_and_predict = [&](const std::vector<bool>& train) {
      WorkingCatalog w = working_copy(catalog);
      // The group this fold holds out: where another table set a constant on it, that constant
      // runs unmeasured here (ExternalConstant), the fits below included.
      std::string held;
      for (std::size_t k = 0; k < report.rows.size() && held.empty(); ++k) {
        if (!train[k] && !labels[k].empty()) held = labels[k];
      }
      for (const ExternalConstant& x : externals) {
        const auto& groups = x.held_out[kind];
        if (std::find(groups.begin(), groups.end(), held) != groups.end()) {
          *constant_slot(w, x.constant) = x.held_out_value;
        }
      }
      const std::vector<double> values = reset_constants(w, cals, report.rows, setups, train);
      for (std::size_t k = 0; k < values.size(); ++k) {
        report.constants[k].fold_min = std::min(report.constants[k].fold_min, values[k]);
        report.constants[k].fold_max = std::max(report.constants[k].fold_max, values[k]);
      }
      std::vector<FoldFigures> out;
      for (std::size_t k = 0; k < report.rows.size(); ++k) {
        out.push_back(train[k] ? FoldFigures{} : figures_of(predict_row(w.catalog, report.rows[k], setups[k]), report.rows[k]));
      }
      return out;
    };
    const std::vector<FoldFigures> predicted = leave_one_group_out(labels, fit_and_predict);
    for (std::size_t k = 0; k < report.rows.size(); ++k) report.rows[k].out_of_sample[kind] = predicted[k];
    FoldReport fr;
    fr.kind = kFoldKindNames[kind];
    std::vector<const ServingValidationRow*> held;
    std::map<std::string, std::vector<const ServingValidationRow*>> held_by_gpu;
    for (std::size_t k = 0; k < report.rows.size(); ++k) {
      if (labels[k].empty()) continue;
      held.push_back(&report.rows[k]);
      held_by_gpu[report.rows[k].gpu_id].push_back(&report.rows[k]);
    }
    for (const auto& [gpu, rows] : held_by_gpu) fr.per_gpu.push_back(mape_of_figures(gpu, rows, kind));
    fr.all = mape_of_figures("all", held, kind);
    report.folds.push_back(std::move(fr));
  }
  report.has_folds = true;
}

}  // namespace

Result<ServingValidationReport> run_serving_validation(const Catalog& catalog,
                                                       std::string_view serving_json, bool folds) {
  const NlohmannJson j = NlohmannJson::parse(serving_json.begin(), serving_json.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(ErrorCode::kInvalidJson, "validation-serving.json", "is not a JSON object");
  }
  if (!j.contains("rows") || !j.at("rows").is_array() || j.at("rows").empty() ||
      !j.contains("offerings") || !j.at("offerings").is_object()) {
    return make_error(ErrorCode::kInvalidCatalog, "validation-serving.json",
                      "needs rows (non-empty array) and offerings (gpu -> offering id)");
  }
  ServingValidationReport report;
  report.note = str_or(j, "note");
  auto calibration = parse_calibration(j, catalog);
  if (!calibration) return calibration.error();
  auto launch = parse_launch(j);
  if (!launch) return launch.error();
  auto externals = parse_external(j, catalog);
  if (!externals) return externals.error();
  if (j.contains("same_architecture") && j.at("same_architecture").is_object()) {
    for (const auto& [model, ids] : j.at("same_architecture").items()) {
      std::vector<std::string> list;
      if (ids.is_array()) {
        for (const auto& id : ids) {
          if (id.is_string()) list.push_back(id.get<std::string>());
        }
      }
      report.same_architecture.emplace_back(model, std::move(list));
    }
  }
  const EngineCatalog& engines = catalog_engines(catalog);
  std::vector<RowSetup> setups;
  std::size_t i = 0;
  for (const auto& e : j.at("rows")) {
    const std::string path = "validation-serving.json.rows[" + std::to_string(i++) + "]";
    if (auto err = read_serving_row(e, path, j.at("offerings"), catalog, engines, calibration.value(),
                                    launch.value(), report, setups)) {
      return *err;
    }
  }
  score_newest(report);
  if (!folds) return report;

  run_serving_folds(catalog, calibration.value(), externals.value(), setups, report);
  return report;
}

namespace {

std::string pct_n(double x, int n) {
  if (n == 0) return "-";
  return fmt("%.1f %%", 100.0 * x) + " (" + std::to_string(n) + ")";
}

std::string mape_line(const Mape& m, std::size_t w) {
  return pad(m.group, w, false) + "  " + pad(pct_n(m.interactivity, m.n_interactivity), 16, true) +
         "  " + pad(pct_n(m.throughput, m.n_throughput), 16, true) + "  " +
         pad(pct_n(m.ttft, m.n_ttft), 16, true) + "\n";
}

std::string signed_pct(double p, double m) {
  if (!(m > 0.0) || !(p > 0.0)) return "";
  return fmt("%+.0f%%", 100.0 * (p / m - 1.0));
}

/** How well each row's throughput matches its own latencies: verbatim throughput over
 *  users x (input + output) / (mean TTFT + output x mean TPOT) / GPUs, as percentiles. */
std::string littles_law_line(const ServingValidationReport& r) {
  std::vector<double> ratio;
  for (const auto& row : r.rows) {
    const double o = 0.9 * row.osl - 1.0;
    const double request_s = row.measured_mean_ttft_s + o * row.measured_mean_tpot_s;
    if (!(row.measured_run_throughput_per_gpu > 0.0) || !(row.measured_mean_tpot_s > 0.0) ||
        !(request_s > 0.0) || row.tp < 1) {
      continue;
    }
    const double implied = row.concurrency * 0.9 * (row.isl + row.osl) / request_s / row.tp;
    ratio.push_back(row.measured_run_throughput_per_gpu / implied);
  }
  if (ratio.empty()) return "no row has both latencies";
  std::sort(ratio.begin(), ratio.end());
  auto at = [&](double q) { return ratio[static_cast<std::size_t>(q * static_cast<double>(ratio.size() - 1))]; };
  return "throughput / (users x tokens / (mean TTFT + output x mean TPOT)) per row: median " +
         fmt("%.3f", at(0.5)) + ", 5-95 % " + fmt("%.3f", at(0.05)) + ".." + fmt("%.3f", at(0.95)) +
         " (" + std::to_string(ratio.size()) + " rows)";
}

}  // namespace

std::string serving_report_to_text(const ServingValidationReport& r) {
  std::string out = "serving table (InferenceX, data/validation-serving.json): predicted / measured\n";
  out += "  * = newest run of its configuration (scored); other rows are older runs (drift)\n";
  out += "  TTFT is the median where the row has one (a warm-up stall moves the mean), else the mean\n";
  out += "  throughput is scored as the run would read with its median TTFT in place of the mean\n";
  out += "  " + littles_law_line(r) + "\n";
  out += pad("", 2, false) + pad("gpu", 7, false) + pad("model", 14, false) + pad("wt", 4, false) +
         pad("engine", 8, false) + pad("version", 22, false) + "tp ep users" +
         pad("tok/s/user", 22, true) + pad("total tok/s/GPU", 24, true) + pad("TTFT s (median|mean)", 24, true) + "\n";
  for (const auto& row : r.rows) {
    std::string line = std::string(row.newest ? "* " : "  ") + pad(row.gpu, 7, false) +
                       pad(row.model, 14, false) + pad(row.weights, 4, false) +
                       pad(row.engine, 8, false) + pad(row.engine_version.substr(0, 21), 22, false) +
                       pad(std::to_string(row.tp), 2, true) + " " + pad(std::to_string(row.ep), 2, true) +
                       " " + pad(fmt("%.0f", row.concurrency), 5, true);
    auto cell = [&](double p, double m, const char* f) {
      if (!(m > 0.0)) return pad("-", 22, true);
      return pad(fmt(f, p) + " / " + fmt(f, m) + " " + pad(signed_pct(p, m), 5, true), 22, true);
    };
    line += cell(row.predicted_interactivity, row.measured_interactivity, "%.1f");
    line += "  " + cell(row.predicted_throughput_per_gpu, row.measured_throughput_per_gpu, "%.0f");
    line += "  " + cell(row.predicted_ttft_s, row.measured_ttft_s, "%.3f");
    out += line + "\n";
  }
  const std::size_t w = 22;
  out += "\nMAPE on the newest runs, per GPU and metric (points)\n";
  out += pad("gpu", w, false) + "  " + pad("interactivity", 16, true) + "  " +
         pad("throughput/GPU", 16, true) + "  " + pad("TTFT", 16, true) + "\n";
  for (const auto& m : r.per_gpu) out += mape_line(m, w);
  out += mape_line(r.all, w);
  out += mape_line(r.drift, w);
  out += "  throughput per GPU as shown (the calculator's figure) against each run's verbatim\n"
         "  figure, newest runs, in sample: " +
         fmt("%.1f %%", 100.0 * r.verbatim_throughput.throughput) + " (" +
         std::to_string(r.verbatim_throughput.n_throughput) + " points)\n";
  if (r.has_folds) {
    out += "\nLeave one group out: the constants of \"calibration\" (data/validation-serving.json)\n"
           "re-set without the group by the same procedure, the group predicted (MAPE, points)\n";
    out += pad("held out / gpu", w, false) + "  " + pad("interactivity", 16, true) + "  " +
           pad("throughput/GPU", 16, true) + "  " + pad("TTFT", 16, true) + "\n";
    for (const FoldReport& f : r.folds) {
      Mape all = f.all;
      all.group = f.kind == "users" ? "users > 32 (all)" : "one " + f.kind + " (all)";
      out += mape_line(all, w);
      for (Mape m : f.per_gpu) {
        m.group = "  " + m.group;
        out += mape_line(m, w);
      }
    }
    out += "\nConstants set against this table: value in data/, re-set on every newest row, range over the folds\n";
    for (const RefitConstant& c : r.constants) {
      out += pad(c.name, 48, false) + fmt("  %-10.4g", c.data_value) + fmt("  %-10.4g", c.all_rows) +
             fmt("  %.4g", c.fold_min) + fmt("..%.4g", c.fold_max) + "\n";
    }
  }
  out += "\nMAPE by group (newest runs)\n";
  for (const auto& m : r.groups) out += mape_line(m, w);
  return out;
}

std::string serving_report_to_json(const ServingValidationReport& r) {
  NlohmannJson j;
  auto mj = [](const Mape& m) {
    return NlohmannJson{{"group", m.group},
                {"interactivity", m.interactivity},
                {"n_interactivity", m.n_interactivity},
                {"throughput_per_gpu", m.throughput},
                {"n_throughput_per_gpu", m.n_throughput},
                {"mean_ttft", m.ttft},
                {"n_mean_ttft", m.n_ttft}};
  };
  NlohmannJson per = NlohmannJson::array();
  for (const auto& m : r.per_gpu) per.push_back(mj(m));
  NlohmannJson groups = NlohmannJson::array();
  for (const auto& m : r.groups) groups.push_back(mj(m));
  NlohmannJson rows = NlohmannJson::array();
  for (const auto& x : r.rows) {
    rows.push_back({{"date", x.date},
                    {"gpu", x.gpu_id},
                    {"model", x.model},
                    {"weights", x.weights},
                    {"engine", x.engine},
                    {"engine_version", x.engine_version},
                    {"tp", x.tp},
                    {"ep", x.ep},
                    {"dp_attention", x.dpa},
                    {"mtp", x.mtp},
                    {"concurrency", x.concurrency},
                    {"newest", x.newest},
                    {"scenario", x.scenario},
                    {"measured_interactivity", x.measured_interactivity},
                    {"predicted_interactivity", x.predicted_interactivity},
                    {"measured_total_tokens_per_s_per_gpu", x.measured_run_throughput_per_gpu},
                    {"scored_total_tokens_per_s_per_gpu", x.measured_throughput_per_gpu},
                    {"predicted_total_tokens_per_s_per_gpu", x.predicted_throughput_per_gpu},
                    {"ttft_statistic", x.ttft_median ? "median" : "mean"},
                    {"measured_ttft_s", x.measured_ttft_s},
                    {"predicted_ttft_s", x.predicted_ttft_s},
                    {"measured_mean_ttft_s", x.measured_mean_ttft_s},
                    {"set_constants", x.set_constants}});
    if (r.has_folds) {
      NlohmannJson held = NlohmannJson::object();
      for (std::size_t k = 0; k < kFoldKinds; ++k) {
        const FoldFigures& f = x.out_of_sample[k];
        if (f[0] > 0.0 || f[1] > 0.0 || f[2] > 0.0) {
          held[kFoldKindNames[k]] = {{"interactivity", f[0]}, {"total_tokens_per_s_per_gpu", f[1]},
                                     {"ttft_s", f[2]}};
        }
      }
      rows.back()["out_of_sample"] = held;
    }
  }
  j["mape_per_gpu"] = per;
  j["mape_all"] = mj(r.all);
  j["mape_drift"] = mj(r.drift);
  j["mape_throughput_verbatim"] = {{"throughput_per_gpu", r.verbatim_throughput.throughput},
                                    {"n_throughput_per_gpu", r.verbatim_throughput.n_throughput}};
  if (r.has_folds) {
    NlohmannJson folds = NlohmannJson::array();
    for (const FoldReport& f : r.folds) {
      NlohmannJson fp = NlohmannJson::array();
      for (const auto& m : f.per_gpu) fp.push_back(mj(m));
      folds.push_back({{"held_out", f.kind}, {"mape_all", mj(f.all)}, {"mape_per_gpu", fp}});
    }
    j["leave_one_group_out"] = folds;
    NlohmannJson consts = NlohmannJson::array();
    for (const RefitConstant& c : r.constants) {
      consts.push_back({{"constant", c.name}, {"data_value", c.data_value}, {"all_rows", c.all_rows},
                        {"fold_min", c.fold_min}, {"fold_max", c.fold_max}});
    }
    j["constants"] = consts;
  }
  j["mape_groups"] = groups;
  j["rows"] = rows;
  j["note"] = r.note;
  return j.dump(2);
}

}  // namespace gpucalc

namespace gpucalc {

namespace {

const FoldKind kFlagFolds[] = {kFoldModel, kFoldUsers, kFoldEngine, kFoldGpu};
const char* const kFlagNames[] = {"model_unmeasured", "users_beyond_measured", "engine_unmeasured",
                                  "gpu_unmeasured"};

double measured_metric(const ServingValidationRow& r, std::size_t m) {
  return m == 0 ? r.measured_interactivity : m == 1 ? r.measured_throughput_per_gpu : r.measured_ttft_s;
}

/** |relative error| of metric m of the row in fold kind `kind`, or -1 when none. */
double fold_error(const ServingValidationRow& r, std::size_t kind, std::size_t m) {
  const double p = r.out_of_sample[kind][m], x = measured_metric(r, m);
  return p > 0.0 && x > 0.0 ? std::fabs(p / x - 1.0) : -1.0;
}

/** The TTFT band's statistic: a row is compared on its median TTFT where it published one
 *  (the model's ttft_median_s), else on its mean (the model's ttft_s); the basis counts the latter. */
void set_ttft_statistic(ErrorBand& b, int mean_only) {
  b.statistic = mean_only == 0 ? "median" : mean_only == b.points ? "mean" : "median+mean";
  if (mean_only > 0 && mean_only < b.points) {
    b.basis += "; median TTFT, but " + std::to_string(mean_only) + " of " + std::to_string(b.points) +
               " points published only the mean (compared on the mean)";
  }
}

}  // namespace

std::vector<ErrorBand> error_band_for(const ServingValidationReport& report,
                                      const std::string& vendor, const std::string& weights,
                                      double users_per_instance) {
  const std::string regime = users_regime(users_per_instance);
  struct Level {
    std::string name;
    bool use_weights, use_regime, use_vendor;
  };
  const Level levels[] = {{vendor + " " + weights + " " + regime + " users", true, true, true},
                          {vendor + " " + weights, true, false, true},
                          {vendor, false, false, true},
                          {"all", false, false, false}};
  std::vector<ErrorBand> out;
  const char* metrics[] = {"interactivity", "throughput_per_gpu", "ttft"};
  for (std::size_t mi = 0; mi < kFoldMetrics; ++mi) {
    for (const Level& l : levels) {
      std::vector<double> errors;
      int mean_only = 0;  // ttft: rows that published only the mean TTFT (measured on it)
      for (const auto& r : report.rows) {
        if (!r.newest) continue;
        if (l.use_vendor && r.vendor != vendor) continue;
        if (l.use_weights && r.weights != weights) continue;
        if (l.use_regime && users_regime(r.concurrency) != regime) continue;
        const double e = fold_error(r, kFoldShape, mi);
        if (e >= 0.0) errors.push_back(e);
        if (e >= 0.0 && !r.ttft_median) ++mean_only;
      }
      if (errors.size() >= 3 || !l.use_vendor) {
        ErrorBand b;
        b.metric = metrics[mi];
        b.points = static_cast<int>(errors.size());
        for (double e : errors) b.mape += e / static_cast<double>(errors.size());
        b.group = l.name;
        b.p50 = quantile(errors, 0.5);
        b.p80 = quantile(errors, 0.8);
        b.basis = "request-shape folds: " + l.name;
        if (mi == 2) set_ttft_statistic(b, mean_only);
        out.push_back(std::move(b));
        break;
      }
    }
  }
  return out;
}

std::vector<BandWidening> band_widening(const ServingValidationReport& report) {
  // Each held-out row's own band: the p80 of its cell (vendor, weights, users regime), as a
  // prediction at its point reads it. Computed once per cell.
  std::map<std::string, std::vector<ErrorBand>> cells;
  const auto own_p80 = [&](const ServingValidationRow& r, std::size_t m) {
    const std::string key = r.vendor + "/" + r.weights + "/" + users_regime(r.concurrency);
    auto it = cells.find(key);
    if (it == cells.end()) it = cells.emplace(key, error_band_for(report, r.vendor, r.weights, r.concurrency)).first;
    return m < it->second.size() ? it->second[m].p80 : 0.0;
  };
  std::vector<BandWidening> out;
  for (std::size_t f = 0; f < 4; ++f) {
    BandWidening w;
    w.flag = kFlagNames[f];
    w.fold = kFoldKindNames[kFlagFolds[f]];
    // How far past its own band each row of the extrapolating fold fell, over every row and
    // over each architecture's (a GPU family the model errs on apart, e.g. one whose engine path
    // a constant set against its own rows carries, which the fold could not set).
    std::vector<WideningSample> samples;
    for (std::size_t m = 0; m < kFoldMetrics; ++m) {
      for (const auto& r : report.rows) {
        const double a = fold_error(r, kFlagFolds[f], m);
        const double band = a < 0.0 ? 0.0 : own_p80(r, m);
        if (band > 0.0) samples.push_back({r.architecture, r.vendor, m, a / band});
      }
    }
    set_widening_factors(samples, w);
    out.push_back(std::move(w));
  }
  return out;
}

MeasuredSet measured_set(const ServingValidationReport& report) {
  MeasuredSet s;
  auto add = [](std::vector<std::string>& v, const std::string& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  for (const auto& r : report.rows) {
    if (!r.newest) continue;
    add(s.models, r.model);
    for (const auto& [model, ids] : report.same_architecture) {
      if (model != r.model) continue;
      for (const auto& id : ids) add(s.models, id);
    }
    add(s.engines, r.engine + "@" + r.vendor);
    add(s.gpus, r.gpu_id);
    s.users_max = std::max(s.users_max, r.concurrency);
    if (r.measured_interactivity > 0.0 && r.measured_throughput_per_gpu > 0.0) {
      // Mean lengths by the table's mapping: requests drawn in [0.8 L, L].
      s.runs.push_back(MeasuredRun{r.model, r.gpu_id, r.engine, r.weights, r.date, r.engine_version,
                                   r.tp, r.ep, r.dpa, r.mtp, 0.9 * r.isl, 0.9 * r.osl, r.concurrency,
                                   r.measured_interactivity, r.measured_run_throughput_per_gpu,
                                   r.measured_ttft_s});
    }
  }
  std::sort(s.models.begin(), s.models.end());
  std::sort(s.engines.begin(), s.engines.end());
  std::sort(s.gpus.begin(), s.gpus.end());
  return s;
}

std::array<FoldFigures, kFoldKinds> band_coverage(const ServingValidationReport& report,
                                                  const ErrorBandTable& table, std::string_view architecture) {
  std::array<FoldFigures, kFoldKinds> share{};
  for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
    unsigned flags = 0;
    for (std::size_t f = 0; f < 4; ++f) {
      if (kFlagFolds[f] == kind) flags = 1u << f;
    }
    for (std::size_t m = 0; m < kFoldMetrics; ++m) {
      int inside = 0, n = 0;
      for (const auto& r : report.rows) {
        if (!architecture.empty() && r.architecture != architecture) continue;
        const double e = fold_error(r, kind, m);
        if (e < 0.0) continue;
        const auto weights = parse_weight_format(r.weights);
        const std::size_t v = r.vendor == "amd" ? 0 : 1;
        const std::size_t f = std::min(kErrorBandFormats - 1, static_cast<std::size_t>(weights ? *weights : WeightFormat::kFp8));
        const std::size_t g = r.concurrency <= 8 ? 0 : r.concurrency <= 32 ? 1 : 2;
        const auto& bands = table_band(table, v, f, g, flags, r.architecture);
        if (m >= bands.size()) continue;
        ++n;
        inside += e <= bands[m].p80 ? 1 : 0;
      }
      share[kind][m] = n > 0 ? static_cast<double>(inside) / n : (architecture.empty() ? 0.0 : -1.0);
    }
  }
  return share;
}

}  // namespace gpucalc

namespace gpucalc {

namespace {

/** The GPU architectures of the report's newest rows, sorted. */
std::vector<std::string> newest_architectures(const ServingValidationReport& report) {
  std::vector<std::string> out;
  for (const auto& r : report.rows) {
    if (r.newest && !r.architecture.empty() && std::find(out.begin(), out.end(), r.architecture) == out.end()) {
      out.push_back(r.architecture);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string band_coverage_to_json(const ServingValidationReport& report, const ErrorBandTable& table) {
  static const char* const kMetricKeys[kFoldMetrics] = {"interactivity", "throughput_per_gpu", "ttft"};
  const auto shares = [&](std::string_view architecture) {
    const auto share = band_coverage(report, table, architecture);
    NlohmannJson j = NlohmannJson::object();
    for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
      if (share[kind][0] < 0.0) continue;  // no held-out row of this architecture
      NlohmannJson k = NlohmannJson::object();
      for (std::size_t m = 0; m < kFoldMetrics; ++m) {
        k[kMetricKeys[m]] = share[kind][m] < 0.0 ? NlohmannJson(nullptr) : NlohmannJson(share[kind][m]);
      }
      j[kFoldKindNames[kind]] = k;
    }
    return j;
  };
  NlohmannJson out{{"note", "share of held-out points inside their own p80 band, per fold kind and metric "
                            "(the band of the point's cell, widened by the fold kind's flag on its GPU "
                            "architecture); per_architecture: over the rows of each architecture"}};
  out["per_fold_kind"] = shares({});
  NlohmannJson per = NlohmannJson::object();
  for (const std::string& a : newest_architectures(report)) per[a] = shares(a);
  out["per_architecture"] = per;
  return out.dump(2);
}

std::string band_coverage_to_text(const ServingValidationReport& report, const ErrorBandTable& table) {
  const auto share = band_coverage(report, table);
  static const char* const kMetricNames[kFoldMetrics] = {"interactivity", "throughput/GPU", "TTFT"};
  std::string out = "\nError bands (data/error-bands.json): held-out points inside their own p80, per fold kind\n";
  out += pad("held out", 22, false);
  for (const char* m : kMetricNames) out += "  " + pad(m, 16, true);
  out += "\n";
  FoldFigures pooled{};
  for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
    out += pad(std::string("one ") + kFoldKindNames[kind], 22, false);
    for (std::size_t m = 0; m < kFoldMetrics; ++m) {
      out += "  " + pad(fmt("%.1f %%", 100.0 * share[kind][m]), 16, true);
      pooled[m] += share[kind][m] / kFoldKinds;
    }
    out += "\n";
  }
  out += pad("mean over fold kinds", 22, false);
  for (double v : pooled) out += "  " + pad(fmt("%.1f %%", 100.0 * v), 16, true);
  out += "\n";
  // The same on each architecture's rows: a flagged prediction takes its architecture's widening
  // where the fold had kArchitectureWideningRows of its rows (data/error-bands.json
  // widening[].architectures), else the factor over all rows.
  out += "per GPU architecture (held-out points inside their own p80)\n";
  for (const std::string& a : newest_architectures(report)) {
    const auto by = band_coverage(report, table, a);
    for (std::size_t kind = 0; kind < kFoldKinds; ++kind) {
      if (by[kind][0] < 0.0) continue;
      out += pad("  " + a + " / " + kFoldKindNames[kind], 22, false);
      for (std::size_t m = 0; m < kFoldMetrics; ++m) {
        out += "  " + pad(by[kind][m] < 0.0 ? std::string("-") : fmt("%.1f %%", 100.0 * by[kind][m]), 16, true);
      }
      out += "\n";
    }
  }
  // The interactivity p80 a buyer reads: the median over the measured cells (nothing extrapolated).
  std::vector<double> p80;
  for (const auto& per_vendor : table.bands) {
    for (const auto& per_format : per_vendor) {
      for (const auto& cell : per_format) {
        for (const ErrorBand& b : cell) {
          if (b.metric == "interactivity" && b.points > 0) p80.push_back(b.p80);
        }
      }
    }
  }
  if (!p80.empty()) {
    std::sort(p80.begin(), p80.end());
    const std::size_t n = p80.size();
    const double median = n % 2 == 1 ? p80[n / 2] : 0.5 * (p80[n / 2 - 1] + p80[n / 2]);
    out += "median interactivity p80 over the bands' cells: " + fmt("%.1f %%", 100.0 * median) + " (" +
           std::to_string(n) + " cells)\n";
  }
  return out;
}

}  // namespace gpucalc
