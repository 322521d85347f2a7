// Calibration of the serving model to measured runs (serving_calibration.hpp).
#include "gpucalc/serving_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "catalog/bounds.hpp"
#include "model/serving.hpp"
#include "model/throughput.hpp"
#include "catalog/json_strict.hpp"
#include "output/json_writer.hpp"

namespace gpucalc {

const std::array<const char*, kCorrectionCount> kCorrectionNames = {
    "weight_stream_scale", "matmul_scale", "attention_scale", "step_overhead_s",
    "request_overhead_s"};

namespace {

using Json = detail::JsonValue;
using detail::JsonWriter;

using detail::Bound;
// Search box of the fit and hard limits of any document, per correction (bounds.hpp): scales a
// factor of 4 either way of the model's rate (and never above the datasheet peak, checked per
// GPU); overheads at most 50 ms per step, 5 s per request.
constexpr std::array<const Bound*, kCorrectionCount> kCorrectionBounds = {
    &detail::kCorrectionScale, &detail::kCorrectionScale, &detail::kCorrectionScale,
    &detail::kStepOverheadCorrectionS, &detail::kRequestOverheadCorrectionS};
constexpr double kMinScale = detail::kCorrectionScale.min, kMaxScale = detail::kCorrectionScale.max;
constexpr double kMaxStepOverheadS = detail::kStepOverheadCorrectionS.max;
constexpr double kMaxRequestOverheadS = detail::kRequestOverheadCorrectionS.max;
// Units the fit moves in (log scale; 10 ms per step; 100 ms per request) and the weight of the
// pull toward no correction, so that a parameter the points do not inform stays at its default.
constexpr std::array<double, kCorrectionCount> kFitUnit = {1.0, 1.0, 1.0, 0.01, 0.1};
constexpr double kPriorWeight = 0.05;
constexpr double kNotFitResidual = 5.0;  // log error charged when a point does not fit
// Log errors beyond this count linearly, not squared (pseudo-Huber): a few runs the model
// misses by 2x (TTFT under queueing) must not buy their fit with every other figure's.
constexpr double kHuberLogError = 0.15;

bool is_scale(std::size_t i) { return i < 3; }

/** Whether the scenario string names `key` (so a value is the user's, not a default). */
bool names_key(std::string_view scenario, std::string_view key) {
  std::size_t start = 0;
  while (start <= scenario.size()) {
    std::size_t end = scenario.find('&', start);
    if (end == std::string_view::npos) end = scenario.size();
    const std::string_view pair = scenario.substr(start, end - start);
    if (pair.size() > key.size() && pair.compare(0, key.size(), key) == 0 && pair[key.size()] == '=') {
      return true;
    }
    start = end + 1;
  }
  return false;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/** An InferenceX runner label ("h200", "h200-dgxc") names the catalog GPU "h200-sxm"? */
bool same_gpu(const std::string& label, const std::string& gpu_id) {
  const std::string l = lower(label);
  const auto base = [](const std::string& s) { return s.substr(0, s.find('-')); };
  return l == gpu_id || base(l) == base(gpu_id);
}

/** One point ready to run: its context without corrections, its layout and its load. */
struct PointModel {
  ServingContext base;
  Parallel par;
  double concurrency = 1.0;
};

PointFigures predict(const PointModel& pm, const ServingCorrections& k) {
  ServingContext c = pm.base;
  apply_serving_corrections(k, c);
  const ServingPoint pt = serve(c, pm.par, 1, pm.concurrency);
  if (!pt.fits) return {};
  return {pt.ttft_s, pt.tpot_s, pt.total_tokens_per_s_per_gpu};
}

using Vec = std::array<double, kCorrectionCount>;

ServingCorrections corrections_at(const ServingCorrections& bounds, const Vec& u) {
  ServingCorrections k = bounds;
  for (std::size_t i = 0; i < kCorrectionCount; ++i) {
    k.value[i] = is_scale(i) ? std::exp(u[i]) : u[i] * kFitUnit[i];
  }
  return k;
}

/** The log error as a least-squares residual whose square is its pseudo-Huber loss. */
double log_error(double predicted, double measured) {
  if (!(measured > 0.0)) return 0.0;
  const double r = predicted > 0.0 ? std::log(predicted / measured) : kNotFitResidual;
  const double d = kHuberLogError;
  const double loss = d * d * (std::sqrt(1.0 + (r / d) * (r / d)) - 1.0);
  return std::copysign(std::sqrt(2.0 * loss), r);
}

/** Log errors of the points in `use` at u, then the pull of each parameter toward 0. */
void residuals(const std::vector<PointModel>& models, const std::vector<CalibrationPoint>& points,
               const std::vector<std::size_t>& use, const ServingCorrections& bounds, const Vec& u,
               std::vector<double>& r) {
  r.clear();
  const ServingCorrections k = corrections_at(bounds, u);
  for (std::size_t i : use) {
    const PointFigures p = predict(models[i], k);
    const PointFigures& m = points[i].measured;
    if (m.ttft_s > 0.0) r.push_back(log_error(p.ttft_s, m.ttft_s));
    if (m.tpot_s > 0.0) r.push_back(log_error(p.tpot_s, m.tpot_s));
    if (m.total_tokens_per_s_per_gpu > 0.0) {
      r.push_back(log_error(p.total_tokens_per_s_per_gpu, m.total_tokens_per_s_per_gpu));
    }
  }
  for (double x : u) r.push_back(kPriorWeight * x);
}

double sum_squares(const std::vector<double>& r) {
  double s = 0.0;
  for (double x : r) s += x * x;
  return s;
}

/** Solves m x = b (5 x 5, partial pivoting); a zero pivot leaves its unknown at 0. */
Vec solve(std::array<Vec, kCorrectionCount> m, Vec b) {
  constexpr std::size_t n = kCorrectionCount;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t piv = col;
    for (std::size_t row = col + 1; row < n; ++row) {
      if (std::fabs(m[row][col]) > std::fabs(m[piv][col])) piv = row;
    }
    std::swap(m[col], m[piv]);
    std::swap(b[col], b[piv]);
    if (!(std::fabs(m[col][col]) > 1e-300)) continue;
    for (std::size_t row = col + 1; row < n; ++row) {
      const double f = m[row][col] / m[col][col];
      for (std::size_t k = col; k < n; ++k) m[row][k] -= f * m[col][k];
      b[row] -= f * b[col];
    }
  }
  Vec x{};
  for (std::size_t i = n; i-- > 0;) {
    if (!(std::fabs(m[i][i]) > 1e-300)) continue;
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= m[i][k] * x[k];
    x[i] = s / m[i][i];
  }
  return x;
}

/**
 * Least squares on the log error by Levenberg-Marquardt, each step projected into the bounds
 * (lo, hi in fit units), starting at `u`; the Jacobian by forward differences.
 */
Vec fit(const std::vector<PointModel>& models, const std::vector<CalibrationPoint>& points,
        const std::vector<std::size_t>& use, const ServingCorrections& bounds, const Vec& lo,
        const Vec& hi, Vec u, int iterations) {
  constexpr std::size_t n = kCorrectionCount;
  const auto clamp = [&](Vec v) {
    for (std::size_t i = 0; i < n; ++i) v[i] = std::min(hi[i], std::max(lo[i], v[i]));
    return v;
  };
  u = clamp(u);
  std::vector<double> r, rh;
  std::vector<Vec> jac;
  double mu = 1e-3;
  for (int it = 0; it < iterations; ++it) {
    residuals(models, points, use, bounds, u, r);
    const double cost = sum_squares(r);
    jac.assign(r.size(), Vec{});
    for (std::size_t i = 0; i < n; ++i) {
      constexpr double h = 1e-4;
      Vec uh = u;
      const double step = u[i] + h <= hi[i] ? h : -h;
      uh[i] += step;
      residuals(models, points, use, bounds, uh, rh);
      for (std::size_t k = 0; k < r.size(); ++k) jac[k][i] = (rh[k] - r[k]) / step;
    }
    std::array<Vec, n> a{};
    Vec g{};
    for (std::size_t k = 0; k < r.size(); ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        g[i] -= jac[k][i] * r[k];
        for (std::size_t j = 0; j < n; ++j) a[i][j] += jac[k][i] * jac[k][j];
      }
    }
    bool improved = false;
    double gain = 0.0;
    for (int attempt = 0; attempt < 10 && !improved; ++attempt) {
      std::array<Vec, n> m = a;
      for (std::size_t i = 0; i < n; ++i) m[i][i] += mu * (a[i][i] + 1e-9);
      const Vec d = solve(m, g);
      Vec next{};
      for (std::size_t i = 0; i < n; ++i) next[i] = u[i] + d[i];
      next = clamp(next);
      residuals(models, points, use, bounds, next, rh);
      const double c = sum_squares(rh);
      if (c < cost) {
        gain = cost - c;
        u = next;
        mu = std::max(mu / 3.0, 1e-9);
        improved = true;
      } else {
        mu *= 4.0;
      }
    }
    if (!improved || gain < 1e-9 * (1.0 + cost)) break;
  }
  return u;
}

void add_error(double predicted, double measured, double& sum, int& n) {
  if (!(measured > 0.0)) return;
  sum += predicted > 0.0 ? std::fabs(predicted / measured - 1.0) : 1.0;
  ++n;
}

CalibrationErrors errors_of(const std::vector<CalibrationPoint>& points,
                            PointFigures CalibrationPoint::*which) {
  CalibrationErrors e;
  for (const CalibrationPoint& p : points) {
    const PointFigures& f = p.*which;
    const PointFigures& m = p.measured;
    add_error(f.tpot_s > 0.0 ? 1.0 / f.tpot_s : 0.0, m.tpot_s > 0.0 ? 1.0 / m.tpot_s : 0.0,
              e.interactivity, e.n_interactivity);
    add_error(f.total_tokens_per_s_per_gpu, m.total_tokens_per_s_per_gpu, e.throughput_per_gpu,
              e.n_throughput_per_gpu);
    add_error(f.ttft_s, m.ttft_s, e.ttft, e.n_ttft);
  }
  if (e.n_interactivity > 0) e.interactivity /= e.n_interactivity;
  if (e.n_throughput_per_gpu > 0) e.throughput_per_gpu /= e.n_throughput_per_gpu;
  if (e.n_ttft > 0) e.ttft /= e.n_ttft;
  return e;
}

std::shared_ptr<const std::vector<ErrorBand>> band_of(const CalibrationErrors& e,
                                                      const std::string& group) {
  // The document keeps the mean out-of-sample error per metric, not each point's: its
  // percentiles are those of a half-normal |error| with that mean (p50 = 0.845 x mean,
  // p80 = 1.606 x mean), and the band's basis says so.
  constexpr double kP50PerMean = 0.6745 * 1.2533141;  // half-normal: median / mean
  constexpr double kP80PerMean = 1.2816 * 1.2533141;  // half-normal: 80th percentile / mean
  auto band = std::make_shared<std::vector<ErrorBand>>();
  const auto add = [&](const char* metric, double mape, int points) {
    if (points <= 0) return;
    ErrorBand b;
    b.metric = metric;
    b.mape = mape;
    b.points = points;
    b.group = group;
    b.p50 = kP50PerMean * mape;
    b.p80 = kP80PerMean * mape;
    b.basis = "the calibration's cross-validated mean error; percentiles assume a half-normal error";
    // The calibration compares the model's mean TTFT with each run's mean (its median where a
    // run published no mean): its TTFT band is the mean's.
    if (std::string(metric) == "ttft") b.statistic = "mean";
    band->push_back(std::move(b));
  };
  add("interactivity", e.interactivity, e.n_interactivity);
  add("throughput_per_gpu", e.throughput_per_gpu, e.n_throughput_per_gpu);
  add("ttft", e.ttft, e.n_ttft);
  return band;
}

/** The engine the calibration is for: the scenario's, else the one engine the runs name. */
Result<std::string> group_engine(const Scenario& s, std::string_view scenario,
                                 const std::vector<BenchRun>& runs, const Gpu& gpu) {
  if (names_key(scenario, "engine") && s.engine != "auto") {
    return s.engine;
  }
  std::set<std::string> seen;
  for (const BenchRun& r : runs) {
    if (!r.engine.empty() && (r.gpu.empty() || same_gpu(r.gpu, gpu.id))) seen.insert(lower(r.engine));
  }
  if (seen.size() == 1) return *seen.begin();
  std::string list;
  for (const std::string& e : seen) list += (list.empty() ? "" : ", ") + e;
  return make_error(ErrorCode::kBadValue, "engine",
                    seen.empty() ? "the files do not say which engine ran: name engine= in the scenario"
                                 : "the files hold runs of " + list + ": name one with engine= in the scenario");
}

Error missing(const BenchRun& r, const char* what, const char* key) {
  return make_error(ErrorCode::kBadValue, r.source + ": " + what,
                    std::string("is not in the file: name it with ") + key + "= in the scenario");
}

/** A run described to the model: the file's figures, the scenario's keys for the rest. */
Result<CalibrationPoint> point_of(const Catalog& catalog, const Scenario& s,
                                  std::string_view scenario, const BenchRun& r) {
  CalibrationPoint p;
  p.source = r.source;
  p.format = r.format;
  p.date = r.date;
  p.engine_version = r.engine_version;
  if (!r.model.empty() && catalog.find_model(r.model) != nullptr) {
    p.model = r.model;
  } else if (names_key(scenario, "model")) {
    p.model = s.model;
  } else {
    return make_error(ErrorCode::kUnknownId, r.source + ": model",
                      r.model.empty() ? "is not in the file: name it with model= in the scenario"
                                      : "\"" + r.model + "\" is not a catalog model id: name it with model= in the scenario");
  }
  if (!r.weights.empty()) {
    const auto w = parse_weight_format(lower(r.weights));
    if (!w) return make_error(ErrorCode::kBadValue, r.source + ": weights", "\"" + r.weights + "\" is not bf16, fp8, fp6, fp4 or int4");
    p.weights = weight_format_name(*w);
  } else if (names_key(scenario, "weights")) {
    p.weights = weight_format_name(s.weights);
  } else {
    return missing(r, "weights", "weights");
  }
  if (r.tp) p.tp = *r.tp;
  else if (names_key(scenario, "tp") && s.tp > 0) p.tp = s.tp;
  else return missing(r, "tp", "tp");
  p.ep = r.ep ? *r.ep : std::max(1, s.ep);
  p.dp_attention = r.dp_attention ? *r.dp_attention : (s.dpa ? 1 : 0);
  p.mtp = !r.spec_decode.empty() ? (lower(r.spec_decode) == "mtp" ? 1 : 0) : s.mtp;
  if (r.input_tokens) p.input_tokens = *r.input_tokens;
  else if (names_key(scenario, "input")) p.input_tokens = static_cast<double>(s.input_tokens);
  else return missing(r, "input_tokens", "input");
  if (r.output_tokens) p.output_tokens = *r.output_tokens;
  else if (names_key(scenario, "output")) p.output_tokens = static_cast<double>(s.output_tokens);
  else return missing(r, "output_tokens", "output");
  if (r.concurrency) {
    p.concurrency = *r.concurrency;
  } else if (names_key(scenario, "users")) {
    p.concurrency = static_cast<double>(s.users);
  } else {
    return make_error(ErrorCode::kBadValue, r.source + ": max_concurrency",
                      r.request_rate_per_s
                          ? "is not in the file (it ran at a request rate; the model serves a closed "
                            "loop): name the requests in flight with users= in the scenario"
                          : "is not in the file: name the requests in flight with users= in the scenario");
  }
  // The point's own bounds (bounds.hpp), the ones its document is read with.
  const std::pair<const char*, std::pair<double, const Bound*>> checks[] = {
      {"tp", {p.tp, &detail::kInstanceTp}},
      {"ep", {p.ep, &detail::kParallelDegree}},
      {"input_tokens", {p.input_tokens, &detail::kPointTokens}},
      {"output_tokens", {p.output_tokens, &detail::kPointTokens}},
      {"concurrency", {p.concurrency, &detail::kPointConcurrency}}};
  for (const auto& check : checks) {
    if (auto e = detail::out_of_bound(r.source + ": " + check.first, check.second.first, *check.second.second)) return *e;
  }
  p.measured.ttft_s = r.mean_ttft_s ? *r.mean_ttft_s : r.median_ttft_s.value_or(0.0);
  p.measured.tpot_s = r.mean_tpot_s ? *r.mean_tpot_s : r.median_tpot_s.value_or(0.0);
  // A run is taken as one instance of tp GPUs (the files carry no GPU count).
  p.measured.total_tokens_per_s_per_gpu =
      r.total_tokens_per_s_per_gpu ? *r.total_tokens_per_s_per_gpu
                                   : r.total_tokens_per_s.value_or(0.0) / p.tp;
  if (!(p.measured.ttft_s > 0.0) && !(p.measured.tpot_s > 0.0) &&
      !(p.measured.total_tokens_per_s_per_gpu > 0.0)) {
    return make_error(ErrorCode::kBadValue, r.source, "has no positive TTFT, TPOT or throughput");
  }
  return p;
}

/** The context of a point without corrections, on a catalog holding none for its group. */
Result<PointModel> model_of(const Catalog& catalog, const Scenario& s, const CalibrationPoint& p,
                            const Gpu& gpu, const std::string& engine_name,
                            const std::string& offering_id) {
  const Model* model = catalog.find_model(p.model);
  if (model == nullptr) return make_error(ErrorCode::kUnknownId, p.source + ": model", "is not in the catalog");
  auto engine = select_engine(catalog_engines(catalog), engine_name, gpu, *model);
  if (!engine) {
    Error e = engine.error();
    e.field = p.source + ": " + e.field;
    return e;
  }
  Scenario ps = s;
  ps.model = p.model;
  ps.weights = *parse_weight_format(p.weights);
  ps.weights_from_model = false;
  ps.kv = engine.value()->kv_cache;
  ps.input_tokens = std::max(1LL, std::llround(p.input_tokens));
  ps.output_tokens = std::max(1LL, std::llround(p.output_tokens));
  ps.context_tokens = ps.input_tokens + ps.output_tokens;
  ps.tp = p.tp;
  ps.ep = p.ep;
  ps.dpa = p.dp_attention == 1;
  ps.mtp = p.mtp;
  ps.users = std::llround(p.concurrency);
  ps.compare = {offering_id};
  PointModel pm;
  pm.base = make_serving_context(catalog, ps, *model, gpu, *engine.value(), p.engine_version);
  pm.base.input_tokens = p.input_tokens;  // the mean request, unrounded
  pm.base.output_tokens = p.output_tokens;
  pm.par = Parallel{p.tp, p.ep, p.dp_attention == 1};
  pm.concurrency = p.concurrency;
  return pm;
}

/** Bounds of the fit in fit units: the search box, tightened by each point's datasheet peaks
 *  (no rate above it) and overheads (none below zero). */
void bounds_of(const std::vector<PointModel>& models, ServingCorrections& k, Vec& lo, Vec& hi) {
  double stream = kMaxScale, matmul = kMaxScale, attention = kMaxScale;
  double step_floor = kMaxStepOverheadS, request_floor = kMaxRequestOverheadS;
  for (const PointModel& pm : models) {
    const ServingContext& c = pm.base;
    const double hbm = c.gpu->memory_bandwidth_bytes_per_s;
    const double fastest_stream = std::max(c.dense_stream_bytes_per_s, c.moe_stream_bytes_per_s);
    if (hbm > 0.0 && fastest_stream > 0.0) stream = std::min(stream, hbm / fastest_stream);
    if (hbm > 0.0 && c.attention_bytes_per_s > 0.0) attention = std::min(attention, hbm / c.attention_bytes_per_s);
    const auto& peak = c.gpu->peak_flops_per_s[index_of(c.rates.math)];
    if (peak && c.rates.matmul_flops_per_s > 0.0) matmul = std::min(matmul, *peak / c.rates.matmul_flops_per_s);
    step_floor = std::min(step_floor, c.engine->step_overhead_s +
                                          std::max(1, c.shape.layers) * c.extra_layer_latency_s);
    request_floor = std::min(request_floor, c.request_overhead_s);
  }
  const double scale_hi[3] = {stream, matmul, attention};
  for (std::size_t i = 0; i < 3; ++i) {
    k.min[i] = kMinScale;
    k.max[i] = std::max(1.0, scale_hi[i]);
    lo[i] = std::log(k.min[i]);
    hi[i] = std::log(k.max[i]);
  }
  k.min[3] = -std::max(0.0, step_floor);
  k.max[3] = kMaxStepOverheadS;
  k.min[4] = -std::max(0.0, request_floor);
  k.max[4] = kMaxRequestOverheadS;
  for (std::size_t i = 3; i < kCorrectionCount; ++i) {
    lo[i] = k.min[i] / kFitUnit[i];
    hi[i] = k.max[i] / kFitUnit[i];
  }
}

/** `catalog` without a serving calibration of (gpu, engine): the model as it is. */
Catalog without_group(const Catalog& catalog, const std::string& gpu_id, const std::string& engine) {
  Catalog base = catalog;
  auto& cals = base.serving_calibrations;
  cals.erase(std::remove_if(cals.begin(), cals.end(),
                            [&](const std::shared_ptr<const ServingCalibration>& c) {
                              return c->gpu_id == gpu_id && c->engine == engine;
                            }),
             cals.end());
  return base;
}

/** A run of this GPU and engine (or one that names neither). */
bool in_group(const BenchRun& r, const Gpu& gpu, const std::string& engine) {
  return (r.gpu.empty() || same_gpu(r.gpu, gpu.id)) && (r.engine.empty() || lower(r.engine) == engine);
}

constexpr int kFitIterations = 40;
constexpr int kRefitIterations = 12;  // cross-validation folds start at the whole fit

}  // namespace

