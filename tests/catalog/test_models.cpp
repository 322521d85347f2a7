#include <algorithm>
// The 2026 catalog models: parameter counts, KV per token, per-sequence state, checkpoint
// precision and longest contexts, each computed by hand here from the model's config.json
// (tests/fixtures/hf-configs, copies of shared/reference/model-configs).
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/attention.hpp"
#include "gpucalc/memory.hpp"
#include "test_support.hpp"

using namespace gpucalc;
using namespace gpucalc::test;

namespace {

std::string hf_fixture(const std::string& name) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs/" + name);
  REQUIRE_MESSAGE(in.good(), "fixture missing: " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/** Hand count: parameters per weight group, main model and MTP layers. */
struct Hand {
  double embedding = 0, lm_head = 0, attention = 0, dense_ffn = 0, shared = 0, routed = 0, router = 0, norms = 0;
  double routed_active = 0;  // routed experts used per token
  double mtp = 0;            // MTP layers, all groups
  double mtp_routed = 0, mtp_norms = 0, mtp_router = 0;  // parts of mtp
  double total() const { return embedding + lm_head + attention + dense_ffn + shared + routed + router + norms; }
  double active() const { return total() - routed + routed_active; }
};

/** DeepSeek-V3 layout (Kimi K2.5, DeepSeek-V3.2, R1, GLM-5): MLA (+ DSA), dense leading layers,
 *  routed + shared experts, MTP layers. */
Hand mla_moe(double V, double h, double L, double dense, double I, double mi, double E, double k,
             double S, double H, double ql, double kvl, double nope, double rope, double v,
             double ih, double id, double mtp) {
  Hand x;
  x.embedding = V * h;
  x.lm_head = V * h;
  const double attn = h * ql + ql * H * (nope + rope)            // q_a, q_b
                      + h * (kvl + rope) + kvl * H * (nope + v)  // kv_a (with the rotary key), kv_b
                      + H * v * h                                // o
                      + (ih > 0 ? ql * ih * id + h * id + h * ih : 0);  // indexer wq_b, wk, weights_proj
  const double layer_norms = 2 * h + ql + kvl + (ih > 0 ? 2 * id : 0);
  x.attention = L * attn;
  x.norms = L * layer_norms + h;
  x.dense_ffn = dense * 3 * h * I;
  const double expert = 3 * h * mi;
  x.routed = (L - dense) * E * expert;
  x.routed_active = (L - dense) * k * expert;
  x.shared = (L - dense) * S * expert;
  x.router = (L - dense) * h * E;
  x.mtp_routed = mtp * E * expert;
  x.mtp_router = mtp * h * E;
  x.mtp_norms = mtp * (layer_norms + 2 * h * h + 3 * h);  // + eh_proj and enorm, hnorm, final norm
  x.mtp = mtp * attn + x.mtp_routed + mtp * S * expert + x.mtp_router + x.mtp_norms;
  return x;
}

/** GQA layout (dense or MoE, full / sliding / Gated DeltaNet layers). */
struct Gqa {
  double V, h, L, I, H, kv, hd;
  double E = 0, k = 0, mi = 0, shared_width = 0;
  bool gate = false;
  double linear = 0, nk = 0, nv = 0, dk = 0, dv = 0, kern = 0;
  double mtp = 0;
  bool tied = false;
  double dense = 0, dense_width = 0;  // leading dense layers of an MoE model and their FFN width
};
Hand gqa(const Gqa& g) {
  Hand x;
  x.embedding = g.V * g.h;
  x.lm_head = g.tied ? 0 : g.V * g.h;
  const double softmax = g.h * g.H * g.hd * (g.gate ? 2 : 1) + 2 * g.h * g.kv * g.hd + g.H * g.hd * g.h;
  const double kd = g.nk * g.dk, vd = g.nv * g.dv;
  const double gdn = g.h * (2 * kd + 2 * vd) + g.h * 2 * g.nv + (2 * kd + vd) * g.kern + vd * g.h;
  x.attention = (g.L - g.linear) * softmax + g.linear * gdn;
  x.norms = g.L * 2 * g.h + g.linear * (g.dv + 2 * g.nv) + g.h;
  if (g.E > 0) {
    const double moe = g.L - g.dense;
    x.routed = moe * g.E * 3 * g.h * g.mi;
    x.routed_active = moe * g.k * 3 * g.h * g.mi;
    x.shared = moe * 3 * g.h * g.shared_width;
    x.router = moe * g.h * g.E;
    x.dense_ffn = g.dense * 3 * g.h * g.dense_width;
  } else {
    x.dense_ffn = g.L * 3 * g.h * g.I;
  }
  if (g.mtp > 0) {
    x.mtp_routed = g.mtp * g.E * 3 * g.h * g.mi;
    x.mtp_router = g.mtp * g.h * g.E;
    x.mtp_norms = g.mtp * (2 * g.h + 2 * g.h * g.h + 3 * g.h);
    x.mtp = g.mtp * softmax + x.mtp_routed + g.mtp * 3 * g.h * g.shared_width + x.mtp_router + x.mtp_norms;
  }
  return x;
}

/** DeepSeek-V4 (compressed attention, all layers MoE, 1 shared expert): per layer wq_a, wq_b,
 *  one K=V projection, grouped low-rank output; CSA layers a compressor (kv and gate projections of
 *  2 x 512, 4 learned positions, a norm) and the indexer (wq_b, weights_proj, its own compressor at
 *  128); HCA layers a compressor of 1 x 512 with 128 positions. */
Hand deepseek_v4(double V, double h, double L, double H, double ql, double og, double ol, double E, double k,
                 double mi, double csa, double hca, double ih, double id, double mtp) {
  const double hd = 512;
  Hand x;
  x.embedding = V * h;
  x.lm_head = V * h;
  const double attn = h * ql + ql * H * hd + h * hd + H * hd * ol + og * ol * h;
  const double layer_norms = ql + hd + H + 2 * h;  // q and kv norms, sinks, two RMSNorms
  const double csa_bf16 = (2 * h * 2 * hd + 4 * 2 * hd + hd) + h * ih + (2 * h * 2 * id + 4 * 2 * id + id);
  const double hca_bf16 = 2 * h * hd + 128 * hd + hd;
  x.attention = L * attn + csa * ql * ih * id;
  x.norms = L * layer_norms + csa * csa_bf16 + hca * hca_bf16 + h;
  const double expert = 3 * h * mi;
  x.routed = L * E * expert;
  x.routed_active = L * k * expert;
  x.shared = L * expert;
  x.router = L * h * E;
  x.mtp_routed = mtp * E * expert;
  x.mtp_router = mtp * h * E;
  x.mtp_norms = mtp * (layer_norms + 2 * h * h + 3 * h);
  x.mtp = mtp * attn + x.mtp_routed + mtp * expert + x.mtp_router + x.mtp_norms;
  return x;
}

/** Kimi K3: 24 gated MLA layers (an output gate hidden -> heads x v beside Kimi K2's MLA), 69 KDA
 *  layers (q, k, v and their convolutions, low-rank forget and output gates, beta, o_proj; A_log,
 *  dt_bias and the gated norm), layer 0 dense, 92 latent-MoE layers. */
Hand kimi_k3() {
  const double V = 163840, h = 7168, H = 96, ql = 1536, kvl = 512, nope = 128, rope = 64, v = 128;
  const double proj = 96 * 128.0, d = 128, latent = 3584, mi = 3072, E = 896;
  Hand x;
  x.embedding = V * h;
  x.lm_head = V * h;
  const double mla = h * ql + ql * H * (nope + rope) + h * (kvl + rope) + kvl * H * (nope + v) + H * v * h + h * H * v;
  const double kda = 3 * h * proj + 3 * proj * 4 + h * d + d * proj + h * H + h * d + d * proj + proj * h;
  x.attention = 24 * mla + 69 * kda;
  x.norms = 24 * (ql + kvl) + 69 * (H + proj + d) + 93 * 2 * h + h;
  x.dense_ffn = 3 * h * 33792;
  const double expert = 3 * latent * mi;
  x.routed = 92 * E * expert;
  x.routed_active = 92 * 16 * expert;
  x.shared = 92 * (3 * h * 2 * mi + 2 * h * latent + latent);
  x.router = 92 * h * E;
  return x;
}

struct Expect {
  const char* id;
  const char* config;
  Hand hand;
  double card_total;         // the model card's (or id's) stated total
  double kv_fp8_per_token;   // full layers only
  double state_per_sequence; // linear layers
  const char* default_weights;
  double card_tolerance = 0.01;  // 1 %, or the statement's own rounding where it is coarser ("1T")
  bool card_counts_mtp = false;  // the stated total includes the MTP layers
};

const double kFp8Block = 1.0 + 4.0 / 16384;  // FP8 + one FP32 scale per 128 x 128 block

std::vector<Expect> expectations() {
  std::vector<Expect> e;
  // Kimi K2.5: text_config of Kimi-K2.5.config.json
  e.push_back({"kimi-k2.5", "Kimi-K2.5.config.json",
               mla_moe(163840, 7168, 61, 1, 18432, 2048, 384, 8, 1, 64, 1536, 512, 128, 64, 128, 0, 0, 0),
               1000e9, 61 * (512 + 64) * 1.0, 0, "native", 0.05});
  Gqa q35{248320, 4096, 60, 1024, 32, 2, 256};
  q35.E = 512, q35.k = 10, q35.mi = 1024, q35.shared_width = 1024, q35.gate = true;
  q35.linear = 45, q35.nk = 16, q35.nv = 64, q35.dk = 128, q35.dv = 128, q35.kern = 4, q35.mtp = 1;
  // 45 Gated DeltaNet layers: 64 value heads x 128 x 128 float32 + conv (2 x 16 x 128 + 64 x 128) x 3 BF16
  e.push_back({"qwen3.5-397b-a17b", "Qwen3.5-397B-A17B.config.json", gqa(q35), 397e9,
               15 * 2 * 2 * 256 * 1.0, 45 * (64 * 128 * 128 * 4.0 + (2 * 16 * 128 + 64 * 128) * 3 * 2.0), "fp8"});
  e.push_back({"glm-5", "GLM-5-FP8.config.json",
               mla_moe(154880, 6144, 78, 3, 12288, 2048, 256, 8, 1, 64, 2048, 512, 192, 64, 256, 32, 128, 1),
               744e9, 78 * (512 + 64 + 128) * 1.0, 0, "native"});
  Gqa mm{200064, 3072, 62, 1536, 48, 8, 128};
  mm.E = 256, mm.k = 8, mm.mi = 1536, mm.mtp = 3;
  e.push_back({"minimax-m2.5", "MiniMax-M2.5.PARTIAL.config.json", gqa(mm), 230e9, 62 * 2 * 8 * 128 * 1.0, 0, "native"});
  e.push_back({"deepseek-v3.2", "DeepSeek-V3.2.config.json",
               mla_moe(129280, 7168, 61, 3, 18432, 2048, 256, 8, 1, 128, 1536, 512, 128, 64, 128, 64, 128, 1),
               671e9, 61 * (512 + 64 + 128) * 1.0, 0, "native"});
  e.push_back({"deepseek-r1-0528", "DeepSeek-R1.config.json",
               mla_moe(129280, 7168, 61, 3, 18432, 2048, 256, 8, 1, 128, 1536, 512, 128, 64, 128, 0, 0, 1),
               671e9, 61 * (512 + 64) * 1.0, 0, "native"});
  Gqa oss20{201088, 2880, 24, 2880, 64, 8, 64};
  oss20.E = 32, oss20.k = 4, oss20.mi = 2880;
  e.push_back({"gpt-oss-20b", "gpt-oss-20b.config.json", gqa(oss20), 20.91e9, 12 * 2 * 8 * 64 * 1.0, 0, "native"});
  Gqa oss120{201088, 2880, 36, 2880, 64, 8, 64};
  oss120.E = 128, oss120.k = 4, oss120.mi = 2880;
  e.push_back({"gpt-oss-120b", "gpt-oss-120b.config.json", gqa(oss120), 116.83e9, 18 * 2 * 8 * 64 * 1.0, 0, "native"});
  e.push_back({"qwen3-32b", "Qwen3-32B.config.json", gqa(Gqa{151936, 5120, 64, 25600, 64, 8, 128}), 32.8e9,
               64 * 2 * 8 * 128 * 1.0, 0, "fp8"});
  Gqa q30{151936, 2048, 48, 6144, 32, 4, 128};
  q30.E = 128, q30.k = 8, q30.mi = 768;
  e.push_back({"qwen3-30b-a3b", "Qwen3-30B-A3B.config.json", gqa(q30), 30.5e9, 48 * 2 * 4 * 128 * 1.0, 0, "fp8"});
  Gqa next{151936, 2048, 48, 5120, 16, 2, 256};
  next.E = 512, next.k = 10, next.mi = 512, next.shared_width = 512, next.gate = true;
  next.linear = 36, next.nk = 16, next.nv = 32, next.dk = 128, next.dv = 128, next.kern = 4;
  e.push_back({"qwen3-next-80b-a3b", "Qwen3-Next-80B-A3B-Thinking.config.json", gqa(next), 80e9,
               12 * 2 * 2 * 256 * 1.0, 36 * (32 * 128 * 128 * 2.0 + (2 * 16 * 128 + 32 * 128) * 3 * 2.0), "fp8"});
  Gqa gemma{262208, 5376, 62, 21504, 32, 16, 128};
  gemma.tied = true;
  e.push_back({"gemma-3-27b", "gemma-3-27b-it.PARTIAL.config.json", gqa(gemma), 27e9, 10 * 2 * 16 * 128 * 1.0, 0, "fp8"});
  e.push_back({"llama-3.3-70b", "Llama-3.3-70B-Instruct.config.json", gqa(Gqa{128256, 8192, 80, 28672, 64, 8, 128}),
               70e9, 80 * 2 * 8 * 128 * 1.0, 0, "fp8"});
  // GLM-5.1: GLM-5's architecture, BF16 release; NVIDIA's 754B counts the MTP layer.
  e.push_back({"glm-5.1", "GLM-5.1.config.json",
               mla_moe(154880, 6144, 78, 3, 12288, 2048, 256, 8, 1, 64, 2048, 512, 192, 64, 256, 32, 128, 1),
               754e9, 78 * (512 + 64 + 128) * 1.0, 0, "fp8", 0.01, true});
  // MiniMax-M2.7: M2.5's architecture; no publisher count found (0: none checked).
  e.push_back({"minimax-m2.7", "MiniMax-M2.7.config.json", gqa(mm), 0, 62 * 2 * 8 * 128 * 1.0, 0, "native"});
  // Kimi K2.6 (NVIDIA NVFP4): K2.5's architecture; "1T" admits 0.95T to 1.05T.
  e.push_back({"kimi-k2.6", "Kimi-K2.6-NVFP4.config.json",
               mla_moe(163840, 7168, 61, 1, 18432, 2048, 384, 8, 1, 64, 1536, 512, 128, 64, 128, 0, 0, 0),
               1000e9, 61 * (512 + 64) * 1.0, 0, "native", 0.05});
  Gqa q38{248320, 8192, 92, 2048, 64, 4, 256};
  q38.E = 512, q38.k = 10, q38.mi = 2048, q38.shared_width = 2048, q38.gate = true;
  q38.linear = 69, q38.nk = 16, q38.nv = 128, q38.dk = 128, q38.dv = 128, q38.kern = 4, q38.mtp = 1;
  // 69 Gated DeltaNet layers: 128 value heads x 128 x 128 BF16 + conv (2 x 16 x 128 + 128 x 128) x 3 BF16
  e.push_back({"qwen3.8-2.4t-a95b", "Qwen3.8-2.4T-A95B.PARTIAL.config.json", gqa(q38), 2400e9, 23 * 2 * 4 * 256 * 1.0,
               69 * (128 * 128 * 128 * 2.0 + (2 * 16 * 128 + 128 * 128) * 3 * 2.0), "fp8", 0.01});
  // GLM-5.2: GLM-5's shapes; IndexCache keeps indexer keys on 21 of the 78 layers. No stated count.
  e.push_back({"glm-5.2", "GLM-5.2.config.json",
               mla_moe(154880, 6144, 78, 3, 12288, 2048, 256, 8, 1, 64, 2048, 512, 192, 64, 256, 32, 128, 1), 0,
               78 * (512 + 64) + 21 * 128 * 1.0, 0, "fp8"});
  // MiniMax-M3: 3 dense layers, block-sparse attention keeping a 128-value index key on 57 layers.
  Gqa m3{200064, 6144, 60, 3072, 64, 4, 128};
  m3.E = 128, m3.k = 4, m3.mi = 3072, m3.shared_width = 3072, m3.dense = 3, m3.dense_width = 12288, m3.mtp = 1;
  e.push_back({"minimax-m3", "MiniMax-M3.PARTIAL.config.json", gqa(m3), 428e9, 60 * 2 * 4 * 128 + 57 * 128 * 1.0, 0,
               "fp8", 0.01});
  // DeepSeek-V4: per token 30 CSA x (512 + 128) / 4 + 31 HCA x 512 / 128 (Pro); 21 x 160 + 20 x 4 (Flash).
  // The card's "1.6T" admits 1.55T to 1.65T: the count is 1.573T.
  e.push_back({"deepseek-v4-pro", "DeepSeek-V4-Pro.config.json",
               deepseek_v4(129280, 7168, 61, 128, 1536, 16, 1024, 384, 6, 3072, 30, 31, 64, 128, 1), 1600e9,
               30 * 640 / 4 + 31 * 512 / 128 * 1.0, 0, "native", 0.05 / 1.6});
  e.push_back({"deepseek-v4-flash", "DeepSeek-V4-Flash.config.json",
               deepseek_v4(129280, 4096, 43, 64, 1024, 8, 1024, 256, 6, 2048, 21, 20, 64, 128, 1), 284e9,
               21 * 640 / 4 + 20 * 512 / 128 * 1.0, 0, "native", 0.01});
  // Kimi K3: 24 MLA layers x 576 per token; 69 KDA layers x (96 x 128 x 128 float32 + 3 x 96 x 128 x 3 BF16).
  // The count, 2.774T, is within 1 % of "2.8T".
  e.push_back({"kimi-k3", "Kimi-K3.config.json", kimi_k3(), 2800e9, 24 * 576 * 1.0,
               69 * (96 * 128 * 128 * 4.0 + 3 * 96 * 128 * 3 * 2.0), "native"});
  return e;
}

/** Resident weight bytes of the scenario's default format, by hand. */
double hand_default_weights(const Expect& x) {
  const Hand& h = x.hand;
  const double resident = h.total() + h.mtp;
  const std::string id = x.id;
  if (std::string(x.default_weights) == "fp8") return resident * 1.0;
  if (id == "kimi-k2.6") return h.routed * (0.5 + 1.0 / 16) + (resident - h.routed) * 2;  // NVFP4, FP8 scale
  if (id == "kimi-k2.5") return h.routed * (0.5 + 2.0 / 32) + (resident - h.routed) * 2;  // INT4 g32, BF16 scale
  if (id.rfind("gpt-oss", 0) == 0 || id == "kimi-k3") return h.routed * (0.5 + 1.0 / 32) + (resident - h.routed) * 2;  // MXFP4
  // FP8 block-scaled linear layers; embedding, head, router and norms BF16.
  const double bf16 = h.embedding + h.lm_head + h.router + h.norms + h.mtp_router + h.mtp_norms;
  if (id.rfind("deepseek-v4", 0) == 0) {  // routed experts FP4 E2M1, one 8-bit scale per 32
    const double fp4 = h.routed + h.mtp_routed;
    return fp4 * (0.5 + 1.0 / 32) + (resident - bf16 - fp4) * kFp8Block + bf16 * 2;
  }
  return (resident - bf16) * kFp8Block + bf16 * 2;
}

/** The import and the catalog entry agree on every dimension the sizing reads, one CHECK per
 *  field (named on failure). The checkpoint is compared apart: a file may imply another format. */
void check_same_dimensions(const Model& im, const Model& m) {
#define GPUCALC_SAME(field) CHECK_MESSAGE(im.field == m.field, #field ": imported " << im.field << ", catalog " << m.field)
  GPUCALC_SAME(layers);
  GPUCALC_SAME(dense_layers);
  GPUCALC_SAME(hidden_size);
  GPUCALC_SAME(intermediate_size);
  GPUCALC_SAME(moe_intermediate_size);
  GPUCALC_SAME(shared_expert_intermediate_size);
  GPUCALC_SAME(heads);
  GPUCALC_SAME(kv_heads);
  GPUCALC_SAME(head_dim);
  GPUCALC_SAME(vocab_size);
  GPUCALC_SAME(tied_embeddings);
  GPUCALC_SAME(experts_routed);
  GPUCALC_SAME(experts_active);
  GPUCALC_SAME(experts_shared);
  GPUCALC_SAME(moe_layer_interval);
  GPUCALC_SAME(moe_latent_size);
  GPUCALC_SAME(attention_output_gate);
  GPUCALC_SAME(kv_lora_rank);
  GPUCALC_SAME(qk_rope_head_dim);
  GPUCALC_SAME(q_lora_rank);
  GPUCALC_SAME(qk_nope_head_dim);
  GPUCALC_SAME(v_head_dim);
  GPUCALC_SAME(index_heads);
  GPUCALC_SAME(index_head_dim);
  GPUCALC_SAME(index_topk);
  GPUCALC_SAME(index_layers);
  GPUCALC_SAME(sparse_layers);
  GPUCALC_SAME(csa_layers);
  GPUCALC_SAME(csa_ratio);
  GPUCALC_SAME(hca_layers);
  GPUCALC_SAME(hca_ratio);
  GPUCALC_SAME(o_groups);
  GPUCALC_SAME(o_lora_rank);
  GPUCALC_SAME(sliding_window_tokens);
  GPUCALC_SAME(sliding_window_layers);
  GPUCALC_SAME(linear_attention_layers);
  GPUCALC_SAME(linear_key_heads);
  GPUCALC_SAME(linear_value_heads);
  GPUCALC_SAME(linear_key_head_dim);
  GPUCALC_SAME(linear_value_head_dim);
  GPUCALC_SAME(linear_conv_kernel);
  GPUCALC_SAME(linear_state_bytes_per_value);
  GPUCALC_SAME(linear_conv_bytes_per_value);
  GPUCALC_SAME(mtp_layers);
  GPUCALC_SAME(max_context_tokens);
#undef GPUCALC_SAME
  CHECK(im.attention == m.attention);
  CHECK(im.linear_kind == m.linear_kind);
  CHECK(im.params_total == doctest::Approx(m.params_total).epsilon(1e-12));
  CHECK(im.params_active == doctest::Approx(m.params_active).epsilon(1e-12));
  CHECK(im.params_mtp == doctest::Approx(m.params_mtp).epsilon(1e-12));
  for (std::size_t g = 0; g < kWeightGroupCount; ++g) {
    CAPTURE(weight_group_name(static_cast<WeightGroup>(g)));
    CHECK(im.param_groups[g] == doctest::Approx(m.param_groups[g]).epsilon(1e-12));
  }
}

/** The groups in `quantized` are stored as `format`, every other group the model has in BF16. */
void check_checkpoint(const Model& im, const std::string& native, const StorageFormat& format,
                      std::initializer_list<WeightGroup> quantized) {
  CHECK(im.native_weights == native);
  for (std::size_t g = 0; g < kWeightGroupCount; ++g) {
    const WeightGroup group = static_cast<WeightGroup>(g);
    CAPTURE(weight_group_name(group));
    if (im.param_groups[g] == 0) continue;  // a group the model lacks (MiniMax: shared experts)
    const bool q = std::find(quantized.begin(), quantized.end(), group) != quantized.end();
    const StorageFormat& f = im.checkpoint[g];
    CHECK(f.id == (q ? format.id : "bf16"));
    CHECK(f.bytes_per_param() == (q ? format.bytes_per_param() : 2.0));
  }
}

double device_bytes(const Gpu& g) {
  return g.hbm_device_bytes ? *g.hbm_device_bytes : g.hbm_marketed_bytes / 1e9 * 1073741824.0;
}

}  // namespace

TEST_CASE("2026 models: parameters, KV per token and state, by hand from their configs") {
  const Catalog& c = default_catalog();
  for (const Expect& x : expectations()) {
    const std::string id = x.id;
    CAPTURE(id);
    const Model* m = c.find_model(x.id);
    REQUIRE(m != nullptr);
    CHECK(m->params_total == doctest::Approx(x.hand.total()).epsilon(1e-12));
    CHECK(m->params_active == doctest::Approx(x.hand.active()).epsilon(1e-12));
    CHECK(m->params_mtp == doctest::Approx(x.hand.mtp).epsilon(1e-12));
    // Within the tolerance of the total the model card (or the model id) states; Kimi's card
    // rounds to one significant digit ("1T"), which admits 0.95T to 1.05T: the count is 1.026T.
    CHECK(m->card_params_total == doctest::Approx(x.card_total));
    if (x.card_total > 0) {
      const double counted = m->params_total + (x.card_counts_mtp ? m->params_mtp : 0.0);
      CHECK(std::fabs(counted / x.card_total - 1.0) <= x.card_tolerance);
    }
    CHECK(kv_bytes_per_token(*m, KvFormat::kFp8) == x.kv_fp8_per_token);
    CHECK(kv_bytes_per_token(*m, KvFormat::kBf16) == 2 * x.kv_fp8_per_token);
    CHECK(state_bytes_per_sequence(*m) == x.state_per_sequence);
    CHECK(std::string(weight_format_name(default_weight_format(*m))) == x.default_weights);
    CHECK_FALSE(m->sources.empty());
    // The config import gives the same model.
    auto imported = import_hf_config(hf_fixture(x.config), "imported");
    REQUIRE_MESSAGE(imported.ok(), (imported.ok() ? "" : imported.error().to_string()));
    const Model& im = imported.value();
    check_same_dimensions(im, *m);
    CHECK(kv_bytes_per_token(im, KvFormat::kFp8) == x.kv_fp8_per_token);
    CHECK(state_bytes_per_sequence(im) == x.state_per_sequence);
    CHECK(im.checkpoint_quantized == m->checkpoint_quantized);
    CHECK(im.native_weights == m->native_weights);
    for (std::size_t g = 0; g < kWeightGroupCount; ++g) {
      CAPTURE(weight_group_name(static_cast<WeightGroup>(g)));
      CHECK(im.checkpoint[g].bytes_per_param() == m->checkpoint[g].bytes_per_param());
    }
    const Gpu& h200 = *c.find_gpu("h200-sxm");
    CHECK(weight_bytes(im, WeightFormat::kNative, h200) ==
          doctest::Approx(weight_bytes(*m, WeightFormat::kNative, h200)).epsilon(1e-12));
  }
}

TEST_CASE("2026 models: longest context on 8x H200 and 8x MI355X, by hand") {
  const Catalog& c = default_catalog();
  for (const Expect& x : expectations()) {
    CAPTURE(x.id);
    const Model& m = *c.find_model(x.id);
    // Default scenario: 1 user, 131,072-token context, 5 GB reserve, device capacity, FP8 KV.
    const Evaluation ev = eval_ok(c, std::string("v=1&model=") + x.id + "&compare=fullgpu-8x-h200,fullgpu-8x-mi355x");
    CHECK(ev.canonical.find(std::string("&weights=") + x.default_weights + "&") != std::string::npos);
    for (const auto& r : ev.results) {
      CAPTURE(r.gpu_id);
      const double weights = hand_default_weights(x);
      CHECK(r.fit.weights_bytes == doctest::Approx(weights).epsilon(1e-12));
      if (weights / 8 > device_bytes(*c.find_gpu(r.gpu_id)) - 5e9) {  // Qwen3.8: 2.4 TB of FP8
        CHECK_FALSE(r.fit.fits);
        continue;
      }
      REQUIRE(r.fit.fits);
      REQUIRE(r.fit.deployment.tensor_parallel == 8);
      // KV room per GPU: the engine's KV pool (its rule is checked by hand in test_memory.cpp),
      // never more than capacity - reserve - weights.
      const double free_per_gpu = r.fit.kv_free_bytes_per_gpu;
      CHECK(free_per_gpu > 0);
      CHECK(free_per_gpu <= device_bytes(*c.find_gpu(r.gpu_id)) - 5e9 - weights / 8);
      // Per GPU at TP 8: GQA KV heads split (at least one each), MLA latent and DSA keys replicated,
      // linear heads split.
      double full_rate = 0, sliding_rate = 0, state = 0;
      const double full = m.full_attention_layers();
      if (m.attention == AttentionKind::kMla) {
        full_rate = x.kv_fp8_per_token;  // replicated
      } else if (m.attention == AttentionKind::kCompressed) {
        full_rate = x.kv_fp8_per_token;              // one K=V head, replicated
        sliding_rate = m.layers * 512.0;             // every layer's raw window
      } else {
        const double kv_heads_per_gpu = std::ceil(m.kv_heads / 8.0);
        full_rate = full * 2 * kv_heads_per_gpu * m.head_dim + m.index_key_layers() * 128.0;  // index keys replicated
        sliding_rate = m.sliding_window_layers * 2 * kv_heads_per_gpu * m.head_dim;
      }
      if (m.linear_attention_layers > 0) {
        state = x.state_per_sequence / 8;  // value and key heads split evenly over 8 ranks here
      }
      const double budget = free_per_gpu - state;
      const double tokens = sliding_rate > 0 ? (budget - sliding_rate * m.sliding_window_tokens) / full_rate
                                             : budget / full_rate;
      const long long memory_limit = std::min(static_cast<long long>(std::floor(tokens)), 16777216LL);
      // The figure stops at the model's own maximum, with a warning saying so.
      const long long expect = std::min(memory_limit, static_cast<long long>(m.max_context_tokens));
      CHECK(r.fit.max_context_tokens == expect);
      const bool capped = std::find(r.warnings.begin(), r.warnings.end(),
                                    "context_capped_at_model_max") != r.warnings.end();
      CHECK(capped == (memory_limit > expect));
      CHECK(r.fit.state_bytes_per_sequence == x.state_per_sequence);
    }
  }
}

TEST_CASE("Qwen3.5-397B-A17B at FP8 KV: only the 15 full-attention layers keep per-token KV") {
  const Catalog& c = default_catalog();
  const Evaluation ev = eval_ok(c, "v=1&model=qwen3.5-397b-a17b&kv=fp8&context=131072&compare=fullgpu-8x-h200");
  const auto& f = ev.results[0].fit;
  CHECK(f.kv_bytes_per_token == 15 * 2 * 2 * 256);  // 15,360 B, not 60 layers' 61,440
  // The 45 linear layers appear as a fixed state: 45 x (64 x 128 x 128 x 4 + 12,288 x 3 x 2) bytes.
  CHECK(f.state_bytes_per_sequence == 45 * (64 * 128 * 128 * 4.0 + 12288 * 3 * 2.0));
  CHECK(f.kv_bytes_per_context == 15360.0 * 131072 + f.state_bytes_per_sequence);
  CHECK(ev.model.params_active / 1e9 == doctest::Approx(17.35).epsilon(0.001));  // the id says 17B
}

TEST_CASE("weights=native: the release's mixed precision per weight group") {
  const Catalog& c = default_catalog();
  const Gpu& h200 = *c.find_gpu("h200-sxm");
  for (const Expect& x : expectations()) {
    const std::string id = x.id;
    if (id != "kimi-k2.5" && id != "gpt-oss-120b") continue;
    CAPTURE(id);
    const Model& m = *c.find_model(id);
    const Hand& h = x.hand;
    const GroupParams bytes = weight_bytes_by_group(m, WeightFormat::kNative, h200);
    const double routed_bpp = id == "kimi-k2.5" ? 0.5 + 2.0 / 32 : 0.5 + 1.0 / 32;
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kRoutedExperts)] == doctest::Approx(h.routed * routed_bpp));
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kAttention)] == doctest::Approx(h.attention * 2));
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kSharedExperts)] == doctest::Approx(h.shared * 2));
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kDenseFfn)] == doctest::Approx(h.dense_ffn * 2));
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kEmbedding)] == doctest::Approx(h.embedding * 2));
    CHECK(bytes[static_cast<std::size_t>(WeightGroup::kLmHead)] == doctest::Approx(h.lm_head * 2));
    CHECK(weight_bytes(m, WeightFormat::kNative, h200) ==
          doctest::Approx(h.routed * routed_bpp + (h.total() - h.routed) * 2).epsilon(1e-12));
    // The explicit 4-bit formats quantize the routed experts the same way; the rest stays BF16.
    CHECK(weight_bytes(m, WeightFormat::kFp4, h200) ==
          doctest::Approx(h.routed * 0.53125 + (h.total() - h.routed) * 2).epsilon(1e-12));
    // 8-bit formats apply to every weight.
    CHECK(weight_bytes(m, WeightFormat::kFp8, h200) == doctest::Approx(h.total()).epsilon(1e-12));
    CHECK(math_weight_format(m, WeightFormat::kNative) ==
          (id == "kimi-k2.5" ? WeightFormat::kInt4 : WeightFormat::kFp4));
  }
  // An explicit weights key overrides the native default; the default scenario keeps fp8.
  CHECK(eval_ok(c, "v=1&model=kimi-k2.5&weights=fp8").canonical.find("&weights=fp8&") != std::string::npos);
  CHECK(eval_ok(c, "v=1").canonical.find("&weights=fp8&") != std::string::npos);
  CHECK(eval_ok(c, "v=1&model=deepseek-v3").canonical.find("&weights=native&") != std::string::npos);
}

