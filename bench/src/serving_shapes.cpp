#include "serving_shapes.hpp"

#include <algorithm>

namespace gpucalc::bench {
namespace {

bool selected(const CatalogModel& m, const std::vector<std::string>& models) {
  return models.empty() || std::find(models.begin(), models.end(), m.id) != models.end();
}

void add(std::vector<LayerShape>& shapes, int n, int k, const std::string& label) {
  if (n <= 0 || k <= 0) return;
  for (auto& s : shapes) {
    if (s.n == n && s.k == k) {
      s.layers += ", " + label;
      return;
    }
  }
  shapes.push_back({n, k, label});
}

}  // namespace

std::vector<LayerShape> dense_layer_shapes(const std::vector<std::string>& models) {
  std::vector<LayerShape> shapes;
  for (const auto& m : catalog_models()) {
    if (!selected(m, models)) continue;
    const std::string id = m.id;
    if (std::string(m.attention) == "gqa") {
      add(shapes, (m.heads + 2 * m.kv_heads) * m.head_dim, m.hidden_size, id + " qkv_proj");
    }
    add(shapes, m.hidden_size, m.heads * m.head_dim, id + " o_proj");
    const bool has_dense_ffn = m.experts_routed == 0 || m.dense_layers > 0;
    if (has_dense_ffn) {
      add(shapes, 2 * m.intermediate_size, m.hidden_size, id + " gate_up_proj");
      add(shapes, m.hidden_size, m.intermediate_size, id + " down_proj");
    }
  }
  return shapes;
}

std::vector<LayerShape> expert_shapes(const std::vector<std::string>& models, std::vector<int>* experts_routed) {
  std::vector<LayerShape> shapes;
  for (const auto& m : catalog_models()) {
    if (!selected(m, models) || m.experts_routed == 0 || m.moe_intermediate_size == 0) continue;
    const std::string id = m.id;
    const std::size_t before = shapes.size();
    add(shapes, 2 * m.moe_intermediate_size, m.hidden_size, id + " expert gate_up_proj");
    add(shapes, m.hidden_size, m.moe_intermediate_size, id + " expert down_proj");
    if (experts_routed != nullptr) {
      experts_routed->resize(shapes.size(), 0);
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        // The largest expert count among the models that have this shape.
        if (i >= before || shapes[i].layers.find(id) != std::string::npos) {
          (*experts_routed)[i] = std::max((*experts_routed)[i], m.experts_routed);
        }
      }
    }
  }
  return shapes;
}

std::vector<std::string> unknown_models(const std::vector<std::string>& models) {
  std::vector<std::string> unknown;
  for (const auto& id : models) {
    const auto& all = catalog_models();
    if (std::none_of(all.begin(), all.end(), [&](const CatalogModel& m) { return id == m.id; })) {
      unknown.push_back(id);
    }
  }
  return unknown;
}

}  // namespace gpucalc::bench
