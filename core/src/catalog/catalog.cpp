#include "gpucalc/catalog.hpp"
#include "gpucalc/error_bands.hpp"
#include "model/serving.hpp"
#include "gpucalc/serving_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>

#include "catalog/bounds.hpp"
#include "model/pricing.hpp"
#include "gpucalc/units.hpp"
#include "catalog/json_fields.hpp"
#include "catalog/model_fields.hpp"
#include "catalog/json_strict.hpp"

namespace gpucalc {

using detail::Fields;
using detail::Json;

namespace {

// Smallest rates a catalog may state (the same floor as memory_bandwidth_tbps): anything lower
// is a typo or a hostile figure, and would make throughput zero and the price per token US$0.
constexpr double kMinTflops = 0.001;
constexpr double kMinTbps = 0.001;
constexpr double kMinGbps = 0.001;

std::string entry_path(std::string_view source, const char* array, std::size_t i,
                       const Json& item) {
  std::string path = std::string(source) + ": " + array + "[" + std::to_string(i) + "]";
  if (item.is_object() && item.contains("id") && item["id"].is_string()) {
    path += "(" + item["id"].get<std::string>() + ")";
  }
  return path;
}

// Longest Chinese text a catalog field may carry, in bytes of UTF-8: a sentence, not a document.
constexpr std::size_t kMaxZhTextBytes = 1000;

/**
 * `<field>_zh` beside each of `fields` (a string of at most kMaxZhTextBytes, only beside the
 * field it translates) and `zh_source`, required when any is given. Any other `*_zh` key is an
 * error: a typo would otherwise leave English on the Chinese page without a word.
 */
void read_zh(const Json& item, Fields& f, std::initializer_list<const char*> fields, ZhText& zh) {
  for (auto it = item.begin(); it != item.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() < 3 || key.compare(key.size() - 3, 3, "_zh") != 0) continue;
    const std::string field = key.substr(0, key.size() - 3);
    if (std::find(fields.begin(), fields.end(), field) == fields.end()) {
      std::string known;
      for (const char* k : fields) known += (known.empty() ? "" : ", ") + std::string(k) + "_zh";
      return f.fail(key, "is not a translatable field (these are: " + known + ")");
    }
    if (it->is_null()) continue;
    std::string text;
    f.str(key.c_str(), text, true);
    if (!f.ok()) return;
    if (text.size() > kMaxZhTextBytes) {
      return f.fail(key, "must be at most " + std::to_string(kMaxZhTextBytes) + " bytes");
    }
    if (!f.has(field.c_str())) return f.fail(key, "needs " + field + " beside it (the text it translates)");
    zh.fields.emplace_back(field, std::move(text));
  }
  f.str("zh_source", zh.source, false);
  if (f.ok() && !zh.fields.empty() && zh.source.empty()) {
    f.fail("zh_source", "is required beside *_zh text (the vendor's page, or \"translated by gpucalc\")");
  }
}

void read_common(Fields& f, std::string& id, std::string& name, std::vector<std::string>& sources,
                 std::string& note) {
  f.str("id", id, true);
  if (f.ok() && !detail::is_valid_id(id)) f.fail("id", "must be 1-64 characters of a-z 0-9 . _ -");
  f.str("name", name, true);
  f.strings("sources", sources);
  f.strings("source", sources);
  if (f.ok() && sources.empty()) f.fail("sources", "is required: every figure carries its source");
  f.str("note", note, false);
}

std::optional<SourcedFigure> read_figure(Fields& parent, const char* key, double scale,
                                         double min, double max) {
  auto sub = parent.object(key);
  if (!sub) return std::nullopt;
  SourcedFigure fig;
  sub->num("value", fig.value, true, min, max);
  sub->boolean("estimate", fig.estimate);
  std::vector<std::string> src;
  sub->strings("source", src);
  if (sub->ok() && src.empty()) sub->fail("source", "is required for an achieved figure");
  if (!src.empty()) fig.source = src.front();
  parent.adopt(*sub);
  if (!parent.ok()) return std::nullopt;
  fig.value *= scale;
  return fig;
}

Result<Gpu> parse_gpu(const Json& item, const std::string& path) {
  if (!item.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  Fields f(item, path, true);
  Gpu g;
  read_common(f, g.id, g.name, g.sources, g.note);
  f.str("vendor", g.vendor, true);
  if (f.ok() && g.vendor != "amd" && g.vendor != "nvidia") {
    f.fail("vendor", "must be \"amd\" or \"nvidia\"");
  }
  f.str("architecture", g.architecture, true);
  // A projected part (announced, never measured) carries the vendor's claims only; a figure no
  // source gives stays unset, and the computations that need it say so (projected_gap).
  f.boolean("projected", g.projected);
  f.str("memory_type", g.memory_type, false);
  f.str("form_factor", g.form_factor, false);
  f.str("sm", g.arch_target, false);
  f.str("gfx", g.arch_target, false);
  double hbm_gb = 0;
  f.num("hbm_gb", hbm_gb, true, 1.0, 100000.0);
  g.hbm_marketed_bytes = hbm_gb * kBytesPerGB;
  std::optional<double> mib;
  f.opt_num("hbm_device_mib", mib, 1024.0, 1e8);  // 1 GiB .. 100 TB, as hbm_gb
  if (mib) g.hbm_device_bytes = *mib * kBytesPerMiB;
  double tbps = 0;
  f.num("memory_bandwidth_tbps", tbps, true, 0.001, 1000.0);
  g.memory_bandwidth_bytes_per_s = tbps * kBytesPerTB;
  if (auto peaks = f.object("peak_tflops")) {
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
      std::optional<double> t;
      peaks->opt_num(precision_name(static_cast<Precision>(i)), t, 0.0, 1e7);
      if (t && *t > 0 && *t < kMinTflops) {
        peaks->fail(precision_name(static_cast<Precision>(i)),
                    "must be null, 0 (no native path) or at least 0.001 TFLOPS");
      }
      if (t && *t > 0) g.peak_flops_per_s[i] = *t * kFlopsPerTflop;
    }
    f.adopt(*peaks);
  } else if (f.ok()) {
    f.fail("peak_tflops", "is required (dense TFLOPS per precision, null where not native)");
  }
  if (f.ok() && !g.projected && !g.peak_flops_per_s[index_of(Precision::kBf16)]) {
    f.fail("peak_tflops.bf16", "is required: every catalog GPU has a BF16 matrix path (unset only on a projected part)");
  }
  f.str("fp8_format", g.fp8_format, false);
  std::string fp4;
  f.str("fp4_format", fp4, false);
  if (fp4 == "mxfp4") g.fp4_native = Fp4Encoding::kMxfp4;
  else if (fp4 == "nvfp4") g.fp4_native = Fp4Encoding::kNvfp4;
  else if (!fp4.empty()) f.fail("fp4_format", "must be \"mxfp4\", \"nvfp4\" or null");
  if (f.ok() && g.fp4_native.has_value() != g.peak_flops_per_s[index_of(Precision::kFp4)].has_value()) {
    f.fail("fp4_format", "must be set exactly when peak_tflops.fp4 is");
  }
  f.opt_num("tdp_w", g.tdp_w, 1.0, 100000.0);
  if (f.ok() && !g.projected && !g.tdp_w) f.fail("tdp_w", "is required (unset only on a projected part)");
  g.all_in_power_w = read_figure(f, "all_in_kw_per_gpu", kWattsPerKilowatt, 0.001, 1000.0);
  f.str("cooling", g.cooling, false);
  if (auto ic = f.object("interconnect")) {
    ic->str("kind", g.interconnect.kind, true);
    std::string topo;
    ic->str("topology", topo, true);
    if (topo == "switch") g.interconnect.topology = Topology::kSwitch;
    else if (topo == "full_mesh") g.interconnect.topology = Topology::kFullMesh;
    else if (ic->ok()) ic->fail("topology", "must be \"switch\" or \"full_mesh\"");
    // A projected part may leave the link count and rate unset (0): only the per-GPU figure
    // enters a computation.
    ic->integer("links", g.interconnect.links, !g.projected, 1, 1024);
    double link_gbps = 0, gpu_gbps = 0;
    ic->num("link_gbps", link_gbps, !g.projected, 0.001, 1e6);
    ic->num("per_gpu_gbps", gpu_gbps, true, 0.001, 1e6);
    g.interconnect.link_bandwidth_bytes_per_s = link_gbps * kBytesPerGB;
    g.interconnect.per_gpu_bandwidth_bytes_per_s = gpu_gbps * kBytesPerGB;
    ic->integer("scale_up_gpus", g.interconnect.scale_up_gpus, true, 1, 1024);
    ic->str("scale_up_source", g.interconnect.scale_up_source, true);
    g.interconnect.allreduce_latency_s =
        read_figure(*ic, "allreduce_latency_us", kSecondsPerMicrosecond, 0.001, 1e6);
    g.interconnect.alltoall_latency_s =
        read_figure(*ic, "alltoall_latency_us", kSecondsPerMicrosecond, 0.001, 1e6);
    f.adopt(*ic);
  } else if (f.ok()) {
    f.fail("interconnect", "is required");
  }
  if (auto ach = f.object("achieved")) {
    if (auto mm = ach->object("matmul_tflops")) {
      for (std::size_t i = 0; i < kPrecisionCount; ++i) {
        g.achieved_matmul_flops_per_s[i] =
            read_figure(*mm, precision_name(static_cast<Precision>(i)), kFlopsPerTflop,
                        kMinTflops, 1e7);
      }
      ach->adopt(*mm);
    }
    g.achieved_hbm_bytes_per_s = read_figure(*ach, "hbm_tbps", kBytesPerTB, kMinTbps, 1000.0);
    g.achieved_allreduce_bus_bytes_per_s =
        read_figure(*ach, "allreduce_bus_gbps", kBytesPerGB, kMinGbps, 1e6);
    f.adopt(*ach);
  }
  read_zh(item, f, {"form_factor", "note"}, g.zh);
  f.refuse_unread();
  if (!f.ok()) return f.error();
  return g;
}

Result<Offering> parse_offering(const Json& item, const std::string& path) {
  if (!item.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  Fields f(item, path, true);
  Offering o;
  read_common(f, o.id, o.name, o.sources, o.note);
  f.str("provider", o.provider, false);
  f.str("gpu", o.gpu_id, true);
  f.integer("gpu_count", o.gpu_count, true, 1, 1024);
  f.str("kind", o.kind, false);
  // A price is at least a cent a month or null (unpriced): a price of 0, or 1e-320, won
  // every comparison and made per-token ratios of 1e34.
  const detail::Bound& price = detail::kPriceUsdPerMonth;
  f.opt_num("price_usd_per_month", o.price_usd_per_month, price.min, price.max);
  f.opt_num("price_usd_per_gpu_hour", o.listed_usd_per_gpu_hour, 0.0, 1e6);
  if (o.listed_usd_per_gpu_hour) {
    if (o.price_usd_per_month) {
      f.fail("price_usd_per_gpu_hour", "must not be given beside price_usd_per_month");
    } else {
      o.price_usd_per_month = price_usd_per_month_from_gpu_hour(*o.listed_usd_per_gpu_hour, o.gpu_count);
      if (!(*o.price_usd_per_month >= price.min)) {
        f.fail("price_usd_per_gpu_hour", "gives less than US$0.01 a month (give a price of at least a "
                                         "cent a month, or null: unpriced)");
      }
    }
  }
  f.str("tier", o.tier, false);
  if (f.ok() && !o.tier.empty() && o.tier != "provider" && o.tier != "hyperscaler" &&
      o.tier != "neocloud" && o.tier != "rental-3y") {
    f.fail("tier", "must be provider, hyperscaler, neocloud or rental-3y");
  }
  f.str("price_source", o.price_source, false);
  f.str("price_date", o.price_date, false);
  f.boolean("price_estimate", o.price_estimate);
  f.str("scale_out", o.scale_out_id, false);
  f.str("cpu", o.cpu, false);
  f.str("ram", o.ram, false);
  f.str("storage", o.storage, false);
  f.str("network", o.network, false);
  f.str("availability", o.availability, false);
  read_zh(item, f, {"name", "cpu", "ram", "storage", "network", "availability", "note"}, o.zh);
  f.refuse_unread();
  if (!f.ok()) return f.error();
  return o;
}

/** A network's "ep_all_to_all" object (EpAllToAll): the small batch, a dispatch and combine
 *  time per EP size given ("dispatch_us_ep16" ...; both or neither), the large-batch bandwidth
 *  per GPU and the NIC line rate they were measured on. */
void read_ep_all_to_all(Fields& f, Network& n) {
  auto sub = f.object("ep_all_to_all");
  if (!sub) return;
  EpAllToAll a;
  sub->num("tokens_per_rank", a.tokens_per_rank, true, 1.0, 1e6);
  sub->num("hidden", a.hidden, true, 1.0, 1e6);
  sub->num("top_k", a.top_k, true, 1.0, 1024.0);
  double nic_gbit = 0.0;
  sub->num("figure_nic_gbit_per_s", nic_gbit, true, 0.001, 1e6);
  a.figure_nic_bytes_per_s = nic_gbit * kBytesPerGB / kBitsPerByte;
  sub->strings("sources", a.sources);
  sub->strings("source", a.sources);
  if (sub->ok() && a.sources.empty()) sub->fail("sources", "is required: every figure carries its source");
  bool any = false;
  for (int i = 0; i < EpAllToAll::kSizes; ++i) {
    const std::string ep = std::to_string(EpAllToAll::kEp[i]);
    const std::string d = "dispatch_us_ep" + ep, c = "combine_us_ep" + ep;
    a.dispatch_s[i] = read_figure(*sub, d.c_str(), kSecondsPerMicrosecond, 0.001, 1e6);
    a.combine_s[i] = read_figure(*sub, c.c_str(), kSecondsPerMicrosecond, 0.001, 1e6);
    if (sub->ok() && a.dispatch_s[i].has_value() != a.combine_s[i].has_value()) {
      sub->fail(a.dispatch_s[i] ? c : d, "is required beside " + (a.dispatch_s[i] ? d : c));
    }
    any = any || a.dispatch_s[i].has_value();
  }
  if (sub->ok() && !any) sub->fail("dispatch_us_ep16", "is required (a dispatch and combine time for EP 16, 32 or 64)");
  auto dispatch = read_figure(*sub, "rdma_dispatch_gbps_per_gpu", kBytesPerGB, kMinGbps, 1e6);
  auto combine = read_figure(*sub, "rdma_combine_gbps_per_gpu", kBytesPerGB, kMinGbps, 1e6);
  if (sub->ok() && !dispatch) sub->fail("rdma_dispatch_gbps_per_gpu", "is required ({\"value\": GB/s, \"source\": ...})");
  if (sub->ok() && !combine) sub->fail("rdma_combine_gbps_per_gpu", "is required ({\"value\": GB/s, \"source\": ...})");
  f.adopt(*sub);
  if (!f.ok()) return;
  a.rdma_dispatch_bytes_per_s = *dispatch;
  a.rdma_combine_bytes_per_s = *combine;
  n.ep_all_to_all = std::move(a);
}

Result<Network> parse_network(const Json& item, const std::string& path) {
  if (!item.is_object()) return make_error(ErrorCode::kInvalidCatalog, path, "must be an object");
  Fields f(item, path, true);
  Network n;
  read_common(f, n.id, n.name, n.sources, n.note);
  f.str("kind", n.kind, false);
  f.integer("nics_per_server", n.nics_per_server, true, 1, 1024);
  double gbit = 0;
  f.num("nic_gbit_per_s", gbit, true, 0.001, 1e6);
  n.nic_line_rate_bytes_per_s = gbit * kBytesPerGB / kBitsPerByte;
  auto achieved = read_figure(f, "achieved_gbps_per_nic", kBytesPerGB, kMinGbps, 1e6);
  auto latency = read_figure(f, "latency_us", kSecondsPerMicrosecond, 0.0, 1e6);
  if (f.ok() && !achieved) f.fail("achieved_gbps_per_nic", "is required ({\"value\": GB/s, \"source\": ...})");
  if (f.ok() && !latency) f.fail("latency_us", "is required ({\"value\": us, \"source\": ...})");
  if (f.ok() && !(achieved->value > 0.0)) f.fail("achieved_gbps_per_nic", "must be more than 0");
  read_ep_all_to_all(f, n);
  f.refuse_unread();
  if (!f.ok()) return f.error();
  n.achieved_bytes_per_s_per_nic = *achieved;
  n.latency_s = *latency;
  return n;
}

template <class T, class Parse>
std::optional<Error> parse_array(const Json& doc, const char* key, std::string_view source,
                                 std::vector<T>& out, Parse parse) {
  if (!doc.contains(key)) return std::nullopt;
  const Json& arr = doc.at(key);
  if (!arr.is_array()) {
    return make_error(ErrorCode::kInvalidCatalog, std::string(source) + ": " + key,
                      "must be an array");
  }
  if (arr.size() > 10000) {
    return make_error(ErrorCode::kTooLarge, std::string(source) + ": " + key,
                      "holds more than 10,000 entries");
  }
  const std::size_t first = out.size();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string path = entry_path(source, key, i, arr[i]);
    auto r = parse(arr[i], path);
    if (!r) return r.error();
    for (std::size_t j = first; j < out.size(); ++j) {
      if (out[j].id == r.value().id) {
        return make_error(ErrorCode::kInvalidCatalog, path + ".id",
                          "\"" + r.value().id + "\" is used twice in this file (first at " + key +
                              "[" + std::to_string(j - first) + "])");
      }
    }
    out.push_back(std::move(r).value());
  }
  return std::nullopt;
}

template <class T>
void merge_by_id(std::vector<T>& base, std::vector<T>& extra) {
  for (auto& item : extra) {
    auto it = std::find_if(base.begin(), base.end(), [&](const T& b) { return b.id == item.id; });
    if (it != base.end()) *it = std::move(item);
    else base.push_back(std::move(item));
  }
}

template <class T>
const T* find_by_id(const std::vector<T>& items, std::string_view id) {
  for (const auto& item : items) {
    if (item.id == id) return &item;
  }
  return nullptr;
}

// Documents named by their "schema": one row per kind, reading the text into a partial catalog
// and merging that into a base. A new kind of data file is a Catalog member and one row here.
struct DocumentKind {
  std::string_view schema;
  std::optional<Error> (*read)(std::string_view text, const std::string& source, Catalog& part);
  void (*merge)(Catalog& base, Catalog& part);
};

/** A document's parse error with the file it came from in front of its field. */
Error from_source(Error e, const std::string& source) {
  e.field = source + ": " + e.field;
  return e;
}

const DocumentKind kDocumentKinds[] = {
    {kCalibrationSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto rec = parse_calibration_record(text, source);
       if (!rec) return rec.error();
       part.calibrations.push_back(std::move(rec).value());
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       for (auto& rec : part.calibrations) base.calibrations.push_back(std::move(rec));
     }},
    {kPerformanceSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto constants = parse_model_constants(text);
       if (!constants) return from_source(constants.error(), source);
       part.constants = constants.value();
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       if (part.constants) {
         base.constants = part.constants;
         base.supplied.constants = part.supplied.constants;
       }
     }},
    {kEnginesSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto engines = parse_engines(text);
       if (!engines) return from_source(engines.error(), source);
       part.engines = std::make_shared<const EngineCatalog>(std::move(engines).value());
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       if (part.engines) {
         base.engines = part.engines;
         base.supplied.engines = part.supplied.engines;
       }
     }},
    {kKernelsSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto kernels = parse_kernels(text);
       if (!kernels) return from_source(kernels.error(), source);
       part.kernels = std::make_shared<const KernelCatalog>(std::move(kernels).value());
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       if (part.kernels) {
         base.kernels = part.kernels;
         base.supplied.kernels = part.supplied.kernels;
       }
     }},
    {kErrorBandsSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto bands = std::make_shared<ErrorBandTable>();
       if (auto e = parse_error_bands_into(text, *bands)) return from_source(*e, source);
       part.error_bands = std::move(bands);
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       if (part.error_bands) {
         base.error_bands = part.error_bands;
         base.supplied.error_bands = part.supplied.error_bands;
       }
     }},
    {kServingCalibrationSchema,
     [](std::string_view text, const std::string& source, Catalog& part) -> std::optional<Error> {
       auto cal = parse_serving_calibration(text, source);
       if (!cal) return cal.error();
       part.serving_calibrations.push_back(std::make_shared<const ServingCalibration>(std::move(cal).value()));
       return std::nullopt;
     },
     [](Catalog& base, Catalog& part) {
       for (auto& cal : part.serving_calibrations) base.serving_calibrations.push_back(std::move(cal));
     }},
};

