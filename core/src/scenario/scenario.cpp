#include "gpucalc/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "gpucalc/units.hpp"
#include "catalog/engines.hpp"
#include "catalog/ids.hpp"
#include "output/json_writer.hpp"
#include "scenario/scenario_inputs.hpp"

namespace gpucalc {

const char* capacity_basis_name(CapacityBasis b) {
  return b == CapacityBasis::kDevice ? "device" : "marketed";
}
const char* workload_name(Workload w) {
  switch (w) {
    case Workload::kInference: return "inference";
    case Workload::kPretrain: return "pretrain";
    case Workload::kFinetune: return "finetune";
    case Workload::kLora: return "lora";
    case Workload::kQlora: return "qlora";
  }
  return "inference";
}
const char* pd_mode_name(PdMode m) {
  switch (m) {
    case PdMode::kAggregated: return "0";
    case PdMode::kDisaggregated: return "1";
    case PdMode::kAuto: return "auto";
  }
  return "0";
}
const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "selective";
}

namespace {

using detail::JsonWriter;

/** Most servers (units of one offering) one deployment may use: 128 x 8 = 1,024 GPUs. */
constexpr long long kMaxServers = 128;

/** Longest number text the codec reads; encode writes at most as many digits as it read. */
constexpr std::size_t kMaxNumberChars = 64;

Error bad(const std::string& key, const std::string& message) {
  return make_error(ErrorCode::kBadValue, key, message);
}
Error range(const std::string& key, const std::string& message) {
  return make_error(ErrorCode::kOutOfRange, key, message);
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool is_decimal(std::string_view s) {
  if (s.empty() || s.size() > kMaxNumberChars) return false;
  bool dot = false, digit = false;
  for (char c : s) {
    if (c == '.' && !dot) dot = true;
    else if (c >= '0' && c <= '9') digit = true;
    else return false;
  }
  return digit;
}

/** True when `s` reads as some number (e.g. "-5", "1e30"), to tell range from kind errors. */
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::optional<Error> parse_int(const std::string& key, const std::string& v, long long min,
                               long long max, long long& out) {
  const std::string limits = " between " + std::to_string(min) + " and " + std::to_string(max);
  if (!all_digits(v)) {
    if (looks_numeric(v)) return range(key, "must be a whole number" + limits + ", got " + v);
    return bad(key, "must be a whole number" + limits + ", got \"" + v + "\"");
  }
  const long long x = std::stoll(v);
  if (x < min || x > max) {
    Error e = range(key, "must be" + limits + ", got " + v);
    e.params = {{"min", static_cast<double>(min)}, {"max", static_cast<double>(max)}};
    return e;
  }
  out = x;
  return std::nullopt;
}

std::optional<Error> parse_num(const std::string& key, const std::string& v, double min,
                               double max, bool min_exclusive, double& out) {
  std::string limits = std::string(" between ") + (min_exclusive ? "more than " : "");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g and %g", min, max);
  limits += buf;
  if (!is_decimal(v)) {
    if (looks_numeric(v)) return range(key, "must be a number" + limits + ", got " + v);
    return bad(key, "must be a number" + limits + ", got \"" + v + "\"");
  }
  const double x = std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(x) || x < min || x > max || (min_exclusive && x <= min)) {
    Error e = range(key, "must be" + limits + ", got " + v);
    e.params = {{"min", min}, {"max", max}};
    return e;
  }
  out = x;
  return std::nullopt;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

/**
 * The shortest decimal that reads back to exactly `x`, written without an exponent (the codec
 * reads plain decimals only): 1e-13 is "0.0000000000001", never "0".
 */
std::string format_number(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    return std::to_string(static_cast<long long>(x));
  }
  char buf[48];
  for (int precision = 0; precision <= 16; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  // buf is "[-]d.ddde[+-]xx": digits and a power of ten, moved into a plain decimal.
  std::string text = buf;
  std::string sign;
  if (!text.empty() && text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const std::size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);
  std::string digits;
  for (std::size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int point = exponent + 1;  // digits before the decimal point
  const int n = static_cast<int>(digits.size());
  std::string out;
  if (point <= 0) {
    out = "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  } else if (point >= n) {
    out = digits + std::string(static_cast<std::size_t>(point - n), '0');
  } else {
    out = digits.substr(0, static_cast<std::size_t>(point)) + "." +
          digits.substr(static_cast<std::size_t>(point));
  }
  return sign + out;
}

/** Appends format_number(x); whole numbers without building a string first. */
void append_plain_number(std::string& out, double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    detail::append_integer(out, static_cast<long long>(x));
  } else {
    out += format_number(x);
  }
}

std::optional<Error> parse_bool(const std::string& key, const std::string& v, bool& out) {
  if (v == "1") out = true;
  else if (v == "0") out = false;
  else return bad(key, "must be 0 or 1, got \"" + v + "\"");
  return std::nullopt;
}

using detail::or_list;

// ---------------------------------------------------------------------------------------------
// The schema: one Row per key. A row is made by one of the helpers below from a Scenario
// member; the helper supplies the parser, the canonical text and the typed `inputs` echo.

struct Row {
  ScenarioKey info;
  std::optional<Error> (*set)(const ScenarioKey&, const std::string&, Scenario&) = nullptr;
  /** Appends the key's canonical text to `out` (encode writes every key into one string). */
  void (*text)(const Scenario&, std::string& out) = nullptr;
  void (*echo)(const Scenario&, JsonWriter&) = nullptr;
  /** True when the key holds its default (encode omits it unless it is a fit key). */
  bool (*is_default)(const Scenario& s, const Scenario& defaults) = nullptr;
  /** "&key=": what encode writes before the value (the first key without the '&'). */
  std::string prefix;
  /** Cross-key check once every key is read (price against compare); may fix up the value. */
  std::optional<Error> (*finish)(Scenario&) = nullptr;
  /** True when the string never named the key and its value is decided later (weights: by
   *  the model, in evaluate): the lenient decode's text leaves it out, so the link the page
   *  evaluates keeps leaving the choice to the core. */
  bool (*unset)(const Scenario&) = nullptr;
};

template <auto M>
using MemberType = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Scenario&>().*M)>>;

constexpr bool kFit = true;

const Scenario& defaults() {
  static const Scenario d;
  return d;
}

template <auto M>
bool member_is_default(const Scenario& s, const Scenario& d) {
  return s.*M == d.*M;
}

Row make_row(const char* key, KeyKind kind, const char* description, bool fit_key) {
  Row r;
  r.info.key = key;
  r.info.kind = kind;
  r.info.description = description;
  r.info.fit_key = fit_key;
  return r;
}

template <auto M>
Row integer(const char* key, long long min, long long max, const char* description,
            bool fit_key = false) {
  Row r = make_row(key, KeyKind::kInteger, description, fit_key);
  r.is_default = member_is_default<M>;
  r.info.min = static_cast<double>(min);
  r.info.max = static_cast<double>(max);
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    long long x = 0;
    if (auto e = parse_int(k.key, v, static_cast<long long>(k.min), static_cast<long long>(k.max), x)) return e;
    s.*M = static_cast<MemberType<M>>(x);
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) { detail::append_integer(out, static_cast<long long>(s.*M)); };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(static_cast<long long>(s.*M)); };
  return r;
}

