// Paged decode attention (attention-decode test): a flash-decoding kernel of our own over a
// vLLM-style paged BF16 KV cache, timed per (batch, context) and checked against a
// double-precision host reference (paged_kv.hpp). One source for CUDA and HIP.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "gpu_portability.hpp"
#include "gpu_serving.hpp"
#include "paged_kv.hpp"

namespace gpucalc::bench {
namespace {

constexpr int kWarps = 4;                  // warps per block, each over its own tokens
constexpr int kHeadDim = 128;              // the kernel's head_dim (the test's geometry)
constexpr int kLanesPerToken = GPU_WARP_SIZE;
constexpr int kValuesPerLane = kHeadDim / kLanesPerToken;  // 4 on NVIDIA, 2 on AMD
constexpr double kCheckTolerance = 1e-3;   // ||out - ref|| / ||ref||, float vs double

/** An index or count as size_t (all are non-negative here). */
__host__ __device__ inline std::size_t sz(int v) { return static_cast<std::size_t>(v); }

__global__ void fill_kv(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = encode_bf16(normal_draw(seed, i));
  }
}

__device__ inline float warp_sum(float v) {
#pragma unroll
  for (int offset = kLanesPerToken / 2; offset > 0; offset /= 2) v += GPU_SHFL_XOR(v, offset);
  return v;
}

/** One lane's kValuesPerLane BF16 values of a K or V row, as floats. */
__device__ inline void load_row(const std::uint16_t* row, int lane, float (&out)[kValuesPerLane]) {
  // One 8-byte (NVIDIA) or 4-byte (AMD) load per lane: a warp reads a 256-byte row at once.
#if GPU_WARP_SIZE == 32
  const uint2 w = *reinterpret_cast<const uint2*>(row + lane * kValuesPerLane);
  out[0] = decode_bf16(static_cast<std::uint16_t>(w.x & 0xFFFFu));
  out[1] = decode_bf16(static_cast<std::uint16_t>(w.x >> 16));
  out[2] = decode_bf16(static_cast<std::uint16_t>(w.y & 0xFFFFu));
  out[3] = decode_bf16(static_cast<std::uint16_t>(w.y >> 16));
#else
  const unsigned int w = *reinterpret_cast<const unsigned int*>(row + lane * kValuesPerLane);
  out[0] = decode_bf16(static_cast<std::uint16_t>(w & 0xFFFFu));
  out[1] = decode_bf16(static_cast<std::uint16_t>(w >> 16));
#endif
}

/**
 * Pass 1 of flash-decoding: block (split, kv_head, sequence) runs an online softmax over its
 * chunk of the context for the `G` query heads sharing the KV head, and writes the chunk's
 * running max, sum and unnormalised output.
 */
template <int G>
__global__ void __launch_bounds__(kWarps * GPU_WARP_SIZE)
    decode_split(const float* __restrict__ q, const std::uint16_t* __restrict__ k_cache,
                 const std::uint16_t* __restrict__ v_cache, const std::int32_t* __restrict__ table,
                 int context, int pages_per_seq, int page_tokens, int kv_heads, int chunk,
                 float* __restrict__ part_m, float* __restrict__ part_l,
                 float* __restrict__ part_acc) {
  const int split = static_cast<int>(blockIdx.x), kvh = static_cast<int>(blockIdx.y),
            seq = static_cast<int>(blockIdx.z);
  const int splits = static_cast<int>(gridDim.x);
  const int warp = static_cast<int>(threadIdx.x) / GPU_WARP_SIZE, lane = static_cast<int>(threadIdx.x) % GPU_WARP_SIZE;
  const int q_heads = kv_heads * G;
  const float scale = rsqrtf(static_cast<float>(kHeadDim));
  float qv[G][kValuesPerLane], m[G], l[G], acc[G][kValuesPerLane];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const float* qrow = q + (sz(seq) * sz(q_heads) + sz(kvh * G + g)) * sz(kHeadDim);
#pragma unroll
    for (int e = 0; e < kValuesPerLane; ++e) {
      qv[g][e] = qrow[lane * kValuesPerLane + e] * scale;
      acc[g][e] = 0.0f;
    }
    m[g] = -INFINITY;
    l[g] = 0.0f;
  }
  const int begin = split * chunk;
  const int end = min(context, begin + chunk);
  const std::int32_t* pages = table + sz(seq) * sz(pages_per_seq);
  const std::size_t page_stride = sz(kv_heads) * sz(page_tokens) * sz(kHeadDim);
  for (int t = begin + warp; t < end; t += kWarps) {
    const std::size_t row = sz(pages[t / page_tokens]) * page_stride +
                            (sz(kvh) * sz(page_tokens) + sz(t % page_tokens)) * sz(kHeadDim);
    float kr[kValuesPerLane], vr[kValuesPerLane];
    load_row(k_cache + row, lane, kr);
    load_row(v_cache + row, lane, vr);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float s = 0.0f;
#pragma unroll
      for (int e = 0; e < kValuesPerLane; ++e) s += qv[g][e] * kr[e];
      s = warp_sum(s);
      const float m_new = fmaxf(m[g], s);
      const float rescale = __expf(m[g] - m_new);
      const float w = __expf(s - m_new);
      l[g] = l[g] * rescale + w;
#pragma unroll
      for (int e = 0; e < kValuesPerLane; ++e) acc[g][e] = acc[g][e] * rescale + w * vr[e];
      m[g] = m_new;
    }
  }
  // Merge the warps' partial softmaxes.
  __shared__ float sm_m[kWarps][G], sm_l[kWarps][G], sm_acc[kWarps][G][kHeadDim];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      sm_m[warp][g] = m[g];
      sm_l[warp][g] = l[g];
    }
