#include "gpucalc/scenario.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpucalc/units.hpp"
#include "ids.hpp"

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
const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "selective";
}

const std::vector<ScenarioKeyInfo>& scenario_keys() {
  static const std::vector<ScenarioKeyInfo> keys = {
      {"v", "1", "schema version of the scenario string"},
      {"model", "llama-3.1-70b", "catalog model id"},
      {"weights", "fp8", "weight format: bf16 | fp8 | fp6 | fp4 | int4"},
      {"kv", "fp8", "KV-cache format: bf16 | fp8"},
      {"context", "131072", "tokens per sequence (1 to 16,777,216)"},
      {"users", "1", "concurrent sequences (1 to 1,000,000)"},
      {"compare", "fullgpu-8x-mi355x,fullgpu-8x-h200", "1 to 4 offering ids, comma separated"},
      {"capacity", "device", "capacity basis: device (what the card reports) | marketed (as sold)"},
      {"reserve", "5", "GB per GPU held back for runtime, communication buffers, activations"},
      {"price", "", "US$/month per compared offering, comma separated; - keeps the catalog price"},
      {"workload", "inference", "inference | pretrain | finetune | lora | qlora"},
      {"input", "1024", "prompt tokens per request"},
      {"output", "1024", "generated tokens per request"},
      {"tp", "0", "GPUs per model instance; 0 = auto: one copy over the offering (most KV room)"},
      {"seq", "4096", "training sequence length (tokens)"},
      {"tokens", "1000000000", "training budget (tokens)"},
      {"util", "0.7", "fraction of the month the offering does useful work (0 to 1)"},
      {"zero", "1", "ZeRO stage for training: 0 | 1 | 2 | 3 (3 = FSDP)"},
      {"recompute", "selective", "activation recomputation: none | selective | full"},
      {"rank", "16", "LoRA rank"},
      {"mb", "1", "training micro-batch (sequences per GPU)"},
      {"storage", "0", "US$ per run: storage"},
      {"network", "0", "US$ per run: networking"},
      {"software", "0", "US$ per run: software"},
      {"engineering", "0", "US$ per run: attributable engineering and operations"},
      {"porting", "0", "US$ one-off: moving a CUDA stack to ROCm (AMD offerings only)"},
      {"recovery", "0", "fraction of compute lost to failures and restarts (0 to 10)"},
      {"flops_eff", "0", "matmul fraction of peak; 0 = calibrated default"},
      {"bw_eff", "0", "HBM fraction of peak; 0 = calibrated default"},
      {"ttft_max", "0", "TTFT limit in seconds for max_throughput; 0 = none"},
      {"tpot_max", "0", "TPOT limit in seconds for max_throughput; 0 = none"},
      {"interactivity", "0", "tokens/s per user: the curve's operating point at it; 0 = none"},
      {"ep", "0", "expert-parallel degree inside an instance (MoE only); 0 = auto"},
      {"dpa", "0", "1 = data-parallel attention over the instance's GPUs (MoE only)"},
      {"engine", "auto", "serving engine: auto | vllm | sglang | trtllm (NVIDIA) | atom (AMD)"},
      {"mtp", "0", "speculative (MTP) draft tokens per decode step; 0 = off"},
      {"cudaonly", "0", "1 if the stack depends on CUDA-only libraries"},
      {"kernels", "0", "1 if the stack has custom CUDA kernels"},
      {"trtllm", "0", "1 if the stack uses TensorRT-LLM"},
  };
  return keys;
}