TEST_CASE("DeepSeek-V3.2 at 128K: attention FLOPs per token bounded by the top-k") {
  const Model& m = *default_catalog().find_model("deepseek-v3.2");
  const double ctx = 131072;
  const AttentionStep at_128k = attention_step(m, KvFormat::kFp8, ctx);
  const AttentionStep at_topk = attention_step(m, KvFormat::kFp8, 2048);
  // Absorbed MLA over the 2,048 selected tokens: 61 x 2 x 128 heads x (2 x 512 + 64) x 2,048.
  CHECK(at_128k.softmax_flops == 61 * 2.0 * 128 * (2 * 512 + 64) * 2048);
  CHECK(at_128k.softmax_flops == at_topk.softmax_flops);
  // The indexer scores every token: 61 x 2 x 64 heads x 128 x context.
  CHECK(at_128k.indexer_flops == 61 * 2.0 * 64 * 128 * ctx);
  // Reads: the selected latents plus every token's indexer key (FP8).
  CHECK(at_128k.kv_bytes_read == 61 * (576.0 * 2048 + 128.0 * ctx));
  // Plain MLA (R1-0528) attends the whole context.
  const AttentionStep r1 = attention_step(*default_catalog().find_model("deepseek-r1-0528"), KvFormat::kFp8, ctx);
  CHECK(r1.softmax_flops == 61 * 2.0 * 128 * (2 * 512 + 64) * ctx);
  CHECK(r1.indexer_flops == 0);
}

