// Process-wide knobs of the GPU backend, for tests (small batches force many of them) and
// benchmarks; the defaults can be set by the environment variables SIMJOIN_GPU_BATCH_PAIRS and
// SIMJOIN_GPU_STREAMS (read on first use). Not synchronized: set them before joins start.
#pragma once

#include <cstddef>

namespace simjoin::gpu {

struct Tuning {
  std::size_t device_batch_pairs = std::size_t(1) << 22;  // pairs per GPU batch (16 B each)
  int streams = 3;  // batches in flight: kernel, device-to-host copy and sink hand-over overlap
};

Tuning& tuning();

}  // namespace simjoin::gpu
