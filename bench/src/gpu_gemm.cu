// GEMM throughput through cuBLASLt (CUDA) or hipBLASLt (HIP, only with GPUCALC_HAVE_HIPBLASLT).
// Method after the maximum-achievable-matmul-FLOPS finder: a sweep of shapes, normal random
// inputs, operand sets rotated past the last-level cache, seconds of warm-up, a spot check.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats.hpp"
#include "gpu_gemm.hpp"
#include "gpu_portability.hpp"

#if defined(GPUCALC_BENCH_CUDA) && defined(GPUCALC_HAVE_CUBLASLT)
#include <cublasLt.h>
#define GPUCALC_HAVE_BLASLT 1
#define GPUCALC_BLAS_NAME "cublasLt"
using LtHandle = cublasLtHandle_t;
using LtStatus = cublasStatus_t;
using LtMatmulDesc = cublasLtMatmulDesc_t;
using LtLayout = cublasLtMatrixLayout_t;
using LtPreference = cublasLtMatmulPreference_t;
using LtHeuristic = cublasLtMatmulHeuristicResult_t;
using LtDataType = cudaDataType_t;
using LtOperation = cublasOperation_t;
#define kLtSuccess CUBLAS_STATUS_SUCCESS
#define kLtOpT CUBLAS_OP_T
#define kLtOpN CUBLAS_OP_N
#define kLtComputeF32 CUBLAS_COMPUTE_32F
#define kLtScaleF32 CUDA_R_32F
#define kLtBf16 CUDA_R_16BF
#define kLtE4m3 CUDA_R_8F_E4M3
#define kLtDescTransA CUBLASLT_MATMUL_DESC_TRANSA
#define kLtDescTransB CUBLASLT_MATMUL_DESC_TRANSB
#define kLtPrefWorkspace CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
#define ltCreate cublasLtCreate
#define ltDestroy cublasLtDestroy
#define ltMatmulDescCreate cublasLtMatmulDescCreate
#define ltMatmulDescDestroy cublasLtMatmulDescDestroy
#define ltMatmulDescSetAttribute cublasLtMatmulDescSetAttribute
#define ltLayoutCreate cublasLtMatrixLayoutCreate
#define ltLayoutDestroy cublasLtMatrixLayoutDestroy
#define ltLayoutSetAttribute cublasLtMatrixLayoutSetAttribute
#define kLtLayoutBatchCount CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
#define kLtLayoutBatchStride CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
#define ltPreferenceCreate cublasLtMatmulPreferenceCreate
#define ltPreferenceDestroy cublasLtMatmulPreferenceDestroy
#define ltPreferenceSetAttribute cublasLtMatmulPreferenceSetAttribute
#define ltAlgoGetHeuristic cublasLtMatmulAlgoGetHeuristic
#define ltMatmul cublasLtMatmul
#if CUDART_VERSION >= 12080
#define GPUCALC_HAVE_NVFP4 1
#endif
#elif defined(GPUCALC_BENCH_HIP) && defined(GPUCALC_HAVE_HIPBLASLT)
// hipBLASLt from ROCm 6.x (hipDataType, hipblasComputeType_t). Not built by CI: Debian's HIP 5.2
// has no hipBLASLt, so this branch compiles only on a ROCm machine.
#include <hipblaslt/hipblaslt.h>
#define GPUCALC_HAVE_BLASLT 1
#define GPUCALC_BLAS_NAME "hipblaslt"
using LtHandle = hipblasLtHandle_t;
using LtStatus = hipblasStatus_t;
using LtMatmulDesc = hipblasLtMatmulDesc_t;
using LtLayout = hipblasLtMatrixLayout_t;
using LtPreference = hipblasLtMatmulPreference_t;
using LtHeuristic = hipblasLtMatmulHeuristicResult_t;
using LtDataType = hipDataType;
using LtOperation = hipblasOperation_t;
#define kLtSuccess HIPBLAS_STATUS_SUCCESS
#define kLtOpT HIPBLAS_OP_T
#define kLtOpN HIPBLAS_OP_N
#define kLtComputeF32 HIPBLAS_COMPUTE_32F
#define kLtScaleF32 HIP_R_32F
#define kLtBf16 HIP_R_16BF
#define kLtDescTransA HIPBLASLT_MATMUL_DESC_TRANSA
#define kLtDescTransB HIPBLASLT_MATMUL_DESC_TRANSB
#define kLtPrefWorkspace HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
#define ltCreate hipblasLtCreate
#define ltDestroy hipblasLtDestroy
#define ltMatmulDescCreate hipblasLtMatmulDescCreate
#define ltMatmulDescDestroy hipblasLtMatmulDescDestroy
#define ltMatmulDescSetAttribute hipblasLtMatmulDescSetAttribute
#define ltLayoutCreate hipblasLtMatrixLayoutCreate
#define ltLayoutDestroy hipblasLtMatrixLayoutDestroy
#define ltLayoutSetAttribute hipblasLtMatrixLayoutSetAttribute
#define kLtLayoutBatchCount HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT
#define kLtLayoutBatchStride HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
#define ltPreferenceCreate hipblasLtMatmulPreferenceCreate
#define ltPreferenceDestroy hipblasLtMatmulPreferenceDestroy
#define ltPreferenceSetAttribute hipblasLtMatmulPreferenceSetAttribute
#define ltAlgoGetHeuristic hipblasLtMatmulAlgoGetHeuristic
#define ltMatmul hipblasLtMatmul
#endif