Result<ServingCalibration> calibrate_serving(const Catalog& catalog, std::string_view scenario,
                                             const std::vector<BenchRun>& runs,
                                             std::string_view date) {
  auto decoded = decode_scenario(scenario);
  if (!decoded) return decoded.error();
  const Scenario& s = decoded.value();
  if (s.compare.size() != 1) {
    return make_error(ErrorCode::kBadValue, "compare", "must name the one offering the runs were measured on");
  }
  const Offering* offering = catalog.find_offering(s.compare.front());
  const Gpu* gpu = offering != nullptr ? catalog.find_gpu(offering->gpu_id) : nullptr;
  if (gpu == nullptr) return make_error(ErrorCode::kUnknownId, "compare", "names no catalog offering");
  auto engine = group_engine(s, scenario, runs, *gpu);
  if (!engine) return engine.error();
  ServingCalibration cal;
  cal.date = std::string(date);
  cal.gpu_id = gpu->id;
  cal.engine = engine.value();
  cal.offering_id = offering->id;
  cal.scenario = std::string(scenario);  // as given: the keys it names fill what files lack
  cal.id = "serving-" + cal.gpu_id + "-" + cal.engine + "-" + cal.date;
  // The fit starts from the model as it is, without an earlier calibration of this group.
  const Catalog base = without_group(catalog, cal.gpu_id, cal.engine);
  std::vector<PointModel> models;
  for (const BenchRun& r : runs) {
    if (!in_group(r, *gpu, cal.engine)) {
      ++cal.skipped_points;
      continue;
    }
    if (cal.points.size() >= kMaxCalibrationPoints) {
      return make_error(ErrorCode::kTooLarge, r.source,
                        "is past the 200 runs one calibration fits: calibrate on fewer runs");
    }
    auto p = point_of(base, s, scenario, r);
    if (!p) return p.error();
    auto pm = model_of(base, s, p.value(), *gpu, cal.engine, offering->id);
    if (!pm) return pm.error();
    p.value().before = predict(pm.value(), ServingCorrections{});
    if (!(p.value().before.tpot_s > 0.0)) {  // the model holds no sequence of it: nothing to fit
      ++cal.unfit_points;
      continue;
    }
    cal.points.push_back(std::move(p).value());
    models.push_back(std::move(pm).value());
  }
  if (cal.points.empty()) {
    return make_error(ErrorCode::kBadValue, "files",
                      "hold no run of " + cal.gpu_id + " with " + cal.engine + " that the model fits (" +
                          std::to_string(cal.skipped_points) + " runs of other GPUs or engines, " +
                          std::to_string(cal.unfit_points) + " that do not fit)");
  }
  Vec lo{}, hi{};
  bounds_of(models, cal.corrections, lo, hi);
  std::vector<std::size_t> all(cal.points.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const Vec u = fit(models, cal.points, all, cal.corrections, lo, hi, Vec{}, kFitIterations);
  cal.corrections = corrections_at(cal.corrections, u);
  // Out of sample: each point predicted by a fit that did not see it.
  const std::size_t n = cal.points.size();
  const std::size_t folds = n <= kMaxLeaveOneOutPoints ? n : 10;
  cal.cross_validation = n <= kMaxLeaveOneOutPoints ? "leave-one-out" : "10-fold";
  std::vector<PointFigures> held_out(n);
  for (std::size_t f = 0; f < folds; ++f) {
    std::vector<std::size_t> train;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % folds != f) train.push_back(i);
    }
    const Vec uf = fit(models, cal.points, train, cal.corrections, lo, hi, u, kRefitIterations);
    const ServingCorrections kf = corrections_at(cal.corrections, uf);
    for (std::size_t i = f; i < n; i += folds) held_out[i] = predict(models[i], kf);
  }
  for (std::size_t i = 0; i < n; ++i) cal.points[i].after = predict(models[i], cal.corrections);
  cal.before = errors_of(cal.points, &CalibrationPoint::before);
  cal.after = errors_of(cal.points, &CalibrationPoint::after);
  std::vector<CalibrationPoint> cv = cal.points;
  for (std::size_t i = 0; i < n; ++i) cv[i].after = held_out[i];
  cal.cross_validated = errors_of(cv, &CalibrationPoint::after);
  cal.note = "Fitted by gpucalc --calibrate-serving: least squares (pseudo-Huber beyond 15 %) on "
             "the log error of mean TTFT, mean TPOT and total tokens/s per GPU; each run taken as "
             "one instance of tp GPUs.";
  cal.band = band_of(cal.cross_validated, "calibrated " + cal.id + " (" + cal.cross_validation + ")");
  return cal;
}