TEST_CASE("attention step by layer kind: sliding windows cap, linear layers read their state") {
  const Catalog& c = default_catalog();
  const Model& oss = *c.find_model("gpt-oss-120b");
  const AttentionStep s = attention_step(oss, KvFormat::kBf16, 10000);
  CHECK(s.kv_bytes_read == 2.0 * 8 * 64 * 2 * (18 * 10000.0 + 18 * 128.0));
  CHECK(s.softmax_flops == 4.0 * 64 * 64 * (18 * 10000.0 + 18 * 128.0));
  const Model& q = *c.find_model("qwen3-next-80b-a3b");
  const AttentionStep l = attention_step(q, KvFormat::kFp8, 4096);
  CHECK(l.kv_bytes_read == 12 * 2 * 2 * 256 * 4096.0 + state_bytes_per_sequence(q));
  CHECK(l.linear_flops == 36 * 6.0 * 32 * 128 * 128);
  const auto groups = layer_groups(q, KvFormat::kFp8);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].kind == "full_gqa");
  CHECK(groups[0].layers == 12);
  CHECK(groups[1].kind == "linear");
  CHECK(groups[1].layers * groups[1].state_bytes_per_layer == state_bytes_per_sequence(q));
}

TEST_CASE("hostile HF configs and catalog entries: errors name the field, sizes stay finite") {
  // Wrongly typed fields are errors, not 64 heads.
  const std::string base = R"("hidden_size":8192,"intermediate_size":28672,"num_attention_heads":64,"num_hidden_layers":80,"vocab_size":128256)";
  for (const char* kv : {R"("8")", "8.0", "-8", "0", "true", "99999999999999999999"}) {
    CAPTURE(kv);
    auto r = import_hf_config("{" + base + R"(,"num_key_value_heads":)" + kv + "}", "x");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "config.json: num_key_value_heads");
  }
  auto hd0 = import_hf_config("{" + base + R"(,"head_dim":0})", "x");
  REQUIRE_FALSE(hd0.ok());
  CHECK(hd0.error().field == "config.json: head_dim");
  // hf-neg.json: 4 x hidden_size overflowed to -6.3e18 parameters.
  auto neg = import_hf_config(R"({"hidden_size":700000000,"num_attention_heads":1,"num_key_value_heads":1,"num_hidden_layers":2,"vocab_size":1,"head_dim":1})", "x");
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().field == "config.json: hidden_size");
  // hf-mla.json: kv_lora_rank + qk_rope_head_dim overflowed to a negative KV per token.
  auto mla = import_hf_config("{" + base + R"(,"num_key_value_heads":8,"kv_lora_rank":1073741824,"qk_rope_head_dim":1073741824})", "x");
  REQUIRE_FALSE(mla.ok());
  CHECK(mla.error().field == "config.json: kv_lora_rank");
  // A 2^30-layer config is refused at parse time.
  auto deep = import_hf_config(R"({"hidden_size":64,"num_attention_heads":1,"num_hidden_layers":1073741824,"vocab_size":10})", "x");
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().field == "config.json: num_hidden_layers");
  auto types = import_hf_config(R"({"hidden_size":64,"num_attention_heads":1,"num_hidden_layers":2,"vocab_size":10,"sliding_window":8,"layer_types":["full_attention"]})", "x");
  REQUIRE_FALSE(types.ok());
  CHECK(types.error().field == "config.json: layer_types");
  auto quant = import_hf_config(R"({"hidden_size":64,"num_attention_heads":1,"num_hidden_layers":2,"vocab_size":10,"quantization_config":{"quant_method":"bitnet"}})", "x");
  REQUIRE_FALSE(quant.ok());
  CHECK(quant.error().field == "config.json: quantization_config.quant_method");
  // mla.json (--catalog): kv_lora_rank x heads overflowed int; counted in double it is exact.
  auto cat = extend_catalog(default_catalog(), R"({"models":[{"id":"mla","name":"mla","layers":61,"hidden_size":7168,"intermediate_size":18432,"heads":65536,"vocab_size":129280,"attention":"mla","kv_lora_rank":1048576,"q_lora_rank":1048576,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"sources":["x"]}]})", "mla.json");
  // Counted in double the parameters are exact, and past the catalog's 1,000,000 B bound
  //: refused naming params_total_b, never a negative or tiny model.
  const double h = 7168, H = 65536, r = 1048576;
  const double attn = h * r + r * H * 192 + h * (r + 64) + r * H * 256 + H * 128 * h;
  const double hand = 2 * 129280 * h + 61 * (attn + 2 * h + 2 * r + 3 * h * 18432) + h;
  CHECK(hand > 1e15);
  REQUIRE_FALSE(cat.ok());
  CHECK(cat.error().field == "mla.json: models[0](mla).params_total_b");
  // big-moe.json: huge MoE dimensions stay finite and positive.
  auto moe = extend_catalog(default_catalog(), R"({"models":[{"id":"big","name":"big","layers":10000,"hidden_size":1048576,"intermediate_size":4194304,"heads":65536,"kv_heads":65536,"head_dim":65536,"vocab_size":16777216,"experts_routed":65536,"experts_active":65536,"moe_intermediate_size":4194304,"sources":["x"]}]})", "big-moe.json");
  // Counted in double the count stays finite and positive, and it is past the 1,000,000 B bound.
  const double bh = 1048576;
  const double big_hand = 10000 * (65536 * 3.0 * bh * 4194304 + 4 * bh * 65536 * 65536 + bh * 65536 + 2 * bh) +
                          2 * 16777216 * bh + bh;  // experts, attention, router, norms; embedding, head
  CHECK(std::isfinite(big_hand));
  CHECK(big_hand > 1e15);
  REQUIRE_FALSE(moe.ok());
  CHECK(moe.error().field == "big-moe.json: models[0](big).params_total_b");
}

