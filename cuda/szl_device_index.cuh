// The Set of Z-Lists (src/engine/join/szl_index.h) built on the device: the same grid, shifts and
// curves as the CPU index (choose_szl_parameters), the coordinates quantized by a kernel and each
// curve's finite point ids sorted on the Z order, one of two ways (gpu_tuning.h's szl_sort):
// materialized key words sorted by CUB's radix sort (the first word alone where it decides, else
// every word, least significant first), or CUB's merge sort with z_compare as comparator.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device_buffer.h"
#include "engine/types.h"

namespace simjoin::gpu {

enum class SzlSort { Keys, Compare };

struct DeviceSzlIndex {
  int dim = 0;
  std::uint32_t curves = 0;
  std::uint32_t listed = 0;                 // the finite points: the length of every curve
  double scale = 0.0;
  DeviceBuffer<double> lo;                  // dim: the quantization origin
  std::vector<std::uint32_t> shifts;        // per curve (host)
  DeviceBuffer<std::uint32_t> quantized;    // n * dim, by point id
  DeviceBuffer<std::uint32_t> order;        // curves * listed ids, curve by curve, in Z order
  DeviceBuffer<std::uint64_t> prefixes;     // z_key_prefix of order[k] on its curve
};

// Builds the index of `points` (host, for the parameters and finite ids), whose coordinates are
// at `coords` on the device.
DeviceSzlIndex build_device_szl_index(const PointSet& points, const double* coords, SzlSort sort,
                                      cudaStream_t stream);

// The finite points of a probe input (coordinates `coords` on the device, n rows) in Z order on
// the index's curve 0, by their first key word: neighbouring probes search neighbouring intervals.
// Returns their ids; the non-finite ones are left out.
DeviceBuffer<std::uint32_t> probe_order(const DeviceSzlIndex& index, const double* coords,
                                        std::uint32_t n, std::uint32_t* finite,
                                        cudaStream_t stream);

}  // namespace simjoin::gpu