#pragma unroll
    for (int e = 0; e < kValuesPerLane; ++e) sm_acc[warp][g][lane * kValuesPerLane + e] = acc[g][e];
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < G * kHeadDim; i += static_cast<int>(blockDim.x)) {
    const int g = i / kHeadDim, d = i % kHeadDim;
    float big = -INFINITY;
    for (int w = 0; w < kWarps; ++w) big = fmaxf(big, sm_m[w][g]);
    float sum = 0.0f, out = 0.0f;
    for (int w = 0; w < kWarps; ++w) {
      const float f = sm_m[w][g] == -INFINITY ? 0.0f : __expf(sm_m[w][g] - big);
      sum += sm_l[w][g] * f;
      out += sm_acc[w][g][d] * f;
    }
    const std::size_t part = (sz(seq) * sz(q_heads) + sz(kvh * G + g)) * sz(splits) + sz(split);
    part_acc[part * sz(kHeadDim) + sz(d)] = out;
    if (d == 0) {
      part_m[part] = big;
      part_l[part] = sum;
    }
  }
}

/** Pass 2: block (q_head, sequence) merges the chunks into the normalised output. */
__global__ void decode_combine(const float* __restrict__ part_m, const float* __restrict__ part_l,
                               const float* __restrict__ part_acc, int splits, int q_heads,
                               float* __restrict__ out) {
  const int head = static_cast<int>(blockIdx.x), seq = static_cast<int>(blockIdx.y), d = static_cast<int>(threadIdx.x);
  const std::size_t base = (sz(seq) * sz(q_heads) + sz(head)) * sz(splits);
  float big = -INFINITY;
  for (int s = 0; s < splits; ++s) big = fmaxf(big, part_m[base + sz(s)]);
  float sum = 0.0f, acc = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float f = part_m[base + sz(s)] == -INFINITY ? 0.0f : __expf(part_m[base + sz(s)] - big);
    sum += part_l[base + sz(s)] * f;
    acc += part_acc[(base + sz(s)) * sz(kHeadDim) + sz(d)] * f;
  }
  out[(sz(seq) * sz(q_heads) + sz(head)) * sz(kHeadDim) + sz(d)] = acc / sum;
}