TEST_CASE("HF import: wrappers, transformers defaults and checkpoint precision") {
  // Gemma 3: the text part lacks vocab_size; transformers' Gemma3TextConfig default is 262208.
  auto g = import_hf_config(hf_fixture("gemma-3-27b-it.PARTIAL.config.json"), "g");
  REQUIRE(g.ok());
  CHECK(g.value().vocab_size == 262208);
  CHECK(g.value().tied_embeddings);
  CHECK(g.value().sliding_window_layers == 52);  // sliding_window_pattern 6: every 6th is global
  CHECK(g.value().max_context_tokens == 131072);
  // The same text config inside a multimodal wrapper.
  const std::string wrapped = R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "text_config": )" +
                              hf_fixture("gemma-3-27b-it.PARTIAL.config.json") + "}";
  auto gw = import_hf_config(wrapped, "gw");
  REQUIRE(gw.ok());
  CHECK(gw.value().params_total == g.value().params_total);
  // Kimi K2.5: INT4 experts from compressed-tensors, the ignore list kept in BF16.
  auto k = import_hf_config(hf_fixture("Kimi-K2.5.config.json"), "k");
  REQUIRE(k.ok());
  CHECK(k.value().checkpoint[static_cast<std::size_t>(WeightGroup::kRoutedExperts)].bytes_per_param() == 0.5625);
  CHECK(k.value().checkpoint[static_cast<std::size_t>(WeightGroup::kAttention)].id == "bf16");
  CHECK(k.value().checkpoint[static_cast<std::size_t>(WeightGroup::kSharedExperts)].id == "bf16");
  CHECK(k.value().checkpoint[static_cast<std::size_t>(WeightGroup::kDenseFfn)].id == "bf16");
  CHECK(k.value().native_weights == "int4");
  // DeepSeek-V3.2: FP8 with 128 x 128 block scales.
  auto d = import_hf_config(hf_fixture("DeepSeek-V3.2.config.json"), "d");
  REQUIRE(d.ok());
  CHECK(d.value().checkpoint[static_cast<std::size_t>(WeightGroup::kAttention)].bytes_per_param() == kFp8Block);
  CHECK(d.value().checkpoint[static_cast<std::size_t>(WeightGroup::kRouter)].id == "bf16");
  CHECK(d.value().index_topk == 2048);
}

