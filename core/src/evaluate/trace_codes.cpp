#include "evaluate/trace_codes.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace gpucalc {

namespace {

bool has_input(const TraceEntry& e, std::string_view name) {
  return std::any_of(e.inputs.begin(), e.inputs.end(), [&](const auto& p) { return p.first == name; });
}

void add_note(std::string& ids, std::string_view id) {
  if (!ids.empty()) ids += '+';
  ids += id;
}

std::string kv_formula_id(const Model& m) {
  if (m.attention == AttentionKind::kMla) return m.index_topk > 0 ? "kv_bytes_per_token_mla_dsa" : "kv_bytes_per_token_mla";
  if (m.attention == AttentionKind::kCompressed) return "kv_bytes_per_token_compressed";
  return m.index_topk > 0 ? "kv_bytes_per_token_gqa_sparse" : "kv_bytes_per_token_gqa";
}

/** The formula's id: the variant where a field has several formulas. */
std::string formula_id(const TraceEntry& e, const Model& m, const Gpu& gpu, const Scenario& s,
                       const OfferingResult& r) {
  const std::string& f = e.field;
  const std::string pool = r.fit.engine_pool ? "_engine_pool" : "_reserve";
  if (f == "capacity_bytes_per_gpu") {
    if (s.capacity == CapacityBasis::kMarketed) return f + "_marketed";
    return gpu.hbm_device_bytes ? f + "_device" : f + "_assumed";
  }
  if (f == "reserve_bytes_per_gpu" || f == "kv_used_bytes_per_gpu" || f == "gpus_needed" ||
      f == "kv_free_bytes_per_gpu") {
    return f + pool;
  }
  if (f == "kv_bytes_per_token") return kv_formula_id(m);
  if (f == "state_bytes_per_sequence") return m.linear_attention_layers > 0 ? f : f + "_none";
  if (f.rfind("layer_group_", 0) == 0 && f != "layer_group_linear" && f != "layer_group_sliding") {
    return "layer_group_full";
  }
  if (f == "tpot_s" || f == "max_throughput_step") return "step_s";
  // Data-parallel attention across servers is the wide expert-parallel instance whose
  // all-to-all the network's RDMA figures time (the spanning instance has none).
  if (f == "scale_out_s") {
    return f + (!m.is_moe() ? "_pipeline" : r.data_parallel_attention ? "_expert_parallel_rdma" : "_expert_parallel");
  }
  return f;
}

/** The note's parts, from the same facts that chose its words. */
std::string note_id(const TraceEntry& e, const Model& m, const Scenario& s, const OfferingResult& r) {
  std::string ids;
  if (e.note.empty()) return ids;
  const std::string& f = e.field;
  if (f == "weights_bytes") {
    if (s.weights == WeightFormat::kNative && !m.checkpoint_note.empty()) add_note(ids, "checkpoint_groups");
    else if (s.weights == WeightFormat::kFp4 || s.weights == WeightFormat::kInt4) add_note(ids, "four_bit_routed_experts");
    if (m.params_mtp > 0) add_note(ids, "mtp_layers");
  } else if (f == "kv_bytes_per_token") {
    if (m.sliding_window_layers > 0) add_note(ids, "sliding_window_cap");
    if (m.linear_attention_layers > 0) add_note(ids, "linear_state_instead");
  } else if (f.rfind("layer_group_", 0) == 0) {
    add_note(ids, has_input(e, "raw_window_tokens") ? "raw_window" : "indexer_topk");
  } else if (f == "capacity_bytes_per_gpu") {
    add_note(ids, "capacity_assumed");
  } else if (f == "servers_needed") {
    add_note(ids, "not_stackable");
  } else if (f == "rates") {
    add_note(ids, "rates_source");
  } else if (f == "scale_out_s") {
    add_note(ids, "scale_out_included");
  } else if (f == "tpot_s" || f == "max_throughput_step") {
    add_note(ids, f == "tpot_s" ? "decode_step_at_users" : "decode_step_at_best");
  } else if (f == "ttft_s") {
    add_note(ids, "engine_used");
  } else if (f == "run_cost_usd") {
    add_note(ids, r.billed_months ? "billed_monthly" : "billed_hourly");
  } else if (f.rfind("energy_", 0) == 0 || f == "output_tokens_per_s_per_mw") {
    add_note(ids, "power_estimate");
  } else {
    add_note(ids, "note_" + f);  // a note without a code of its own: the page shows no words for it
  }
  return ids;
}

}  // namespace

void set_trace_codes(const Model& m, const Gpu& gpu, const Scenario& s, OfferingResult& r) {
  for (TraceEntry& e : r.trace) {
    e.formula_id = formula_id(e, m, gpu, s, r);
    e.note_id = note_id(e, m, s, r);
  }
}

}  // namespace gpucalc
