// The brute-force join on tensor cores (Euclidean distance; a cosine join filters its unit vectors
// and decides by the cosine of the scaled rows, cosine_rows.cuh):
// blocks of 128 queries against tiles of 128 candidates, their dot products a GEMM in FP16 with
// FP32 accumulation (the shape of Curless and Gowanlock's FaSTED), the FP16 distance
// |x~|^2 + |y~|^2 - 2 x~.y~ compared with each pair's proven bound (tensor_filter.cuh), and every
// pair within it decided by the exact double test, so the pairs equal the scalar kernels'.
#pragma once

#include <cstdint>

#include "device_buffer.h"
#include "pair_producer.cuh"
#include "tensor_filter.cuh"
#include "tile_pruning.cuh"

namespace simjoin::gpu {

// A cosine join's exact test: d(a, b) <= eps from the rows a' (TensorJoinArgs::left/right) and
// their norms. Unset (left_norm null): the Euclidean test of the coordinates within bound.
struct TensorCosine {
  const double* left_norm = nullptr;
  const double* right_norm = nullptr;  // == left_norm in a self-join
  double eps = 0.0;
};

struct TensorJoinArgs {
  const double* left = nullptr;   // queries, input order (exact coordinates; a' for cosine)
  const double* right = nullptr;  // candidates (== left in a self-join)
  std::uint32_t n_left = 0;
  std::uint32_t n_right = 0;
  int dim = 0;
  int padded_dim = 0;
  bool self_join = false;  // pairs (i, j) with i < j only
  double bound = 0.0;      // accumulated_bound(eps, Euclidean)
  // The FP16 copies (padded) and their bound terms (right == left in a self-join).
  HalfRows left_half, right_half;
  TensorFilter filter;
  TensorCosine cosine;
  // The k-nearest-neighbour join's second pass (knn_tensor_join.cu): query q keeps the pairs
  // whose exact test passes row_bound[q] in place of bound (cosine: the cosine distance in place
  // of cosine.eps); skip_diagonal drops (q, q) where right == left without self_join, q being
  // left_ids[q] where set (the queries a gathered subset of the candidates).
  const double* row_bound = nullptr;
  bool skip_diagonal = false;
  const std::uint32_t* left_ids = nullptr;
  // Tile pruning (tile_pruning.cuh): FP16 row r of a side holds its input row order[r] (null:
  // input order), and the queries' tile l visits candidate tile t only where bit t of row l of
  // `visits` (visit_words words a row, visit_rows rows) is set (null: every tile). The exact
  // test reads input rows, and the pairs name them.
  const std::uint32_t* left_order = nullptr;
  const std::uint32_t* right_order = nullptr;
  const std::uint32_t* visits = nullptr;
  std::uint32_t visit_words = 0, visit_rows = 0;
};

// The arguments for inputs built by make_tensor_inputs (right null in a self-join), their row
// orders included.
TensorJoinArgs tensor_join_args(const TensorInputs& inputs, const double* left,
                                std::uint32_t n_left, const double* right, std::uint32_t n_right,
                                int dim, double bound);

// The mask of the tile pairs of the join `args` (tile_pruning.cuh), set in `args` to be walked
// (keep it while they are used): empty, so that every tile pair is visited, unless
// make_tensor_inputs ordered the rows.
TileMask use_tile_mask(TensorJoinArgs& args, const TensorInputs& inputs, cudaStream_t stream);

// The kernel with the dot products in registers (tensor_join_registers.cu), where it fits:
// rows of up to registers::kMaxDim padded dimensions, fewer than 2^25 candidates. The count pass (fill false; fold: its folding
// instantiation) or the fill pass over the queries [q_begin, q_end), on `grid` (blocks of 128
// queries by splits of the candidate tiles); the arguments are TensorJoinProducer's.
bool tensor_join_fits_registers(const TensorJoinArgs& args);
void launch_tensor_join_on_registers(bool fill, bool fold, dim3 grid, const TensorJoinArgs& args,
                                     std::uint32_t q_begin, std::uint32_t q_end,
                                     std::uint32_t* counts, unsigned long long* candidates,
                                     const std::uint64_t* offsets, std::uint64_t base,
                                     std::uint32_t* cursors, const PairOutput& out,
                                     const DirectOutput& direct, cudaStream_t stream);

class TensorJoinProducer : public PairProducer {
 public:
  explicit TensorJoinProducer(const TensorJoinArgs& args);
  std::uint32_t num_queries() const override { return args_.n_left; }
  void count_range(std::uint32_t q_begin, std::uint32_t q_end, std::uint32_t* counts,
                   unsigned long long* candidates, const DirectOutput& direct,
                   cudaStream_t stream) const override;
  void fill(std::uint32_t q_begin, std::uint32_t q_end, const std::uint64_t* offsets,
            std::uint64_t base, const PairOutput& out, cudaStream_t stream) const override;

 private:
  TensorJoinArgs args_;
  DeviceBuffer<std::uint32_t> cursors_;  // the fill pass's next slot per query
};

}  // namespace simjoin::gpu