TEST_CASE("HF import: GLM-5 (the BF16 release) reads to the catalog's glm-5, stored in BF16") {
  const Catalog& c = default_catalog();
  const Model& catalog = *c.find_model("glm-5");
  auto imported = import_hf_config(hf_fixture("GLM-5.config.json"), "glm-5-bf16");
  REQUIRE_MESSAGE(imported.ok(), (imported.ok() ? "" : imported.error().to_string()));
  const Model& im = imported.value();
  check_same_dimensions(im, catalog);
  // No quantization_config: every group BF16, and weights=native is 2 bytes a parameter.
  check_checkpoint(im, "bf16", StorageFormat{}, {});
  CHECK_FALSE(im.checkpoint_quantized);
  const Hand h = mla_moe(154880, 6144, 78, 3, 12288, 2048, 256, 8, 1, 64, 2048, 512, 192, 64, 256, 32, 128, 1);
  CHECK(im.params_total == doctest::Approx(h.total()).epsilon(1e-12));
  CHECK(kv_bytes_per_token(im, KvFormat::kFp8) == 78 * (512 + 64 + 128));
  const Gpu& h200 = *c.find_gpu("h200-sxm");
  CHECK(weight_bytes(im, WeightFormat::kNative, h200) == doctest::Approx((h.total() + h.mtp) * 2).epsilon(1e-12));
  // The catalog's glm-5 is the FP8 sibling's storage; its explicit bf16 is the same bytes.
  CHECK(weight_bytes(catalog, WeightFormat::kBf16, h200) ==
        doctest::Approx(weight_bytes(im, WeightFormat::kNative, h200)).epsilon(1e-12));
}

