#include "engine/choice/point_sample.h"

#include <algorithm>

#include "engine/join/finite_points.h"

namespace simjoin {
namespace {

constexpr std::size_t kMinSample = 4096;
constexpr std::size_t kMaxSample = 200000;

std::size_t sample_size(std::size_t n) {
  return std::min(kMaxSample, std::max(std::min(n, kMinSample), n / 100));
}

}  // namespace

std::vector<const double*> sample_points(const PointSet& set, std::size_t target) {
  std::vector<const double*> sample;
  target = std::min(target, set.n);
  sample.reserve(target);
  for (std::size_t s = 0; s < target; ++s) {
    const double* p = set.point(static_cast<std::size_t>(
        static_cast<unsigned __int128>(s) * set.n / target));
    if (is_finite_point(p, set.dim)) sample.push_back(p);
  }
  return sample;
}

std::vector<double> sample_variances(const std::vector<const double*>& sample, std::size_t dim) {
  std::vector<double> variance(dim, 0.0);
  if (sample.empty()) return variance;
  for (std::size_t j = 0; j < dim; ++j) {
    double mean = 0.0;
    for (const double* p : sample) mean += p[j];
    mean /= static_cast<double>(sample.size());
    double sum_sq = 0.0;
    for (const double* p : sample) sum_sq += (p[j] - mean) * (p[j] - mean);
    variance[j] = sum_sq / static_cast<double>(sample.size());
  }
  return variance;
}


std::vector<double> sampled_variances(const PointSet& left, const PointSet* right) {
  std::vector<const double*> sample = sample_points(left, sample_size(left.n));
  if (right) {
    const std::vector<const double*> more = sample_points(*right, sample_size(right->n));
    sample.insert(sample.end(), more.begin(), more.end());
  }
  return sample_variances(sample, left.dim);
}

}  // namespace simjoin
