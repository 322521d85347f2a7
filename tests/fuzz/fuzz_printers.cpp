// Fuzz the printers: the JSON writer through evaluation_to_json (with and without the trace)
// and error_to_json, on a catalog whose names and notes come from the input, and the CLI's
// terminal escaping (cli/safe_io.hpp): no control byte survives it. The core's CSV writer is
// checked on every evaluation (fuzz_support.hpp: RFC 4180, no formula cell).
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "safe_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string shown = gpucalc::cli::printable(text);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto c = static_cast<unsigned char>(shown[i]);
    const bool c1 = c == 0xc2 && i + 1 < shown.size() &&
                    static_cast<unsigned char>(shown[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(shown[i + 1]) <= 0x9f;
    if (c < 0x20 || c == 0x7f || c1) gpucalc::fuzz::violated("control character printed raw");
  }
  // The input as an offering's name and source, as a catalog document would carry it (JSON text
  // is UTF-8: invalid bytes become U+FFFD, as nlohmann's replace handler writes them). The
  // offering is added once; each run sets its name, which is all a catalog's name check asks.
  static gpucalc::Catalog named = [] {
    auto c = gpucalc::extend_catalog(
        gpucalc::default_catalog(),
        R"({"offerings":[{"id":"p","name":"p","gpu":"h200-sxm","gpu_count":8,)"
        R"("price_usd_per_month":1000,"sources":["p"]}]})",
        "names.json");
    if (!c) gpucalc::fuzz::violated("the printers' base catalog does not load");
    return c.value();
  }();
  const std::string name =
      nlohmann::json::parse(nlohmann::json(text).dump(-1, ' ', false,
                                                      nlohmann::json::error_handler_t::replace))
          .get<std::string>();
  if (name.empty()) return 0;
  for (auto& o : named.offerings) {
    if (o.id == "p") {
      o.name = name;
      o.sources = {name};
    }
  }
  gpucalc::Scenario s;
  s.compare = {"p", "fullgpu-8x-mi355x"};
  // The names go through the same writer with or without the trace and the curve, which the
  // scenario target covers; here the result JSON and the CSV carry them.
  gpucalc::fuzz::evaluate_and_check(named, s, {false, false});
  gpucalc::fuzz::check_json_stream(
      gpucalc::error_to_json(gpucalc::make_error(gpucalc::ErrorCode::kBadValue, text, text)),
      false);
  return 0;
}