/** The first kind of document `part` holds that is neither offerings (when
 *  `offerings_allowed`) nor a serving calibration (when `calibration_allowed`), by name. */
const char* first_refused(const Catalog& part, bool offerings_allowed, bool calibration_allowed) {
  if (!offerings_allowed && !part.offerings.empty()) return "offerings";
  if (!part.gpus.empty()) return "gpus";
  if (!part.models.empty()) return "models";
  if (!part.networks.empty()) return "networks";
  if (part.constants) return kPerformanceSchema.data();
  if (part.engines) return kEnginesSchema.data();
  if (part.kernels) return kKernelsSchema.data();
  if (part.error_bands) return kErrorBandsSchema.data();
  if (!part.calibrations.empty()) return kCalibrationSchema.data();
  if (!calibration_allowed && !part.serving_calibrations.empty()) return kServingCalibrationSchema.data();
  return nullptr;
}

/** A price list (CatalogTrust::kPriceList) carries offerings only: the first other thing it
 *  holds, as an error naming it. */
std::optional<Error> refuse_beyond_prices(const Catalog& part, const std::string& source) {
  const char* what = first_refused(part, true, false);
  if (what == nullptr) return std::nullopt;
  return make_error(ErrorCode::kNotAllowed, source + ": " + what,
                    "a price list from a link or an embedding page may carry offerings, their "
                    "prices and names only; GPU and model figures, model constants, engine and "
                    "kernel data, error bands and calibration come from gpucalc's data or from a "
                    "file you load yourself");
}

