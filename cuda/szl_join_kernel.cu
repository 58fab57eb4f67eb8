// The SZL join's kernels: the intervals (MININTERVAL) and the walk (WALKINTERVALS) as count and
// fill passes of the pair pipeline, one query point per thread.
#include "szl_join_kernel.cuh"

#include <algorithm>

#include "candidate_test.cuh"
#include "cuda_check.h"
#include "device_buffer.h"
#include "engine/join/zorder.h"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

constexpr int kIntervalBlock = 128;
// Scratch for the quantized box corners of the queries of one interval launch.
constexpr std::size_t kCornerScratchBytes = std::size_t(64) << 20;

// The first position in [lo, hi) whose prefix is >= key (upper: > key).
__device__ std::uint32_t lower_prefix(const std::uint64_t* p, std::uint32_t lo, std::uint32_t hi,
                                      std::uint64_t key) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (p[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
__device__ std::uint32_t upper_prefix(const std::uint64_t* p, std::uint32_t lo, std::uint32_t hi,
                                      std::uint64_t key) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (p[mid] <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// engine/join/szl_index.cpp's curve_interval: binary searches on the prefixes, whole points compared only
// where the prefixes tie with the corner's.
__device__ SzlInterval curve_interval(const SzlJoinArgs& a, std::uint32_t c,
                                      const std::uint32_t* low, const std::uint32_t* high) {
  const std::uint64_t offset = std::uint64_t(c) * a.listed;
  const std::uint32_t* ids = a.order + offset;
  const std::uint64_t* prefixes = a.prefixes + offset;
  const std::uint32_t shift = a.shifts[c];
  const std::uint32_t n = a.listed;
  const auto point = [&](std::uint32_t k) {
    return a.quantized + std::uint64_t(ids[k]) * a.dim;
  };
  SzlInterval interval;
  interval.curve = c;
  // first: the first position not before the low corner.
  const std::uint64_t low_prefix = z_key_prefix(low, a.dim, shift);
  std::uint32_t begin = lower_prefix(prefixes, 0, n, low_prefix);
  std::uint32_t end = upper_prefix(prefixes, begin, n, low_prefix);
  while (begin < end) {
    const std::uint32_t mid = begin + (end - begin) / 2;
    if (z_compare(point(mid), shift, low, shift, a.dim) < 0) begin = mid + 1;
    else end = mid;
  }
  interval.first = begin;
  // last: the first position after the high corner.
  const std::uint64_t high_prefix = z_key_prefix(high, a.dim, shift);
  begin = lower_prefix(prefixes, interval.first, n, high_prefix);
  end = upper_prefix(prefixes, begin, n, high_prefix);
  while (begin < end) {
    const std::uint32_t mid = begin + (end - begin) / 2;
    if (z_compare(high, shift, point(mid), shift, a.dim) < 0) end = mid;
    else begin = mid + 1;
  }
  interval.last = begin;
  return interval;
}

// Queries [q_begin, q_end): the quantized corners of the search box (engine/join/szl_join.cpp's search_box)
// into `corners` (2 * dim per query), then the shortest curve interval.
__global__ void __launch_bounds__(kIntervalBlock)
    szl_intervals(SzlJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                  std::uint32_t* __restrict__ corners, SzlInterval* __restrict__ intervals) {
  const std::uint32_t q = q_begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= q_end) return;
  const double infinity = __longlong_as_double(0x7ff0000000000000LL);
  const double* p = a.probe_coords + std::uint64_t(a.query_ids[q]) * a.dim;
  std::uint32_t* low = corners + std::uint64_t(q - q_begin) * 2 * a.dim;
  std::uint32_t* high = low + a.dim;
  for (int j = 0; j < a.dim; ++j) {
    const double lo = a.self_join && j == 0 ? p[j] : nextafter(p[j] - a.radius, -infinity);
    const double hi = nextafter(p[j] + a.radius, infinity);
    low[j] = z_quantize(lo, a.lo[j], a.scale);
    high[j] = z_quantize(hi, a.lo[j], a.scale);
  }
  SzlInterval best;
  for (std::uint32_t c = 0; c < a.curves; ++c) {
    const SzlInterval interval = curve_interval(a, c, low, high);
    if (c == 0 || interval.last - interval.first < best.last - best.first) best = interval;
    if (best.last == best.first) break;
  }
  intervals[q] = best;
}

template <Metric M, bool FILL, bool FOLD>
__device__ __forceinline__ void record_szl_pair(const SzlJoinArgs& a, std::uint32_t query_id,
                                                std::uint32_t build_id, double acc,
                                                std::uint64_t slot, const PairOutput& out,
                                                const DirectOutput& direct) {
  if (!FILL && !direct.total) return;
  std::uint32_t left, right;
  if (a.self_join) {
    left = min(query_id, build_id);
    right = max(query_id, build_id);
  } else if (a.build_is_left) {
    left = build_id;
    right = query_id;
  } else {
    left = query_id;
    right = build_id;
  }
  if constexpr (FILL) {
    out.left[slot] = left;
    out.right[slot] = right;
    out.distance[slot] = finish_distance_device<M>(acc);
  } else {
    emit_direct<FOLD>(direct, left, right, finish_distance_device<M>(acc));
  }
}

// Counts (FILL = false) or writes (FILL = true) the pairs of queries [q_begin, q_end), one query
// per thread walking its interval; in a self-join only the points after the query in (first
// coordinate, id) order are tested.
template <Metric M, int DIM, bool FILL, bool FOLD>
__global__ void __launch_bounds__(kJoinBlock)
    szl_join(SzlJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
             std::uint32_t* __restrict__ counts, unsigned long long* __restrict__ candidates,
             const std::uint64_t* __restrict__ offsets, std::uint64_t base, PairOutput out,
             DirectOutput direct) {
  const std::uint32_t q = q_begin + blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long evaluated = 0;
  if (q < q_end) {
    const int dim = DIM > 0 ? DIM : a.dim;
    const std::uint32_t id = a.query_ids[q];
    FloatQuery<DIM> query_float;
    query_float.load(a.probe_float + std::uint64_t(id) * dim);
    const CandidatePoint query{query_float.coords(), a.probe_mag[id],
                               a.probe_coords + std::uint64_t(id) * dim};
    const double first_coordinate = query.exact[0];
    const SzlInterval interval = a.intervals[q];
    const std::uint64_t curve_offset = std::uint64_t(interval.curve) * a.listed;
    const std::uint32_t* ids = a.order + curve_offset;
    const std::uint64_t first_out = FILL ? offsets[q] - base : 0;
    std::uint32_t found = 0;
    for (std::uint32_t k = interval.first; k < interval.last; ++k) {
      const std::uint32_t other = ids[k];
      const double* exact = a.build_coords + std::uint64_t(other) * dim;
      const std::uint64_t row = a.curve_float ? curve_offset + k : other;
      if (a.self_join) {
        const double b0 = a.curve_float ? a.curve_first[row] : exact[0];
        if (!(b0 > first_coordinate || (b0 == first_coordinate && other > id))) continue;
      }
      ++evaluated;
      const CandidatePoint candidate =
          a.curve_float ? CandidatePoint{a.curve_float + row * dim, a.curve_mag[row], exact}
                        : CandidatePoint{a.build_float + row * dim, a.build_mag[row], exact};
      const double acc = candidate_distance<M, DIM>(a.filter, query, candidate, dim, a.bound);
      if (acc <= a.bound) {
        record_szl_pair<M, FILL, FOLD>(a, id, other, acc, first_out + found, out, direct);
        ++found;
      }
    }
    if constexpr (!FILL) counts[q] = found;
  }
  if constexpr (!FILL) add_candidates(candidates, evaluated);
}

struct SzlJoinKernel {
  template <Metric M, int DIM, bool FILL, bool FOLD>
  static constexpr auto kernel() {
    return &szl_join<M, DIM, FILL, FOLD>;
  }
  static std::size_t shared_bytes(const SzlJoinArgs&) { return 0; }
};

}  // namespace

void compute_szl_intervals(const SzlJoinArgs& args, SzlInterval* intervals,
                           cudaStream_t stream) {
  if (args.curves == 0 || args.curves > kMaxSzlCurves)
    throw Error("simjoin: internal error: SZL curve count out of range");
  if (args.num_queries == 0) return;
  const std::size_t corner_bytes = 2 * sizeof(std::uint32_t) * std::max(args.dim, 1);
  const std::uint32_t chunk = static_cast<std::uint32_t>(std::min<std::size_t>(
      args.num_queries, std::max<std::size_t>(1, kCornerScratchBytes / corner_bytes)));
  DeviceBuffer<std::uint32_t> corners(std::size_t(chunk) * 2 * std::max(args.dim, 1));
  for (std::uint32_t q = 0; q < args.num_queries; q += std::min(chunk, args.num_queries - q)) {
    const std::uint32_t q_end = q + std::min(chunk, args.num_queries - q);
    const unsigned blocks = (q_end - q + kIntervalBlock - 1) / kIntervalBlock;
    szl_intervals<<<blocks, kIntervalBlock, 0, stream>>>(args, q, q_end, corners.data(),
                                                         intervals);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the corners are freed on return
}

namespace {

// Row r of the curve-ordered copies = build point order[r] (r over every curve's positions).
__global__ void gather_curve_rows(SzlJoinArgs a, std::uint64_t rows, float* __restrict__ curve_float,
                                  float* __restrict__ curve_mag, double* __restrict__ curve_first) {
  const std::uint64_t r = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const std::uint64_t id = a.order[r];
  for (int j = 0; j < a.dim; ++j) curve_float[r * a.dim + j] = a.build_float[id * a.dim + j];
  curve_mag[r] = a.build_mag[id];
  curve_first[r] = a.build_coords[id * a.dim];
}

}  // namespace

void make_szl_curve_copies(const SzlJoinArgs& args, float* curve_float, float* curve_mag,
                           double* curve_first, cudaStream_t stream) {
  const std::uint64_t rows = std::uint64_t(args.curves) * args.listed;
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kIntervalBlock - 1) / kIntervalBlock);
  gather_curve_rows<<<blocks, kIntervalBlock, 0, stream>>>(args, rows, curve_float, curve_mag,
                                                           curve_first);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void SzlJoinProducer::count_range(std::uint32_t q_begin, std::uint32_t q_end,
                                  std::uint32_t* counts, unsigned long long* candidates,
                                  const DirectOutput& direct, cudaStream_t stream) const {
  if (direct.fold.kind != FoldKind::None)
    launch_join<SzlJoinKernel, false, true>(args_, metric_, args_.dim, q_begin, q_end, counts,
                                            candidates, nullptr, 0, PairOutput{}, direct, stream);
  else
    launch_join<SzlJoinKernel, false>(args_, metric_, args_.dim, q_begin, q_end, counts,
                                      candidates, nullptr, 0, PairOutput{}, direct, stream);
}

void SzlJoinProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                           const std::uint64_t* offsets, std::uint64_t base,
                           const PairOutput& out, cudaStream_t stream) const {
  launch_join<SzlJoinKernel, true>(args_, metric_, args_.dim, q_begin, q_end, nullptr, nullptr,
                                   offsets, base, out, DirectOutput{}, stream);
}

}  // namespace simjoin::gpu
