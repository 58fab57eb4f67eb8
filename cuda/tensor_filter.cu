// The FP16 copies of the points and the tensor-core filter's bound terms (see tensor_filter.cuh).
#include "tensor_filter.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "device_distance.cuh"
#include "engine/join/filter_scale.h"
#include "tile_pruning.cuh"

namespace simjoin::gpu {
namespace {

constexpr int kRowsPerBlock = 256;  // rows one block of the column passes reads
constexpr int kColumnThreads = 128;
constexpr double kHalfUnit = 0x1p-11 + 0x1p-51;  // FP16 rounding plus the double shift's

// finite[i - first] for the block's rows [first, last), then a barrier.
__device__ void mark_finite_rows(const double* coords, std::uint64_t first, std::uint64_t last,
                                 int dim, bool* finite) {
  for (std::uint64_t i = first + threadIdx.x; i < last; i += blockDim.x)
    finite[i - first] = finite_row(coords + i * dim, dim);
  __syncthreads();
}

// Sums of the finite rows' coordinates and of their squares, per dimension, and the number of
// finite rows.
__global__ void column_sums(const double* coords, std::uint64_t n, int dim, double* sums,
                            double* squares, unsigned long long* finite_rows) {
  const std::uint64_t first = std::uint64_t(blockIdx.x) * kRowsPerBlock;
  const std::uint64_t last = min(first + kRowsPerBlock, n);
  __shared__ bool finite[kRowsPerBlock];
  mark_finite_rows(coords, first, last, dim, finite);
  for (int j = threadIdx.x; j < dim; j += blockDim.x) {
    double sum = 0.0, square = 0.0;
    for (std::uint64_t i = first; i < last; ++i)
      if (finite[i - first]) {
        const double x = coords[i * dim + j];
        sum += x;
        square = fma(x, x, square);
      }
    atomicAdd(sums + j, sum);
    atomicAdd(squares + j, square);
  }
  if (threadIdx.x == 0) {
    unsigned long long count = 0;
    for (std::uint64_t i = first; i < last; ++i) count += finite[i - first];
    atomicAdd(finite_rows, count);
  }
}

// The largest |fl(x - c)| over the finite rows, as the bits of a non-negative double.
__global__ void largest_offset(const double* coords, std::uint64_t n, int dim,
                              const double* centre, unsigned long long* largest) {
  const std::uint64_t first = std::uint64_t(blockIdx.x) * kRowsPerBlock;
  const std::uint64_t last = min(first + kRowsPerBlock, n);
  __shared__ bool finite[kRowsPerBlock];
  mark_finite_rows(coords, first, last, dim, finite);
  double mine = 0.0;
  for (int j = threadIdx.x; j < dim; j += blockDim.x)
    for (std::uint64_t i = first; i < last; ++i)
      if (finite[i - first]) mine = fmax(mine, fabs(__dsub_rn(coords[i * dim + j], centre[j])));
  atomicMax(largest, static_cast<unsigned long long>(__double_as_longlong(mine)));
}

struct HalfCopyArgs {
  const double* coords;
  const std::uint32_t* order;  // FP16 row r holds input row order[r] (null: row r)
  std::uint64_t n, padded_rows;
  int dim, padded_dim;
  const double* centre;
  double scale;       // a power of two
  double half_reach;  // e / 2
  double unit;        // relative rounding of a coordinate (0 without margin)
  double floor;       // absolute rounding of the whole row, l2 (0 without margin)
  double norms;       // per unit of |x~|^2: its double sum's and the float test's roundings
  bool pass_all;      // a shift overflowed: zero copies and an infinite reach pass every pair
  __half* out;
  float *norm2, *reach, *norm, *slack;
};

// One warp per row: the FP16 row, |x~|^2 and the row's bound terms. Padding rows are zeros.
__global__ void half_copy(HalfCopyArgs a) {
  const std::uint64_t row = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= a.padded_rows) return;
  const bool real = row < a.n;
  const double* source = a.coords + (real && a.order ? a.order[row] : row) * a.dim;
  bool finite = true;
  if (real)
    for (int j = lane; j < a.dim; j += 32) finite = finite && isfinite(source[j]);
  finite = __all_sync(0xffffffffu, finite);
  double norm2 = 0.0;
  __half* out = a.out + row * a.padded_dim;
  for (int j = lane; j < a.padded_dim; j += 32) {
    __half h = __float2half_rn(0.0f);
    if (real && finite && !a.pass_all && j < a.dim) {
      const double shifted = __dmul_rn(__dsub_rn(source[j], a.centre[j]), a.scale);
      h = __double2half(shifted);  // round to nearest
      const double back = __half2float(h);
      norm2 = fma(back, back, norm2);
    }
    out[j] = h;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    norm2 += __shfl_down_sync(0xffffffffu, norm2, offset);
  if (lane != 0) return;
  if (!real || !finite) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    a.norm2[row] = nan;
    a.reach[row] = nan;
    a.norm[row] = nan;
    a.slack[row] = nan;
    return;
  }
  if (a.pass_all) {  // every pair of finite rows goes to the exact test
    a.norm2[row] = 0.0f;
    a.reach[row] = __int_as_float(0x7f800000);  // +inf
    a.norm[row] = 0.0f;
    a.slack[row] = 0.0f;
    return;
  }
  // |x~| <= m; the exact scaled row x_s has |x_s| <= (m + floor) / (1 - unit), and
  // |x~ - x_s| <= unit |x_s| + floor.
  // The double sum of exact squares errs by at most (dim - 1) 2^-53 of itself.
  const double m = __dmul_ru(__dsqrt_ru(norm2), 1.0 + (a.dim + 2) * 0x1p-53);
  const double exact_norm = __ddiv_ru(__dadd_ru(m, a.floor), 1.0 - a.unit);
  const double rounding = __dadd_ru(__dmul_ru(a.unit, exact_norm), a.floor);
  a.norm2[row] = __double2float_rn(norm2);
  a.reach[row] = __double2float_ru(__dadd_ru(a.half_reach, rounding));
  a.norm[row] = __double2float_ru(m);
  a.slack[row] = __double2float_ru(__dmul_ru(a.norms, norm2));
}

HalfPoints half_points(const double* coords, const std::uint32_t* order, std::uint64_t n,
                       const HalfCopyArgs& shared, cudaStream_t stream) {
  constexpr std::uint64_t kPadRows = 128;  // a tile of the join kernel
  const std::uint64_t padded_rows = (n + kPadRows - 1) / kPadRows * kPadRows + kPadRows;
  HalfPoints points;
  points.coords.resize(padded_rows * shared.padded_dim);
  points.norm2.resize(padded_rows);
  points.reach.resize(padded_rows);
  points.norm.resize(padded_rows);
  points.slack.resize(padded_rows);
  HalfCopyArgs args = shared;
  args.coords = coords;
  args.order = order;
  args.n = n;
  args.padded_rows = padded_rows;
  args.out = points.coords.data();
  args.norm2 = points.norm2.data();
  args.reach = points.reach.data();
  args.norm = points.norm.data();
  args.slack = points.slack.data();
  constexpr int kBlock = 256;
  const std::uint64_t threads = padded_rows * 32;
  half_copy<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH();
  return points;
}

unsigned row_blocks(std::uint64_t n) {
  return static_cast<unsigned>((n + kRowsPerBlock - 1) / kRowsPerBlock);
}

}  // namespace

