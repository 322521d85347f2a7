#include "model/scale_out.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

ScaleOutLink make_scale_out_link(const Network& network, int gpus_per_server, int servers) {
  ScaleOutLink link;
  link.servers = std::max(1, servers);
  link.gpus_per_server = std::max(1, gpus_per_server);
  link.bytes_per_s_per_gpu = network.achieved_bytes_per_s_per_nic.value * network.nics_per_server /
                             link.gpus_per_server;
  link.latency_s = network.latency_s.value;
  if (network.ep_all_to_all && network.ep_all_to_all->figure_nic_bytes_per_s > 0.0 &&
      network.nic_line_rate_bytes_per_s > 0.0) {
    link.ep_all_to_all = &*network.ep_all_to_all;
    // The figures' GPU had one NIC of its own; this server's GPUs share nics_per_server NICs.
    link.ep_bandwidth_scale = network.nic_line_rate_bytes_per_s * network.nics_per_server /
                              link.gpus_per_server / network.ep_all_to_all->figure_nic_bytes_per_s;
  }
  return link;
}

namespace {

/** Index of `ep` in EpAllToAll::kEp, -1 when not there. */
int ep_size_index(int ep) {
  for (int i = 0; i < EpAllToAll::kSizes; ++i) {
    if (EpAllToAll::kEp[i] == ep) return i;
  }
  return -1;
}

}  // namespace

bool rdma_all_to_all_known(const ScaleOutLink& link, int ep) {
  const int i = ep_size_index(ep);
  return link.ep_all_to_all != nullptr && i >= 0 && link.ep_all_to_all->dispatch_s[i] &&
         link.ep_all_to_all->combine_s[i] && link.gpus_per_server > 0 && ep > link.gpus_per_server &&
         ep % link.gpus_per_server == 0;
}

double rdma_all_to_all_s(const ScaleOutLink& link, int ep, double tokens_per_gpu, int experts_active,
                         int hidden_size) {
  if (!rdma_all_to_all_known(link, ep) || !(tokens_per_gpu > 0.0)) return 0.0;
  const EpAllToAll& a = *link.ep_all_to_all;
  const int i = ep_size_index(ep);
  const double servers = static_cast<double>(ep) / link.gpus_per_server;
  const double crossing = (servers - 1.0) / servers;
  const double x = tokens_per_gpu * experts_active * hidden_size;
  const double x_ref = a.tokens_per_rank * a.top_k * a.hidden;
  auto one_way = [&](double small_s, double bytes_per_value, double rdma_bytes_per_s) {
    if (x <= x_ref) return small_s * std::max(0.5, x / x_ref);
    return small_s + (x - x_ref) * bytes_per_value * crossing / (rdma_bytes_per_s * link.ep_bandwidth_scale);
  };
  constexpr double kDispatchBytes = 1.0, kCombineBytes = 2.0;  // DeepEP / MORI-EP: FP8 dispatch, BF16 combine
  return one_way(a.dispatch_s[i]->value, kDispatchBytes, a.rdma_dispatch_bytes_per_s.value) +
         one_way(a.combine_s[i]->value, kCombineBytes, a.rdma_combine_bytes_per_s.value);
}

int servers_spanned(const ScaleOutLink& link, int instance_gpus) {
  const int per = std::max(1, link.gpus_per_server);
  return std::max(1, (instance_gpus + per - 1) / per);
}

double pipeline_boundaries_s(const ScaleOutLink& link, int boundaries, double activation_bytes,
                             int tensor_parallel) {
  if (boundaries <= 0 || !(link.bytes_per_s_per_gpu > 0.0)) return 0.0;
  const double bytes_per_gpu = activation_bytes / std::max(1, tensor_parallel);
  return boundaries * (link.latency_s + bytes_per_gpu / link.bytes_per_s_per_gpu);
}

double expert_all_to_all_s(const ScaleOutLink& link, int moe_layers, double tokens,
                           int experts_active, int hidden_size, double bytes_per_value) {
  const double s = link.servers;
  if (link.servers <= 1 || moe_layers <= 0 || !(link.bytes_per_s_per_gpu > 0.0)) return 0.0;
  const double bytes_per_gpu = tokens / s * experts_active * (s - 1.0) / s * hidden_size *
                               bytes_per_value / link.gpus_per_server;
  const double one_way_s = link.latency_s + bytes_per_gpu / link.bytes_per_s_per_gpu;
  return moe_layers * 2.0 * one_way_s;  // dispatch and combine
}

double cross_server_allreduce_s(const ScaleOutLink& link, double bytes) {
  const double s = link.servers;
  if (link.servers <= 1 || !(link.bytes_per_s_per_gpu > 0.0)) return 0.0;
  return 2.0 * (s - 1.0) / s * bytes / link.gpus_per_server / link.bytes_per_s_per_gpu +
         2.0 * (s - 1.0) * link.latency_s;
}

ScaleOutCost inference_scale_out_cost(const ScaleOutLink& link, const Model& model,
                                      const Deployment& d, double tokens, double bytes_per_value) {
  ScaleOutCost cost;
  cost.servers = servers_spanned(link, d.gpus);
  if (cost.servers <= 1 || !(link.bytes_per_s_per_gpu > 0.0)) return cost;
  if (model.is_moe()) {
    ScaleOutLink spanned = link;
    spanned.servers = cost.servers;
    const int interval = std::max(1, model.moe_layer_interval);
    const int moe_layers = std::max(0, (model.layers - model.dense_layers + interval - 1) / interval);
    cost.all_to_all_s = expert_all_to_all_s(spanned, moe_layers, tokens, model.experts_active,
                                            model.hidden_size, bytes_per_value);
  } else {
    cost.pipeline_s = pipeline_boundaries_s(link, cost.servers - 1,
                                            tokens * model.hidden_size * bytes_per_value,
                                            d.tensor_parallel);
  }
  cost.total_s = cost.pipeline_s + cost.all_to_all_s;
  return cost;
}

}  // namespace gpucalc
