// The CSV cell rule, shared with the page's writer (web/export.js) through one fixture.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpucalc/text.hpp"
#include "test_support.hpp"

TEST_CASE("CSV cells: the core writes the fixture's cells as the page does (tests/fixtures/csv-cells.json)") {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/csv-cells.json");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const auto fixture = nlohmann::json::parse(text.str());
  REQUIRE(fixture["cells"].size() >= 10);
  for (const auto& c : fixture["cells"]) {
    std::string out;
    gpucalc::append_csv_cell(out, c["text"].get<std::string>());
    CHECK_MESSAGE(out == c["csv"].get<std::string>(), c["text"].dump());
  }
}