struct DeviceAlloc {
  void* ptr = nullptr;
  DeviceAlloc() = default;
  DeviceAlloc(const DeviceAlloc&) = delete;
  DeviceAlloc& operator=(const DeviceAlloc&) = delete;
  ~DeviceAlloc() {
    if (ptr != nullptr) (void)gpuFree(ptr);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr);
  }
};

struct Events {
  gpuEvent_t start{}, stop{};
  Events() {
    (void)gpuEventCreate(&start);
    (void)gpuEventCreate(&stop);
  }
  ~Events() {
    (void)gpuEventDestroy(start);
    (void)gpuEventDestroy(stop);
  }
};

Status launch_decode(const PagedKvGeometry& g, int splits, int chunk, const float* q,
                     const std::uint16_t* k, const std::uint16_t* v, const std::int32_t* table,
                     float* pm, float* pl, float* pa, float* out) {
  const dim3 grid(static_cast<unsigned>(splits), static_cast<unsigned>(g.kv_heads),
                  static_cast<unsigned>(g.batch));
  const int group = g.q_heads / g.kv_heads;
  const int pps = g.pages_per_sequence();
  switch (group) {
    case 1: decode_split<1><<<grid, kWarps * GPU_WARP_SIZE>>>(q, k, v, table, g.context_tokens, pps, g.page_tokens, g.kv_heads, chunk, pm, pl, pa); break;
    case 2: decode_split<2><<<grid, kWarps * GPU_WARP_SIZE>>>(q, k, v, table, g.context_tokens, pps, g.page_tokens, g.kv_heads, chunk, pm, pl, pa); break;
    case 4: decode_split<4><<<grid, kWarps * GPU_WARP_SIZE>>>(q, k, v, table, g.context_tokens, pps, g.page_tokens, g.kv_heads, chunk, pm, pl, pa); break;
    case 8: decode_split<8><<<grid, kWarps * GPU_WARP_SIZE>>>(q, k, v, table, g.context_tokens, pps, g.page_tokens, g.kv_heads, chunk, pm, pl, pa); break;
    default: return Status::failure("attention-decode: q_heads / kv_heads must be 1, 2, 4 or 8");
  }
  decode_combine<<<dim3(static_cast<unsigned>(g.q_heads), static_cast<unsigned>(g.batch)), kHeadDim>>>(
      pm, pl, pa, splits, g.q_heads, out);
  GPU_TRY(gpuGetLastError());
  return Status::success();
}

