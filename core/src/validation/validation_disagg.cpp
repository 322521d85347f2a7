// The disaggregated serving table against the disaggregated model (validation_disagg.hpp).
#include "gpucalc/validation_disagg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "catalog/engines.hpp"
#include "model/disagg.hpp"
#include "gpucalc/folds.hpp"
#include "model/scale_out.hpp"
#include "output/json_writer.hpp"

namespace gpucalc {

const char* const kDisaggFoldNames[kDisaggFoldKinds] = {"gpu", "engine", "layout"};

namespace {

using NlohmannJson = nlohmann::json;


std::string str_of(const NlohmannJson& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}
double num_of(const NlohmannJson& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : 0.0;
}

/** One pool of the table (workers x (tp, ep, dp attention) on `gpus` GPUs) as the step
 *  model's layout: attention tensor-parallel over fewer GPUs than the worker has is data
 *  parallel; a worker wider than the scale-up domain spans servers, experts over all of them. */
Parallel pool_layout(int workers, int tp, int ep, int dpa, int gpus, int scale_up) {
  const int per_worker = std::max(1, gpus / std::max(1, workers));
  Parallel p;
  p.dpa = dpa == 1 || tp < per_worker;
  if (per_worker <= scale_up) {
    p.tp = per_worker;
    p.ep = ep > 1 ? std::min(ep, per_worker) : 1;
  } else {
    p.tp = scale_up;
    p.ep = scale_up;
    p.dpa = true;
    p.servers = per_worker / scale_up;
  }
  return p;
}

/** A row's context and layout, built once against a catalog whose constants the folds change
 *  in place (the context reads them through its pointer). */
struct DisaggRowSetup {
  std::shared_ptr<ServingContext> context;
  DisaggLayout layout;
};

void add_row_error(double predicted, double measured, double& sum, int& n) {
  if (measured <= 0.0) return;
  // A row the model cannot fit counts as fully wrong.
  sum += predicted > 0.0 ? std::fabs(predicted / measured - 1.0) : 1.0;
  ++n;
}

Mape mape_over(const std::string& name, const std::vector<const DisaggValidationRow*>& rows, int kind) {
  Mape m;
  m.group = name;
  for (const auto* r : rows) {
    const double pi = kind < 0 ? r->predicted_interactivity : r->out_of_sample[static_cast<std::size_t>(kind)][0];
    const double pt = kind < 0 ? r->predicted_throughput_per_gpu : r->out_of_sample[static_cast<std::size_t>(kind)][1];
    add_row_error(pi, r->measured_interactivity, m.interactivity, m.n_interactivity);
    add_row_error(pt, r->measured_throughput_per_gpu, m.throughput, m.n_throughput);
  }
  if (m.n_interactivity) m.interactivity /= m.n_interactivity;
  if (m.n_throughput) m.throughput /= m.n_throughput;
  return m;
}

FoldFigures predict(const DisaggRowSetup& s, double concurrency) {
  const DisaggPoint pt = serve_disaggregated(*s.context, s.layout, concurrency);
  if (!pt.fits) return FoldFigures{};
  return FoldFigures{pt.tokens_per_s_per_user, pt.total_tokens_per_s_per_gpu, 0.0};
}

/** Coordinate sweeps of set_constants over the constants set against the table. */
constexpr int kSetSweeps = 2;

struct DisaggCalibration {
  std::string constant;  // "performance.<key>" or "engines.<engine>.disagg.<key>"
  std::string engine;    // for an engine's own constant: set on that engine's rows only
  double lo = 0, hi = 0;
  bool interactivity = false, throughput = false;
  bool without_mtp = false;  // "spec_decode": "none": set on the rows without speculative decoding
};

/** The constants the table re-sets live in two places: the model constants and the engine
 *  profiles (their own disaggregated shares); the working catalog's copies of both. */
struct DisaggSlots {
  ModelConstants* constants = nullptr;
  EngineCatalog* engines = nullptr;
};

/** "performance.<key>" or "engines.<engine>.<field>": its slot, or nullptr. */
double* constant_slot(const DisaggSlots& w, const std::string& name) {
  return catalog_constant(*w.constants, *w.engines, name);
}

/** The engine of a row ("sglang+mori" -> "sglang"), as the calibration entries name it. */
std::string row_engine(const DisaggValidationRow& r) { return r.engine.substr(0, r.engine.find('+')); }

bool trains(const DisaggCalibration& cal, const DisaggValidationRow& r, bool train) {
  return train && r.newest && !(cal.without_mtp && r.mtp > 0) && (cal.engine.empty() || row_engine(r) == cal.engine);
}

/** Sets one constant to the grid value with the least mean |relative error| over the training
 *  rows (newest only, without MTP where the entry says so, of its engine for an engine's own
 *  constant) and its metrics; returns it. */
double set_constant(const DisaggSlots& w, const DisaggCalibration& cal,
                    const std::vector<DisaggValidationRow>& rows,
                    const std::vector<DisaggRowSetup>& setups, const std::vector<bool>& train) {
  double* slot = constant_slot(w, cal.constant);
  const auto cost = [&](double v) {
    *slot = v;
    double sum = 0.0;
    int n = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!trains(cal, rows[i], train[i])) continue;
      const FoldFigures p = predict(setups[i], rows[i].concurrency);
      if (cal.interactivity) add_row_error(p[0], rows[i].measured_interactivity, sum, n);
      if (cal.throughput) add_row_error(p[1], rows[i].measured_throughput_per_gpu, sum, n);
    }
    return n > 0 ? sum / n : 0.0;
  };
  *slot = grid_minimum(cal.lo, cal.hi, cost);
  return *slot;
}

