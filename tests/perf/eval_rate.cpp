// Scenario evaluations per CPU second on one core (`make perf`): memory fit alone, the full
// evaluation at one concurrency (fit, price, serving step model at the scenario's users,
// verdict), the full evaluation with the serving curve and the max-throughput search, and the
// page's call: decode + evaluate + JSON of one scenario (kPageScenario), which
// tests/perf/eval_rate_wasm.mjs measures in the WASM module for the native/WASM ratio.
// Targets: >= 1,000,000/s for the fit, >= 100,000/s at one concurrency, >= 5,000/s with
// the curve. `perf_eval_rate --page-rate` prints only the page-call rate (a number per
// second), `--page-reply` that call's reply (JSON). `perf_eval_rate --calls fit|point|curve|pd-curve|page N` makes exactly N calls of one path and
// prints nothing: for instruction counts on a shared machine, where rates are noisy, run it under
// valgrind --tool=callgrind with N and with 0 and divide the difference by N.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "gpucalc/catalog.hpp"
#include "gpucalc/evaluate.hpp"
#include "gpucalc/memory.hpp"
#include "gpucalc/scenario.hpp"

using namespace gpucalc;

namespace {

/** CPU seconds of this process: on a shared machine wall time counts the other jobs too. */
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

/** Runs `body(i)` in growing batches until `min_s` CPU seconds pass; returns calls per CPU
 *  second. */
template <class F>
double rate_per_s(F body, double min_s) {
  long long done = 0;
  long long batch = 1024;
  const double t0 = cpu_seconds();
  double elapsed = 0.0;
  while (elapsed < min_s) {
    for (long long i = 0; i < batch; ++i) body(done + i);
    done += batch;
    elapsed = cpu_seconds() - t0;
    if (batch < (1LL << 22)) batch *= 2;
  }
  return static_cast<double>(done) / elapsed;
}

/** A rate over several windows: the median and the spread, after one warm-up window (caches,
 *  the allocator's first growth). On a shared or virtual machine one window can read 20 % off;
 *  the median of five says what the code does, min and max what the machine did. */
struct Rate {
  double median = 0.0, min = 0.0, max = 0.0;
};
template <class F>
Rate median_rate(F body, double window_s) {
  constexpr int kWindows = 5;
  rate_per_s(body, window_s / 2.0);  // warm-up, not counted
  std::vector<double> r;
  for (int i = 0; i < kWindows; ++i) r.push_back(rate_per_s(body, window_s));
  std::sort(r.begin(), r.end());
  return Rate{r[kWindows / 2], r.front(), r.back()};
}

/** The scenario of the page-call rate, the same in tests/perf/eval_rate_wasm.mjs. */
constexpr const char* kPageScenario = "v=1";

/** decode + evaluate + JSON (no trace) of kPageScenario per second, as the page calls it. */
double page_call_rate(const Catalog& catalog, double min_s) {
  volatile std::size_t sink = 0;
  return rate_per_s(
      [&](long long) {
        auto ev = evaluate_text(catalog, kPageScenario, false);
        sink = sink + (ev ? evaluation_to_json(ev.value(), false).size() : 0);
      },
      min_s);
}

}  // namespace