template <auto M>
Row number(const char* key, double min, double max, bool min_exclusive, const char* description,
           bool fit_key = false) {
  Row r = make_row(key, KeyKind::kNumber, description, fit_key);
  r.is_default = member_is_default<M>;
  r.info.min = min;
  r.info.max = max;
  r.info.min_exclusive = min_exclusive;
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    return parse_num(k.key, v, k.min, k.max, k.min_exclusive, s.*M);
  };
  r.text = [](const Scenario& s, std::string& out) { append_plain_number(out, s.*M); };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(static_cast<double>(s.*M)); };
  return r;
}

template <auto M>
Row boolean(const char* key, const char* description) {
  Row r = make_row(key, KeyKind::kBoolean, description, false);
  r.is_default = member_is_default<M>;
  r.info.max = 1;
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) {
    return parse_bool(k.key, v, s.*M);
  };
  r.text = [](const Scenario& s, std::string& out) { out += s.*M ? '1' : '0'; };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(static_cast<bool>(s.*M)); };
  return r;
}

/** The values of an enum a choice key holds, in schema order, and their names. */
template <class E>
struct Choices;
template <>
struct Choices<WeightFormat> {
  static constexpr WeightFormat kAll[] = {WeightFormat::kBf16, WeightFormat::kFp8, WeightFormat::kFp6,
                                          WeightFormat::kFp4, WeightFormat::kInt4, WeightFormat::kNative};
  static const char* name(WeightFormat v) { return weight_format_name(v); }
};
template <>
struct Choices<KvFormat> {
  static constexpr KvFormat kAll[] = {KvFormat::kBf16, KvFormat::kFp8};
  static const char* name(KvFormat v) { return kv_format_name(v); }
};
template <>
struct Choices<CapacityBasis> {
  static constexpr CapacityBasis kAll[] = {CapacityBasis::kDevice, CapacityBasis::kMarketed};
  static const char* name(CapacityBasis v) { return capacity_basis_name(v); }
};
template <>
struct Choices<Workload> {
  static constexpr Workload kAll[] = {Workload::kInference, Workload::kPretrain, Workload::kFinetune,
                                      Workload::kLora, Workload::kQlora};
  static const char* name(Workload v) { return workload_name(v); }
};
template <>
struct Choices<Recompute> {
  static constexpr Recompute kAll[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  static const char* name(Recompute v) { return recompute_name(v); }
};

template <>
struct Choices<PdMode> {
  static constexpr PdMode kAll[] = {PdMode::kAggregated, PdMode::kDisaggregated, PdMode::kAuto};
  static const char* name(PdMode v) { return pd_mode_name(v); }
};

template <auto M>
Row choice(const char* key, const char* description, bool fit_key = false) {
  using E = MemberType<M>;
  Row r = make_row(key, KeyKind::kChoice, description, fit_key);
  r.is_default = member_is_default<M>;
  for (E v : Choices<E>::kAll) r.info.choices.emplace_back(Choices<E>::name(v));
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    for (E option : Choices<E>::kAll) {
      if (v == Choices<E>::name(option)) {
        s.*M = option;
        return std::nullopt;
      }
    }
    return bad(k.key, "must be " + or_list(k.choices) + ", got \"" + v + "\"");
  };
  r.text = [](const Scenario& s, std::string& out) { out += Choices<E>::name(s.*M); };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(Choices<E>::name(s.*M)); };
  return r;
}

