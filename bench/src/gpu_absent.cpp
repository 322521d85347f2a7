// GPU back end of a host-only build: there is none.
#include "backend.hpp"

namespace gpucalc::bench {

std::unique_ptr<Backend> make_gpu_backend(int /*device*/, std::string& error) {
  error = "this gpucalc-bench was built without CUDA or HIP (GPUCALC_BENCH_BACKEND=host)";
  return nullptr;
}

}  // namespace gpucalc::bench