namespace gpucalc::bench {

#if defined(GPUCALC_HAVE_BLASLT)
namespace {

bool is_nvidia(const DeviceInfo& d) { return d.vendor == "nvidia"; }

/** Compute capability as 10 * major + minor from "sm_90"; 0 when not NVIDIA. */
int sm_number(const DeviceInfo& d) {
  if (d.arch.rfind("sm_", 0) != 0) return 0;
  return std::atoi(d.arch.c_str() + 3);
}

}  // namespace
#endif

GemmSupport gpu_gemm_support(const DeviceInfo& device, GemmPrecision p) {
  GemmSupport s;
#if !defined(GPUCALC_HAVE_BLASLT)
  (void)device;
  s.reason = std::string("built without ") +
             (device.vendor == "amd" ? "hipBLASLt (GPUCALC_HAVE_HIPBLASLT)" : "cuBLASLt (GPUCALC_HAVE_CUBLASLT)");
  (void)p;
  return s;
#else
  if (is_nvidia(device)) {
    const int sm = sm_number(device);
    switch (p) {
      case GemmPrecision::kBf16:
        s.supported = sm >= 80;
        s.format = "bf16";
        s.reason = "BF16 matrix units need sm_80 or newer";
        break;
      case GemmPrecision::kFp8:
        s.supported = sm >= 89;
        s.format = "e4m3";
        s.reason = "FP8 (E4M3) matrix units need sm_89 or newer";
        break;
      case GemmPrecision::kFp4:
#if defined(GPUCALC_HAVE_NVFP4)
        s.supported = sm >= 100;
        s.reason = "NVFP4 block-scaled matrix units need sm_100 or newer";
#else
        s.reason = "this CUDA (before 12.8) has no FP4 GEMM";
#endif
        s.format = "nvfp4";
        break;
    }
  } else {
    const bool gfx94 = device.arch.rfind("gfx94", 0) == 0;
    const bool gfx95 = device.arch.rfind("gfx95", 0) == 0;
    switch (p) {
      case GemmPrecision::kBf16:
        s.supported = gfx94 || gfx95 || device.arch == "gfx90a";
        s.format = "bf16";
        s.reason = "BF16 GEMM through hipBLASLt needs gfx90a, gfx94x or gfx95x";
        break;
      case GemmPrecision::kFp8:
        s.supported = gfx94 || gfx95;
        s.format = gfx94 ? "e4m3fnuz" : "e4m3";
        s.reason = "FP8 matrix units need gfx94x (e4m3fnuz) or gfx95x (e4m3)";
        break;
      case GemmPrecision::kFp4:
        s.format = "mxfp4";
        s.reason = "MXFP4 through hipBLASLt is not implemented in this tool yet";
        break;
    }
  }
  if (s.supported) s.reason.clear();
  return s;
#endif
}

std::string gpu_blas_version() {
#if defined(GPUCALC_BENCH_CUDA) && defined(GPUCALC_HAVE_CUBLASLT)
  return "cublasLt " + std::to_string(cublasLtGetVersion());
#elif defined(GPUCALC_HAVE_BLASLT)
  return "hipblaslt";
#else
  return "";
#endif
}

#if !defined(GPUCALC_HAVE_BLASLT)

Status gpu_run_gemm(const DeviceInfo& device, const GemmConfig& cfg, GemmRun& /*out*/) {
  return Status::failure(std::string(gemm_precision_name(cfg.precision)) + " GEMM: " +
                         gpu_gemm_support(device, cfg.precision).reason);
}

#else

namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;
constexpr int kHeuristicsRequested = 8;
constexpr int kAlgorithmsTried = 4;
constexpr int kCheckedEntries = 24;
// D is BF16: ||D - ref|| / ||ref|| lands near 2^-9 from output rounding alone.
constexpr double kCheckTolerance = 2e-2;
constexpr std::uint8_t kE4m3One = 0x38;  // 1.0 in E4M3, NVFP4's block scale

__global__ void fill_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = encode_bf16(normal_draw(seed, i));
  }
}