/** A supplied serving calibration (CatalogTrust::kServingCalibration) is one calibration
 *  document and nothing else: the first other thing it holds (or its absence), as an error. */
std::optional<Error> refuse_beyond_calibration(const Catalog& part, const std::string& source) {
  const char* what = first_refused(part, false, true);
  if (what == nullptr && part.serving_calibrations.empty()) what = "schema";
  if (what == nullptr) return std::nullopt;
  return make_error(ErrorCode::kNotAllowed, source + ": " + what,
                    "a serving calibration from an embedding page may carry one "
                    "\"gpucalc-serving-calibration/1\" document only; GPU and model figures, "
                    "prices, engine data and error bands come from gpucalc's data or from a file "
                    "you load yourself");
}

/** Names `source` as the supplier of every figure `part` gives (CatalogTrust::kUser). */
void mark_supplied(Catalog& part, const std::string& source) {
  for (auto& g : part.gpus) g.supplied_by = source;
  for (auto& m : part.models) m.supplied_by = source;
  for (auto& n : part.networks) n.supplied_by = source;
  if (part.constants) part.supplied.constants = source;
  if (part.engines) part.supplied.engines = source;
  if (part.kernels) part.supplied.kernels = source;
  if (part.error_bands) part.supplied.error_bands = source;
  for (auto& cal : part.serving_calibrations) {
    auto named = std::make_shared<ServingCalibration>(*cal);
    named->supplied_by = source;
    cal = std::move(named);
  }
}

