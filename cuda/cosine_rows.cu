// Cosine rows on the device (see cosine_rows.cuh).
#include "cosine_rows.cuh"

#include <cfloat>

#include "cuda_check.h"
#include "device_cosine.cuh"

namespace simjoin::gpu {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::uint64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// One thread a row: cosine_scale_exponent, cosine_prepare (engine/cosine.h). `scaled` holds the
// raw row on entry.
__global__ void prepare_rows(double* __restrict__ scaled, std::uint64_t n, int dim,
                             double* __restrict__ norm, double* __restrict__ unit) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double* row = scaled + i * dim;
  double* unit_row = unit + i * dim;
  double largest = 0.0;
  bool direction = true;
  for (int j = 0; j < dim; ++j) {
    const double m = fabs(row[j]);
    if (!(m <= DBL_MAX)) direction = false;  // NaN or infinite
    else if (m > largest) largest = m;
  }
  if (!direction || largest == 0.0) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    for (int j = 0; j < dim; ++j) row[j] = unit_row[j] = nan;
    norm[i] = nan;
    return;
  }
  int exponent = 0;
  frexp(largest, &exponent);
  double sum = 0.0;
  for (int j = 0; j < dim; ++j) {
    const double x = ldexp(row[j], -exponent);  // exact, or correctly rounded when subnormal
    row[j] = x;
    sum = __dadd_rn(sum, __dmul_rn(x, x));
  }
  const double length = __dsqrt_rn(sum);
  norm[i] = length;
  for (int j = 0; j < dim; ++j) unit_row[j] = __ddiv_rn(row[j], length);
}

__global__ void self_distances(const double* __restrict__ scaled, const double* __restrict__ norm,
                               std::uint64_t n, int dim, double* __restrict__ out) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double* row = scaled + i * dim;
  out[i] = cosine_from_scaled_device(row, norm[i], row, norm[i], dim);
}

}  // namespace

CosineRows prepare_cosine_rows(const PointSet& points, cudaStream_t stream) {
  CosineRows rows;
  rows.n = points.n;
  rows.dim = static_cast<int>(points.dim);
  rows.scaled = upload(points.coords, points.n * points.dim);
  rows.norm.resize(points.n);
  rows.unit.resize(points.n * points.dim);
  if (points.n > 0) {
    prepare_rows<<<blocks_for(points.n), kBlock, 0, stream>>>(
        rows.scaled.data(), points.n, rows.dim, rows.norm.data(), rows.unit.data());
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return rows;
}

CosineDiagonal cosine_diagonal(const CosineRows& rows, double eps, cudaStream_t stream) {
  CosineDiagonal diagonal;
  if (rows.n == 0) return diagonal;
  DeviceBuffer<double> distances(rows.n);
  self_distances<<<blocks_for(rows.n), kBlock, 0, stream>>>(rows.scaled.data(), rows.norm.data(),
                                                            rows.n, rows.dim, distances.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> all = to_host(distances, rows.n);
  for (std::uint64_t i = 0; i < rows.n; ++i) {
    if (!(all[i] <= eps)) continue;
    diagonal.ids.push_back(static_cast<std::uint32_t>(i));
    diagonal.distances.push_back(all[i]);
  }
  return diagonal;
}

}  // namespace simjoin::gpu