TEST_CASE("HF import: NVIDIA's MiniMax-M2.5-NVFP4 reads to the catalog's minimax-m2.5, experts in NVFP4") {
  const Catalog& c = default_catalog();
  const Model& catalog = *c.find_model("minimax-m2.5");
  const std::string text = hf_fixture("MiniMax-M2.5-NVFP4.config.json");
  auto imported = import_hf_config(text, "minimax-m2.5-nvfp4");
  REQUIRE_MESSAGE(imported.ok(), (imported.ok() ? "" : imported.error().to_string()));
  const Model& im = imported.value();
  check_same_dimensions(im, catalog);
  // modelopt NVFP4: 4-bit values, one FP8 scale per 16. The ignore list names every layer's
  // self_attn and router, and lm_head: those stay BF16; the routed experts are NVFP4.
  const StorageFormat nvfp4{"nvfp4", 4.0, 8.0, 16.0};
  check_checkpoint(im, "fp4", nvfp4, {WeightGroup::kRoutedExperts});
  CHECK(im.checkpoint[static_cast<std::size_t>(WeightGroup::kRoutedExperts)].bytes_per_param() == 0.5 + 1.0 / 16);
  Gqa mm{200064, 3072, 62, 1536, 48, 8, 128};
  mm.E = 256, mm.k = 8, mm.mi = 1536, mm.mtp = 3;
  const Hand h = gqa(mm);
  const double routed = h.routed + h.mtp_routed;
  const Gpu& h200 = *c.find_gpu("h200-sxm");
  CHECK(weight_bytes(im, WeightFormat::kNative, h200) ==
        doctest::Approx(routed * (0.5 + 1.0 / 16) + (h.total() + h.mtp - routed) * 2).epsilon(1e-12));
  CHECK(kv_bytes_per_token(im, KvFormat::kFp8) == 62 * 2 * 8 * 128);
  // The same list with one layer's self_attn left out keeps attention BF16 in 61 of 62 layers:
  // one format per group cannot hold that, so it is refused naming the list.
  auto partial = nlohmann::json::parse(text);
  auto& ignore = partial["quantization_config"]["ignore"];
  ignore.erase(std::find(ignore.begin(), ignore.end(), "model.layers.7.self_attn*"));
  auto refused = import_hf_config(partial.dump(), "x");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "config.json: quantization_config.ignore");
  CHECK(refused.error().message.find("61 of 62") != std::string::npos);
}