/** Sets the constants kSetSweeps times over (coordinate descent) and returns the last sweep's
 *  values. The constants act on each other (a slower prefill pool shrinks the decode batch the
 *  DP-attention cost scales with), so a single sweep would leave the values hanging on those
 *  the catalog started from. First the pooled ones (performance.*) on every training row, with
 *  the engines' own unset (-1): the share one value for all engines takes, which an engine that
 *  states none (or whose rows a fold holds out) runs at. Then each engine's own on its training
 *  rows; an engine with none keeps -1, so it runs at the pooled value, as an engine nobody
 *  measured would. */
std::vector<double> set_constants(const DisaggSlots& w, const std::vector<DisaggCalibration>& cals,
                                  const std::vector<DisaggValidationRow>& rows,
                                  const std::vector<DisaggRowSetup>& setups, const std::vector<bool>& train) {
  std::vector<double> chosen(cals.size(), -1.0);
  for (const DisaggCalibration& cal : cals) {
    if (!cal.engine.empty()) *constant_slot(w, cal.constant) = -1.0;
  }
  for (const bool own : {false, true}) {
    for (int sweep = 0; sweep < kSetSweeps; ++sweep) {
      for (std::size_t c = 0; c < cals.size(); ++c) {
        if (cals[c].engine.empty() == own) continue;
        bool any = false;
        for (std::size_t i = 0; i < rows.size() && !any; ++i) any = trains(cals[c], rows[i], train[i]);
        if (any) chosen[c] = set_constant(w, cals[c], rows, setups, train);
      }
    }
  }
  return chosen;
}

std::string fold_label(const DisaggValidationRow& r, std::size_t kind) {
  if (!r.newest) return "";
  switch (kind) {
    case 0: return r.gpu;
    case 1: return r.engine;
    default: return r.gpu + " " + r.layout;
  }
}

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", x * 100.0);
  return buf;
}

}  // namespace

