#include "catalog.hpp"

#include <algorithm>
#include <cctype>

namespace gpucalc::bench {

const std::vector<CatalogGpu>& catalog_gpus() {
  static const std::vector<CatalogGpu> gpus = {
#include "gpu_catalog.inc"
  };
  return gpus;
}

const std::vector<CatalogModel>& catalog_models() {
  static const std::vector<CatalogModel> models = {
#include "model_catalog.inc"
  };
  return models;
}

const CatalogGpu* find_catalog_gpu(const std::string& id) {
  for (const auto& g : catalog_gpus()) {
    if (id == g.id) return &g;
  }
  return nullptr;
}

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

/** Whether `token` occurs in `text` as a whole word ("H200" in "NVIDIA H200", not in "H2000"). */
bool contains_word(const std::string& text, const std::string& token) {
  for (std::size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + 1)) {
    const bool left_ok = pos == 0 || std::isalnum(static_cast<unsigned char>(text[pos - 1])) == 0;
    const std::size_t end = pos + token.size();
    const bool right_ok = end == text.size() || std::isalnum(static_cast<unsigned char>(text[end])) == 0;
    if (left_ok && right_ok) return true;
  }
  return false;
}

}  // namespace

std::string match_catalog_gpu(const std::string& device_name, const std::string& arch) {
  const std::string name = upper(device_name);
  for (const auto& g : catalog_gpus()) {
    if (arch != g.arch) continue;
    const std::string id = g.id;
    const std::string token = upper(id.substr(0, id.find('-')));
    if (!contains_word(name, token)) continue;
    const bool sxm_entry = id.find("sxm") != std::string::npos;
    if (sxm_entry && (contains_word(name, "PCIE") || contains_word(name, "NVL"))) continue;
    return id;
  }
  return "";
}

}  // namespace gpucalc::bench