Result<CalibrationScore> score_calibration(const Catalog& catalog, const ServingCalibration& cal,
                                           const std::vector<BenchRun>& runs) {
  auto decoded = decode_scenario(cal.scenario);
  if (!decoded) return decoded.error();
  const Gpu* gpu = catalog.find_gpu(cal.gpu_id);
  if (gpu == nullptr) return make_error(ErrorCode::kUnknownId, "gpu", "\"" + cal.gpu_id + "\" is not in the catalog");
  const Catalog base = without_group(catalog, cal.gpu_id, cal.engine);
  CalibrationScore score;
  for (const BenchRun& r : runs) {
    if (!in_group(r, *gpu, cal.engine)) continue;
    auto p = point_of(base, decoded.value(), cal.scenario, r);
    if (!p) return p.error();
    auto pm = model_of(base, decoded.value(), p.value(), *gpu, cal.engine, cal.offering_id);
    if (!pm) return pm.error();
    p.value().before = predict(pm.value(), ServingCorrections{});
    p.value().after = predict(pm.value(), cal.corrections);
    score.points.push_back(std::move(p).value());
  }
  score.before = errors_of(score.points, &CalibrationPoint::before);
  score.after = errors_of(score.points, &CalibrationPoint::after);
  return score;
}

std::shared_ptr<const ServingCalibration> find_serving_calibration(const Catalog& catalog,
                                                                   std::string_view gpu_id,
                                                                   std::string_view engine_id) {
  for (auto it = catalog.serving_calibrations.rbegin(); it != catalog.serving_calibrations.rend(); ++it) {
    if ((*it)->gpu_id == gpu_id && (*it)->engine == engine_id) return *it;
  }
  return nullptr;
}