TensorInputs make_tensor_inputs(const double* left, std::uint64_t n_left, const double* right,
                                std::uint64_t n_right, int dim, double bound, double margin,
                                bool order_rows, cudaStream_t stream) {
  TensorInputs inputs;
  inputs.padded_dim = tensor_padded_dim(dim);
  // The centre: the mean of the finite rows of both inputs (it keeps |x~| and so the bound small).
  DeviceBuffer<double> sums(2 * dim);  // the sums, then the sums of squares
  DeviceBuffer<unsigned long long> counters(2);  // finite rows, largest offset's bits
  CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, sums.bytes(), stream));
  CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream));
  const struct { const double* coords; std::uint64_t n; } sides[] = {{left, n_left},
                                                                     {right, right ? n_right : 0}};
  for (const auto& side : sides)
    if (side.n > 0)
      column_sums<<<row_blocks(side.n), kColumnThreads, 0, stream>>>(
          side.coords, side.n, dim, sums.data(), sums.data() + dim, counters.data());
  CUDA_CHECK_LAUNCH();
  std::vector<double> centre(2 * dim);
  unsigned long long finite_rows = 0;
  CUDA_CHECK(cudaMemcpyAsync(centre.data(), sums.data(), sums.bytes(), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaMemcpyAsync(&finite_rows, counters.data(), sizeof(finite_rows),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  bool centre_finite = true;
  for (double& c : centre) c = finite_rows > 0 ? c / double(finite_rows) : 0.0;
  std::vector<double> variance(dim);
  for (int j = 0; j < dim; ++j) {
    centre_finite = centre_finite && std::isfinite(centre[j]);  // the sums can overflow
    variance[j] = std::max(0.0, centre[dim + j] - centre[j] * centre[j]);
  }
  centre.resize(dim);
  if (order_rows) {  // tile_pruning.cuh
    const SpaceKey key = space_key(centre, variance);
    for (int side = 0; side < 2; ++side)
      if (sides[side].n > 0)
        (side == 0 ? inputs.left_order : inputs.right_order) =
            space_order(sides[side].coords, sides[side].n, dim, key, stream);
  }
  DeviceBuffer<double> device_centre(dim);
  CUDA_CHECK(cudaMemcpyAsync(device_centre.data(), centre.data(), device_centre.bytes(),
                             cudaMemcpyHostToDevice, stream));
  for (const auto& side : sides)
    if (side.n > 0)
      largest_offset<<<row_blocks(side.n), kColumnThreads, 0, stream>>>(
          side.coords, side.n, dim, device_centre.data(), counters.data() + 1);
  CUDA_CHECK_LAUNCH();
  unsigned long long largest_bits = 0;
  CUDA_CHECK(cudaMemcpyAsync(&largest_bits, counters.data() + 1, sizeof(largest_bits),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double largest = 0.0;
  static_assert(sizeof(largest) == sizeof(largest_bits));
  std::memcpy(&largest, &largest_bits, sizeof(largest));

  HalfCopyArgs shared{};
  shared.dim = dim;
  shared.padded_dim = inputs.padded_dim;
  shared.centre = device_centre.data();
  shared.scale = power_of_two_scale(largest);
  inputs.scale = shared.scale;
  // Finite coordinates near +-DBL_MAX: the mean or some x - c overflows, and the FP16 distance
  // of such rows would be NaN where the exact test may still match them (two equal points).
  shared.pass_all = !centre_finite || !std::isfinite(largest);
  // e: the real distance of a pair the exact test accepts, scaled (the double sum's roundings,
  // those of its subnormal terms included: engine/join/filter_scale.h, shared with the CPU).
  shared.half_reach = scaled_reach(bound, dim, shared.scale, margin) / 2.0;
  shared.unit = margin * kHalfUnit;
  shared.floor = margin * 0x1p-25 * std::sqrt(double(dim)) * (1.0 + 0x1p-40);
  // |x~|^2 summed in double, the distance's three terms in float: 2^-20 per unit covers both
  // (float's unit roundoff is 2^-24; |2 s| <= |x~|^2 + |y~|^2).
  shared.norms = margin * (0x1p-20 + (dim + 16) * 0x1p-52);
  inputs.left = half_points(left, inputs.left_order.data(), n_left, shared, stream);
  if (right) inputs.right = half_points(right, inputs.right_order.data(), n_right, shared, stream);
  // FP32 accumulation on tensor cores (products exact, sums aligned and truncated: Fasi,
  // Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores", 2021) errs by at
  // most (k + 16) 2^-23 |x~| |y~|; doubled, and doubled again as the distance holds -2 s.
  inputs.filter.gemm = static_cast<float>(margin * 4.0 * (inputs.padded_dim + 16) * 0x1p-23 *
                                           (1.0 + 0x1p-20));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the centre's buffer is freed on return
  return inputs;
}

}  // namespace simjoin::gpu