/** A catalog id; with `alias`, also a model's alias (a Hugging Face repo id "org/name"), which
 *  evaluate resolves and echoes as the canonical id. */
template <auto M, bool alias = false>
Row id(const char* key, const char* description, bool fit_key = false) {
  Row r = make_row(key, KeyKind::kId, description, fit_key);
  r.is_default = member_is_default<M>;
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    if (alias ? !detail::is_valid_model_alias(v) : !detail::is_valid_id(v)) {
      return bad(k.key, alias ? "must be a catalog model id or a Hugging Face repo id (org/name), got \"" + v + "\""
                              : "must be a catalog id (a-z 0-9 . _ -), got \"" + v + "\"");
    }
    s.*M = v;
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) { out += s.*M; };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(s.*M); };
  return r;
}

/** The serving engine: "auto" or an engine id. The choices (what --keys lists and the page
 *  offers) are the built-in engines of data/engines.json; a --catalog engines document may add
 *  others, so any id decodes here and evaluate checks it against the catalog's engines, as it
 *  does `model`. Adding an engine is data (and its display names in web/i18n) only. */
Row engine_row() {
  static const std::string description = engine_key_description(default_engines());
  Row r = make_row("engine", KeyKind::kChoice, description.c_str(), false);
  r.is_default = member_is_default<&Scenario::engine>;
  r.info.choices = engine_choices(default_engines());
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    if (v != "auto" && !detail::is_valid_id(v)) {
      return bad(k.key, "must be " + or_list(k.choices) + " or another engine id of the catalog, got \"" + v + "\"");
    }
    s.engine = v;
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) { out += s.engine; };
  r.echo = [](const Scenario& s, JsonWriter& w) { w.value(s.engine); };
  return r;
}

template <auto M>
Row id_list(const char* key, std::size_t max_entries, const char* description, bool fit_key = false) {
  Row r = make_row(key, KeyKind::kIdList, description, fit_key);
  r.is_default = member_is_default<M>;
  r.info.min = 1;
  r.info.max = static_cast<double>(max_entries);
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    auto ids = split(v, ',');
    // A longer list keeps its first `max` entries (a lenient decode goes on with them) and
    // the error names the ones it dropped.
    std::string dropped;
    const auto max = static_cast<std::size_t>(k.max);
    const std::size_t count = ids.size();
    for (std::size_t i = max; i < count; ++i) dropped += (dropped.empty() ? "" : ", ") + ids[i];
    if (count > max) ids.resize(max);
    for (std::size_t a = 0; a < ids.size(); ++a) {
      if (!detail::is_valid_id(ids[a])) return bad(k.key, "must list catalog ids separated by commas, got \"" + v + "\"");
      for (std::size_t b = 0; b < a; ++b) {
        if (ids[a] == ids[b]) return bad(k.key, "lists \"" + ids[a] + "\" twice");
      }
    }
    s.*M = ids;
    if (count > max) {
      Error e = range(k.key, "lists at most " + std::to_string(max) + " entries, got " + std::to_string(count) +
                                 ": kept the first " + std::to_string(max) + ", dropped " + dropped);
      e.params = {{"max", k.max}, {"count", static_cast<double>(count)}};
      return e;
    }
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) {
    for (std::size_t i = 0; i < (s.*M).size(); ++i) {
      if (i > 0) out += ',';
      out += (s.*M)[i];
    }
  };
  r.echo = [](const Scenario& s, JsonWriter& w) {
    w.begin_array();
    for (const auto& item : s.*M) w.value(item);
    w.end_array();
  };
  return r;
}