TEST_CASE("HF import: an unknown layer kind in a known architecture is refused, naming the field") {
  // Qwen3.5 names each layer's kind; a kind gpucalc does not size is never read as full attention.
  auto qwen = nlohmann::json::parse(hf_fixture("Qwen3.5-397B-A17B.config.json"));
  REQUIRE(qwen["text_config"]["layer_types"].is_array());
  qwen["text_config"]["layer_types"][3] = "chunked_attention";
  auto q = import_hf_config(qwen.dump(), "x");
  REQUIRE_FALSE(q.ok());
  CHECK(q.error().field == "config.json: layer_types");
  CHECK(q.error().message.find("chunked_attention") != std::string::npos);
  // MiniMax's attn_type_list: 0 is lightning (linear) attention (MiniMax-01), not sized.
  auto minimax = nlohmann::json::parse(hf_fixture("MiniMax-M2.7.config.json"));
  REQUIRE(minimax["attn_type_list"].is_array());
  minimax["attn_type_list"][0] = 0;
  auto mm = import_hf_config(minimax.dump(), "x");
  REQUIRE_FALSE(mm.ok());
  CHECK(mm.error().field == "config.json: attn_type_list");
  // A model_type gpucalc does not read, on a config that is otherwise GLM-5's.
  auto glm = nlohmann::json::parse(hf_fixture("GLM-5.config.json"));
  glm["model_type"] = "glm_moe_dsa_v2";
  auto g = import_hf_config(glm.dump(), "x");
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().field == "config.json: model_type");
  CHECK(g.error().message.find("glm_moe_dsa_v2") != std::string::npos);
}

TEST_CASE("every config.json in tests/fixtures/hf-configs has its import test") {
  // The fixtures are the reference collection (shared/reference/model-configs); each file is
  // imported and compared to a catalog entry above, or refused naming a field.
  std::set<std::string> tested;
  for (const Expect& x : expectations()) tested.insert(x.config);
  for (const char* more : {"GLM-5.config.json", "MiniMax-M2.5-NVFP4.config.json",
                           "DeepSeek-V4.1-Flash.PARTIAL.config.json"}) {
    tested.insert(more);
  }
  std::set<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) files.insert(name);
  }
  CHECK(files.size() == 25);
  for (const std::string& f : files) {
    CAPTURE(f);
    CHECK(tested.count(f) == 1);
  }
  for (const std::string& t : tested) {
    CAPTURE(t);
    CHECK(files.count(t) == 1);
  }
}

TEST_CASE("the what-fits table lists the 2026 models") {
  const Catalog& c = default_catalog();
  auto table = fit_table_json(c, decode_scenario("v=1").value());
  REQUIRE(table.ok());
  const auto t = nlohmann::json::parse(table.value());
  for (const Expect& x : expectations()) {
    bool listed = false;
    for (const auto& row : t["rows"]) listed = listed || row["model"] == x.id;
    CHECK_MESSAGE(listed, x.id);
  }
}

TEST_CASE("the formula trace shows each layer group and the per-sequence state") {
  auto ev = evaluate_text(default_catalog(), "v=1&model=qwen3.5-397b-a17b&compare=fullgpu-8x-h200", true);
  REQUIRE(ev.ok());
  const auto& trace = ev.value().results[0].trace;
  auto find = [&](const std::string& field) -> const TraceEntry* {
    for (const auto& t : trace) {
      if (t.field == field) return &t;
    }
    return nullptr;
  };
  const TraceEntry* full = find("layer_group_full_gqa");
  const TraceEntry* linear = find("layer_group_linear");
  REQUIRE(full != nullptr);
  REQUIRE(linear != nullptr);
  CHECK(full->inputs[0].second == 15);
  CHECK(linear->inputs[0].second == 45);
  CHECK(linear->inputs[1].second == 64 * 128 * 128 * 4.0 + 12288 * 3 * 2.0);
  REQUIRE(find("state_bytes_per_sequence") != nullptr);
  const auto j = nlohmann::json::parse(evaluation_to_json(ev.value(), true));
  CHECK(j["results"][0]["state_bytes_per_sequence"] == 45 * (64 * 128 * 128 * 4.0 + 12288 * 3 * 2.0));
  CHECK(j["model"]["linear_attention_layers"] == 45);
}

TEST_CASE("HF import: a parameter cap, and quantization integers out of range name their field") {
  // Each dimension within its own limit, the product 1.76e17 parameters: refused, never "Added".
  const std::string huge = R"({"hidden_size":1048576,"intermediate_size":4194304,"num_attention_heads":64,"num_key_value_heads":8,"num_hidden_layers":10000,"vocab_size":16777216})";
  auto big = import_hf_config(huge, "x");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().field == "config.json: parameters");
  CHECK(big.error().message.find("at most 1,000,000 B") != std::string::npos);
  const std::string base = R"("hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,"num_hidden_layers":32,"vocab_size":128256)";
  // 4294967300 = 2^32 + 4: an int cast read it as 4 bits.
  auto bits = import_hf_config("{" + base + R"(,"quantization_config":{"quant_method":"gptq","bits":4294967300,"group_size":128}})", "x");
  REQUIRE_FALSE(bits.ok());
  CHECK(bits.error().field == "config.json: quantization_config.bits");
  auto group = import_hf_config("{" + base + R"(,"quantization_config":{"quant_method":"awq","bits":4,"group_size":4294967424}})", "x");
  REQUIRE_FALSE(group.ok());
  CHECK(group.error().field == "config.json: quantization_config.group_size");
  auto num_bits = import_hf_config("{" + base + R"(,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"g":{"weights":{"num_bits":4294967300,"group_size":32}}}}})", "x");
  REQUIRE_FALSE(num_bits.ok());
  CHECK(num_bits.error().field == "config.json: quantization_config.config_groups.weights.num_bits");
  auto fine = import_hf_config("{" + base + R"(,"quantization_config":{"quant_method":"gptq","bits":4,"group_size":128}})", "x");
  REQUIRE(fine.ok());
  CHECK(fine.value().checkpoint[static_cast<std::size_t>(WeightGroup::kDenseFfn)].value_bits == 4);
}

TEST_CASE("2026 models: active parameters against the stated figures") {
  const Catalog& c = default_catalog();
  // Qwen3.8-2.4T-A95B: the id states 95B active; counted with embedding and head, 95.29B.
  const Model& q = *c.find_model("qwen3.8-2.4t-a95b");
  CHECK(q.card_params_active == 95e9);
  CHECK(std::fabs(q.params_active / q.card_params_active - 1.0) <= 0.01);
  // Kimi K2.6: "32B activated" leaves the input embedding out (as DeepSeek's 37B does): 31.69B.
  const Model& k = *c.find_model("kimi-k2.6");
  const double k_active = k.params_active - 163840.0 * 7168;
  CHECK(std::fabs(k_active / k.card_params_active - 1.0) <= 0.01);
}

TEST_CASE("DeepSeek-V4-Pro: compressed attention per step, by hand (shared/reference/models.md)") {
  const Model& m = *default_catalog().find_model("deepseek-v4-pro");
  const double n = 131072;
  const AttentionStep s = attention_step(m, KvFormat::kFp8, n);
  // Rows one query attends: 61 layers x the 128-token window, 30 CSA x the top 1,024 of n / 4 rows,
  // 31 HCA x n / 128 rows; 2 x 128 heads x 2 x 512 FLOPs per row (about 18 GFLOP).
  const double rows = 61 * 128.0 + 30 * 1024.0 + 31 * (n / 128);
  CHECK(s.softmax_flops == 2.0 * 128 * 2 * 512 * rows);
  CHECK(s.softmax_flops / 1e9 == doctest::Approx(18.4).epsilon(0.01));
  // The Lightning Indexer scores every compressed row of the CSA layers: 2 x 64 x 128 x 30 x n / 4.
  CHECK(s.indexer_flops == 2.0 * 64 * 128 * 30 * (n / 4));
  // Reads (FP8): each attended row once (512 B) plus every CSA index key (128 B).
  CHECK(s.kv_bytes_read == 512.0 * rows + 128.0 * 30 * (n / 4));
  // Memory: 4,924 B per token grows; the window is capped at 61 x 128 x 512 B per sequence.
  CHECK(kv_bytes_per_token(m, KvFormat::kFp8) == 4924);
  Deployment one;
  CHECK(kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, one, n) == 4924 * n + 61 * 128 * 512.0);
  CHECK(kv_bytes_per_sequence_per_gpu(m, KvFormat::kFp8, one, 100) == 4924 * 100.0 + 61 * 100 * 512.0);
  // Released precision: FP4 experts, FP8 block-scaled rest; the default weights are the release's.
  CHECK(m.checkpoint[static_cast<std::size_t>(WeightGroup::kRoutedExperts)].bytes_per_param() == 0.5 + 1.0 / 32);
  CHECK(m.checkpoint[static_cast<std::size_t>(WeightGroup::kAttention)].bytes_per_param() == 1.0 + 4.0 / 16384);
  CHECK(math_weight_format(m, WeightFormat::kNative) == WeightFormat::kFp4);
  CHECK(default_weight_format(m) == WeightFormat::kNative);
  const auto groups = layer_groups(m, KvFormat::kFp8);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].kind == "compressed_csa");
  CHECK(groups[0].kv_bytes_per_token_per_layer == 160);
  CHECK(groups[1].kind == "compressed_hca");
  CHECK(groups[1].kv_bytes_per_token_per_layer == 4);
}

