// The fold passes (see fold_pass.cuh).
#include "fold_pass.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "engine/distance.h"
#include "gpu_tuning.h"

namespace simjoin::gpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kLaunchSeconds = 0.1;              // the aim for one launch
constexpr std::uint32_t kFirstLaunchQueries = 1u << 14;  // then doubled while launches are short
constexpr std::uint32_t kMinLaunchQueries = 1u << 10;

__global__ void fold_identity_pairs(PairFold fold, const std::uint32_t* __restrict__ ids,
                                    std::uint32_t n) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) fold_pair(fold, ids[k], ids[k], 0.0);
}

// flags[i] = 1 when row i's `dim` coordinates are all finite, else 0 (a warp a row).
__global__ void flag_finite_rows(const double* __restrict__ coords, std::size_t n, std::size_t dim,
                                 std::uint8_t* __restrict__ flags) {
  const std::size_t row = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (row >= n) return;  // uniform over the warp
  bool finite = true;
  for (std::size_t j = lane; j < dim; j += 32) finite = finite && isfinite(coords[row * dim + j]);
  finite = __all_sync(0xffffffffu, finite);
  if (lane == 0) flags[row] = finite;
}

}  // namespace

std::vector<std::uint32_t> finite_ids(const double* device_coords, std::size_t n,
                                      std::size_t dim) {
  std::vector<std::uint32_t> ids;
  if (n == 0) return ids;
  DeviceBuffer<std::uint8_t> flags(n);
  constexpr int kBlock = 256;
  const std::size_t blocks = (n * 32 + kBlock - 1) / kBlock;
  flag_finite_rows<<<static_cast<unsigned>(blocks), kBlock>>>(device_coords, n, dim,
                                                              flags.data());
  CUDA_CHECK_LAUNCH();
  std::vector<std::uint8_t> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), flags.data(), n, cudaMemcpyDeviceToHost));
  ids.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (host[i]) ids.push_back(static_cast<std::uint32_t>(i));
  return ids;
}

std::vector<std::uint32_t> self_matching_ids(const PointSet& set, const JoinSpec& spec) {
  std::vector<std::uint32_t> ids;
  ids.reserve(set.n);
  for (std::size_t i = 0; i < set.n; ++i)
    if (matches_itself(set.point(i), set.dim, spec.metric, spec.eps))
      ids.push_back(static_cast<std::uint32_t>(i));
  return ids;
}

void fold_identities(const PairFold& fold, const std::uint32_t* ids, std::uint32_t n,
                     cudaStream_t stream) {
  if (n == 0) return;
  PairFold own = fold;
  own.fold_left = true;
  own.fold_right = false;
  fold_identity_pairs<<<(n + 255) / 256, 256, 0, stream>>>(own, ids, n);
  CUDA_CHECK_LAUNCH();
}

bool run_fold_pass(const PairProducer& producer, const PairFold& fold, PairSink& control,
                   const char* phase, JoinStats& stats, std::uint64_t* pairs) {
  const auto start = Clock::now();
  const std::uint32_t num_queries = producer.num_queries();
  *pairs = 0;
  DeviceBuffer<std::uint32_t> counts(std::size_t(num_queries) + 1);
  DeviceBuffer<unsigned long long> counters(2);  // candidates, pairs
  PinnedBuffer<unsigned long long> summary(2);
  CudaStream stream;  // after the buffers: synchronized before they are freed
  CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream.get()));
  DirectOutput direct;
  direct.total = counters.data() + 1;
  direct.capacity = 0;
  direct.fold = fold;
  bool going = true;
  const std::uint32_t fixed = tuning().fold_launch_queries;
  std::uint32_t launch = fixed ? fixed : std::min(num_queries, kFirstLaunchQueries);
  for (std::uint32_t q = 0; going && q < num_queries;) {
    const std::uint32_t q_end = q + std::min(launch, num_queries - q);
    const auto launch_start = Clock::now();
    producer.count_range(q, q_end, counts.data(), counters.data(), direct, stream.get());
    ++stats.batches;
    going = wait_for_stream(stream.get(), control) && control.keep_going();
    const double seconds = std::chrono::duration<double>(Clock::now() - launch_start).count();
    q = q_end;
    if (fixed) continue;
    // Aim each launch at kLaunchSeconds: at most double it, or scale it down.
    const double scale = seconds > 0 ? std::min(2.0, kLaunchSeconds / seconds) : 2.0;
    launch = static_cast<std::uint32_t>(std::clamp<double>(
        launch * scale, kMinLaunchQueries, double(std::max(num_queries, kMinLaunchQueries))));
  }
  if (!going) return false;
  CUDA_CHECK(cudaMemcpyAsync(summary.data(), counters.data(), counters.bytes(),
                             cudaMemcpyDeviceToHost, stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  stats.candidates += summary.data()[0];
  control.progress(stats.candidates);
  *pairs = summary.data()[1];
  stats.phase_seconds.emplace_back(phase, std::chrono::duration<double>(Clock::now() - start).count());
  return true;
}

}  // namespace simjoin::gpu