/** `price`: one US$/month figure per compared offering; "-" (or empty) keeps the catalog's. */
Row price_list(const char* key, double max, const char* description) {
  Row r = make_row(key, KeyKind::kNumberList, description, false);
  r.info.max = max;
  r.is_default = [](const Scenario& s, const Scenario&) { return s.price_usd_per_month.empty(); };
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    std::vector<double> prices;
    for (const auto& item : split(v, ',')) {
      double d = -1.0;
      if (!item.empty() && item != "-") {
        if (auto e = parse_num(k.key, item, k.min, k.max, false, d)) return e;
      }
      prices.push_back(d);
    }
    s.price_usd_per_month = prices;
    return std::nullopt;
  };
  r.finish = [](Scenario& s) -> std::optional<Error> {
    auto& prices = s.price_usd_per_month;
    if (prices.empty()) return std::nullopt;
    if (prices.size() > s.compare.size()) {
      Error e = range("price", "lists " + std::to_string(prices.size()) + " prices for " +
                                   std::to_string(s.compare.size()) + " compared offerings");
      e.params = {{"count", static_cast<double>(prices.size())},
                  {"max", static_cast<double>(s.compare.size())}};
      prices.clear();
      return e;
    }
    prices.resize(s.compare.size(), -1.0);
    bool any = false;
    for (double p : prices) any = any || p >= 0;
    if (!any) prices.clear();
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) {
    const auto& prices = s.price_usd_per_month;
    std::size_t last = 0;
    for (std::size_t i = 0; i < prices.size(); ++i) {
      if (prices[i] >= 0) last = i + 1;
    }
    for (std::size_t i = 0; i < last; ++i) {
      if (i > 0) out += ',';
      if (prices[i] >= 0) {
        append_plain_number(out, prices[i]);
      } else {
        out += '-';
      }
    }
  };
  r.echo = [](const Scenario& s, JsonWriter& w) {
    w.begin_array();
    for (std::size_t i = 0; i < s.compare.size(); ++i) {
      const bool set = i < s.price_usd_per_month.size() && s.price_usd_per_month[i] >= 0;
      if (set) w.value(s.price_usd_per_month[i]);
      else w.null();
    }
    w.end_array();
  };
  return r;
}

/** `weights`: a choice key that also records that the string named it; without it evaluate
 *  takes the model's default (native for a quantized release, else fp8). */
Row weights_row() {
  static const Row base = choice<&Scenario::weights>(
      "weights", "weight format; native: the release's own per weight group (the default for a model whose release is quantized, else fp8)",
      kFit);
  Row r = base;
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    auto e = base.set(k, v, s);
    if (!e) s.weights_from_model = false;
    return e;
  };
  r.unset = [](const Scenario& s) { return s.weights_from_model; };
  return r;
}

/** `servers`: units (servers or VMs) per compared offering; "-" (or empty) = 1; 0 = as many as
 *  the fit needs. Aligned with `compare` like `price`. */
Row server_list(const char* key, long long max, const char* description) {
  Row r = make_row(key, KeyKind::kNumberList, description, false);
  r.info.min = 0;
  r.info.max = static_cast<double>(max);
  r.is_default = [](const Scenario& s, const Scenario&) { return s.servers.empty(); };
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario& s) -> std::optional<Error> {
    std::vector<int> counts;
    for (const auto& item : split(v, ',')) {
      long long n = 1;
      if (!item.empty() && item != "-") {
        if (auto e = parse_int(k.key, item, static_cast<long long>(k.min), static_cast<long long>(k.max), n)) return e;
      }
      counts.push_back(static_cast<int>(n));
    }
    s.servers = counts;
    return std::nullopt;
  };
  r.finish = [](Scenario& s) -> std::optional<Error> {
    auto& counts = s.servers;
    if (counts.empty()) return std::nullopt;
    if (counts.size() > s.compare.size()) {
      Error e = range("servers", "lists " + std::to_string(counts.size()) + " counts for " +
                                     std::to_string(s.compare.size()) + " compared offerings");
      e.params = {{"count", static_cast<double>(counts.size())},
                  {"max", static_cast<double>(s.compare.size())}};
      counts.clear();
      return e;
    }
    counts.resize(s.compare.size(), 1);
    bool any = false;
    for (int n : counts) any = any || n != 1;
    if (!any) counts.clear();
    return std::nullopt;
  };
  r.text = [](const Scenario& s, std::string& out) {
    std::size_t last = 0;
    for (std::size_t i = 0; i < s.servers.size(); ++i) {
      if (s.servers[i] != 1) last = i + 1;
    }
    for (std::size_t i = 0; i < last; ++i) {
      if (i > 0) out += ',';
      detail::append_integer(out, s.servers[i]);
    }
  };
  r.echo = [](const Scenario& s, JsonWriter& w) {
    w.begin_array();
    for (std::size_t i = 0; i < s.compare.size(); ++i) {
      w.value(static_cast<long long>(i < s.servers.size() ? s.servers[i] : 1));
    }
    w.end_array();
  };
  return r;
}