TEST_CASE("MiniMax-M3 block-sparse and GLM-5.2 IndexCache: attention per step, by hand") {
  const Catalog& c = default_catalog();
  const double n = 65536;
  const Model& mm = *c.find_model("minimax-m3");
  const AttentionStep s = attention_step(mm, KvFormat::kBf16, n);
  // 57 sparse layers attend 16 blocks x 128 = 2,048 tokens, the 3 leading layers all n.
  CHECK(s.softmax_flops == 4.0 * 64 * 128 * (57 * 2048.0 + 3 * n));
  CHECK(s.indexer_flops == 2.0 * 4 * 128 * 57 * n);
  CHECK(s.kv_bytes_read == 2 * 4 * 128 * 2.0 * (57 * 2048.0 + 3 * n) + 57 * 128 * 2.0 * n);
  const Model& g = *c.find_model("glm-5.2");
  const AttentionStep t = attention_step(g, KvFormat::kFp8, n);
  // All 78 layers attend the top 2,048; only the 21 "full" indexer layers score (GLM-5.1: 78).
  CHECK(t.softmax_flops == 78 * 2.0 * 64 * (2 * 512 + 64) * 2048);
  CHECK(t.indexer_flops == 21 * 2.0 * 32 * 128 * n);
  const AttentionStep t51 = attention_step(*c.find_model("glm-5.1"), KvFormat::kFp8, n);
  CHECK(t51.indexer_flops == 78 * 2.0 * 32 * 128 * n);
}

TEST_CASE("HF import: an architecture gpucalc cannot read is refused, naming the field") {
  // DeepSeek-V4.1-Flash: layers share compressed caches by a map gpucalc does not size.
  auto v41 = import_hf_config(hf_fixture("DeepSeek-V4.1-Flash.PARTIAL.config.json"), "v41");
  REQUIRE_FALSE(v41.ok());
  CHECK(v41.error().field == "config.json: model_type");
  CHECK(v41.error().message.find("deepseek_v41_text") != std::string::npos);
  auto as_v4 = nlohmann::json::parse(hf_fixture("DeepSeek-V4.1-Flash.PARTIAL.config.json"));
  as_v4["text_config"]["model_type"] = "deepseek_v4";
  auto shared = import_hf_config(as_v4.dump(), "x");
  REQUIRE_FALSE(shared.ok());
  CHECK(shared.error().field == "config.json: kv_source_layer_ids");
  const std::string base = R"("hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,"num_hidden_layers":32,"vocab_size":128256)";
  auto mamba = import_hf_config("{" + base + R"(,"model_type":"falcon_h1"})", "x");
  REQUIRE_FALSE(mamba.ok());
  CHECK(mamba.error().field == "config.json: model_type");
  // Kimi K3's layer lists must split the layers: a KDA layer listed twice is refused.
  auto k3 = nlohmann::json::parse(hf_fixture("Kimi-K3.config.json"));
  k3["text_config"]["linear_attn_config"]["kda_layers"][0] = 4;
  auto kda = import_hf_config(k3.dump(), "x");
  REQUIRE_FALSE(kda.ok());
  CHECK(kda.error().field == "config.json: linear_attn_config.kda_layers");
  // DeepSeek-V4 with a compress ratio list that does not cover the layers, or two HCA ratios.
  auto v4 = nlohmann::json::parse(hf_fixture("DeepSeek-V4-Flash.config.json"));
  v4["compress_ratios"] = {0, 4};
  auto short_list = import_hf_config(v4.dump(), "x");
  REQUIRE_FALSE(short_list.ok());
  CHECK(short_list.error().field == "config.json: compress_ratios");
  v4 = nlohmann::json::parse(hf_fixture("DeepSeek-V4-Flash.config.json"));
  v4["compress_ratios"][5] = 64;
  auto two = import_hf_config(v4.dump(), "x");
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().field == "config.json: compress_ratios");
  // GLM-5.2's indexer_types holds only "full" and "shared".
  auto glm = nlohmann::json::parse(hf_fixture("GLM-5.2.config.json"));
  glm["indexer_types"][4] = "partial";
  auto bad = import_hf_config(glm.dump(), "x");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "config.json: indexer_types");
  // MiniMax-M3's sparse layer list must cover the layers.
  auto m3 = nlohmann::json::parse(hf_fixture("MiniMax-M3.PARTIAL.config.json"));
  m3["sparse_attention_config"]["sparse_attention_freq"] = {0, 1};
  auto sparse = import_hf_config(m3.dump(), "x");
  REQUIRE_FALSE(sparse.ok());
  CHECK(sparse.error().field == "config.json: sparse_attention_config.sparse_attention_freq");
}

TEST_CASE("model aliases: older ids, -instruct names and Hugging Face repo ids resolve to the canonical id") {
  const Catalog& c = default_catalog();
  const std::pair<const char*, const char*> cases[] = {
      {"deepseek-r1", "deepseek-r1-0528"},
      {"llama-3.3-70b-instruct", "llama-3.3-70b"},
      {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"},
      {"meta-llama/llama-3.3-70b-instruct", "llama-3.3-70b"},  // ASCII case aside
      {"deepseek-ai/DeepSeek-V4-Pro", "deepseek-v4-pro"},
  };
  for (const auto& entry : cases) {
    const char* typed = entry.first;  // not a structured binding: CAPTURE needs a plain variable (clang, C++17)
    const char* canonical = entry.second;
    CAPTURE(typed);
    const Evaluation ev = eval_ok(c, std::string("v=1&model=") + typed);
    CHECK(ev.model.id == canonical);
    CHECK(ev.canonical.find(std::string("model=") + canonical + "&") != std::string::npos);
    const auto j = nlohmann::json::parse(evaluation_to_json(ev, false));
    CHECK(j["inputs"]["model"] == canonical);
  }
  auto unknown = decode_scenario("v=1&model=nobody/Nothing-1B");
  REQUIRE(unknown.ok());
  auto ev = evaluate(c, unknown.value(), false);
  REQUIRE_FALSE(ev.ok());
  CHECK(ev.error().field == "model");
  // Not an id or a repo id: refused at decode, naming the key.
  auto bad = decode_scenario("v=1&model=a/b/c");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "model");
  // An alias that names another model's id, or an alias twice, is a catalog error.
  auto clash = extend_catalog(c, R"({"models":[{"id":"x1","aliases":["llama-3.1-70b"],"name":"x","layers":2,"hidden_size":64,"intermediate_size":128,"heads":4,"vocab_size":100,"sources":["x"]}]})", "clash.json");
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().field.find("aliases") != std::string::npos);
  auto twice = extend_catalog(c, R"({"models":[{"id":"x2","aliases":["Meta-Llama/Llama-3.3-70B-instruct"],"name":"x","layers":2,"hidden_size":64,"intermediate_size":128,"heads":4,"vocab_size":100,"sources":["x"]}]})", "twice.json");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().field.find("aliases") != std::string::npos);
}
