#include "engine/join/szl_index.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/join/finite_points.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

// The shifts are v(j) = j / denominator with an odd denominator (d + 1 or d + 2): with d + 1
// odd, Chan's lemma behind their Lemma 4.4 holds for the d + 1 shifted curves.
std::size_t shift_denominator(std::size_t dim) { return dim % 2 == 0 ? dim + 1 : dim + 2; }

// The bounding box of the finite points: origin per dimension and one scale mapping the widest
// side onto [0, kZMaxCoord].
void choose_grid(const PointSet& points, SzlIndex& index) {
  const std::size_t dim = points.dim;
  std::vector<double> high(dim, -DBL_MAX);
  index.lo.assign(dim, DBL_MAX);
  for (std::size_t i = 0; i < points.n; ++i) {
    const double* p = points.point(i);
    if (!is_finite_point(p, dim)) continue;
    for (std::size_t j = 0; j < dim; ++j) {
      index.lo[j] = std::min(index.lo[j], p[j]);
      high[j] = std::max(high[j], p[j]);
    }
  }
  double width = 0.0;
  for (std::size_t j = 0; j < dim; ++j) width = std::max(width, high[j] - index.lo[j]);
  // width = inf (an overflowing side) still gives a positive scale; width 0: any scale.
  index.scale = width > 0.0 ? static_cast<double>(kZMaxCoord) / std::min(width, DBL_MAX) : 1.0;
}

// Runs body(j) for j in [0, count) on up to `threads` threads (the calling thread included);
// the first exception is rethrown after all have ended.
template <typename Body>
void for_each_parallel(std::size_t count, int threads, const Body& body) {
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto loop = [&]() noexcept {
    for (std::size_t j; !threads_abandoned() && (j = next.fetch_add(1)) < count;) {
      try {
        body(j);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  const std::size_t extra = std::min<std::size_t>(count, std::max(threads, 1)) - 1;
  workers.reserve(extra);
  try {
    for (std::size_t t = 0; t < extra; ++t) workers.push_back(start_worker_thread(loop));
  } catch (...) {  // fewer threads: the calling thread does the rest
  }
  loop();
  for (std::thread& worker : workers) worker.join();
  if (first_error) std::rethrow_exception(first_error);
}

// Sorts curve j's ids and writes their key prefixes.
void sort_curve(const SzlIndex& index, std::size_t j, ZSortMethod method, std::uint32_t* ids,
                std::uint64_t* prefixes) {
  const std::size_t dim = index.dim();
  const std::uint32_t shift = index.shifts[j];
  if (method == ZSortMethod::Msb) {
    std::sort(ids, ids + index.listed, [&](std::uint32_t a, std::uint32_t b) {
      return z_compare(index.quantized_point(a), shift, index.quantized_point(b), shift, dim) < 0;
    });
    for (std::size_t k = 0; k < index.listed; ++k) {
      prefixes[k] = z_key_prefix(index.quantized_point(ids[k]), dim, shift);
    }
    return;
  }
  const std::size_t words = z_key_words(dim);
  std::vector<std::uint64_t> keys(index.listed * words);  // keys[k]: of the k-th listed point
  std::vector<std::uint32_t> rank(index.listed);
  for (std::size_t k = 0; k < index.listed; ++k) {
    z_key(index.quantized_point(ids[k]), dim, shift, keys.data() + k * words);
    rank[k] = static_cast<std::uint32_t>(k);
  }
  std::sort(rank.begin(), rank.end(), [&](std::uint32_t a, std::uint32_t b) {
    return z_key_compare(keys.data() + a * words, keys.data() + b * words, words) < 0;
  });
  std::vector<std::uint32_t> sorted(index.listed);
  for (std::size_t k = 0; k < index.listed; ++k) {
    sorted[k] = ids[rank[k]];
    prefixes[k] = keys[rank[k] * words];
  }
  std::copy(sorted.begin(), sorted.end(), ids);
}

}  // namespace

std::size_t szl_default_curves(std::size_t dim) {
  if (dim <= 8) return dim + 1;
  if (dim <= 32) return 9;
  if (dim <= 128) return 6;
  return 5;
}

void choose_szl_parameters(const PointSet& points, std::size_t curves, SzlIndex& index) {
  index.points = points;
  choose_grid(points, index);
  const std::size_t denominator = shift_denominator(points.dim);
  index.curves = std::min(curves == 0 ? szl_default_curves(points.dim) : curves, denominator);
  index.shifts.clear();
  for (std::size_t j = 0; j < index.curves; ++j) {
    index.shifts.push_back(z_curve_shift(j, denominator));
  }
}

SzlIndex build_szl_index(const PointSet& points, std::size_t curves, int threads,
                         ZSortMethod method) {
  SzlIndex index;
  choose_szl_parameters(points, curves, index);
  const std::size_t dim = points.dim;
  index.quantized.resize(points.n * dim);
  std::vector<std::uint32_t> finite;
  finite.reserve(points.n);
  for (std::size_t i = 0; i < points.n; ++i) {
    if (is_finite_point(points.point(i), dim)) finite.push_back(static_cast<std::uint32_t>(i));
  }
  parallel_for_ranges(points.n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = 0; j < dim; ++j) {
        index.quantized[i * dim + j] = index.quantize(j, points.point(i)[j]);
      }
    }
  });
  index.listed = finite.size();
  index.order.resize(index.curves * index.listed);
  index.prefixes.resize(index.curves * index.listed);
  for_each_parallel(index.curves, threads, [&](std::size_t j) {
    std::uint32_t* ids = index.order.data() + j * index.listed;
    std::copy(finite.begin(), finite.end(), ids);
    sort_curve(index, j, method, ids, index.prefixes.data() + j * index.listed);
  });
  return index;
}

CurveInterval curve_interval(const SzlIndex& index, std::size_t j, const std::uint32_t* low,
                             const std::uint32_t* high) {
  const std::uint32_t* ids = index.curve(j);
  const std::uint64_t* prefixes = index.curve_prefixes(j);
  const std::uint32_t shift = index.shifts[j];
  const std::size_t dim = index.dim();
  // The positions whose prefix ties with the corner's, where whole points decide.
  const auto tied = [&](const std::uint32_t* corner, std::size_t from) {
    const std::uint64_t prefix = z_key_prefix(corner, dim, shift);
    const auto range = std::equal_range(prefixes + from, prefixes + index.listed, prefix);
    return std::make_pair(ids + (range.first - prefixes), ids + (range.second - prefixes));
  };
  const auto before = [&](std::uint32_t id, const std::uint32_t* corner) {
    return z_compare(index.quantized_point(id), shift, corner, shift, dim) < 0;
  };
  const auto after = [&](const std::uint32_t* corner, std::uint32_t id) {
    return z_compare(corner, shift, index.quantized_point(id), shift, dim) < 0;
  };
  CurveInterval interval;
  const auto low_ties = tied(low, 0);
  interval.first = static_cast<std::size_t>(
      std::lower_bound(low_ties.first, low_ties.second, low, before) - ids);
  const auto high_ties = tied(high, interval.first);
  interval.last = static_cast<std::size_t>(
      std::upper_bound(high_ties.first, high_ties.second, high, after) - ids);
  return interval;
}

}  // namespace simjoin