/** Times one (batch, context) point and checks two sequences against the host reference. */
Status run_point(const DeviceInfo& device, const AttentionConfig& cfg, int batch, int context,
                 AttentionPointRun& pr, AttentionRun& out, double& rel_error) {
  PagedKvGeometry g;
  g.batch = batch;
  g.context_tokens = context;
  g.q_heads = cfg.q_heads;
  g.kv_heads = cfg.kv_heads;
  g.head_dim = cfg.head_dim;
  g.page_tokens = cfg.page_tokens;
  const double one_set = g.kv_bytes_per_call();
  const double rotate = cfg.min_rotating_bytes > 0
                            ? static_cast<double>(cfg.min_rotating_bytes)
                            : 4.0 * static_cast<double>(std::max<std::uint64_t>(device.l2_cache_bytes, 1u << 20));
  g.sets = static_cast<int>(std::max(1.0, std::ceil(rotate / one_set)));
  std::size_t free_bytes = 0, total_bytes = 0;
  GPU_TRY(gpuMemGetInfo(&free_bytes, &total_bytes));
  const double margin = 512.0 * (1 << 20);
  if (one_set * g.sets + margin > static_cast<double>(free_bytes)) {
    g.sets = static_cast<int>((static_cast<double>(free_bytes) - margin) / one_set);
    if (g.sets < 1) return Status::success();  // too large for this GPU: the point is left out
  }
  const int pps = g.pages_per_sequence();
  // Enough blocks to fill the GPU four times over; each chunk holds at least 256 tokens.
  const int blocks_per_split = batch * g.kv_heads;
  int splits = std::max(1, (4 * std::max(device.multiprocessors, 1) + blocks_per_split - 1) / blocks_per_split);
  splits = std::min(splits, std::max(1, context / 256));
  const int chunk = (context + splits - 1) / splits;
  splits = (context + chunk - 1) / chunk;

  const std::size_t kv_values = g.pool_pages() * g.page_values();
  DeviceAlloc k, v, table, q, pm, pl, pa, o;
  GPU_TRY(gpuMalloc(&k.ptr, kv_values * 2));
  GPU_TRY(gpuMalloc(&v.ptr, kv_values * 2));
  const unsigned fill_grid = static_cast<unsigned>(std::max(device.multiprocessors, 1) * 8);
  fill_kv<<<fill_grid, 256>>>(k.as<std::uint16_t>(), kv_values, 3);
  fill_kv<<<fill_grid, 256>>>(v.as<std::uint16_t>(), kv_values, 4);
  GPU_TRY(gpuGetLastError());
  const std::vector<std::int32_t> pages = shuffled_page_table(g, 7);
  GPU_TRY(gpuMalloc(&table.ptr, pages.size() * sizeof(std::int32_t)));
  GPU_TRY(gpuMemcpy(table.ptr, pages.data(), pages.size() * sizeof(std::int32_t), gpuMemcpyHostToDevice));
  const std::size_t q_values = sz(batch) * sz(g.q_heads) * sz(kHeadDim);
  std::vector<float> host_q(q_values);
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < g.q_heads; ++h) {
      for (int d = 0; d < kHeadDim; ++d) {
        host_q[(sz(b) * sz(g.q_heads) + sz(h)) * sz(kHeadDim) + sz(d)] = query_value(b, h, d, g);
      }
    }
  }
  GPU_TRY(gpuMalloc(&q.ptr, q_values * sizeof(float)));
  GPU_TRY(gpuMemcpy(q.ptr, host_q.data(), q_values * sizeof(float), gpuMemcpyHostToDevice));
  const std::size_t parts = sz(batch) * sz(g.q_heads) * sz(splits);
  GPU_TRY(gpuMalloc(&pm.ptr, parts * sizeof(float)));
  GPU_TRY(gpuMalloc(&pl.ptr, parts * sizeof(float)));
  GPU_TRY(gpuMalloc(&pa.ptr, parts * kHeadDim * sizeof(float)));
  GPU_TRY(gpuMalloc(&o.ptr, q_values * sizeof(float)));
  GPU_TRY(gpuDeviceSynchronize());

  int next = 0;
  auto call = [&](int set) {
    return launch_decode(g, splits, chunk, q.as<float>(), k.as<std::uint16_t>(), v.as<std::uint16_t>(),
                         table.as<std::int32_t>() + sz(set) * sz(batch) * sz(pps),
                         pm.as<float>(), pl.as<float>(), pa.as<float>(), o.as<float>());
  };
  Events ev;
  auto timed = [&](int count, double& each) -> Status {
    GPU_TRY(gpuEventRecord(ev.start, 0));
    for (int i = 0; i < count; ++i) {
      const Status st = call(next);
      if (!st.ok) return st;
      next = (next + 1) % g.sets;
    }
    GPU_TRY(gpuEventRecord(ev.stop, 0));
    GPU_TRY(gpuEventSynchronize(ev.stop));
    float ms = 0;
    GPU_TRY(gpuEventElapsedTime(&ms, ev.start, ev.stop));
    each = static_cast<double>(ms) * 1e-3 / count;
    return Status::success();
  };
  double each = 0;
  for (int w = 0; w < 3; ++w) {
    const Status st = timed(std::max(3, g.sets), each);
    if (!st.ok) return st;
  }
  const int per_sample = std::max(3, static_cast<int>(cfg.seconds_per_sample / std::max(each, 1e-7)));
  for (int s = 0; s < cfg.samples; ++s) {
    const Status st = timed(per_sample, each);
    if (!st.ok) return st;
    pr.seconds_per_call.push_back(each);
  }
  pr.batch = batch;
  pr.context_tokens = context;
  pr.splits = splits;
  pr.kv_bytes = one_set;
  out.rotating_sets = std::max(out.rotating_sets, g.sets);

  // Check the first and the last sequence of set 0 against the double-precision reference.
  const Status st = call(0);
  if (!st.ok) return st;
  GPU_TRY(gpuDeviceSynchronize());
  double err2 = 0, ref2 = 0;
  const std::size_t page_bytes = g.page_values() * 2;
  for (int b : {0, batch - 1}) {
    std::vector<std::uint16_t> hk(static_cast<std::size_t>(pps) * g.page_values());
    std::vector<std::uint16_t> hv(hk.size());
    std::vector<std::int32_t> local(static_cast<std::size_t>(pps));
    for (int p = 0; p < pps; ++p) {
      const std::size_t page = sz(pages[sz(b) * sz(pps) + sz(p)]);
      GPU_TRY(gpuMemcpy(hk.data() + static_cast<std::size_t>(p) * g.page_values(),
                        k.as<std::uint16_t>() + page * g.page_values(), page_bytes, gpuMemcpyDeviceToHost));
      GPU_TRY(gpuMemcpy(hv.data() + static_cast<std::size_t>(p) * g.page_values(),
                        v.as<std::uint16_t>() + page * g.page_values(), page_bytes, gpuMemcpyDeviceToHost));
      local[static_cast<std::size_t>(p)] = p;
    }
    std::vector<float> got(static_cast<std::size_t>(g.q_heads) * kHeadDim);
    GPU_TRY(gpuMemcpy(got.data(), o.as<float>() + sz(b) * sz(g.q_heads) * sz(kHeadDim),
                      got.size() * sizeof(float), gpuMemcpyDeviceToHost));
    std::vector<double> ref;
    for (int h = 0; h < g.q_heads; h += std::max(1, g.q_heads / 8)) {
      attention_reference(hk.data(), hv.data(), local.data(), b, h, g, ref);
      for (int d = 0; d < kHeadDim; ++d) {
        const double x = got[sz(h) * sz(kHeadDim) + sz(d)];
        const double r = ref[sz(d)];
        if (!std::isfinite(x)) {
          rel_error = 1e30;
          return Status::success();
        }
        err2 += (x - r) * (x - r);
        ref2 += r * r;
      }
    }
  }
  rel_error = ref2 > 0 ? std::sqrt(err2 / ref2) : 1.0;
  return Status::success();
}

}  // namespace

