// The engine tests own the GPU in their process, as the GPU service does in PostgreSQL: the GPU
// backend is installed before main() (without CUDA it is one that is never usable).
#include "engine/join_backend.h"
#include "gpu_backend.h"

namespace {

const bool installed = [] {
  simjoin::install_gpu_backend(&simjoin::gpu::backend());
  return true;
}();

}  // namespace
