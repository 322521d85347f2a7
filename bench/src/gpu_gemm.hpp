#pragma once
/** Matrix-unit GEMMs through cuBLASLt (CUDA) or hipBLASLt (HIP, behind GPUCALC_HAVE_HIPBLASLT). */
#include <string>

#include "backend.hpp"

namespace gpucalc::bench {

/** Whether the device and this build run `p`, and in which format. */
GemmSupport gpu_gemm_support(const DeviceInfo& device, GemmPrecision p);

/** Runs the shape sweep for one precision on the current device. */
Status gpu_run_gemm(const DeviceInfo& device, const GemmConfig& cfg, GemmRun& out);

/** "cublasLt 130000", "hipblaslt ...", or empty without a BLAS library. */
std::string gpu_blas_version();

}  // namespace gpucalc::bench