void apply_serving_corrections(const ServingCorrections& k, ServingContext& c) {
  const Gpu& gpu = *c.gpu;
  const double hbm_peak = gpu.memory_bandwidth_bytes_per_s;
  const auto& peak = gpu.peak_flops_per_s[index_of(c.rates.math)];
  // Held to the datasheet: no corrected rate above the peak it is a fraction of.
  const auto capped = [](double rate, double scale, double cap) {
    const double r = rate * scale;
    return cap > 0.0 ? std::min(r, std::max(rate, cap)) : r;
  };
  const double w = k.at(Correction::kWeightStreamScale);
  c.dense_stream_bytes_per_s = capped(c.dense_stream_bytes_per_s, w, hbm_peak);
  c.moe_stream_bytes_per_s = capped(c.moe_stream_bytes_per_s, w, hbm_peak);
  const double m = k.at(Correction::kMatmulScale);
  const double flops_cap = peak ? *peak : 0.0;
  c.matmul_flops_per_s = capped(c.matmul_flops_per_s, m, flops_cap);
  c.rates.matmul_flops_per_s = capped(c.rates.matmul_flops_per_s, m, flops_cap);
  c.attention_bytes_per_s = capped(c.attention_bytes_per_s, k.at(Correction::kAttentionScale), hbm_peak);
  // The step overhead rides on the per-layer latency every step pays (layers x latency), never
  // below zero in all.
  const double layers = std::max(1, c.shape.layers);
  c.extra_layer_latency_s =
      std::max(-c.engine->step_overhead_s / layers,
               c.extra_layer_latency_s + k.at(Correction::kStepOverheadS) / layers);
  c.request_overhead_s = std::max(0.0, c.request_overhead_s + k.at(Correction::kRequestOverheadS));
}