__global__ void fill_e4m3(std::uint8_t* p, std::size_t n, std::uint64_t seed, bool fnuz) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = encode_e4m3(normal_draw(seed, i), fnuz);
  }
}

// Two E2M1 values per byte, the lower index in the low nibble.
__global__ void fill_e2m1(std::uint8_t* p, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += gridDim.x * blockDim.x) {
    const std::uint8_t lo = encode_e2m1(normal_draw(seed, 2 * i));
    const std::uint8_t hi = encode_e2m1(normal_draw(seed, 2 * i + 1));
    p[i] = static_cast<std::uint8_t>(lo | (hi << 4));
  }
}

struct Format {
  LtDataType ab_type;
  int bits;        // per element of A and B
  bool fnuz = false;
  bool block_scaled = false;
};

Format format_for(const GemmSupport& s) {
  if (s.format == "bf16") return {kLtBf16, 16};
#if defined(GPUCALC_BENCH_CUDA)
  if (s.format == "e4m3") return {CUDA_R_8F_E4M3, 8};
#if defined(GPUCALC_HAVE_NVFP4)
  if (s.format == "nvfp4") return {CUDA_R_4F_E2M1, 4, false, true};
#endif
#else
  if (s.format == "e4m3") return {HIP_R_8F_E4M3, 8};
  if (s.format == "e4m3fnuz") return {HIP_R_8F_E4M3_FNUZ, 8, true};
#endif
  return {kLtBf16, 16};
}

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

/** NVFP4 scale tensor bytes: one E4M3 per 16 values, padded to 128 x 4 tiles (cuBLASLt layout). */
std::size_t scale_bytes(std::int64_t rows, std::int64_t k) {
  return round_up(static_cast<std::size_t>(rows), 128) * round_up(static_cast<std::size_t>(k) / 16, 4);
}

/** Owns a device allocation. */
struct Buffer {
  void* ptr = nullptr;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
  ~Buffer() {
    if (ptr != nullptr) (void)gpuFree(ptr);
  }
};

struct OperandSet {
  Buffer a, b, d, a_scale, b_scale;
};

/** Descriptors of one shape; destroyed with the shape. */
struct LtShape {
  LtMatmulDesc desc = nullptr;
  LtLayout la = nullptr, lb = nullptr, ld = nullptr;
  ~LtShape() {
    if (la != nullptr) ltLayoutDestroy(la);
    if (lb != nullptr) ltLayoutDestroy(lb);
    if (ld != nullptr) ltLayoutDestroy(ld);
    if (desc != nullptr) ltMatmulDescDestroy(desc);
  }
};