/** `v`: the schema version. Older than 1 is out of range; newer is unsupported (the lenient
 *  decode still keeps the keys it knows). */
Row version_row() {
  Row r = make_row("v", KeyKind::kInteger, "schema version of the scenario string", kFit);
  r.is_default = [](const Scenario&, const Scenario&) { return true; };
  r.info.min = 1;
  r.info.max = kScenarioVersion;
  r.set = [](const ScenarioKey& k, const std::string& v, Scenario&) -> std::optional<Error> {
    long long version = 0;
    if (auto e = parse_int(k.key, v, 0, 1000000, version)) return e;
    const std::vector<std::pair<std::string, double>> params = {
        {"version", static_cast<double>(version)}, {"supported", kScenarioVersion}};
    if (version < 1) {
      Error e = range(k.key, "is " + v + "; versions start at 1 and this gpucalc reads version " +
                                 std::to_string(kScenarioVersion));
      e.params = params;
      return e;
    }
    if (version > kScenarioVersion) {
      Error e = make_error(ErrorCode::kUnsupportedVersion, k.key,
                           "is " + v + ", newer than this gpucalc reads (version " +
                               std::to_string(kScenarioVersion) + ")");
      e.params = params;
      return e;
    }
    return std::nullopt;
  };
  r.text = [](const Scenario&, std::string& out) { detail::append_integer(out, kScenarioVersion); };
  r.echo = [](const Scenario&, JsonWriter& w) { w.value(kScenarioVersion); };
  return r;
}

/** A request (input + output tokens) must fit in the context the deployment holds (vLLM's
 *  max_model_len), for inference; training reads `seq` instead. Reported on the key that can
 *  give way (input, else output, else context) with the other two keys in the params, and
 *  fixed up to that bound so a lenient decode still evaluates. */
std::optional<Error> request_fits_context(Scenario& s) {
  if (s.workload != Workload::kInference) return std::nullopt;
  const long long input = s.input_tokens, output = s.output_tokens, context = s.context_tokens;
  if (input + output <= context) return std::nullopt;
  std::string field;
  double min = 1, max = 0;
  if (output < context) {
    field = "input";
    max = static_cast<double>(context - output);
    s.input_tokens = context - output;
  } else if (input < context) {
    field = "output";
    max = static_cast<double>(context - input);
    s.output_tokens = context - input;
  } else {
    field = "context";
    min = static_cast<double>(input + output);
    max = static_cast<double>(kMaxScenarioTokens);
    s.context_tokens = std::min(input + output, kMaxScenarioTokens);
    if (s.input_tokens + s.output_tokens > s.context_tokens) {
      s.input_tokens = s.context_tokens / 2;
      s.output_tokens = s.context_tokens - s.input_tokens;
    }
  }
  Error e = make_error(ErrorCode::kRequestExceedsContext, field,
                       "a request of input " + std::to_string(input) + " + output " +
                           std::to_string(output) + " tokens is longer than context " +
                           std::to_string(context) +
                           " (the longest sequence the deployment holds); lower input or output, "
                           "or raise context");
  e.params = {{"min", min}, {"max", max}, {"input", static_cast<double>(input)},
              {"output", static_cast<double>(output)}, {"context", static_cast<double>(context)}};
  return e;
}

/** `row` with a cross-key check run once every key is read. */
Row with_finish(Row row, std::optional<Error> (*finish)(Scenario&)) {
  row.finish = finish;
  return row;
}