namespace {

constexpr long long kMaxTokens = 16777216;

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
  if (s.empty() || s.size() > 32) return false;
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
  if (x < min || x > max) return range(key, "must be" + limits + ", got " + v);
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
    return range(key, "must be" + limits + ", got " + v);
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

std::string format_number(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    return std::to_string(static_cast<long long>(x));
  }
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;
  if (s.find('e') != std::string::npos) {  // the codec accepts plain decimals only
    std::snprintf(buf, sizeof buf, "%.12f", x);
    s = buf;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

std::optional<Error> parse_bool(const std::string& key, const std::string& v, bool& out) {
  if (v == "1") out = true;
  else if (v == "0") out = false;
  else return bad(key, "must be 0 or 1, got \"" + v + "\"");
  return std::nullopt;
}

std::optional<Error> apply(Scenario& s, const std::string& key, const std::string& v,
                           std::vector<std::string>& price_texts) {
  long long i = 0;
  double d = 0;
  std::optional<Error> e;
  if (key == "model") {
    if (!detail::is_valid_id(v)) return bad(key, "must be a catalog model id (a-z 0-9 . _ -), got \"" + v + "\"");
    s.model = v;
  } else if (key == "weights") {
    auto f = parse_weight_format(v);
    if (!f) return bad(key, "must be bf16, fp8, fp6, fp4 or int4, got \"" + v + "\"");
    s.weights = *f;
  } else if (key == "kv") {
    auto f = parse_kv_format(v);
    if (!f) return bad(key, "must be bf16 or fp8, got \"" + v + "\"");
    s.kv = *f;
  } else if (key == "context") {
    if (!(e = parse_int(key, v, 1, kMaxTokens, i))) s.context_tokens = i;
  } else if (key == "users") {
    if (!(e = parse_int(key, v, 1, 1000000, i))) s.users = i;
  } else if (key == "compare") {
    auto ids = split(v, ',');
    if (ids.size() > kMaxCompared) return range(key, "lists at most 4 offerings, got " + std::to_string(ids.size()));
    for (std::size_t a = 0; a < ids.size(); ++a) {
      if (!detail::is_valid_id(ids[a])) return bad(key, "must list offering ids separated by commas, got \"" + v + "\"");
      for (std::size_t b = 0; b < a; ++b) {
        if (ids[a] == ids[b]) return bad(key, "lists \"" + ids[a] + "\" twice");
      }
    }
    s.compare = ids;
  } else if (key == "capacity") {
    if (v == "device") s.capacity = CapacityBasis::kDevice;
    else if (v == "marketed") s.capacity = CapacityBasis::kMarketed;
    else return bad(key, "must be device or marketed, got \"" + v + "\"");
  } else if (key == "reserve") {
    if (!(e = parse_num(key, v, 0, 1024, false, d))) s.reserve_gb_per_gpu = d;
  } else if (key == "price") {
    price_texts = split(v, ',');
  } else if (key == "workload") {
    static const Workload all[] = {Workload::kInference, Workload::kPretrain, Workload::kFinetune,
                                   Workload::kLora, Workload::kQlora};
    bool found = false;
    for (Workload w : all) {
      if (v == workload_name(w)) { s.workload = w; found = true; }
    }
    if (!found) return bad(key, "must be inference, pretrain, finetune, lora or qlora, got \"" + v + "\"");
  } else if (key == "input") {
    if (!(e = parse_int(key, v, 1, kMaxTokens, i))) s.input_tokens = i;
  } else if (key == "output") {
    if (!(e = parse_int(key, v, 1, kMaxTokens, i))) s.output_tokens = i;
  } else if (key == "tp") {
    if (!(e = parse_int(key, v, 0, 1024, i))) s.tp = static_cast<int>(i);
  } else if (key == "seq") {
    if (!(e = parse_int(key, v, 1, 1048576, i))) s.seq_tokens = i;
  } else if (key == "tokens") {
    if (!(e = parse_int(key, v, 1, 1000000000000000LL, i))) s.train_tokens = static_cast<double>(i);
  } else if (key == "util") {
    if (!(e = parse_num(key, v, 0, 1, true, d))) s.utilization = d;
  } else if (key == "zero") {
    if (!(e = parse_int(key, v, 0, 3, i))) s.zero_stage = static_cast<int>(i);
  } else if (key == "recompute") {
    if (v == "none") s.recompute = Recompute::kNone;
    else if (v == "selective") s.recompute = Recompute::kSelective;
    else if (v == "full") s.recompute = Recompute::kFull;
    else return bad(key, "must be none, selective or full, got \"" + v + "\"");
  } else if (key == "rank") {
    if (!(e = parse_int(key, v, 1, 4096, i))) s.lora_rank = static_cast<int>(i);
  } else if (key == "mb") {
    if (!(e = parse_int(key, v, 1, 4096, i))) s.micro_batch = static_cast<int>(i);
  } else if (key == "storage" || key == "network" || key == "software" || key == "engineering" ||
             key == "porting") {
    if ((e = parse_num(key, v, 0, 1e12, false, d))) return e;
    (key == "storage" ? s.storage_usd : key == "network" ? s.network_usd
     : key == "software" ? s.software_usd : key == "engineering" ? s.engineering_usd
     : s.porting_usd) = d;
  } else if (key == "recovery") {
    if (!(e = parse_num(key, v, 0, 10, false, d))) s.recovery_fraction = d;
  } else if (key == "flops_eff") {
    if (!(e = parse_num(key, v, 0, 1, false, d))) s.flops_efficiency = d;
  } else if (key == "bw_eff") {
    if (!(e = parse_num(key, v, 0, 1, false, d))) s.bandwidth_efficiency = d;
  } else if (key == "ttft_max") {
    if (!(e = parse_num(key, v, 0, 3600, false, d))) s.ttft_max_s = d;
  } else if (key == "tpot_max") {
    if (!(e = parse_num(key, v, 0, 60, false, d))) s.tpot_max_s = d;
  } else if (key == "interactivity") {
    if (!(e = parse_num(key, v, 0, 100000, false, d))) s.interactivity = d;
  } else if (key == "ep") {
    if (!(e = parse_int(key, v, 0, 1024, i))) s.ep = static_cast<int>(i);
  } else if (key == "dpa") {
    bool b = false;
    if (!(e = parse_bool(key, v, b))) s.dpa = b ? 1 : 0;
  } else if (key == "engine") {
    if (v != "auto" && v != "vllm" && v != "sglang" && v != "trtllm" && v != "atom") {
      return bad(key, "must be auto, vllm, sglang, trtllm or atom, got \"" + v.substr(0, 40) + "\"");
    }
    s.engine = v;
  } else if (key == "mtp") {
    if (!(e = parse_int(key, v, 0, 16, i))) s.mtp = static_cast<int>(i);
  } else if (key == "cudaonly") {
    e = parse_bool(key, v, s.cuda_only);
  } else if (key == "kernels") {
    e = parse_bool(key, v, s.custom_kernels);
  } else if (key == "trtllm") {
    e = parse_bool(key, v, s.tensorrt_llm);
  } else {
    std::string shown = key.size() > 40 ? key.substr(0, 40) + "..." : key;
    return make_error(ErrorCode::kUnknownKey, shown, "is not a scenario key (see README: scenario keys)");
  }
  return e;
}

}  // namespace

bool operator==(const Scenario& a, const Scenario& b) {
  return encode_scenario(a) == encode_scenario(b);
}

Result<Scenario> decode_scenario(std::string_view text) {
  if (text.size() > kMaxScenarioBytes) {
    return make_error(ErrorCode::kTooLarge, "scenario",
                      "is longer than " + std::to_string(kMaxScenarioBytes) + " characters");
  }
  if (!text.empty() && (text.front() == '#' || text.front() == '?')) text.remove_prefix(1);
  if (text.empty()) {
    return make_error(ErrorCode::kBadValue, "scenario", "is empty; the shortest scenario is v=1");
  }
  Scenario s;
  std::vector<std::string> seen;
  std::vector<std::string> price_texts;
  bool has_version = false;
  for (const std::string& pair : split(std::string(text), '&')) {
    if (pair.empty()) continue;  // tolerate "a=1&&b=2" and a trailing '&'
    const std::size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq));
    if (!key || key->empty()) return bad("scenario", "has a pair without a key: \"" + pair.substr(0, 40) + "\"");
    if (eq == std::string::npos) return bad(*key, "has no value (write " + *key + "=...)");
    auto value = percent_decode(pair.substr(eq + 1));
    if (!value) return bad(*key, "has a malformed %-escape");
    for (const auto& k : seen) {
      if (k == *key) return bad(*key, "appears twice");
    }
    seen.push_back(*key);
    if (*key == "v") {
      long long version = 0;
      if (auto e = parse_int("v", *value, 0, 1000000, version)) return *e;
      if (version != kScenarioVersion) {
        return make_error(ErrorCode::kUnsupportedVersion, "v",
                          "is " + *value + "; this gpucalc reads version 1 scenarios");
      }
      has_version = true;
      continue;
    }
    if (auto e = apply(s, *key, *value, price_texts)) return *e;
  }
  (void)has_version;  // a string without v= is read as the current version
  if (!price_texts.empty()) {
    if (price_texts.size() > s.compare.size()) {
      return range("price", "lists " + std::to_string(price_texts.size()) + " prices for " +
                                std::to_string(s.compare.size()) + " compared offerings");
    }
    s.price_usd_per_month.assign(s.compare.size(), -1.0);
    for (std::size_t i = 0; i < price_texts.size(); ++i) {
      if (price_texts[i].empty() || price_texts[i] == "-") continue;
      double d = 0;
      if (auto e = parse_num("price", price_texts[i], 0, 1e9, false, d)) return *e;
      s.price_usd_per_month[i] = d;
    }
    bool any = false;
    for (double p : s.price_usd_per_month) any = any || p >= 0;
    if (!any) s.price_usd_per_month.clear();
  }
  return s;
}

