#pragma once
// Internal: the Model entry of a catalog file, and the bounds every model count and size is
// checked against before any arithmetic (catalog entries and imported HF configs alike).
#include <string>

#include "gpucalc/catalog.hpp"
#include "catalog/json_fields.hpp"

namespace gpucalc::detail {

/** Upper bounds of model fields (docs/memory-and-models.md). Sizes are computed in double. */
struct ModelLimits {
  static constexpr int kLayers = 10000;
  static constexpr int kHidden = 1 << 20;
  static constexpr int kIntermediate = 1 << 22;
  static constexpr int kHeads = 1 << 16;
  static constexpr int kHeadDim = 1 << 16;
  static constexpr int kVocab = 1 << 24;
  static constexpr int kExperts = 1 << 16;
  static constexpr int kLoraRank = 1 << 20;
  static constexpr int kTokens = 1 << 30;  // context, window, top-k
  static constexpr int kConvKernel = 1024;
};

/** Parses one "models" entry; errors name the path and the field. */
Result<Model> parse_model_entry(const Json& item, const std::string& path);

/** Checks the cross-field rules of a model (heads divisible, layer kinds add up, ...). Returns
 *  the offending field and sentence, or empty strings when the model is consistent. */
std::pair<std::string, std::string> check_model(const Model& m);

/** Largest parameter count a model may have, counted or given (1,000,000 B): the dimensions'
 *  products are counted in double, and a count past this is a typo or an attack. */
constexpr double kMaxModelParams = 1e15;

/** Empty when count_params(m) is positive and at most kMaxModelParams; else the sentence
 *  "the dimensions give N B parameters; at most 1,000,000 B (...)". */
std::string check_param_cap(const Model& m);

}  // namespace gpucalc::detail