namespace {

/** The constants the table re-sets (its "calibration" entries), each with its range. */
std::optional<Error> read_disagg_calibration(const NlohmannJson& j, const char* kFile, const DisaggSlots& probe,
                                             std::vector<DisaggCalibration>& cals) {
  if (j.contains("calibration") && j.at("calibration").is_array()) {
    for (const auto& c : j.at("calibration")) {
      DisaggCalibration cal;
      cal.constant = str_of(c, "constant");
      const std::string_view name = cal.constant;
      constexpr std::string_view kEngines = "engines.", kOwn = ".disagg.";
      const std::size_t own = name.find(kOwn);
      if (name.substr(0, kEngines.size()) == kEngines && own != std::string_view::npos) {
        cal.engine = cal.constant.substr(kEngines.size(), own - kEngines.size());
      }
      if ((cal.constant.rfind("performance.", 0) != 0 && cal.engine.empty()) || constant_slot(probe, cal.constant) == nullptr ||
          !c.contains("range") || !c.at("range").is_array() || c.at("range").size() != 2 ||
          !c.at("range")[0].is_number() || !c.at("range")[1].is_number()) {
        return make_error(ErrorCode::kInvalidCatalog, std::string(kFile) + ".calibration",
                          "each entry needs a constant performance.<key> or engines.<engine>.disagg.<key> and a range [lo, hi]");
      }
      if (c.contains("spec_decode")) {
        if (!(c.at("spec_decode") == "none")) {
          return make_error(ErrorCode::kInvalidCatalog, std::string(kFile) + ".calibration.spec_decode",
                            "must be \"none\" (set on the rows without speculative decoding) or absent");
        }
        cal.without_mtp = true;
      }
      cal.lo = c.at("range")[0].get<double>();
      cal.hi = c.at("range")[1].get<double>();
      if (c.contains("metrics") && c.at("metrics").is_array()) {
        for (const auto& m : c.at("metrics")) {
          cal.interactivity = cal.interactivity || m == "interactivity";
          cal.throughput = cal.throughput || m == "throughput";
        }
      }
      cals.push_back(cal);
    }
  }
  return std::nullopt;
}

/** Reads row `e` of the disaggregated table, predicts it and appends it (and its set-up). */
std::optional<Error> read_disagg_row(const NlohmannJson& e, const std::string& path, const NlohmannJson& offerings,
                                     const std::shared_ptr<Catalog>& working, DisaggValidationReport& report,
                                     std::vector<DisaggRowSetup>& setups) {
  if (!e.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  DisaggValidationRow r;
  r.date = str_of(e, "date");
  r.gpu = str_of(e, "gpu");
  r.model = str_of(e, "model");
  r.weights = str_of(e, "weights");
  r.engine = str_of(e, "engine");
  r.mtp = str_of(e, "spec_decode") == "mtp" ? 1 : 0;
  r.isl = num_of(e, "isl");
  r.osl = num_of(e, "osl");
  r.concurrency = num_of(e, "concurrency");
  r.total_gpus = static_cast<int>(num_of(e, "total_gpus"));
  r.measured_interactivity = num_of(e, "interactivity_tokens_per_s_per_user");
  r.measured_throughput_per_gpu = num_of(e, "total_tokens_per_s_per_gpu");
  const Offering* off = working->find_offering(str_of(offerings, r.gpu.c_str()));
  const Gpu* gpu = off != nullptr ? working->find_gpu(off->gpu_id) : nullptr;
  const Model* model = working->find_model(r.model);
  const auto weights = parse_weight_format(r.weights);
  const Network* network = off != nullptr ? working->scale_out_of(*off) : nullptr;
  if (gpu == nullptr || model == nullptr || !weights || network == nullptr || r.isl < 1 || r.osl < 1 ||
      r.concurrency < 1) {
    return make_error(ErrorCode::kInvalidCatalog, path,
                      "needs a GPU whose offering has a scale-out network, a catalog model, weights, isl, osl, concurrency");
  }
  auto engine = select_engine(catalog_engines(*working), row_engine(r), *gpu, *model);
  if (!engine) {
    Error err = engine.error();
    err.field = path + ".engine";
    return err;
  }
  const int scale_up = gpu->scale_up_gpus();
  DisaggLayout layout;
  layout.prefill_workers = static_cast<int>(num_of(e, "prefill_workers"));
  layout.decode_workers = static_cast<int>(num_of(e, "decode_workers"));
  layout.prefill = pool_layout(layout.prefill_workers, static_cast<int>(num_of(e, "prefill_tp")),
                               static_cast<int>(num_of(e, "prefill_ep")),
                               static_cast<int>(num_of(e, "prefill_dp_attention")),
                               static_cast<int>(num_of(e, "prefill_gpus")), scale_up);
  layout.decode = pool_layout(layout.decode_workers, static_cast<int>(num_of(e, "decode_tp")),
                              static_cast<int>(num_of(e, "decode_ep")),
                              static_cast<int>(num_of(e, "decode_dp_attention")),
                              static_cast<int>(num_of(e, "decode_gpus")), scale_up);
  if (layout.prefill_workers < 1 || layout.decode_workers < 1 || layout.gpus() != r.total_gpus) {
    return make_error(ErrorCode::kInvalidCatalog, path, "pools do not add up to total_gpus");
  }
  r.layout = disagg_layout_code(layout);
  Scenario s;
  s.model = r.model;
  s.weights = *weights;
  s.kv = engine.value()->kv_cache;
  s.input_tokens = std::llround(0.9 * r.isl);
  s.output_tokens = std::llround(0.9 * r.osl);
  s.context_tokens = s.input_tokens + s.output_tokens;
  s.mtp = r.mtp;
  s.compare = {off->id};
  auto c = std::make_shared<ServingContext>(make_serving_context(*working, s, *model, *gpu, *engine.value(), ""));
  c->input_tokens = 0.9 * r.isl;  // the mean request, unrounded
  c->output_tokens = 0.9 * r.osl;
  c->scale_out = make_scale_out_link(*network, off->gpu_count,
                                     std::max(layout.prefill.servers, layout.decode.servers));
  DisaggRowSetup setup{c, layout};
  const FoldFigures p = predict(setup, r.concurrency);
  r.predicted_interactivity = p[0];
  r.predicted_throughput_per_gpu = p[1];
  r.out_of_sample.assign(kDisaggFoldKinds, FoldFigures{});
  report.rows.push_back(std::move(r));
  setups.push_back(std::move(setup));
  return std::nullopt;
}

/** Marks the newest row of each configuration and concurrency and scores them per GPU and all. */
void score_disagg_newest(DisaggValidationReport& report) {
  // Newest row of each configuration and concurrency.
  std::map<std::string, std::size_t> newest;
  for (std::size_t k = 0; k < report.rows.size(); ++k) {
    const auto& r = report.rows[k];
    const std::string key = r.gpu + "|" + r.engine + "|" + r.weights + "|" + std::to_string(r.mtp) + "|" +
                            r.layout + "|" + std::to_string(r.concurrency);
    auto it = newest.find(key);
    if (it == newest.end() || r.date > report.rows[it->second].date) newest[key] = k;
  }
  for (const auto& [key, k] : newest) report.rows[k].newest = true;
  std::vector<const DisaggValidationRow*> scored;
  std::map<std::string, std::vector<const DisaggValidationRow*>> by_gpu;
  for (const auto& r : report.rows) {
    if (!r.newest) continue;
    scored.push_back(&r);
    by_gpu[r.gpu].push_back(&r);
  }
  for (const auto& [gpu, rows] : by_gpu) report.per_gpu.push_back(mape_over(gpu, rows, -1));
  report.all = mape_over("all", scored, -1);
}

/** The out-of-sample figures: the constants re-set on every newest row, then without each group
 *  of each fold kind, which is then predicted; the catalog's constants are restored after each. */
void run_disagg_folds(const DisaggSlots& w, const std::vector<DisaggCalibration>& cals,
                      const std::vector<DisaggRowSetup>& setups, DisaggValidationReport& report) {
  const ModelConstants original = *w.constants;
  const EngineCatalog original_engines = *w.engines;
  const auto restore = [&] {
    *w.constants = original;
    // Element-wise: the rows' contexts point at these profiles.
    for (std::size_t e = 0; e < original_engines.engines.size(); ++e) w.engines->engines[e] = original_engines.engines[e];
  };
  {
    const std::vector<double> all = set_constants(w, cals, report.rows, setups,
                                                  std::vector<bool>(report.rows.size(), true));
    for (std::size_t c = 0; c < all.size(); ++c) {
      report.constants[c].all_rows = report.constants[c].fold_min = report.constants[c].fold_max = all[c];
    }
    restore();
  }
  for (std::size_t kind = 0; kind < kDisaggFoldKinds; ++kind) {
    std::vector<std::string> labels;
    for (const auto& r : report.rows) labels.push_back(fold_label(r, kind));
    const FitAndPredict fit_and_predict = [&](const std::vector<bool>& train) {
      const std::vector<double> values = set_constants(w, cals, report.rows, setups, train);
      for (std::size_t c = 0; c < values.size(); ++c) {
        if (values[c] < 0.0) continue;  // the fold held out every row of its engine: pooled
        report.constants[c].fold_min = std::min(report.constants[c].fold_min, values[c]);
        report.constants[c].fold_max = std::max(report.constants[c].fold_max, values[c]);
      }
      std::vector<FoldFigures> out;
      for (std::size_t r = 0; r < report.rows.size(); ++r) {
        out.push_back(train[r] ? FoldFigures{} : predict(setups[r], report.rows[r].concurrency));
      }
      restore();
      return out;
    };
    const std::vector<FoldFigures> predicted = leave_one_group_out(labels, fit_and_predict);
    FoldReport fr;
    fr.kind = kDisaggFoldNames[kind];
    std::vector<const DisaggValidationRow*> held;
    std::map<std::string, std::vector<const DisaggValidationRow*>> held_by_gpu;
    for (std::size_t r = 0; r < report.rows.size(); ++r) {
      report.rows[r].out_of_sample[kind] = predicted[r];
      if (labels[r].empty()) continue;
      held.push_back(&report.rows[r]);
      held_by_gpu[report.rows[r].gpu].push_back(&report.rows[r]);
    }
    for (const auto& [gpu, rows] : held_by_gpu) fr.per_gpu.push_back(mape_over(gpu, rows, static_cast<int>(kind)));
    fr.all = mape_over("all", held, static_cast<int>(kind));
    report.folds.push_back(std::move(fr));
  }
}

}  // namespace

Result<DisaggValidationReport> run_disagg_validation(const Catalog& catalog, std::string_view text,
                                                     bool folds) {
  const NlohmannJson j = NlohmannJson::parse(text.begin(), text.end(), nullptr, false);
  const char* const kFile = "validation-disagg.json";
  if (j.is_discarded() || !j.is_object() || !j.contains("rows") || !j.at("rows").is_array() ||
      !j.contains("offerings") || !j.at("offerings").is_object()) {
    return make_error(ErrorCode::kInvalidCatalog, kFile, "needs rows (an array) and offerings (gpu -> offering id)");
  }
  if (!catalog.constants) return make_error(ErrorCode::kInvalidCatalog, "performance", "the catalog holds no model constants");
  DisaggValidationReport report;
  report.note = str_of(j, "note");
  std::vector<DisaggCalibration> cals;
  // The catalog the folds change, with its own copies of the constants and engine profiles;
  // the rows' contexts point at them.
  auto working = std::make_shared<Catalog>(catalog);
  auto engines = std::make_shared<EngineCatalog>(catalog_engines(catalog));
  working->engines = engines;
  const DisaggSlots slots{&*working->constants, engines.get()};
  if (auto err = read_disagg_calibration(j, kFile, slots, cals)) return *err;
  for (const DisaggCalibration& cal : cals) {
    report.constants.push_back(RefitConstant{cal.constant, *constant_slot(slots, cal.constant), 0, 0, 0});
  }
  std::vector<DisaggRowSetup> setups;
  std::size_t i = 0;
  for (const auto& e : j.at("rows")) {
    const std::string path = std::string(kFile) + ".rows[" + std::to_string(i++) + "]";
    if (auto err = read_disagg_row(e, path, j.at("offerings"), working, report, setups)) return *err;
  }
  score_disagg_newest(report);
  if (!folds) return report;

  run_disagg_folds(slots, cals, setups, report);
  return report;
}

namespace {

/** Signed error of `predicted` against `measured` in percent ("-" where the model does not fit). */
std::string disagg_signed_pct(double predicted, double measured) {
  if (!(predicted > 0.0) || !(measured > 0.0)) return "     -";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+6.0f", (predicted / measured - 1.0) * 100.0);
  return buf;
}

/** Every scored (newest) row: measured and predicted throughput per GPU and interactivity, the
 *  signed error in sample and in each fold that held the row out, so residuals can be read. */
void disagg_rows_to_text(const DisaggValidationReport& r, std::string& out) {
  out += "  rows (newest; error % = predicted / measured - 1, in sample then held out by gpu, engine, layout):\n";
  out += "    gpu    engine         weights mtp layout                          conc   tput meas  pred  err  gpu  eng  lay |  inter meas  pred  err  gpu  eng  lay\n";
  for (const DisaggValidationRow& row : r.rows) {
    if (!row.newest) continue;
    char head[160];
    std::snprintf(head, sizeof head, "    %-6s %-14s %-7s %3d %-30s %6.0f ", row.gpu.c_str(), row.engine.c_str(),
                  row.weights.c_str(), row.mtp, row.layout.c_str(), row.concurrency);
    out += head;
    for (int metric = 1; metric >= 0; --metric) {
      const double measured = metric == 1 ? row.measured_throughput_per_gpu : row.measured_interactivity;
      const double predicted = metric == 1 ? row.predicted_throughput_per_gpu : row.predicted_interactivity;
      char figs[64];
      std::snprintf(figs, sizeof figs, "%10.1f %6.1f", measured, predicted);
      out += figs;
      out += disagg_signed_pct(predicted, measured);
      for (const FoldFigures& f : row.out_of_sample) out += disagg_signed_pct(f[static_cast<std::size_t>(metric)], measured);
      if (metric == 1) out += " |";
    }
    out += "\n";
  }
}

}  // namespace

std::string disagg_report_to_text(const DisaggValidationReport& r) {
  std::string out = "Disaggregated prefill/decode (validation-disagg.json, newest rows), MAPE:\n";
  auto line = [&out](const std::string& label, const Mape& m) {
    out += "  " + label + ": throughput per GPU " + pct(m.throughput) + " (" + std::to_string(m.n_throughput) +
           " points), interactivity " + pct(m.interactivity) + " (" + std::to_string(m.n_interactivity) + ")\n";
  };
  for (const Mape& m : r.per_gpu) line("in sample, " + m.group, m);
  line("in sample, all", r.all);
  for (const FoldReport& f : r.folds) {
    for (const Mape& m : f.per_gpu) line("leave one " + f.kind + " out, " + m.group, m);
    line("leave one " + f.kind + " out, all", f.all);
  }
  if (r.constants.empty()) {
    out += "  (no constant is set against this table: each held-out prediction is the in-sample one)\n";
  }
  disagg_rows_to_text(r, out);
  for (const RefitConstant& c : r.constants) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %s: data %.3g, all rows %.3g, folds %.3g to %.3g\n", c.name.c_str(),
                  c.data_value, c.all_rows, c.fold_min, c.fold_max);
    out += buf;
  }
  return out;
}

