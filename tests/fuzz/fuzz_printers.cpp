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
  // The input as an offering's name and a model's name (JSON-escaped by nlohmann).
  const std::string name =
      nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto part = nlohmann::json::parse(
      R"({"offerings":[{"id":"p","name":)" + name +
          R"(,"gpu":"h200-sxm","gpu_count":8,"price_usd_per_month":1000,"sources":[)" + name +
          "]}]}",
      nullptr, false);
  if (part.is_discarded()) return 0;
  auto c = gpucalc::extend_catalog(gpucalc::default_catalog(), part.dump(), "names.json");
  if (!c) return 0;
  gpucalc::Scenario s;
  s.compare = {"p", "fullgpu-8x-mi355x"};
  gpucalc::fuzz::evaluate_and_check(c.value(), s);
  gpucalc::fuzz::check_json_text(
      gpucalc::error_to_json(gpucalc::make_error(gpucalc::ErrorCode::kBadValue, text, text)),
      false);
  return 0;
}