#define LT_TRY(call)                                                                        \
  do {                                                                                      \
    const LtStatus lt_try_status_ = (call);                                                 \
    if (lt_try_status_ != kLtSuccess) {                                                     \
      return Status::failure(std::string(GPUCALC_BLAS_NAME ": ") + #call + " failed (status " + \
                             std::to_string(static_cast<int>(lt_try_status_)) + ")");       \
    }                                                                                       \
  } while (0)

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class GemmRunner {
 public:
  GemmRunner(const DeviceInfo& device, const GemmConfig& cfg, GemmRun& out)
      : device_(device), cfg_(cfg), out_(out) {}

  ~GemmRunner() {
    if (preference_ != nullptr) ltPreferenceDestroy(preference_);
    if (handle_ != nullptr) ltDestroy(handle_);
  }

  Status run() {
    const GemmSupport support = gpu_gemm_support(device_, cfg_.precision);
    if (!support.supported) return Status::failure(support.reason);
    format_ = format_for(support);
    out_.format = support.format;
    out_.library = gpu_blas_version();
    LT_TRY(ltCreate(&handle_));
    LT_TRY(ltPreferenceCreate(&preference_));
    std::size_t ws = kWorkspaceBytes;
    LT_TRY(ltPreferenceSetAttribute(preference_, kLtPrefWorkspace, &ws, sizeof ws));
    GPU_TRY(gpuMalloc(&workspace_.ptr, kWorkspaceBytes));
    double worst_error = 0;
    bool any = false;
    std::string skipped;
    for (const GemmShape& shape : cfg_.shapes) {
      GemmShapeRun sr;
      sr.shape = shape;
      double rel_error = 0;
      std::string why_skipped;
      const Status st = run_shape(shape, sr, rel_error, why_skipped);
      if (!st.ok) {
        // A library call the shape cannot take (small M, an odd size): keep the others.
        (void)gpuGetLastError();
        skipped += (skipped.empty() ? "" : "; ") + std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                   "x" + std::to_string(shape.k) + " (" + st.message + ")";
        continue;
      }
      if (!why_skipped.empty()) {
        skipped += (skipped.empty() ? "" : "; ") + why_skipped;
        continue;
      }
      worst_error = std::max(worst_error, rel_error);
      out_.shapes.push_back(std::move(sr));
      any = true;
    }
    out_.check_rel_error = worst_error;
    out_.verified = any && worst_error <= kCheckTolerance;
    out_.check = any ? "||D - ref|| / ||ref|| over " + std::to_string(kCheckedEntries) +
                           " entries of every shape against a double-precision reference on the "
                           "decoded inputs, tolerance " + std::to_string(kCheckTolerance)
                     : "no shape ran";
    if (!skipped.empty()) out_.check += "; skipped: " + skipped;
    return Status::success();
  }

 private:
  std::size_t operand_bytes(std::int64_t rows, std::int64_t cols) const {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * format_.bits / 8;
  }

  Status fill(void* p, std::size_t elements, std::uint64_t seed) {
    const unsigned grid = static_cast<unsigned>(device_.multiprocessors * 8);
    if (format_.bits == 16) {
      fill_bf16<<<grid, 256>>>(static_cast<std::uint16_t*>(p), elements, seed);
    } else if (format_.bits == 8) {
      fill_e4m3<<<grid, 256>>>(static_cast<std::uint8_t*>(p), elements, seed, format_.fnuz);
    } else {
      fill_e2m1<<<grid, 256>>>(static_cast<std::uint8_t*>(p), elements / 2, seed);
    }
    GPU_TRY(gpuGetLastError());
    return Status::success();
  }

  /** Decodes one stored element of A or B (index in elements). */
  float decode(const std::vector<std::uint8_t>& bytes, std::size_t i) const {
    if (format_.bits == 16) {
      const std::uint16_t v = static_cast<std::uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
      return decode_bf16(v);
    }
    if (format_.bits == 8) return decode_e4m3(bytes[i], format_.fnuz);
    const std::uint8_t byte = bytes[i / 2];
    return decode_e2m1(static_cast<std::uint8_t>(i % 2 == 0 ? byte & 0xF : byte >> 4));
  }

  Status matmul(const LtShape& lt, const LtHeuristic& algo, OperandSet& set) {
    const float alpha = 1.0f, beta = 0.0f;
#if defined(GPUCALC_HAVE_NVFP4)
    if (format_.block_scaled) {
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &set.a_scale.ptr,
                                      sizeof set.a_scale.ptr));
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &set.b_scale.ptr,
                                      sizeof set.b_scale.ptr));
    }
