// Deterministic samples of an input's finite points and the per-dimension variance measured on
// them (REORDER of the grid plan, the split dimension of the chunked join).
#pragma once

#include <cstddef>
#include <vector>

#include "engine/types.h"

namespace simjoin {

// Evenly spaced sample of `target` of the set's points, finite ones only (so possibly fewer).
std::vector<const double*> sample_points(const PointSet& set, std::size_t target);

// Variance of every dimension over the sampled points (0 without samples).
std::vector<double> sample_variances(const std::vector<const double*>& sample, std::size_t dim);

// Variance of every dimension on a sample of the finite points of left and right (nullptr: left
// only), sized for variance estimates (1% of the points, at least 4096, at most 200000 per input).
std::vector<double> sampled_variances(const PointSet& left, const PointSet* right);

}  // namespace simjoin
