// The eps-grid join (Gowanlock and Karsin, IPDPSW 2018): each query point searches the non-empty cells of its 3^k stencil
// (grid_stencil.cuh), unicomp for self-joins (each pair of cells once). Two kernels: one query per
// thread (small cells), or blocks of queries of one cell sharing tiles of candidates staged in
// shared memory (large cells: high dimensions, where the grid prunes little).
#pragma once

#include <cstdint>

#include "engine/types.h"
#include "float_filter.cuh"
#include "grid_geometry.h"
#include "pair_producer.cuh"

namespace simjoin::gpu {

struct GridJoinArgs {
  GridGeometry geometry;
  // The indexed input: sorted points and their non-empty cells.
  const double* index_coords = nullptr;
  const std::uint32_t* index_ids = nullptr;
  const std::uint64_t* cell_keys = nullptr;
  const std::uint32_t* cell_start = nullptr;
  const std::uint8_t* masks = nullptr;
  std::uint32_t num_cells = 0;
  // The probing input, sorted by cell too (in a self-join, the indexed input itself).
  const double* query_coords = nullptr;
  const std::uint32_t* query_ids = nullptr;
  const std::uint64_t* query_keys = nullptr;
  std::uint32_t num_queries = 0;
  bool self_join = false;      // pairs (min, max) of each unordered pair, i != j, once
  bool index_is_left = false;  // two inputs: report (index id, query id) rather than the reverse
  double bound = 0.0;          // accumulated_bound(eps, metric)
  // The float copies (same rows as the double coordinates) and the prefilter's constants.
  const float* index_float = nullptr;
  const float* index_mag = nullptr;
  const float* query_float = nullptr;
  const float* query_mag = nullptr;
  FloatFilter filter;
  // Candidates per shared-memory tile of the tiled kernel (grid_tile_kernel.cuh); 0: the
  // per-thread kernel.
  std::uint32_t tile_points = 0;
};

class GridJoinProducer : public PairProducer {
 public:
  GridJoinProducer(const GridJoinArgs& args, Metric metric) : args_(args), metric_(metric) {}
  std::uint32_t num_queries() const override { return args_.num_queries; }
  void count_range(std::uint32_t q_begin, std::uint32_t q_end, std::uint32_t* counts,
                   unsigned long long* candidates, const DirectOutput& direct,
                   cudaStream_t stream) const override;
  void fill(std::uint32_t q_begin, std::uint32_t q_end, const std::uint64_t* offsets,
            std::uint64_t base, const PairOutput& out, cudaStream_t stream) const override;

 private:
  GridJoinArgs args_;
  Metric metric_;
};

}  // namespace simjoin::gpu