/** Every embedded data file but the validation tables (they are read by --validate). */
bool is_catalog_file(std::string_view name) { return name.rfind("validation", 0) != 0; }

Result<Catalog> load_default_catalog(std::string_view skip_file) {
  Catalog catalog;
  for (const auto& file : embedded_data_files()) {
    if (!is_catalog_file(file.name) || file.name == skip_file) continue;
    auto next = extend_catalog(catalog, file.text, file.name, CatalogTrust::kBuiltIn);
    if (!next) return next.error();
    catalog = std::move(next).value();
  }
  if (!catalog.constants) {
    return make_error(ErrorCode::kInvalidCatalog, "performance.json",
                      "is missing: the built-in catalog has no model constants");
  }
  return catalog;
}

}  // namespace

int Model::moe_layer_count() const {
  if (!is_moe()) return 0;
  return std::max(0, layers - dense_layers) / std::max(1, moe_layer_interval);
}

const Gpu* Catalog::find_gpu(std::string_view id) const { return find_by_id(gpus, id); }
const Offering* Catalog::find_offering(std::string_view id) const {
  return find_by_id(offerings, id);
}
namespace {
bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}
}  // namespace

const Model* Catalog::find_model(std::string_view id_or_alias) const {
  if (const Model* m = find_by_id(models, id_or_alias)) return m;
  for (const auto& m : models) {
    for (const auto& a : m.aliases) {
      if (same_ignoring_case(a, id_or_alias)) return &m;
    }
  }
  return nullptr;
}
const Network* Catalog::find_network(std::string_view id) const { return find_by_id(networks, id); }
const Network* Catalog::scale_out_of(const Offering& offering) const {
  return offering.scale_out_id.empty() ? nullptr : find_network(offering.scale_out_id);
}