std::string encode_scenario(const Scenario& s) {
  const Scenario d;
  std::string out = "v=" + std::to_string(kScenarioVersion);
  auto put = [&out](const char* key, const std::string& value) {
    out += '&';
    out += key;
    out += '=';
    out += value;
  };
  put("model", s.model);
  put("weights", weight_format_name(s.weights));
  put("kv", kv_format_name(s.kv));
  put("context", std::to_string(s.context_tokens));
  put("users", std::to_string(s.users));
  std::string ids;
  for (std::size_t i = 0; i < s.compare.size(); ++i) ids += (i ? "," : "") + s.compare[i];
  put("compare", ids);
  put("capacity", capacity_basis_name(s.capacity));
  put("reserve", format_number(s.reserve_gb_per_gpu));
  if (!s.price_usd_per_month.empty()) {
    std::string prices;
    std::size_t last = 0;
    for (std::size_t i = 0; i < s.price_usd_per_month.size(); ++i) {
      if (s.price_usd_per_month[i] >= 0) last = i + 1;
    }
    for (std::size_t i = 0; i < last; ++i) {
      prices += (i ? "," : "");
      prices += s.price_usd_per_month[i] >= 0 ? format_number(s.price_usd_per_month[i]) : "-";
    }
    if (last > 0) put("price", prices);
  }
  if (s.workload != d.workload) put("workload", workload_name(s.workload));
  if (s.input_tokens != d.input_tokens) put("input", std::to_string(s.input_tokens));
  if (s.output_tokens != d.output_tokens) put("output", std::to_string(s.output_tokens));
  if (s.tp != d.tp) put("tp", std::to_string(s.tp));
  if (s.seq_tokens != d.seq_tokens) put("seq", std::to_string(s.seq_tokens));
  if (s.train_tokens != d.train_tokens) put("tokens", format_number(s.train_tokens));
  if (s.utilization != d.utilization) put("util", format_number(s.utilization));
  if (s.zero_stage != d.zero_stage) put("zero", std::to_string(s.zero_stage));
  if (s.recompute != d.recompute) put("recompute", recompute_name(s.recompute));
  if (s.lora_rank != d.lora_rank) put("rank", std::to_string(s.lora_rank));
  if (s.micro_batch != d.micro_batch) put("mb", std::to_string(s.micro_batch));
  if (s.storage_usd != 0) put("storage", format_number(s.storage_usd));
  if (s.network_usd != 0) put("network", format_number(s.network_usd));
  if (s.software_usd != 0) put("software", format_number(s.software_usd));
  if (s.engineering_usd != 0) put("engineering", format_number(s.engineering_usd));
  if (s.porting_usd != 0) put("porting", format_number(s.porting_usd));
  if (s.recovery_fraction != 0) put("recovery", format_number(s.recovery_fraction));
  if (s.flops_efficiency != 0) put("flops_eff", format_number(s.flops_efficiency));
  if (s.bandwidth_efficiency != 0) put("bw_eff", format_number(s.bandwidth_efficiency));
  if (s.ttft_max_s != 0) put("ttft_max", format_number(s.ttft_max_s));
  if (s.tpot_max_s != 0) put("tpot_max", format_number(s.tpot_max_s));
  if (s.interactivity != 0) put("interactivity", format_number(s.interactivity));
  if (s.ep != d.ep) put("ep", std::to_string(s.ep));
  if (s.dpa != d.dpa) put("dpa", std::to_string(s.dpa));
  if (s.engine != d.engine) put("engine", s.engine);
  if (s.mtp != d.mtp) put("mtp", std::to_string(s.mtp));
  if (s.cuda_only) put("cudaonly", "1");
  if (s.custom_kernels) put("kernels", "1");
  if (s.tensorrt_llm) put("trtllm", "1");
  return out;
}

}  // namespace gpucalc
