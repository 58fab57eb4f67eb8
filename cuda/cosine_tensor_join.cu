// The cosine join on tensor cores (see cosine_tensor_join.cuh).
#include "cosine_tensor_join.cuh"

#include <cmath>

#include "cosine_rows.cuh"
#include "cuda_stream.h"
#include "engine/cosine.h"
#include "engine/distance.h"
#include "engine/parallel/phase_clock.h"
#include "gpu_tuning.h"
#include "pair_pipeline.cuh"
#include "tensor_join_kernel.cuh"

namespace simjoin::gpu {

JoinStats run_cosine_tensor_join(const PointSet& left, const PointSet* right,
                                 const JoinSpec& spec, PairSink& sink,
                                 const ProducerConsumer* consume) {
  JoinStats stats;
  stats.algorithm = "none";
  if (std::isnan(spec.eps) || spec.eps < 0.0 || left.n == 0 || (right && right->n == 0))
    return stats;
  stats.algorithm = "gpu-brute-force-tensor on unit vectors";
  PhaseClock timer(stats);
  const auto stopped = [&] { return stats.stopped = !sink.keep_going(); };
  CudaStream stream;
  CosineRows left_rows = prepare_cosine_rows(left, stream.get());
  CosineRows right_rows = right ? prepare_cosine_rows(*right, stream.get()) : CosineRows();
  timer.mark("normalize");
  if (stopped()) return stats;

  // A pair within eps of cosine distance has unit vectors within the candidate radius, whose
  // accumulated distance the filter's bound covers (docs/EXACTNESS.md).
  const int dim = static_cast<int>(left.dim);
  const auto n_left = static_cast<std::uint32_t>(left.n);
  const auto n_right = static_cast<std::uint32_t>(right ? right->n : 0);
  const double bound =
      accumulated_bound(cosine_candidate_radius(spec.eps, left.dim), Metric::Euclidean);
  const TensorInputs inputs =
      make_tensor_inputs(left_rows.unit.data(), n_left, right ? right_rows.unit.data() : nullptr,
                         n_right, dim, bound, tuning().float_margin, tuning().tensor_prune,
                         stream.get());
  left_rows.unit = DeviceBuffer<double>();  // the FP16 copies replace them
  right_rows.unit = DeviceBuffer<double>();
  timer.mark("upload");
  if (stopped()) return stats;

  TensorJoinArgs args =
      tensor_join_args(inputs, left_rows.scaled.data(), n_left,
                       right ? right_rows.scaled.data() : nullptr, n_right, dim, bound);
  args.cosine.left_norm = left_rows.norm.data();
  args.cosine.right_norm = right ? right_rows.norm.data() : left_rows.norm.data();
  args.cosine.eps = spec.eps;
  const TileMask mask = use_tile_mask(args, inputs, stream.get());
  timer.mark("prune");
  const TensorJoinProducer producer(args);
  if (consume) {
    stats.stopped = !(*consume)(producer, stats);
    return stats;
  }
  CosineDiagonal diagonal;
  if (!right && spec.self_pairs == SelfPairs::All)
    diagonal = cosine_diagonal(left_rows, spec.eps, stream.get());
  PipelineOptions options = pipeline_options(right != nullptr, spec, &diagonal.ids);
  options.diagonal_distances = &diagonal.distances;
  stats.stopped = !stream_pairs(producer, options, sink, stats);
  return stats;
}

}  // namespace simjoin::gpu
