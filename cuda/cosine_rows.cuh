// One input of a cosine join prepared on the device as engine/cosine.h's cosine_prepare does on
// the host, bit for bit: a' (the row scaled by a power of two), |a'| and the unit vector
// a'/|a'|; NaN everywhere for a row without a direction (zero, NaN or infinite coordinates).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device_buffer.h"
#include "engine/types.h"

namespace simjoin::gpu {

struct CosineRows {
  std::uint64_t n = 0;
  int dim = 0;
  DeviceBuffer<double> scaled;  // n x dim: a'
  DeviceBuffer<double> norm;    // n: |a'|
  DeviceBuffer<double> unit;    // n x dim: a'/|a'| (the tensor-core filter's input)
};

// Uploads `points` and prepares them on `stream` (synchronized before return).
CosineRows prepare_cosine_rows(const PointSet& points, cudaStream_t stream);

// A self-join's diagonal: the rows i with d(i, i) <= eps, ascending, and each one's d(i, i)
// (which rounding can leave a little above 0).
struct CosineDiagonal {
  std::vector<std::uint32_t> ids;
  std::vector<double> distances;
};
CosineDiagonal cosine_diagonal(const CosineRows& rows, double eps, cudaStream_t stream);

}  // namespace simjoin::gpu