Status gpu_run_attention_decode(const DeviceInfo& device, const AttentionConfig& cfg, AttentionRun& out) {
  if (cfg.head_dim != kHeadDim) {
    return Status::failure("attention-decode: the kernel is built for head_dim " + std::to_string(kHeadDim));
  }
  out.kernel = "gpucalc-bench flash-decoding: split-context online softmax, " + std::to_string(kWarps) +
               " warps per (chunk, KV head, sequence), then a merge kernel; BF16 KV, FP32 math";
  double worst = 0;
  for (int batch : cfg.batches) {
    for (int context : cfg.contexts) {
      AttentionPointRun pr;
      double rel = 0;
      const Status st = run_point(device, cfg, batch, context, pr, out, rel);
      if (!st.ok) return st;
      if (pr.seconds_per_call.empty()) continue;  // did not fit in memory
      worst = std::max(worst, rel);
      out.points.push_back(std::move(pr));
    }
  }
  out.check_rel_error = worst;
  out.verified = !out.points.empty() && worst <= kCheckTolerance;
  out.check = "||out - ref|| / ||ref|| over 8 query heads of the first and last sequence of every "
              "point against a double-precision host reference on the same BF16 pages, tolerance " +
              std::to_string(kCheckTolerance) + "; worst " + std::to_string(worst);
  return Status::success();
}

}  // namespace gpucalc::bench
