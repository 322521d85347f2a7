#pragma once
/**
 * Datasheet peaks the measurements are compared with, generated at configure time from
 * data/gpus.json (bench/CMakeLists.txt), so the figures stay in data/ and nowhere else.
 */
#include <string>
#include <vector>

namespace gpucalc::bench {

struct CatalogGpu {
  const char* id;                       // "h200-sxm"
  const char* name;                     // "NVIDIA H200 SXM"
  const char* vendor;                   // "nvidia", "amd"
  const char* arch;                     // "sm_90", "gfx942"
  double memory_bytes_per_s;            // HBM peak, decimal
  double bf16_flops_per_s;              // dense peaks; 0 when the chip has no such path
  double fp8_flops_per_s;
  double fp4_flops_per_s;
  const char* fp8_format;               // "e4m3", "e4m3fnuz", "" when none
  const char* fp4_format;               // "nvfp4", "mxfp4", "" when none
  double interconnect_bytes_per_s;      // vendor's per-GPU aggregate, both directions
};

/** Dimensions of a model in data/models.json (0 where the file has none). */
struct CatalogModel {
  const char* id;
  const char* attention;  // "gqa", "mla"
  int hidden_size, intermediate_size, moe_intermediate_size, heads, kv_heads, head_dim;
  int experts_routed, dense_layers;
};

/** Every model in data/models.json at build time. */
const std::vector<CatalogModel>& catalog_models();

/** Every GPU in data/gpus.json at build time. */
const std::vector<CatalogGpu>& catalog_gpus();

/** The entry with this id, or null. */
const CatalogGpu* find_catalog_gpu(const std::string& id);

/**
 * Catalog id for a device as the runtime names it: the arch must match and the name must contain
 * the id's model token ("h200-sxm" -> "H200", "mi300x" -> "MI300X"); PCIe and NVL cards do not
 * match SXM entries. Empty when no entry fits.
 */
std::string match_catalog_gpu(const std::string& device_name, const std::string& arch);

}  // namespace gpucalc::bench
