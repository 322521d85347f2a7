// Fuzz the printers: the JSON writer through evaluation_to_json (with and without the trace)
// and error_to_json, on a catalog whose names and notes come from the input, and the CLI's
// terminal escaping (cli/safe_io.hpp): no control byte survives it. The core's CSV writer is
// checked on every evaluation (fuzz_support.hpp: RFC 4180, no formula cell).
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "safe_io.hpp"

namespace {

/** No C0 control, DEL or C1 control (U+0080..U+009F) in what the terminal is given. */
GPUCALC_FUZZ_ORACLE void check_printable(const std::string& shown) {
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto c = static_cast<unsigned char>(shown[i]);
    const bool c1 = c == 0xc2 && i + 1 < shown.size() &&
                    static_cast<unsigned char>(shown[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(shown[i + 1]) <= 0x9f;
    if (c < 0x20 || c == 0x7f || c1) gpucalc::fuzz::violated("control character printed raw");
  }
}

/** `text` as a JSON document's string would carry it: UTF-8, each byte that does not start a
 *  well-formed sequence (RFC 3629: no overlong form, no surrogate) replaced by U+FFFD. */
GPUCALC_FUZZ_ORACLE std::string as_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = gpucalc::fuzz::utf8_sequence_length(text, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_printable(gpucalc::cli::printable(text));
  // The input as an offering's name and source, as a catalog document would carry it. The
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
  const std::string name = as_utf8(text);
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