int main(int argc, char** argv) {
  const Catalog& catalog = default_catalog();
  if (argc > 1 && std::strcmp(argv[1], "--page-rate") == 0) {
    std::printf("%.0f\n", page_call_rate(catalog, 2.0));
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--page-reply") == 0) {
    // The reply whose rate --page-rate measures: eval_rate_wasm.mjs checks the module's is the
    // same text, so both sides do the same work.
    auto ev = evaluate_text(catalog, kPageScenario, false);
    if (!ev) return 1;
    const std::string reply = evaluation_to_json(ev.value(), false);
    std::fwrite(reply.data(), 1, reply.size(), stdout);
    return 0;
  }
  // A spread of scenarios: four models, two weight formats, several lengths and user counts.
  std::vector<Scenario> scenarios;
  const char* models[] = {"llama-3.1-70b", "deepseek-v3", "mixtral-8x7b", "llama-3.1-8b"};
  const long long contexts[] = {4096, 32768, 131072};
  for (const char* m : models) {
    for (WeightFormat w : {WeightFormat::kFp8, WeightFormat::kFp4}) {
      for (long long ctx : contexts) {
        for (long long users : {1LL, 16LL}) {
          Scenario s;
          s.model = m;
          s.weights = w;
          s.context_tokens = ctx;
          s.users = users;
          s.compare = {"fullgpu-8x-mi355x", "fullgpu-8x-h200"};
          scenarios.push_back(s);
        }
      }
    }
  }
  struct Resolved {
    const Model* model;
    const Gpu* gpu[2];
    const Offering* offering[2];
  };
  std::vector<Resolved> resolved;
  for (const auto& s : scenarios) {
    Resolved r{catalog.find_model(s.model), {}, {}};
    for (int i = 0; i < 2; ++i) {
      r.offering[i] = catalog.find_offering(s.compare[static_cast<std::size_t>(i)]);
      r.gpu[i] = r.offering[i] ? catalog.find_gpu(r.offering[i]->gpu_id) : nullptr;
      if (!r.model || !r.offering[i] || !r.gpu[i]) {
        std::fprintf(stderr, "bench: catalog lacks %s\n", s.model.c_str());
        return 1;
      }
    }
    resolved.push_back(r);
  }
  const auto n = static_cast<long long>(scenarios.size());
  // The same scenarios with pd=auto: the curve and its named points searched over the
  // disaggregated layouts (the P:D split and the pools' worker shapes) too.
  std::vector<Scenario> pd_auto = scenarios;
  for (Scenario& s : pd_auto) s.pd = PdMode::kAuto;


  volatile long long sink = 0;
  if (argc > 3 && std::strcmp(argv[1], "--calls") == 0) {
    const std::string path = argv[2];
    const long long calls = std::atoll(argv[3]);
    EvaluateOptions options;
    options.with_curve = path == "curve" || path == "pd-curve";
    // The path read once: the loop holds the calls and nothing else to count.
    enum class Path { kFit, kPage, kEvaluate, kEvaluatePd, kUnknown };
    const Path which = path == "fit"                        ? Path::kFit
                       : path == "page"                     ? Path::kPage
                       : path == "point" || path == "curve" ? Path::kEvaluate
                       : path == "pd-curve"                 ? Path::kEvaluatePd
                                                            : Path::kUnknown;
    for (long long i = 0; i < calls; ++i) {
      const auto k = static_cast<std::size_t>(i % n);
      if (which == Path::kFit) {
        for (int j = 0; j < 2; ++j) {
          sink = sink + fit_memory(*resolved[k].model, *resolved[k].gpu[j],
                                   *resolved[k].offering[j], scenarios[k])
                            .full_contexts;
        }
      } else if (which == Path::kPage) {
        auto ev = evaluate_text(catalog, kPageScenario, false);
        sink = sink + static_cast<long long>(ev ? evaluation_to_json(ev.value(), false).size() : 0);
      } else if (which == Path::kEvaluate || which == Path::kEvaluatePd) {
        auto ev = evaluate(catalog, which == Path::kEvaluate ? scenarios[k] : pd_auto[k], options);
        sink = sink + static_cast<long long>(ev ? ev.value().results.size() : 0);
      } else {
        std::fprintf(stderr, "bench: --calls takes fit, point, curve, pd-curve or page\n");
        return 2;
      }
    }
    return 0;
  }
  const Rate fit_rate = median_rate(
      [&](long long i) {
        const auto k = static_cast<std::size_t>(i % n);
        const Resolved& r = resolved[k];
        for (int j = 0; j < 2; ++j) {
          const MemoryFit f = fit_memory(*r.model, *r.gpu[j], *r.offering[j], scenarios[k]);
          sink = sink + f.full_contexts;
        }
      },
      0.4);

  long long failures = 0;
  auto evaluation_rate = [&](bool with_curve, double min_s, const std::vector<Scenario>& set) {
    EvaluateOptions options;
    options.with_curve = with_curve;
    return median_rate(
        [&](long long i) {
          const auto k = static_cast<std::size_t>(i % n);
          auto ev = evaluate(catalog, set[k], options);
          if (!ev) {
            ++failures;
            return;
          }
          const auto& res = ev.value().results;
          if (!res.empty() && res.front().tpot_s) {
            sink = sink + static_cast<long long>(1.0 / *res.front().tpot_s);
          }
        },
        min_s);
  };
  const Rate point_rate = evaluation_rate(false, 0.4, scenarios);
  const Rate curve_rate = evaluation_rate(true, 0.6, scenarios);
  const Rate pd_curve_rate = evaluation_rate(true, 0.6, pd_auto);

  std::printf("scenario evaluations per second per core (%lld scenarios x 2 offerings, one thread;\n"
              "median of 5 windows after a warm-up, [min - max] of the windows)\n", n);
  auto line = [](const char* label, const Rate& r, double target, const char* target_text) {
    std::printf("  %-36s %10.0f /s  [%.0f - %.0f]  (target >= %s)  %s\n", label, r.median, r.min, r.max,
                target_text, r.median >= target ? "ok" : "BELOW TARGET");
  };
  line("memory fit only:", fit_rate, 1e6, "1,000,000");
  line("full evaluation, one concurrency:", point_rate, 1e5, "100,000");
  line("full evaluation with the curve:", curve_rate, 5e3, "5,000");
  line("the curve with the P:D search (pd=auto):", pd_curve_rate, 5e3, "5,000");
  const double page_rate = page_call_rate(catalog, 1.0);
  std::printf("  decode + evaluate + JSON of '%s':  %10.0f /s  (the page's call, natively)\n",
              kPageScenario, page_rate);
  if (failures > 0) std::printf("  %lld evaluations failed\n", failures);
  return failures > 0 ? 1 : 0;
}