#endif
    LT_TRY(ltMatmul(handle_, lt.desc, &alpha, set.a.ptr, lt.la, set.b.ptr, lt.lb, &beta, set.d.ptr, lt.ld,
                    set.d.ptr, lt.ld, &algo.algo, workspace_.ptr, kWorkspaceBytes, 0));
    return Status::success();
  }

  Status run_shape(const GemmShape& shape, GemmShapeRun& sr, double& rel_error, std::string& why_skipped) {
    const std::int64_t m = shape.m, n = shape.n, k = shape.k;
    const int batch = std::max(1, cfg_.batch);
    sr.batch = batch;
    if (batch > 1 && format_.block_scaled) {
      why_skipped = "batched " + out_.format + " (per-batch block scales are not implemented)";
      return Status::success();
    }
    // Per set: `batch` independent A, B and D matrices, back to back (strided batched GEMM).
    const std::size_t a_one = operand_bytes(m, k), b_one = operand_bytes(k, n);
    const std::size_t d_one = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * 2;
    const std::size_t a_bytes = a_one * static_cast<std::size_t>(batch);
    const std::size_t b_bytes = b_one * static_cast<std::size_t>(batch);
    const std::size_t d_bytes = d_one * static_cast<std::size_t>(batch);
    const std::size_t sa_bytes = format_.block_scaled ? scale_bytes(m, k) : 0;
    const std::size_t sb_bytes = format_.block_scaled ? scale_bytes(n, k) : 0;
    const std::size_t set_bytes = a_bytes + b_bytes + d_bytes + sa_bytes + sb_bytes;
    const std::uint64_t rotate_target =
        cfg_.min_rotating_bytes > 0 ? cfg_.min_rotating_bytes : 4 * std::max<std::uint64_t>(device_.l2_cache_bytes, 1u << 20);
    const int sets = static_cast<int>(std::max<std::uint64_t>(2, (rotate_target + set_bytes - 1) / set_bytes));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPU_TRY(gpuMemGetInfo(&free_bytes, &total_bytes));
    if (static_cast<double>(set_bytes) * sets + (256 << 20) > static_cast<double>(free_bytes)) {
      why_skipped = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " (too little memory)";
      return Status::success();
    }
    std::vector<OperandSet> operand_sets(static_cast<std::size_t>(sets));
    for (int s = 0; s < sets; ++s) {
      OperandSet& o = operand_sets[static_cast<std::size_t>(s)];
      GPU_TRY(gpuMalloc(&o.a.ptr, a_bytes));
      GPU_TRY(gpuMalloc(&o.b.ptr, b_bytes));
      GPU_TRY(gpuMalloc(&o.d.ptr, d_bytes));
      const Status fa = fill(o.a.ptr, static_cast<std::size_t>(m * k) * static_cast<std::size_t>(batch),
                             2 * static_cast<std::uint64_t>(s) + 1);
      if (!fa.ok) return fa;
      const Status fb = fill(o.b.ptr, static_cast<std::size_t>(k * n) * static_cast<std::size_t>(batch),
                             2 * static_cast<std::uint64_t>(s) + 2);
      if (!fb.ok) return fb;
      if (format_.block_scaled) {
        GPU_TRY(gpuMalloc(&o.a_scale.ptr, sa_bytes));
        GPU_TRY(gpuMalloc(&o.b_scale.ptr, sb_bytes));
        GPU_TRY(gpuMemset(o.a_scale.ptr, kE4m3One, sa_bytes));
        GPU_TRY(gpuMemset(o.b_scale.ptr, kE4m3One, sb_bytes));
      }
    }
    GPU_TRY(gpuDeviceSynchronize());
    out_.rotating_sets = std::max(out_.rotating_sets, sets);
    out_.rotating_bytes = std::max<std::uint64_t>(out_.rotating_bytes, static_cast<std::uint64_t>(set_bytes) * sets);

    // TN, column-major: A stored K x M (transposed), B K x N, D M x N in BF16.
    LtShape lt;
    LT_TRY(ltMatmulDescCreate(&lt.desc, kLtComputeF32, kLtScaleF32));
    const LtOperation op_t = kLtOpT, op_n = kLtOpN;
    LT_TRY(ltMatmulDescSetAttribute(lt.desc, kLtDescTransA, &op_t, sizeof op_t));
    LT_TRY(ltMatmulDescSetAttribute(lt.desc, kLtDescTransB, &op_n, sizeof op_n));
#if defined(GPUCALC_HAVE_NVFP4)
    if (format_.block_scaled) {
      const cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode));
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode));
      void* a_scale = operand_sets[0].a_scale.ptr;
      void* b_scale = operand_sets[0].b_scale.ptr;
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale));
      LT_TRY(ltMatmulDescSetAttribute(lt.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale));
    }