std::string disagg_report_to_json(const DisaggValidationReport& r) {
  detail::JsonWriter w;
  auto mape = [&w](const Mape& m) {
    w.begin_object();
    w.field("group", m.group);
    w.field("throughput_per_gpu", m.throughput);
    w.field("throughput_points", m.n_throughput);
    w.field("interactivity", m.interactivity);
    w.field("interactivity_points", m.n_interactivity);
    w.end_object();
  };
  w.begin_object();
  w.key("in_sample").begin_object();
  w.key("per_gpu").begin_array();
  for (const Mape& m : r.per_gpu) mape(m);
  w.end_array();
  w.key("all");
  mape(r.all);
  w.end_object();
  w.key("folds").begin_array();
  for (const FoldReport& f : r.folds) {
    w.begin_object();
    w.field("kind", f.kind);
    w.key("per_gpu").begin_array();
    for (const Mape& m : f.per_gpu) mape(m);
    w.end_array();
    w.key("all");
    mape(f.all);
    w.end_object();
  }
  w.end_array();
  w.key("rows").begin_array();
  for (const DisaggValidationRow& row : r.rows) {
    w.begin_object();
    w.field("date", row.date);
    w.field("gpu", row.gpu);
    w.field("engine", row.engine);
    w.field("weights", row.weights);
    w.field("mtp", row.mtp);
    w.field("layout", row.layout);
    w.field("concurrency", row.concurrency);
    w.field("newest", row.newest);
    w.field("measured_throughput_per_gpu", row.measured_throughput_per_gpu);
    w.field("predicted_throughput_per_gpu", row.predicted_throughput_per_gpu);
    w.field("measured_interactivity", row.measured_interactivity);
    w.field("predicted_interactivity", row.predicted_interactivity);
    w.end_object();
  }
  w.end_array();
  w.key("constants").begin_array();
  for (const RefitConstant& c : r.constants) {
    w.begin_object();
    w.field("name", c.name);
    w.field("data_value", c.data_value);
    w.field("all_rows", c.all_rows);
    w.field("fold_min", c.fold_min);
    w.field("fold_max", c.fold_max);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w.str());
}

}  // namespace gpucalc
