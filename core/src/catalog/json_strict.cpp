#include "catalog/json_strict.hpp"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

namespace gpucalc::detail {

namespace {

using Json = nlohmann::json;

/** One open object or array while parsing: where it sits and what it has seen. */
struct Frame {
  std::string label;  // ".key" or "[i]" relative to the parent; "" for the root
  bool is_array = false;
  std::size_t next_index = 0;  // arrays: index of the next element
  std::string key;             // objects: the key whose value is being read
  std::set<std::string> keys;  // objects: keys seen so far
};

std::string path_of(const std::vector<Frame>& frames) {
  std::string path;
  for (const auto& f : frames) path += f.label;
  if (!path.empty() && path.front() == '.') path.erase(0, 1);
  return path;
}

}  // namespace

Result<Json> parse_json_strict(std::string_view text, const std::string& source) {
  std::vector<Frame> frames;
  std::string duplicate;  // path of the first duplicate key
  const auto child_label = [&frames]() -> std::string {
    if (frames.empty()) return {};
    const Frame& parent = frames.back();
    return parent.is_array ? "[" + std::to_string(parent.next_index) + "]" : "." + parent.key;
  };
  Json::parser_callback_t cb = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start: {
        Frame f;
        f.label = child_label();
        f.is_array = event == Json::parse_event_t::array_start;
        frames.push_back(std::move(f));
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        if (!frames.empty() && frames.back().is_array) ++frames.back().next_index;
        break;
      case Json::parse_event_t::key:
        if (!frames.empty() && parsed.is_string()) {
          Frame& f = frames.back();
          f.key = parsed.get<std::string>();
          if (!f.keys.insert(f.key).second && duplicate.empty()) {
            const std::string where = path_of(frames);
            duplicate = where.empty() ? f.key : where + "." + f.key;
          }
        }
        break;
      case Json::parse_event_t::value:
        if (!frames.empty() && frames.back().is_array) ++frames.back().next_index;
        break;
    }
    return true;
  };
  Json doc = Json::parse(text.begin(), text.end(), cb, false);
  if (doc.is_discarded()) return make_error(ErrorCode::kInvalidJson, source, "is not valid JSON");
  if (!duplicate.empty()) {
    return make_error(ErrorCode::kInvalidCatalog, source + ": " + duplicate,
                      "appears twice in one object (each key once)");
  }
  return doc;
}

void embedded_data_invalid(std::string_view file, const Error& error) {
  std::fprintf(stderr, "gpucalc: built-in data/%.*s is invalid: %s\n", static_cast<int>(file.size()),
               file.data(), error.to_string().c_str());
  std::abort();
}

}  // namespace gpucalc::detail