#endif
    LT_TRY(ltLayoutCreate(&lt.la, format_.ab_type, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k));
    LT_TRY(ltLayoutCreate(&lt.lb, format_.ab_type, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k));
    LT_TRY(ltLayoutCreate(&lt.ld, kLtBf16, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), m));
    if (batch > 1) {
      const std::int32_t count = batch;
      const std::int64_t stride_a = m * k, stride_b = k * n, stride_d = m * n;  // in elements
      LT_TRY(ltLayoutSetAttribute(lt.la, kLtLayoutBatchCount, &count, sizeof count));
      LT_TRY(ltLayoutSetAttribute(lt.lb, kLtLayoutBatchCount, &count, sizeof count));
      LT_TRY(ltLayoutSetAttribute(lt.ld, kLtLayoutBatchCount, &count, sizeof count));
      LT_TRY(ltLayoutSetAttribute(lt.la, kLtLayoutBatchStride, &stride_a, sizeof stride_a));
      LT_TRY(ltLayoutSetAttribute(lt.lb, kLtLayoutBatchStride, &stride_b, sizeof stride_b));
      LT_TRY(ltLayoutSetAttribute(lt.ld, kLtLayoutBatchStride, &stride_d, sizeof stride_d));
    }
    LtHeuristic heuristics[kHeuristicsRequested] = {};
    int returned = 0;
    const LtStatus hs = ltAlgoGetHeuristic(handle_, lt.desc, lt.la, lt.lb, lt.ld, lt.ld, preference_,
                                           kHeuristicsRequested, heuristics, &returned);
    if (hs != kLtSuccess || returned == 0) {
      why_skipped = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " (no algorithm)";
      return Status::success();
    }

    EventPair ev;
    std::size_t next = 0;
    auto run_many = [&](const LtHeuristic& algo, int count, double& seconds_each) -> Status {
      GPU_TRY(gpuEventRecord(ev.start, 0));
      for (int i = 0; i < count; ++i) {
        const Status st = matmul(lt, algo, operand_sets[next]);
        if (!st.ok) return st;
        next = (next + 1) % operand_sets.size();
      }
      GPU_TRY(gpuEventRecord(ev.stop, 0));
      GPU_TRY(gpuEventSynchronize(ev.stop));
      GPU_TRY(gpuGetLastError());
      float ms = 0;
      GPU_TRY(gpuEventElapsedTime(&ms, ev.start, ev.stop));
      seconds_each = static_cast<double>(ms) * 1e-3 / count;
      return Status::success();
    };

    // Warm-up once per precision, on the first shape: clocks and power settle.
    double each = 0;
    if (out_.warmup_s == 0 && cfg_.warmup_s > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      while (seconds_since(t0) < cfg_.warmup_s) {
        const Status st = run_many(heuristics[0], 8, each);
        if (!st.ok) return st;
      }
      out_.warmup_s = seconds_since(t0);
    }
    // Pick the fastest of the library's first few suggestions.
    int best = 0;
    double best_each = 0;
    for (int h = 0; h < std::min(returned, kAlgorithmsTried); ++h) {
      const Status st = run_many(heuristics[h], 3, each);
      if (!st.ok) {
        if (h == 0) return st;
        continue;
      }
      if (h == 0 || each < best_each) {
        best = h;
        best_each = each;
      }
    }
    sr.algorithm = "heuristic #" + std::to_string(best) + " of " + std::to_string(returned);
    const int per_sample = std::max(3, static_cast<int>(cfg_.seconds_per_sample / std::max(best_each, 1e-6)));
    for (int s = 0; s < cfg_.samples; ++s) {
      const Status st = run_many(heuristics[best], per_sample, each);
      if (!st.ok) return st;
      sr.seconds_per_gemm.push_back(each);
    }
    return spot_check(shape, batch, operand_sets[0], rel_error);
  }

  /** Compares sampled entries of D with a double-precision product of the decoded inputs. */
  Status spot_check(const GemmShape& shape, int batch, const OperandSet& set, double& rel_error) {
    const std::size_t m = static_cast<std::size_t>(shape.m), n = static_cast<std::size_t>(shape.n),
                      k = static_cast<std::size_t>(shape.k);
    const std::size_t row_bytes = k * static_cast<std::size_t>(format_.bits) / 8;
    std::vector<std::uint8_t> a_row(row_bytes), b_col(row_bytes);
    double err2 = 0, ref2 = 0;
    for (int e = 0; e < kCheckedEntries; ++e) {
      const std::size_t i = static_cast<std::size_t>(mix64(2 * e + 11) % m);
      const std::size_t j = static_cast<std::size_t>(mix64(2 * e + 12) % n);
      // Entries of every batch member in turn (first and last among them).
      const std::size_t g = static_cast<std::size_t>(e % batch == 1 ? batch - 1 : e % batch);
      const std::size_t a_off = g * m * row_bytes, b_off = g * n * row_bytes, d_off = g * m * n;
      GPU_TRY(gpuMemcpy(a_row.data(), static_cast<const std::uint8_t*>(set.a.ptr) + a_off + i * row_bytes,
                        row_bytes, gpuMemcpyDeviceToHost));
      GPU_TRY(gpuMemcpy(b_col.data(), static_cast<const std::uint8_t*>(set.b.ptr) + b_off + j * row_bytes,
                        row_bytes, gpuMemcpyDeviceToHost));
      std::uint16_t d_bits = 0;
      GPU_TRY(gpuMemcpy(&d_bits, static_cast<const std::uint16_t*>(set.d.ptr) + d_off + j * m + i,
                        sizeof d_bits, gpuMemcpyDeviceToHost));
      double ref = 0;
      for (std::size_t p = 0; p < k; ++p) ref += static_cast<double>(decode(a_row, p)) * decode(b_col, p);
      const double got = decode_bf16(d_bits);
      if (!std::isfinite(got)) {
        rel_error = 1e30;
        return Status::success();
      }
      err2 += (got - ref) * (got - ref);
      ref2 += ref * ref;
    }
    rel_error = ref2 > 0 ? std::sqrt(err2 / ref2) : 1.0;
    return Status::success();
  }

  /** Owns a start/stop event pair. */
  struct EventPair {
    EventPair() {
      (void)gpuEventCreate(&start);
      (void)gpuEventCreate(&stop);
    }
    ~EventPair() {
      (void)gpuEventDestroy(start);
      (void)gpuEventDestroy(stop);
    }
    gpuEvent_t start{}, stop{};
  };

  const DeviceInfo& device_;
  const GemmConfig& cfg_;
  GemmRun& out_;
  Format format_{};
  LtHandle handle_ = nullptr;
  LtPreference preference_ = nullptr;
  Buffer workspace_;
};

}  // namespace

Status gpu_run_gemm(const DeviceInfo& device, const GemmConfig& cfg, GemmRun& out) {
  GemmRunner runner(device, cfg, out);
  return runner.run();
}

#endif  // GPUCALC_HAVE_BLASLT

}  // namespace gpucalc::bench