// The table. Order is the canonical order. A request holds at least one token in and one out,
// so `context` starts at 2 and `input`, `output` stop one short of the longest context. To add a key: a Scenario member (scenario.hpp) and
// one row here; docs/scenario.md's key table is checked against `gpucalc --keys` by the CLI contract.
const std::vector<Row>& rows() {
  static const std::vector<Row> table = [] {
    std::vector<Row> t = {
        version_row(),
        id<&Scenario::model, true>("model", "catalog model id, alias or Hugging Face repo id", kFit),
        weights_row(),
        choice<&Scenario::kv>("kv", "KV-cache format", kFit),
        integer<&Scenario::context_tokens>("context", 2, kMaxScenarioTokens, "longest sequence the deployment holds (vLLM max_model_len): sizes memory and the contexts that fit; input + output fits in it", kFit),
        integer<&Scenario::users>("users", 1, 1000000, "concurrent sequences", kFit),
        id_list<&Scenario::compare>("compare", kMaxCompared, "offering ids, comma separated", kFit),
        choice<&Scenario::capacity>("capacity", "capacity basis: device (what the card reports) or marketed (as sold)", kFit),
        number<&Scenario::reserve_gb_per_gpu>("reserve", 0, 1024, false, "GB per GPU held back for runtime, communication buffers, activations", kFit),
        price_list("price", 1e9, "US$/month per compared offering (one unit), comma separated; - keeps the catalog price"),
        server_list("servers", kMaxServers, "servers (units) per compared offering, comma separated; 0 = as many as needed, - = 1"),
        number<&Scenario::usd_per_kwh>("kwh", 0, 100, true, "US$ per kWh of energy (default: about the US industrial average, EIA 2024)"),
        choice<&Scenario::workload>("workload", "what the offering runs"),
        with_finish(integer<&Scenario::input_tokens>("input", 1, kMaxScenarioTokens - 1, "prompt tokens per request (prefill, TTFT, the KV a request holds)"),
                    request_fits_context),
        integer<&Scenario::output_tokens>("output", 1, kMaxScenarioTokens - 1, "generated tokens per request (decode, TPOT, cost per million tokens)"),
        integer<&Scenario::tp>("tp", 0, 1024, "GPUs per model instance; 0 = auto: one copy over the offering (most KV room)"),
        integer<&Scenario::seq_tokens>("seq", 1, 1048576, "training sequence length (tokens)"),
        integer<&Scenario::train_tokens>("tokens", 1, 1000000000000000LL, "training budget (tokens)"),
        number<&Scenario::utilization>("util", 0, 1, true, "fraction of the month the offering does useful work"),
        integer<&Scenario::zero_stage>("zero", 0, 3, "ZeRO stage for training (3 = FSDP)"),
        choice<&Scenario::recompute>("recompute", "activation recomputation"),
        integer<&Scenario::lora_rank>("rank", 1, 4096, "LoRA rank"),
        integer<&Scenario::micro_batch>("mb", 1, 4096, "training micro-batch (sequences per GPU)"),
        number<&Scenario::storage_usd>("storage", 0, 1e12, false, "US$ per run: storage"),
        number<&Scenario::network_usd>("network", 0, 1e12, false, "US$ per run: networking"),
        number<&Scenario::software_usd>("software", 0, 1e12, false, "US$ per run: software"),
        number<&Scenario::engineering_usd>("engineering", 0, 1e12, false, "US$ per run: attributable engineering and operations"),
        number<&Scenario::porting_usd>("porting", 0, 1e12, false, "US$ one-off: moving a CUDA stack to ROCm (AMD offerings only)"),
        number<&Scenario::recovery_fraction>("recovery", 0, 10, false, "fraction of compute lost to failures and restarts"),
        number<&Scenario::flops_efficiency>("flops_eff", 0, 1, false, "matmul fraction of peak; 0 = calibrated default"),
        number<&Scenario::bandwidth_efficiency>("bw_eff", 0, 1, false, "HBM fraction of peak; 0 = calibrated default"),
        number<&Scenario::ttft_max_s>("ttft_max", 0, 3600, false, "Mean TTFT limit in seconds (ttft_s, the first wave included; not the median) for max_throughput and the point at the interactivity target (and the disaggregated curve points); 0 = none"),
        number<&Scenario::tpot_max_s>("tpot_max", 0, 60, false, "TPOT limit in seconds for max_throughput; 0 = none"),
        number<&Scenario::interactivity>("interactivity", 0, 100000, false, "tokens/s per user: the curve's operating point at it; 0 = none"),
        integer<&Scenario::ep>("ep", 0, 1024, "expert-parallel degree inside an instance (MoE only); 0 = auto"),
        boolean<&Scenario::dpa>("dpa", "1 = data-parallel attention over the instance's GPUs (MoE only)"),
        engine_row(),
        integer<&Scenario::mtp>("mtp", 0, 16, "speculative (MTP) draft tokens per decode step; 0 = off"),
        integer<&Scenario::gate_steps>("gate", 0, 10000, "decode steps between the engine's intakes of new requests (SGLang --scheduler-recv-interval; TensorRT-LLM attention DP balance timeout_iters); 0 = the engine's default"),
        choice<&Scenario::pd>("pd", "prefill and decode: 0 = on the same workers, 1 = disaggregated (separate pools, KV moved between them), auto = the better for the target"),
        integer<&Scenario::prefill_workers>("prefill_workers", 0, 1024, "disaggregated: prefill workers; 0 = chosen"),
        integer<&Scenario::prefill_tp>("prefill_tp", 0, 1024, "disaggregated: GPUs per prefill worker; 0 = chosen"),
        integer<&Scenario::prefill_ep>("prefill_ep", 0, 1024, "disaggregated: expert-parallel degree of a prefill worker (MoE); 0 = chosen"),
        boolean<&Scenario::prefill_dpa>("prefill_dpa", "disaggregated: 1 = data-parallel attention on the prefill workers (MoE); 0 = chosen"),
        integer<&Scenario::decode_workers>("decode_workers", 0, 1024, "disaggregated: decode workers; 0 = chosen"),
        integer<&Scenario::decode_tp>("decode_tp", 0, 1024, "disaggregated: GPUs per decode worker; 0 = chosen"),
        integer<&Scenario::decode_ep>("decode_ep", 0, 1024, "disaggregated: expert-parallel degree of a decode worker (MoE); 0 = chosen"),
        boolean<&Scenario::decode_dpa>("decode_dpa", "disaggregated: 1 = data-parallel attention on the decode workers (MoE); 0 = chosen"),
        boolean<&Scenario::cuda_only>("cudaonly", "1 if the stack depends on CUDA-only libraries"),
        boolean<&Scenario::custom_kernels>("kernels", "1 if the stack has custom CUDA kernels"),
        boolean<&Scenario::tensorrt_llm>("trtllm", "1 if the stack uses TensorRT-LLM"),
    };
    for (Row& r : t) {
      r.text(defaults(), r.info.default_text);
      r.prefix = std::string("&") + r.info.key + "=";
    }
    return t;
  }();
  return table;
}

