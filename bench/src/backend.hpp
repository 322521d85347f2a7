#pragma once
/**
 * The measurement back ends behind one interface: the GPU back end (CUDA or HIP, gpu_backend.cu)
 * and the host back end (host_backend.cpp) that runs the same pipeline on the CPU for dry runs and
 * CI. Back ends only time and verify; statistics and the record live in stats.cpp and record.cpp.
 */
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpucalc::bench {

/** Outcome of a back-end call: ok, or a sentence for the user. */
struct Status {
  bool ok = true;
  std::string message;
  static Status success() { return {}; }
  static Status failure(std::string text) { return {false, std::move(text)}; }
};

/** What the runtime says about the device (environment section of the record). */
struct DeviceInfo {
  std::string backend;       // "cuda", "hip" or "host"
  std::string vendor;        // "nvidia", "amd" or "host"
  std::string name;          // as the runtime reports it
  std::string arch;          // "sm_90", "gfx942", "host"
  std::string pci_bus_id;
  int index = 0;
  int device_count = 1;
  int multiprocessors = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t free_memory_bytes = 0;
  std::uint64_t l2_cache_bytes = 0;
  double sm_clock_max_mhz = 0;      // 0 when the runtime does not say
  double memory_clock_max_mhz = 0;
  int memory_bus_width_bits = 0;
  std::string driver_version;
  std::string runtime_version;
  std::string blas_version;         // empty without a BLAS library
  std::string telemetry;            // "nvml", "none"
};

/** One reading of clocks, power and temperature; absent fields are not reported. */
struct EnvSample {
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
};

enum class StreamKernel { kCopy, kTriad, kDot };
const char* stream_kernel_name(StreamKernel k);
/** Arrays each kernel touches per element: copy 2, triad 3, dot 2 (BabelStream's counting). */
int stream_arrays_moved(StreamKernel k);

struct StreamConfig {
  std::uint64_t array_bytes = std::uint64_t{2} << 30;  // per array
  int samples = 20;
  int launches_per_sample = 5;
  int warmup_launches = 10;
};

/** Seconds per launch of one kernel, one entry per sample. */
struct StreamRun {
  std::string variant;  // kernel variant whose samples these are (best of those tried)
  std::vector<double> seconds_per_launch;
  std::uint64_t bytes_per_launch = 0;
  std::uint64_t elements = 0;
  bool verified = false;
  std::string check;  // how it was verified, or why it failed
};

enum class GemmPrecision { kBf16, kFp8, kFp4 };
const char* gemm_precision_name(GemmPrecision p);
std::optional<GemmPrecision> parse_gemm_precision(const std::string& name);

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

struct GemmConfig {
  GemmPrecision precision = GemmPrecision::kBf16;
  std::vector<GemmShape> shapes;
  // Independent GEMMs of one shape per launch (strided batched GEMM): the experts of the
  // grouped-gemm test, each with its own weight matrix; 1 for a plain GEMM.
  int batch = 1;
  double warmup_s = 5.0;
  int samples = 5;              // timed samples per shape
  double seconds_per_sample = 0.05;
  std::uint64_t min_rotating_bytes = 0;  // 0: four times the last-level cache
};

struct GemmShapeRun {
  GemmShape shape;  // one GEMM of the batch
  int batch = 1;
  std::vector<double> seconds_per_gemm;  // one per sample
  std::string algorithm;                 // library's algorithm id, when known
};

/** Whether and how a device runs a precision's GEMM. */
struct GemmSupport {
  bool supported = false;
  std::string format;  // "bf16", "e4m3", "e4m3fnuz", "nvfp4", "mxfp4"
  std::string reason;  // why not, when unsupported
};

struct GemmRun {
  std::string format;
  std::string library;  // "cublaslt 130000", "hipblaslt", "host reference"
  std::vector<GemmShapeRun> shapes;
  double warmup_s = 0;
  int rotating_sets = 0;
  std::uint64_t rotating_bytes = 0;
  bool verified = false;
  double check_rel_error = 0;  // ||out - ref|| / ||ref|| over the spot-checked entries
  std::string check;
};

struct P2pPairRun {
  int src = 0, dst = 0;
  bool bidirectional = false;
  std::vector<double> bytes_per_s;  // one per sample
};

struct P2pConfig {
  std::uint64_t bytes = std::uint64_t{1} << 30;
  int samples = 10;
};

/** Paged decode attention (attention-decode test): one query token per sequence, BF16 KV. */
struct AttentionConfig {
  std::vector<int> batches = {1, 8, 32, 128};
  std::vector<int> contexts = {1024, 4096, 16384};
  // GQA geometry of the public figures it is compared with (engines.md section 3: 32 query
  // heads, 8 KV heads, head_dim 128) and vLLM's default page (block) of 16 tokens.
  int q_heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  int page_tokens = 16;
  int samples = 10;
  double seconds_per_sample = 0.02;
  std::uint64_t min_rotating_bytes = 0;  // 0: four times the last-level cache
};

struct AttentionPointRun {
  int batch = 0, context_tokens = 0;
  int splits = 1;                        // context chunks per sequence (flash-decoding)
  double kv_bytes = 0;                   // K and V bytes read per call
  std::vector<double> seconds_per_call;  // one per sample
};

struct AttentionRun {
  std::string kernel;  // what ran
  std::vector<AttentionPointRun> points;
  int rotating_sets = 1;
  bool verified = false;
  double check_rel_error = 0;  // ||out - ref|| / ||ref|| against the host reference
  std::string check;
};

/** All-reduce over every GPU of the machine (NCCL / RCCL loaded at run time). */
struct AllreduceConfig {
  std::uint64_t min_bytes = std::uint64_t{8} << 10;
  std::uint64_t max_bytes = std::uint64_t{256} << 20;
  int samples = 10;
  int warmup = 5;
  double seconds_per_sample = 0.01;
};

struct AllreducePointRun {
  std::uint64_t bytes = 0;              // message size per GPU
  std::vector<double> seconds_per_op;   // one per sample
};

struct AllreduceRun {
  int gpus = 0;
  std::string library;  // "nccl 2.29.2", "rccl ..."
  std::string skipped;  // why it did not run (one GPU, no library); empty when it ran
  std::vector<AllreducePointRun> points;
  bool verified = false;
  std::string check;
};

/** Kernel launch latency (launch test). */
struct LaunchConfig {
  int samples = 2000;         // launch-to-completion round trips
  int graph_kernels = 100;    // kernels captured in one graph
  int graph_samples = 100;
  int warmup = 100;
};

struct LaunchRun {
  std::vector<double> launch_seconds;            // launch + synchronize of one empty kernel
  std::vector<double> queued_seconds_per_launch;  // host cost of back-to-back launches
  std::vector<double> graph_seconds_per_kernel;  // graph launch to completion / kernels in it
  bool verified = false;
  std::string check;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& info() const = 0;
  /** Current clocks, power and temperature; empty fields where the runtime cannot say. */
  virtual EnvSample sample_environment() = 0;
  /** Times and verifies one BabelStream kernel over three arrays of `array_bytes`. */
  virtual Status run_stream(StreamKernel kernel, const StreamConfig& cfg, StreamRun& out) = 0;
  virtual GemmSupport gemm_support(GemmPrecision p) const = 0;
  /** Warms up, sweeps the shapes over rotating buffers and spot-checks one product. */
  virtual Status run_gemm(const GemmConfig& cfg, GemmRun& out) = 0;
  /** Peer copies for every ordered pair that can reach each other; empty with one GPU. */
  virtual Status run_p2p(const P2pConfig& cfg, std::vector<P2pPairRun>& out) = 0;
  /** Times the paged decode-attention kernel per (batch, context) and checks it on the host. */
  virtual Status run_attention_decode(const AttentionConfig& cfg, AttentionRun& out) = 0;
  /** All-reduce latency per message size over all GPUs; `out.skipped` says why when it cannot. */
  virtual Status run_allreduce(const AllreduceConfig& cfg, AllreduceRun& out) = 0;
  /** Empty-kernel launch latency, directly and inside a graph. */
  virtual Status run_launch(const LaunchConfig& cfg, LaunchRun& out) = 0;
};

/** The CPU back end: small arrays, std::chrono, a reference GEMM. Never calibrates. */
std::unique_ptr<Backend> make_host_backend();

/** The CUDA/HIP back end for `device`; null and `error` set when there is none. */
std::unique_ptr<Backend> make_gpu_backend(int device, std::string& error);

}  // namespace gpucalc::bench