// ---------------------------------------------------------------- the document

namespace {

void write_figures(JsonWriter& w, const char* key, const PointFigures& f) {
  const auto opt = [](double x) { return x > 0.0 ? std::optional<double>(x) : std::nullopt; };
  w.key(key).begin_object();
  w.key("ttft_s").value(opt(f.ttft_s));
  w.key("tpot_s").value(opt(f.tpot_s));
  w.key("total_tokens_per_s_per_gpu").value(opt(f.total_tokens_per_s_per_gpu));
  w.end_object();
}

void write_errors(JsonWriter& w, const char* key, const CalibrationErrors& e) {
  w.key(key).begin_object();
  w.key("interactivity").value(e.interactivity);
  w.key("n_interactivity").value(e.n_interactivity);
  w.key("throughput_per_gpu").value(e.throughput_per_gpu);
  w.key("n_throughput_per_gpu").value(e.n_throughput_per_gpu);
  w.key("ttft").value(e.ttft);
  w.key("n_ttft").value(e.n_ttft);
  w.end_object();
}

/** Reads one object whose keys must all be in `known`; the first error names the path. */
class Reader {
 public:
  Reader(std::string source) : source_(std::move(source)) {}
  bool ok() const { return !error_; }
  const Error& error() const { return *error_; }
  void fail(const std::string& path, const std::string& message) {
    if (!error_) error_ = make_error(ErrorCode::kInvalidCatalog, source_ + ": " + path, message);
  }
  /** `j` must be an object holding only `known` keys. */
  bool object(const Json& j, const std::string& path, std::initializer_list<const char*> known) {
    if (!j.is_object()) return fail(path.empty() ? "document" : path, "must be an object"), false;
    for (const auto& item : j.items()) {
      bool found = false;
      for (const char* k : known) found = found || item.key == k;
      if (!found) {
        fail(join(path, item.key.substr(0, 64)), "is not a known key of a serving calibration");
        return false;
      }
    }
    return true;
  }
  std::string text(const Json& j, const std::string& path, const char* key, bool required,
                   std::size_t max_bytes = 1000) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) fail(join(path, key), "is required (a string)");
      return {};
    }
    if (!it->is_string()) return fail(join(path, key), "must be a string"), std::string();
    const std::string& s = it->get_ref<const std::string&>();
    if (s.size() > max_bytes) return fail(join(path, key), "is longer than " + std::to_string(max_bytes) + " bytes"), std::string();
    if (required && s.empty()) fail(join(path, key), "must not be empty");
    return s;
  }
  /** A number within `b` (bounds.hpp); null reads as 0 where `nullable`. */
  double number(const Json& j, const std::string& path, const char* key, const Bound& b,
                bool nullable = false) {
    const auto it = j.find(key);
    if (it == j.end() || (it->is_null() && !nullable)) return fail(join(path, key), "is required (a number)"), 0.0;
    if (it->is_null()) return 0.0;
    if (!it->is_number()) return fail(join(path, key), "must be a number"), 0.0;
    const double x = it->get<double>();
    if (auto e = detail::out_of_bound(source_ + ": " + join(path, key), x, b)) {
      if (!error_) error_ = std::move(e);
      return 0.0;
    }
    return x;
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string source_;
  std::optional<Error> error_;
};