const CalibrationRecord* Catalog::find_calibration(std::string_view gpu_id) const {
  const CalibrationRecord* best = nullptr;
  for (const auto& rec : calibrations) {
    if (rec.dry_run || rec.gpu_id != gpu_id) continue;
    if (best == nullptr || rec.date >= best->date) best = &rec;
  }
  return best;
}

Result<Catalog> parse_catalog_json(std::string_view json_text, std::string_view source_name) {
  const std::string source = source_name.empty() ? "catalog" : std::string(source_name);
  if (json_text.size() > kMaxJsonTextBytes) {
    return make_error(ErrorCode::kTooLarge, source, "is larger than 16 MiB");
  }
  auto parsed = detail::parse_json_strict(json_text, source);
  if (!parsed) return parsed.error();
  const Json& doc = parsed.value();
  if (!doc.is_object()) {
    return make_error(ErrorCode::kInvalidCatalog, source, "must be a JSON object");
  }
  Catalog out;
  if (doc.contains("schema") && doc["schema"].is_string()) {
    const std::string schema = doc["schema"].get<std::string>();
    for (const DocumentKind& kind : kDocumentKinds) {
      if (schema != kind.schema) continue;
      if (auto e = kind.read(json_text, source, out)) return *e;
      return out;
    }
  }
  if (!doc.contains("gpus") && !doc.contains("networks") && !doc.contains("offerings") &&
      !doc.contains("models")) {
    std::string kinds;
    for (const DocumentKind& kind : kDocumentKinds) kinds += ", \"" + std::string(kind.schema) + "\"";
    return make_error(ErrorCode::kInvalidCatalog, source,
                      "holds none of \"gpus\", \"networks\", \"offerings\", \"models\" and has no known \"schema\"" + kinds);
  }
  if (auto e = parse_array(doc, "gpus", source, out.gpus, parse_gpu)) return *e;
  if (auto e = parse_array(doc, "networks", source, out.networks, parse_network)) return *e;
  if (auto e = parse_array(doc, "offerings", source, out.offerings, parse_offering)) return *e;
  if (auto e = parse_array(doc, "models", source, out.models, detail::parse_model_entry)) return *e;
  return out;
}