const Row* find_row(std::string_view key) {
  for (const Row& r : rows()) {
    if (key == r.info.key) return &r;
  }
  return nullptr;
}

/** Reads `text` into `out`. Strict (errors == nullptr): stops at the first error and returns it.
 *  Lenient: records every error, skips that key, and goes on. */
std::optional<Error> decode_into(std::string_view text, Scenario& out, std::vector<Error>* errors) {
  out.weights_from_model = true;  // until the string names weights
  auto report = [errors](const Error& e) -> bool {  // true: stop here
    if (errors == nullptr) return true;
    errors->push_back(e);
    return false;
  };
  if (text.size() > kMaxScenarioBytes) {
    return make_error(ErrorCode::kTooLarge, "scenario",
                      "is longer than " + std::to_string(kMaxScenarioBytes) + " characters");
  }
  if (!text.empty() && (text.front() == '#' || text.front() == '?')) text.remove_prefix(1);
  if (text.empty()) {
    return make_error(ErrorCode::kBadValue, "scenario", "is empty; the shortest scenario is v=1");
  }
  std::vector<const Row*> seen;
  for (const std::string& pair : split(std::string(text), '&')) {
    if (pair.empty()) continue;  // tolerate "a=1&&b=2" and a trailing '&'
    const std::size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq));
    std::optional<Error> e;
    if (!key || key->empty()) {
      e = bad("scenario", "has a pair without a key: \"" + pair.substr(0, 40) + "\"");
    } else if (eq == std::string::npos) {
      e = bad(*key, "has no value (write " + *key + "=...)");
    } else if (const Row* row = find_row(*key); row == nullptr) {
      std::string shown = key->size() > 40 ? key->substr(0, 40) + "..." : *key;
      e = make_error(ErrorCode::kUnknownKey, shown, "is not a scenario key (see gpucalc --keys)");
    } else if (std::find(seen.begin(), seen.end(), row) != seen.end()) {
      e = bad(*key, "appears twice");
      e->params = {{"repeated", 1.0}};  // the page words it apart from the key's rule
    } else {
      seen.push_back(row);
      auto value = percent_decode(pair.substr(eq + 1));
      if (!value) e = bad(*key, "has a malformed %-escape");
      else e = row->set(row->info, *value, out);
    }
    if (e && report(*e)) return e;
  }
  for (const Row& row : rows()) {
    if (row.finish == nullptr) continue;
    if (auto e = row.finish(out); e && report(*e)) return e;
  }
  return std::nullopt;
}

