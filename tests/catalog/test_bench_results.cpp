// Benchmark result files (bench_results.hpp): fixtures of each format, made from the documented
// examples of shared/reference/benchmark-formats.md, and hostile versions of them.
#include <ctime>

#include "gpucalc/bench_results.hpp"
#include "test_support.hpp"

namespace gpucalc {
namespace {

std::string bench_text(const std::string& name) { return test::fixture_text("bench-results/" + name); }

std::vector<BenchRun> runs_of(const std::string& name) {
  auto r = parse_bench_results(bench_text(name), name);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r.value();
}

Error error_of(const std::string& text, const std::string& name) {
  auto r = parse_bench_results(text, name);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

}  // namespace

TEST_CASE("bench results: vLLM --save-result JSON, statistics in ms, lengths from totals") {
  const auto runs = runs_of("vllm.json");
  REQUIRE(runs.size() == 1);
  const BenchRun& r = runs[0];
  CHECK(r.format == "vllm");
  CHECK(r.model == "org/model-70b");
  CHECK(r.date == "2026-11-30");
  CHECK(r.concurrency == doctest::Approx(64));
  CHECK_FALSE(r.request_rate_per_s.has_value());  // "inf"
  CHECK(*r.input_tokens == doctest::Approx(589000.0 / 640));
  CHECK(*r.output_tokens == doctest::Approx(588700.0 / 640));
  CHECK(*r.mean_ttft_s == doctest::Approx(0.4123));
  CHECK(*r.median_ttft_s == doctest::Approx(0.361));
  CHECK(*r.mean_tpot_s == doctest::Approx(0.0226));
  CHECK(*r.median_tpot_s == doctest::Approx(0.0224));
  CHECK(*r.total_tokens_per_s == doctest::Approx(5544.8));
  CHECK(*r.output_tokens_per_s == doctest::Approx(2771.7));
  CHECK(r.gpu.empty());  // the file names no GPU, engine or tp: the scenario must
  CHECK_FALSE(r.tp.has_value());
}

TEST_CASE("bench results: vLLM --append-result and SGLang JSON Lines, one run per line") {
  const auto v = runs_of("vllm-append.jsonl");
  REQUIRE(v.size() == 2);
  CHECK(v[1].source == "vllm-append.jsonl:2");
  CHECK(*v[1].concurrency == doctest::Approx(32));
  CHECK(*v[1].mean_tpot_s == doctest::Approx(0.016));
  const auto s = runs_of("sglang.jsonl");  // request_rate: Infinity (Python's bare token)
  REQUIRE(s.size() == 2);
  CHECK(s[0].format == "sglang");
  CHECK(s[0].model.empty());
  CHECK_FALSE(s[0].request_rate_per_s.has_value());
  CHECK(*s[0].concurrency == doctest::Approx(32));  // the cap, not the measured 31.6
  CHECK(*s[0].input_tokens == doctest::Approx(8192));
  CHECK(*s[0].output_tokens == doctest::Approx(1024));
  CHECK_FALSE(s[0].mean_ttft_s.has_value());  // S24-style line: median only
  CHECK(*s[0].median_ttft_s == doctest::Approx(1.9));
  CHECK(*s[0].median_tpot_s == doctest::Approx(0.027));
  CHECK(*s[0].total_tokens_per_s == doctest::Approx(8689.0 + 1086.1));  // input + output
  CHECK(*s[1].mean_tpot_s == doctest::Approx(0.0184));
}

TEST_CASE("bench results: genai-perf and AIPerf profile exports, JSON and CSV") {
  const auto a = runs_of("aiperf.json");
  REQUIRE(a.size() == 1);
  CHECK(a[0].format == "aiperf");
  CHECK(a[0].model == "org/model-8b");
  CHECK(*a[0].concurrency == doctest::Approx(64));
  CHECK(*a[0].mean_ttft_s == doctest::Approx(0.318));
  CHECK(*a[0].mean_tpot_s == doctest::Approx(0.0102));  // their ITL is TPOT
  CHECK(*a[0].output_tokens_per_s == doctest::Approx(6020));
  CHECK(*a[0].input_tokens == doctest::Approx(1024));     // requested (no measured ISL)
  CHECK(*a[0].output_tokens == doctest::Approx(1021.7));  // measured
  CHECK(a[0].date == "2026-11-30");
  const auto g = runs_of("genai-perf.json");
  CHECK(g[0].format == "genai-perf");
  CHECK(g[0].model == "org/model-70b");
  CHECK(*g[0].concurrency == doctest::Approx(16));
  CHECK(*g[0].input_tokens == doctest::Approx(1000));
  const auto gc = runs_of("genai-perf.csv");  // "1,050.00": quoted thousands
  REQUIRE(gc.size() == 1);
  CHECK(*gc[0].mean_ttft_s == doctest::Approx(0.2055));
  CHECK(*gc[0].median_ttft_s == doctest::Approx(0.198));
  CHECK(*gc[0].mean_tpot_s == doctest::Approx(0.0148));
  CHECK(*gc[0].output_tokens_per_s == doctest::Approx(1050));
  CHECK(*gc[0].output_tokens == doctest::Approx(1020));
  CHECK(*gc[0].input_tokens == doctest::Approx(1000));
  const auto ac = runs_of("aiperf.csv");
  CHECK(ac[0].format == "aiperf");
  CHECK(*ac[0].mean_ttft_s == doctest::Approx(0.318));
  CHECK(*ac[0].median_tpot_s == doctest::Approx(0.0101));
  CHECK(*ac[0].output_tokens_per_s == doctest::Approx(6020));
}

TEST_CASE("bench results: InferenceX rows (CSV and agg JSON): seconds, per GPU, 0.9 x nominal") {
  const auto x = runs_of("inferencex.csv");
  REQUIRE(x.size() == 4);
  CHECK(x[0].source == "inferencex.csv:2");
  CHECK(x[0].gpu == "h200");
  CHECK(x[0].engine == "sglang");
  CHECK(x[0].model == "deepseek-v3");
  CHECK(x[0].weights == "fp8");
  CHECK(*x[0].tp == 8);
  CHECK(*x[0].input_tokens == doctest::Approx(0.9 * 1024));
  CHECK(*x[0].concurrency == doctest::Approx(4));
  CHECK(*x[0].total_tokens_per_s_per_gpu == doctest::Approx(98.82861));
  CHECK(*x[0].mean_tpot_s == doctest::Approx(0.009699666));
  const auto agg = runs_of("inferencex-agg.json");
  REQUIRE(agg.size() == 1);
  CHECK(agg[0].format == "inferencex");
  CHECK(agg[0].gpu == "h200");
  CHECK(*agg[0].dp_attention == 0);  // "false" as a string
  CHECK(*agg[0].median_ttft_s == doctest::Approx(0.36));
  CHECK(*agg[0].total_tokens_per_s_per_gpu == doctest::Approx(693.1));
}

TEST_CASE("bench results: hostile files give an error naming the file, line and field") {
  const Error truncated = error_of(bench_text("hostile/truncated.json"), "truncated.json");
  CHECK(truncated.code == ErrorCode::kInvalidJson);
  CHECK(truncated.field == "truncated.json:4");  // the line it stops at
  const Error type = error_of(bench_text("hostile/wrong-type.json"), "wrong-type.json");
  CHECK(type.field == "wrong-type.json: mean_ttft_ms");
  CHECK(type.message.find("number") != std::string::npos);
  CHECK(error_of(bench_text("hostile/wrong-type-list.json"), "w.json").field == "w.json: max_concurrency");
  // 1e400 is beyond a double: the line and the key it stands at.
  const Error huge = error_of(bench_text("hostile/huge.json"), "huge.json");
  CHECK(huge.field == "huge.json:9: mean_tpot_ms");
  CHECK(huge.code == ErrorCode::kOutOfRange);
  const Error nan = error_of(bench_text("hostile/nan.jsonl"), "nan.jsonl");
  CHECK(nan.field == "nan.jsonl:2: mean_tpot_ms");
  CHECK(nan.message.find("NaN") != std::string::npos);
  const Error row = error_of(bench_text("hostile/short-row.csv"), "short-row.csv");
  CHECK(row.field == "short-row.csv:4");
  CHECK(row.message.find("cells") != std::string::npos);
  // Past physical bounds (the shared bounds table, in the parser's units): a TTFT of ten days,
  // a negative throughput.
  std::string slow = bench_text("vllm.json");
  slow.replace(slow.find("412.3"), 5, "864000001");
  const Error ten_days = error_of(slow, "slow.json");
  CHECK(ten_days.field == "slow.json: mean_ttft_ms");
  CHECK(ten_days.message.find("seconds, from 0 to 86,400") != std::string::npos);
  std::string negative = bench_text("vllm.json");
  negative.replace(negative.find("5544.8"), 6, "-5544.8");
  CHECK(error_of(negative, "neg.json").code == ErrorCode::kOutOfRange);
  // The same per CSV cell and per JSON Lines run: NaN, a word, a number past a double, a
  // negative count, each naming the file, the line and the column.
  const std::string csv = bench_text("inferencex.csv");
  const std::size_t row2 = csv.find('\n') + 1;
  const std::string cell = csv.substr(0, csv.find('\n', row2));
  const std::string ttft = "0.1577667";  // mean_ttft_s of the first row
  REQUIRE(cell.find(ttft) != std::string::npos);
  for (const char* bad : {"NaN", "fast", "1e999", "-0.2"}) {
    std::string broken = cell;
    broken.replace(broken.find(ttft), ttft.size(), bad);
    const Error e = error_of(broken, "x.csv");
    CHECK_MESSAGE(e.field == "x.csv:2: mean_ttft_s", bad);
  }
  std::string conc = cell;
  conc.replace(conc.find(",1024,1024,4,"), 13, ",1024,1024,1e7,");
  CHECK(error_of(conc, "x.csv").field == "x.csv:2: concurrency");
  CHECK(error_of(conc, "x.csv").message.find("requests, from 0 to 1,000,000") != std::string::npos);
  const std::string jsonl = bench_text("sglang.jsonl");
  std::string wrong = jsonl;
  wrong.replace(wrong.rfind("\"max_concurrency\": "), 19, "\"max_concurrency\": \"x\", \"y\": ");
  CHECK(error_of(wrong, "s.jsonl").field.find(": max_concurrency") != std::string::npos);
  CHECK(error_of(wrong, "s.jsonl").field.rfind("s.jsonl:", 0) == 0);
  const std::string genai = bench_text("genai-perf.csv");
  std::string gcsv = genai;
  const std::size_t ttft_row = gcsv.find("Time To First Token");
  REQUIRE(ttft_row != std::string::npos);
  const std::size_t comma = gcsv.find(',', ttft_row);
  gcsv.replace(comma + 1, gcsv.find(',', comma + 1) - comma - 1, "\"1e999\"");
  CHECK(error_of(gcsv, "g.csv").field.find(": Time To First Token") != std::string::npos);
  CHECK(error_of("", "empty.json").field == "empty.json");
  CHECK(error_of("hello,world\n1,2\n", "x.csv").field == "x.csv:1");
  CHECK(error_of("{\"foo\": 1}", "foo.json").message.find("not a known benchmark") != std::string::npos);
  // Text is data: markup in a name stays the characters it was.
  std::string markup = bench_text("vllm.json");
  markup.replace(markup.find("org/model-70b"), 13, "<img src=x onerror=alert(1)>");
  CHECK(parse_bench_results(markup, "m.json").value()[0].model == "<img src=x onerror=alert(1)>");
}

TEST_CASE("bench results: a 10 MB file parses (its CPU time printed); 100k rows; past 200k refused") {
  const std::string file = bench_text("inferencex.csv");
  const std::string header = file.substr(0, file.find('\n') + 1);
  std::string row = file.substr(header.size());
  row = row.substr(0, row.find('\n') + 1);
  std::string big = header;
  while (big.size() < 10u * 1000 * 1000) big += row;
  // CPU time, not wall time: the test machines are shared.
  const std::clock_t t0 = std::clock();
  auto r = parse_bench_results(big, "big.csv");
  const double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  REQUIRE(r.ok());
  MESSAGE(r.value().size() << " rows, " << static_cast<double>(big.size()) / 1e6 << " MB: " << s << " s CPU");
  // The time is printed, not asserted: speed is a benchmark's figure, not a test's verdict.
  while (r.value().size() < 100000) {
    big += big.substr(header.size());
    r = parse_bench_results(big, "big.csv");
    REQUIRE(r.ok());
  }
  CHECK(r.value().back().source == "big.csv:" + std::to_string(r.value().size() + 1));
  // A bad cell in the last of 100k rows is found and named by its line.
  const std::size_t lines = r.value().size() + 1;
  std::string bad_last = big + row;
  bad_last.replace(bad_last.rfind("0.1577667"), 9, "NaN");
  CHECK(parse_bench_results(bad_last, "big.csv").error().field ==
        "big.csv:" + std::to_string(lines + 1) + ": mean_ttft_s");
  while (big.size() < 200001u * row.size() + header.size()) big += big.substr(header.size());
  CHECK(parse_bench_results(big, "huge.csv").error().code == ErrorCode::kTooLarge);
}

}  // namespace gpucalc
