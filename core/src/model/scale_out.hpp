#pragma once
/**
 * Server-to-server (scale-out) communication of a deployment that spans several servers:
 * tensor parallel stays inside one server, pipeline stages (dense models) or expert parallel
 * (MoE models) cross the network. Each figure is latency + bytes / bandwidth of one GPU's NIC
 * (rail-aligned servers: one NIC per GPU, so every GPU sends its share at once).
 * Network figures: data/offerings.json "networks" (sources there).
 */
#include "gpucalc/catalog.hpp"
#include "gpucalc/memory.hpp"

namespace gpucalc {

/** The network as one deployment sees it. servers = 1: no scale-out traffic. */
struct ScaleOutLink {
  int servers = 1;                  // servers one model instance (or training job) spans
  int gpus_per_server = 1;
  double bytes_per_s_per_gpu = 0.0;  // achieved NIC bandwidth per GPU, one direction
  double latency_s = 0.0;            // per message
  // Expert-parallel dispatch and combine as an RDMA all-to-all library measured them
  // (Network::ep_all_to_all), bandwidths already scaled to this network's NIC line rate per
  // GPU; null: no figures, wide expert parallelism across servers is not offered.
  const EpAllToAll* ep_all_to_all = nullptr;
  double ep_bandwidth_scale = 1.0;  // this network's line rate per GPU / the figures' NIC's
};

/** Link of `servers` servers of `gpus_per_server` GPUs on `network`: bandwidth per GPU =
 *  achieved per NIC x NICs per server / GPUs per server. */
ScaleOutLink make_scale_out_link(const Network& network, int gpus_per_server, int servers);

/** Servers an instance of `instance_gpus` GPUs spans: ceil(instance_gpus / gpus_per_server). */
int servers_spanned(const ScaleOutLink& link, int instance_gpus);

/**
 * Pipeline-stage boundaries crossed by one forward step: `boundaries` x (latency +
 * activation_bytes / tensor_parallel / bandwidth per GPU). Each TP rank holds the whole hidden
 * state after its all-reduce and sends its 1/TP slice over its own NIC (Megatron scatter/gather).
 */
double pipeline_boundaries_s(const ScaleOutLink& link, int boundaries, double activation_bytes,
                             int tensor_parallel);

/**
 * Expert-parallel all-to-all across servers for one step: per MoE layer a dispatch and a combine,
 * each latency + bytes per GPU / bandwidth per GPU. Of `tokens` (spread evenly over the servers),
 * each sends `experts_active` hidden vectors, (servers - 1) / servers of them to experts on other
 * servers; a server's share leaves through its GPUs' NICs:
 * bytes per GPU = tokens / servers x k x (servers - 1) / servers x hidden x bytes / GPUs per server.
 */
double expert_all_to_all_s(const ScaleOutLink& link, int moe_layers, double tokens,
                           int experts_active, int hidden_size, double bytes_per_value);

/** Whether the network gives dispatch and combine figures for an EP group of `ep` GPUs. */
bool rdma_all_to_all_known(const ScaleOutLink& link, int ep);

/**
 * One MoE layer's dispatch + combine for an EP group of `ep` GPUs over `ep / gpus_per_server`
 * servers (one kernel for the NVLink and the RDMA peers, as DeepEP and MORI-EP run it), from the
 * network's measured figures (ScaleOutLink::ep_all_to_all). Per direction, with x = tokens per
 * GPU x experts_active x hidden and x_ref the figures' small batch (tokens_per_rank x top_k x
 * hidden):
 *   x <= x_ref: t_small(ep) x max(1/2, x / x_ref) (the kernel tables' rule below their first point);
 *   x >  x_ref: t_small(ep) + (x - x_ref) x bytes per value x (servers - 1) / servers / rdma bandwidth
 * (FP8 dispatch, BF16 combine, as the figures' kernels; the RDMA bandwidth scaled by this NIC's
 * line rate over the figures'). 0 when the network has no figure for `ep` (rdma_all_to_all_known).
 */
double rdma_all_to_all_s(const ScaleOutLink& link, int ep, double tokens_per_gpu, int experts_active,
                         int hidden_size);

/**
 * Cross-server part of a hierarchical all-reduce of `bytes` per GPU (reduce-scatter inside the
 * server, all-reduce of each GPU's 1/gpus_per_server shard over its rail, all-gather inside):
 * 2 (S - 1) / S x bytes / gpus_per_server / bandwidth + 2 (S - 1) x latency.
 */
double cross_server_allreduce_s(const ScaleOutLink& link, double bytes);

/** Inter-node time of one inference step, by strategy. */
struct ScaleOutCost {
  int servers = 1;            // servers the instance spans
  double pipeline_s = 0.0;    // dense models: stage boundaries
  double all_to_all_s = 0.0;  // MoE models: expert-parallel dispatch + combine
  double total_s = 0.0;
};

/**
 * The scale-out time of one step of `tokens` tokens on instance `d`: none inside one server;
 * across servers, an MoE model is expert parallel across them (all-to-all per MoE layer), a
 * dense model is pipelined (one boundary per extra server), activations at `bytes_per_value`.
 */
ScaleOutCost inference_scale_out_cost(const ScaleOutLink& link, const Model& model,
                                      const Deployment& d, double tokens, double bytes_per_value);

}  // namespace gpucalc