PointFigures read_figures(Reader& rd, const Json& j, const std::string& path) {
  PointFigures f;
  if (!rd.object(j, path, {"ttft_s", "tpot_s", "total_tokens_per_s_per_gpu"})) return f;
  f.ttft_s = rd.number(j, path, "ttft_s", detail::kBenchLatencyS, true);
  f.tpot_s = rd.number(j, path, "tpot_s", detail::kBenchLatencyS, true);
  f.total_tokens_per_s_per_gpu = rd.number(j, path, "total_tokens_per_s_per_gpu", detail::kTokensPerS, true);
  return f;
}

CalibrationErrors read_errors(Reader& rd, const Json& j, const std::string& path) {
  CalibrationErrors e;
  if (!rd.object(j, path, {"interactivity", "n_interactivity", "throughput_per_gpu",
                           "n_throughput_per_gpu", "ttft", "n_ttft"})) {
    return e;
  }
  const Bound points{0.0, static_cast<double>(kMaxCalibrationPoints), "points, from 0 to 200"};
  e.interactivity = rd.number(j, path, "interactivity", detail::kMeanErrorFraction);
  e.n_interactivity = static_cast<int>(rd.number(j, path, "n_interactivity", points));
  e.throughput_per_gpu = rd.number(j, path, "throughput_per_gpu", detail::kMeanErrorFraction);
  e.n_throughput_per_gpu = static_cast<int>(rd.number(j, path, "n_throughput_per_gpu", points));
  e.ttft = rd.number(j, path, "ttft", detail::kMeanErrorFraction);
  e.n_ttft = static_cast<int>(rd.number(j, path, "n_ttft", points));
  return e;
}

}  // namespace