Result<Catalog> extend_catalog(const Catalog& base, std::string_view json_text,
                               std::string_view source_name, CatalogTrust trust) {
  auto part = parse_catalog_json(json_text, source_name);
  if (!part) return part.error();
  Catalog& extra = part.value();
  const std::string source = source_name.empty() ? "catalog" : std::string(source_name);
  if (trust == CatalogTrust::kPriceList) {
    if (auto e = refuse_beyond_prices(extra, source)) return *e;
  } else if (trust == CatalogTrust::kServingCalibration) {
    if (auto e = refuse_beyond_calibration(extra, source)) return *e;
    mark_supplied(extra, source);
  } else if (trust == CatalogTrust::kUser) {
    mark_supplied(extra, source);
  }
  Catalog out = base;
  merge_by_id(out.gpus, extra.gpus);
  merge_by_id(out.networks, extra.networks);
  merge_by_id(out.offerings, extra.offerings);
  merge_by_id(out.models, extra.models);
  for (const DocumentKind& kind : kDocumentKinds) kind.merge(out, extra);
  auto valid = validate_catalog(out);
  if (!valid) {
    Error e = valid.error();
    e.field = std::string(source_name) + ": " + e.field;
    return e;
  }
  return out;
}

Result<bool> validate_catalog(const Catalog& catalog) {
  auto dup = [](const auto& items, const char* what) -> std::optional<Error> {
    for (std::size_t i = 0; i < items.size(); ++i) {
      for (std::size_t j = i + 1; j < items.size(); ++j) {
        if (items[i].id == items[j].id) {
          return make_error(ErrorCode::kInvalidCatalog, std::string(what) + "(" + items[i].id + ")",
                            "id is used twice");
        }
      }
    }
    return std::nullopt;
  };
  if (auto e = dup(catalog.gpus, "gpus")) return *e;
  if (auto e = dup(catalog.networks, "networks")) return *e;
  if (auto e = dup(catalog.offerings, "offerings")) return *e;
  if (auto e = dup(catalog.models, "models")) return *e;
  for (const auto& m : catalog.models) {  // an alias names one model and hides no id
    for (const auto& a : m.aliases) {
      const Model* found = catalog.find_model(a);
      for (const auto& other : catalog.models) {
        for (const auto& b : other.aliases) {
          if (&other != &m && same_ignoring_case(a, b)) found = &other;
        }
      }
      if (found != &m) {
        return make_error(ErrorCode::kInvalidCatalog, "models(" + m.id + ").aliases",
                          "\"" + a + "\" already names " + (found ? found->id : std::string("another model")));
      }
    }
  }
  for (const auto& o : catalog.offerings) {
    if (catalog.find_gpu(o.gpu_id) == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, "offerings(" + o.id + ").gpu",
                        "names GPU \"" + o.gpu_id + "\", which is not in the catalog");
    }
    if (!o.scale_out_id.empty() && catalog.find_network(o.scale_out_id) == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, "offerings(" + o.id + ").scale_out",
                        "names network \"" + o.scale_out_id + "\", which is not in the catalog");
    }
  }
  for (const auto& c : catalog.calibrations) {
    const Gpu* gpu = catalog.find_gpu(c.gpu_id);
    if (gpu == nullptr) {
      return make_error(ErrorCode::kInvalidCatalog, c.source_name + ": gpu_id",
                        "names GPU \"" + c.gpu_id + "\", which is not in the catalog");
    }
    auto plausible = check_calibration_against_gpu(c, *gpu);
    if (!plausible) return plausible.error();
  }
  return true;
}

const Catalog& default_catalog() {
  static const Catalog catalog = [] {
    auto r = load_default_catalog({});
    if (!r) detail::embedded_data_invalid(r.error().field, r.error());
    return std::move(r).value();
  }();
  return catalog;
}

Result<Catalog> build_default_catalog(std::string_view skip_file) {
  return load_default_catalog(skip_file);
}

}  // namespace gpucalc