void write_inputs(JsonWriter& w, const Scenario& s) {
  w.begin_object();
  for (const Row& r : rows()) {
    w.key(r.info.key);
    r.echo(s, w);
  }
  w.end_object();
}

}  // namespace

namespace detail {

void write_error(JsonWriter& w, const Error& e) {
  w.begin_object();
  w.field("code", error_code_name(e.code));
  w.field("field", e.field);
  w.field("message", e.message);
  w.key("params").begin_object();
  for (const auto& [k, v] : e.params) w.field(k, v);
  w.end_object();
  w.end_object();
}
void write_scenario_inputs(JsonWriter& w, const Scenario& scenario) { write_inputs(w, scenario); }
}  // namespace detail

std::string format_scenario_number(double x) { return format_number(x); }

const char* key_kind_name(KeyKind kind) {
  switch (kind) {
    case KeyKind::kInteger: return "integer";
    case KeyKind::kNumber: return "number";
    case KeyKind::kBoolean: return "boolean";
    case KeyKind::kChoice: return "choice";
    case KeyKind::kId: return "id";
    case KeyKind::kIdList: return "id_list";
    case KeyKind::kNumberList: return "number_list";
  }
  return "integer";
}

const std::vector<ScenarioKey>& scenario_keys() {
  static const std::vector<ScenarioKey> keys = [] {
    std::vector<ScenarioKey> out;
    for (const Row& r : rows()) out.push_back(r.info);
    return out;
  }();
  return keys;
}

bool operator==(const Scenario& a, const Scenario& b) {
  return encode_scenario(a) == encode_scenario(b);
}

Result<Scenario> decode_scenario(std::string_view text) {
  Scenario s;
  if (auto e = decode_into(text, s, nullptr)) return *e;
  return s;
}

ScenarioDecode decode_scenario_lenient(std::string_view text) {
  ScenarioDecode out;
  if (auto e = decode_into(text, out.scenario, &out.errors)) {
    out.scenario = Scenario{};  // the whole string was unreadable (too long, empty)
    out.errors = {std::move(*e)};
  }
  return out;
}

namespace {

/** The canonical text; `omit_unset`: leave out the keys the string never named whose value is
 *  decided later (Row::unset), so the text still leaves them to the core. */
std::string encode_rows(const Scenario& s, bool omit_unset) {
  std::string out;
  out.reserve(160);
  const Scenario& d = defaults();
  for (const Row& r : rows()) {
    if (!r.info.fit_key && r.is_default(s, d)) continue;
    if (omit_unset && r.unset != nullptr && r.unset(s)) continue;
    out.append(r.prefix, out.empty() ? 1 : 0, std::string::npos);
    r.text(s, out);
  }
  return out;
}

}  // namespace

std::string encode_scenario(const Scenario& s) { return encode_rows(s, false); }

std::string scenario_inputs_json(const Scenario& scenario) {
  JsonWriter w;
  write_inputs(w, scenario);
  return std::move(w.str());
}

std::string scenario_schema_json() {
  JsonWriter w;
  w.begin_array();
  for (const Row& r : rows()) {
    const ScenarioKey& k = r.info;
    w.begin_object();
    w.field("key", k.key);
    w.field("kind", key_kind_name(k.kind));
    w.field("min", k.min);
    w.field("max", k.max);
    w.field("min_exclusive", k.min_exclusive);
    w.key("choices").begin_array();
    for (const auto& c : k.choices) w.value(c);
    w.end_array();
    w.key("default");
    r.echo(defaults(), w);
    w.field("default_text", k.default_text);
    w.field("description", k.description);
    w.field("fit_key", k.fit_key);
    w.end_object();
  }
  w.end_array();
  return std::move(w.str());
}

std::string scenario_decode_json(std::string_view text) {
  const ScenarioDecode d = decode_scenario_lenient(text);
  JsonWriter w;
  w.begin_object();
  // The page evaluates this text: weights the link never named stay the model's to decide.
  w.field("scenario", encode_rows(d.scenario, true));
  w.key("inputs");
  write_inputs(w, d.scenario);
  w.key("errors").begin_array();
  for (const auto& e : d.errors) detail::write_error(w, e);
  w.end_array();
  w.end_object();
  return std::move(w.str());
}

}  // namespace gpucalc