std::string serving_calibration_to_json(const ServingCalibration& cal) {
  JsonWriter w;
  w.begin_object();
  w.key("schema").value(kServingCalibrationSchema);
  w.key("id").value(cal.id);
  w.key("date").value(cal.date);
  w.key("gpu").value(cal.gpu_id);
  w.key("engine").value(cal.engine);
  w.key("offering").value(cal.offering_id);
  w.key("scenario").value(cal.scenario);
  w.key("note").value(cal.note);
  w.key("corrections").begin_object();
  for (std::size_t i = 0; i < kCorrectionCount; ++i) {
    w.key(kCorrectionNames[i]).begin_object();
    w.key("value").value(cal.corrections.value[i]);
    w.key("min").value(cal.corrections.min[i]);
    w.key("max").value(cal.corrections.max[i]);
    w.end_object();
  }
  w.end_object();
  w.key("cross_validation").value(cal.cross_validation);
  w.key("error").begin_object();
  write_errors(w, "before", cal.before);
  write_errors(w, "after", cal.after);
  write_errors(w, "cross_validated", cal.cross_validated);
  w.end_object();
  w.key("skipped_points").value(cal.skipped_points);
  w.key("unfit_points").value(cal.unfit_points);
  w.key("points").begin_array();
  for (const CalibrationPoint& p : cal.points) {
    w.begin_object();
    w.key("source").value(p.source);
    w.key("format").value(p.format);
    w.key("date").value(p.date);
    w.key("model").value(p.model);
    w.key("weights").value(p.weights);
    w.key("engine_version").value(p.engine_version);
    w.key("tp").value(p.tp);
    w.key("ep").value(p.ep);
    w.key("dp_attention").value(p.dp_attention);
    w.key("mtp").value(p.mtp);
    w.key("input_tokens").value(p.input_tokens);
    w.key("output_tokens").value(p.output_tokens);
    w.key("concurrency").value(p.concurrency);
    write_figures(w, "measured", p.measured);
    write_figures(w, "before", p.before);
    write_figures(w, "after", p.after);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::string out = std::move(w.str());
  out += '\n';
  return out;
}

Result<ServingCalibration> parse_serving_calibration(std::string_view json_text,
                                                     std::string_view source_name) {
  const std::string source(source_name);
  if (json_text.size() > kMaxJsonTextBytes) {
    return make_error(ErrorCode::kTooLarge, source, "is larger than 16 MiB");
  }
  auto parsed = detail::parse_json_strict(json_text, source);
  if (!parsed) return parsed.error();
  const Json& j = parsed.value();
  Reader rd(source);
  ServingCalibration cal;
  if (!rd.object(j, "", {"schema", "id", "date", "gpu", "engine", "offering", "scenario", "note",
                         "corrections", "cross_validation", "error", "skipped_points",
                         "unfit_points", "points"})) {
    return rd.error();
  }
  if (rd.text(j, "", "schema", true) != kServingCalibrationSchema) {
    return make_error(ErrorCode::kUnsupportedVersion, source + ": schema",
                      "must be \"gpucalc-serving-calibration/1\"");
  }
  cal.id = rd.text(j, "", "id", true, 200);
  cal.date = rd.text(j, "", "date", true, 40);
  cal.gpu_id = rd.text(j, "", "gpu", true, 100);
  cal.engine = rd.text(j, "", "engine", true, 40);
  cal.offering_id = rd.text(j, "", "offering", true, 200);
  cal.scenario = rd.text(j, "", "scenario", true, kMaxScenarioBytes);
  cal.note = rd.text(j, "", "note", false, 4000);
  cal.cross_validation = rd.text(j, "", "cross_validation", true, 40);
  const Bound runs{0.0, static_cast<double>(kMaxBenchRuns), "runs, from 0 to 200,000"};
  cal.skipped_points = static_cast<int>(rd.number(j, "", "skipped_points", runs));
  cal.unfit_points = static_cast<int>(rd.number(j, "", "unfit_points", runs));
  if (!rd.ok()) return rd.error();
  if (auto s = decode_scenario(cal.scenario); !s) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": scenario", s.error().to_string());
  }
  const Json* corrections = j.contains("corrections") ? &j.at("corrections") : nullptr;
  if (corrections == nullptr) return make_error(ErrorCode::kInvalidCatalog, source + ": corrections", "is required");
  if (!rd.object(*corrections, "corrections", {"weight_stream_scale", "matmul_scale", "attention_scale",
                                               "step_overhead_s", "request_overhead_s"})) {
    return rd.error();
  }
  for (std::size_t i = 0; i < kCorrectionCount; ++i) {
    const std::string path = std::string("corrections.") + kCorrectionNames[i];
    if (!corrections->contains(kCorrectionNames[i])) {
      return make_error(ErrorCode::kInvalidCatalog, source + ": " + path, "is required");
    }
    const Json& c = corrections->at(kCorrectionNames[i]);
    if (!rd.object(c, path, {"value", "min", "max"})) return rd.error();
    // Hard limits of any document (kCorrectionBounds), then the document's own min and max.
    const Bound& hard = *kCorrectionBounds[i];
    cal.corrections.min[i] = rd.number(c, path, "min", hard);
    cal.corrections.max[i] = rd.number(c, path, "max", Bound{cal.corrections.min[i], hard.max, hard.words});
    cal.corrections.value[i] = rd.number(
        c, path, "value", Bound{cal.corrections.min[i], cal.corrections.max[i], "within this correction's min and max"});
    if (!rd.ok()) return rd.error();
  }
  if (!j.contains("error")) return make_error(ErrorCode::kInvalidCatalog, source + ": error", "is required");
  const Json& e = j.at("error");
  if (!rd.object(e, "error", {"before", "after", "cross_validated"})) return rd.error();
  for (const char* k : {"before", "after", "cross_validated"}) {
    if (!e.contains(k)) return make_error(ErrorCode::kInvalidCatalog, source + ": error." + k, "is required");
  }
  cal.before = read_errors(rd, e.at("before"), "error.before");
  cal.after = read_errors(rd, e.at("after"), "error.after");
  cal.cross_validated = read_errors(rd, e.at("cross_validated"), "error.cross_validated");
  if (!rd.ok()) return rd.error();
  if (!j.contains("points") || !j.at("points").is_array()) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": points", "is required (an array)");
  }
  if (j.at("points").size() > kMaxCalibrationPoints) {
    return make_error(ErrorCode::kTooLarge, source + ": points", "holds more than 200 points");
  }
  std::size_t i = 0;
  for (const Json& p : j.at("points")) {
    const std::string path = "points[" + std::to_string(i++) + "]";
    if (!rd.object(p, path, {"source", "format", "date", "model", "weights", "engine_version", "tp",
                             "ep", "dp_attention", "mtp", "input_tokens", "output_tokens",
                             "concurrency", "measured", "before", "after"})) {
      return rd.error();
    }
    CalibrationPoint cp;
    cp.source = rd.text(p, path, "source", true);
    cp.format = rd.text(p, path, "format", true, 40);
    cp.date = rd.text(p, path, "date", false, 40);
    cp.model = rd.text(p, path, "model", true, 200);
    cp.weights = rd.text(p, path, "weights", true, 40);
    cp.engine_version = rd.text(p, path, "engine_version", false, 200);
    cp.tp = static_cast<int>(rd.number(p, path, "tp", detail::kInstanceTp));
    cp.ep = static_cast<int>(rd.number(p, path, "ep", detail::kParallelDegree));
    cp.dp_attention = static_cast<int>(rd.number(p, path, "dp_attention", detail::kFlag));
    cp.mtp = static_cast<int>(rd.number(p, path, "mtp", detail::kMtpTokens));
    cp.input_tokens = rd.number(p, path, "input_tokens", detail::kPointTokens);
    cp.output_tokens = rd.number(p, path, "output_tokens", detail::kPointTokens);
    cp.concurrency = rd.number(p, path, "concurrency", detail::kPointConcurrency);
    for (const char* k : {"measured", "before", "after"}) {
      if (!p.contains(k)) return make_error(ErrorCode::kInvalidCatalog, source + ": " + path + "." + k, "is required");
    }
    cp.measured = read_figures(rd, p.at("measured"), path + ".measured");
    cp.before = read_figures(rd, p.at("before"), path + ".before");
    cp.after = read_figures(rd, p.at("after"), path + ".after");
    if (!rd.ok()) return rd.error();
    cal.points.push_back(std::move(cp));
  }
  cal.band = band_of(cal.cross_validated, "calibrated " + cal.id + " (" + cal.cross_validation + ")");
  return cal;
}

}  // namespace gpucalc
