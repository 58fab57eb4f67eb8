// What Algorithm::Auto and Device::Auto measure on samples of a join's inputs before it runs
// (engine/choice/work_estimate.h, engine/choice/algorithm_choice.h): plain values, so that a
// JoinSpec carries them from the device choice to the algorithm choice (into the GPU service's
// shared memory too) and the inputs are sampled once a join.
#pragma once

#include <cstddef>

namespace simjoin {

// The grid's work: candidate pairs (distance evaluations) and the points it indexes.
struct JoinWork {
  double left_points = 0.0;
  double right_points = 0.0;  // the left input again for a self-join
  std::size_t dim = 0;
  double candidates = 0.0;    // estimated distance evaluations
  int indexed_dims = 0;       // the grid's k; 0 = brute force (every pair a candidate)
  double pairs = 0.0;         // estimated result pairs (within eps)
  // Dimension terms a candidate's distance check reads on average (it stops once the partial
  // distance exceeds eps): between 1 and dim.
  double terms_per_candidate = 1.0;
};

// The SZL join's work, measured on samples and scaled to the full inputs.
struct SzlWork {
  double build_points = 0.0;  // the indexed input (the smaller; the only one of a self-join)
  double probe_points = 0.0;
  std::size_t dim = 0;
  double curves = 0.0;
  double walked = 0.0;  // positions of the shortest intervals walked: the candidates
};

// The samples' results a join carries (JoinSpec::sampled): the grid's work when has_grid, the
// SZL's when has_szl (sampled only where it may be the cheapest), and when has_tiles the share of
// tile pairs the GPU's brute force on tensor cores visits (engine/choice/tile_fraction.h).
struct SampledWork {
  bool has_grid = false;
  bool has_szl = false;
  bool has_tiles = false;
  JoinWork grid;
  SzlWork szl;
  double tile_fraction = 1.0;
};

}  // namespace simjoin
