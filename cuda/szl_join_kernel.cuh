// The Set-of-Z-Lists join on the device (after LSS, Lieberman, Sankaranarayanan and Samet): per
// query point, the two binary searches per curve between the Z keys of its search box's corners
// (the box and its enlargement exactly as on the CPU, engine/join/szl_join.cpp), the shortest interval kept;
// then the walk over it as a PairProducer, every candidate decided by candidate_test.cuh. In a
// self-join the box is halved in dimension 0 and a pair belongs to the point first in (first
// coordinate, id) order, so each unordered pair is found once, as on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/types.h"
#include "float_filter.cuh"
#include "pair_producer.cuh"

namespace simjoin::gpu {

constexpr std::uint32_t kMaxSzlCurves = 16;  // szl_default_curves gives at most 9

struct SzlInterval {
  std::uint32_t curve = 0;
  std::uint32_t first = 0;  // positions [first, last) of the curve
  std::uint32_t last = 0;
};

struct SzlJoinArgs {
  int dim = 0;
  // The index (szl_device_index.cuh) of the build input.
  std::uint32_t curves = 0;
  std::uint32_t listed = 0;
  std::uint32_t shifts[kMaxSzlCurves] = {};
  const std::uint32_t* order = nullptr;
  const std::uint64_t* prefixes = nullptr;
  const std::uint32_t* quantized = nullptr;
  const double* lo = nullptr;
  double scale = 0.0;
  // The build input by id: exact coordinates, float copy and magnitude bounds.
  const double* build_coords = nullptr;
  const float* build_float = nullptr;
  const float* build_mag = nullptr;
  // Optional (null: read through the ids): per curve, in curve order, the build points' float
  // rows, magnitude bounds and first coordinates, so that a walk reads contiguous memory.
  const float* curve_float = nullptr;  // curves * listed rows of dim values
  const float* curve_mag = nullptr;    // curves * listed
  const double* curve_first = nullptr;  // curves * listed
  // The probing input by id (in a self-join, the build input itself), and the query order.
  const double* probe_coords = nullptr;
  const float* probe_float = nullptr;
  const float* probe_mag = nullptr;
  const std::uint32_t* query_ids = nullptr;  // finite probe ids
  std::uint32_t num_queries = 0;
  const SzlInterval* intervals = nullptr;  // per query (set by compute_szl_intervals)
  bool self_join = false;      // pairs (min, max) of each unordered pair, i != j, once
  bool build_is_left = false;  // two inputs: report (build id, probe id) rather than the reverse
  double radius = 0.0;         // szl_box_radius(eps)
  double bound = 0.0;          // accumulated_bound(eps, metric)
  FloatFilter filter;
};

// Writes each query's shortest interval to `intervals` (num_queries entries).
void compute_szl_intervals(const SzlJoinArgs& args, SzlInterval* intervals, cudaStream_t stream);

// The device bytes of the curve-ordered copies (SzlJoinArgs::curve_float and the others).
inline std::size_t szl_curve_copy_bytes(std::uint32_t curves, std::uint32_t listed, int dim) {
  return std::size_t(curves) * listed * (sizeof(float) * dim + sizeof(float) + sizeof(double));
}

// Writes the curve-ordered copies into the buffers that `args` names (sized per
// szl_curve_copy_bytes), from args.build_float, build_mag, build_coords and order.
void make_szl_curve_copies(const SzlJoinArgs& args, float* curve_float, float* curve_mag,
                           double* curve_first, cudaStream_t stream);

class SzlJoinProducer : public PairProducer {
 public:
  SzlJoinProducer(const SzlJoinArgs& args, Metric metric) : args_(args), metric_(metric) {}
  std::uint32_t num_queries() const override { return args_.num_queries; }
  void count_range(std::uint32_t q_begin, std::uint32_t q_end, std::uint32_t* counts,
                   unsigned long long* candidates, const DirectOutput& direct,
                   cudaStream_t stream) const override;
  void fill(std::uint32_t q_begin, std::uint32_t q_end, const std::uint64_t* offsets,
            std::uint64_t base, const PairOutput& out, cudaStream_t stream) const override;

 private:
  SzlJoinArgs args_;
  Metric metric_;
};

}  // namespace simjoin::gpu
