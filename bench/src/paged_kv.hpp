#pragma once
/**
 * The paged KV cache of the attention-decode test, shared by the GPU kernel, the host back end
 * and the host reference that checks both. Layout (vLLM-style pages of `page_tokens` tokens):
 *   K and V: [page][kv_head][slot in page][head_dim], BF16 bits;
 *   page table: [set][sequence][page of the sequence] -> page index in the pool.
 * Pages are shuffled over the pool, so a sequence's KV is scattered as in a serving engine, and
 * several table sets map disjoint pages so that rotating over them defeats the last-level cache.
 */
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "formats.hpp"

namespace gpucalc::bench {

struct PagedKvGeometry {
  int batch = 1, context_tokens = 1, q_heads = 32, kv_heads = 8, head_dim = 128, page_tokens = 16;
  int sets = 1;  // rotating table sets, each over its own pages
  int pages_per_sequence() const { return (context_tokens + page_tokens - 1) / page_tokens; }
  std::size_t pool_pages() const {
    return static_cast<std::size_t>(sets) * static_cast<std::size_t>(batch) *
           static_cast<std::size_t>(pages_per_sequence());
  }
  std::size_t page_values() const {
    return static_cast<std::size_t>(kv_heads) * static_cast<std::size_t>(page_tokens) *
           static_cast<std::size_t>(head_dim);
  }
  /** K and V bytes one call reads: batch x context x kv_heads x head_dim x 2 tensors x 2 B. */
  double kv_bytes_per_call() const {
    return 4.0 * batch * static_cast<double>(context_tokens) * kv_heads * head_dim;
  }
};

/** Page table of every set: a seeded shuffle of the pool (Fisher-Yates on mix64). */
inline std::vector<std::int32_t> shuffled_page_table(const PagedKvGeometry& g, std::uint64_t seed) {
  std::vector<std::int32_t> pages(g.pool_pages());
  std::iota(pages.begin(), pages.end(), 0);
  for (std::size_t i = pages.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(mix64(seed ^ (i * 0x9E37ull)) % i);
    std::swap(pages[i - 1], pages[j]);
  }
  return pages;
}

/** Query vector of (sequence, q head): standard normal draws, stream 5. */
inline float query_value(int seq, int head, int d, const PagedKvGeometry& g) {
  const std::uint64_t index =
      (static_cast<std::uint64_t>(seq) * static_cast<std::uint64_t>(g.q_heads) +
       static_cast<std::uint64_t>(head)) * static_cast<std::uint64_t>(g.head_dim) +
      static_cast<std::uint64_t>(d);
  return normal_draw(5, index);
}

/**
 * softmax(q K^T / sqrt(head_dim)) V in double for query head `head` of a sequence whose pages are
 * `pages[0..pages_per_sequence)`; `k`, `v` hold those pages (page p at offset pages[p]).
 */
inline void attention_reference(const std::uint16_t* k, const std::uint16_t* v,
                                const std::int32_t* pages, int seq, int head,
                                const PagedKvGeometry& g, std::vector<double>& out) {
  const int group = g.q_heads / g.kv_heads;
  const int kvh = head / group;
  const double scale = 1.0 / std::sqrt(static_cast<double>(g.head_dim));
  std::vector<double> scores(static_cast<std::size_t>(g.context_tokens));
  double max_score = -INFINITY;
  auto at = [&](int t, int d) {
    const std::size_t page = static_cast<std::size_t>(pages[t / g.page_tokens]);
    return page * g.page_values() +
           (static_cast<std::size_t>(kvh) * static_cast<std::size_t>(g.page_tokens) +
            static_cast<std::size_t>(t % g.page_tokens)) * static_cast<std::size_t>(g.head_dim) +
           static_cast<std::size_t>(d);
  };
  std::vector<double> q(static_cast<std::size_t>(g.head_dim));
  for (int d = 0; d < g.head_dim; ++d) q[static_cast<std::size_t>(d)] = query_value(seq, head, d, g);
  for (int t = 0; t < g.context_tokens; ++t) {
    double s = 0;
    for (int d = 0; d < g.head_dim; ++d) s += q[static_cast<std::size_t>(d)] * decode_bf16(k[at(t, d)]);
    scores[static_cast<std::size_t>(t)] = s * scale;
    max_score = std::max(max_score, s * scale);
  }
  out.assign(static_cast<std::size_t>(g.head_dim), 0.0);
  double sum = 0;
  for (int t = 0; t < g.context_tokens; ++t) {
    const double w = std::exp(scores[static_cast<std::size_t>(t)] - max_score);
    sum += w;
    for (int d = 0; d < g.head_dim; ++d) out[static_cast<std::size_t>(d)] += w * decode_bf16(v[at(t, d)]);
  }
  for (double& o : out) o /= sum;
}

}  // namespace gpucalc::bench
