#include "cell_index.h"

#include "worker_thread.h"

#include <algorithm>
#include <thread>

#include "finite_points.h"

namespace simjoin {
namespace {

constexpr std::int64_t kMaxMaskCells = std::int64_t{1} << 27;  // 16 MiB of bits per dimension

struct KeyedPoint {
  std::uint64_t key;
  std::uint32_t id;
};

// Stable LSD radix sort on the key, 11 bits per pass, only over the bits the keys use.
void radix_sort_by_key(std::vector<KeyedPoint>& items) {
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  std::uint64_t max_key = 0;
  for (const KeyedPoint& item : items) max_key = std::max(max_key, item.key);
  std::vector<KeyedPoint> buffer(items.size());
  for (int shift = 0; shift < 64 && (max_key >> shift) != 0; shift += kDigitBits) {
    std::vector<std::size_t> start(kBuckets + 1, 0);
    for (const KeyedPoint& item : items) ++start[((item.key >> shift) & (kBuckets - 1)) + 1];
    for (std::size_t b = 1; b <= kBuckets; ++b) start[b] += start[b - 1];
    for (const KeyedPoint& item : items) buffer[start[(item.key >> shift) & (kBuckets - 1)]++] = item;
    items.swap(buffer);
  }
}

}  // namespace

CellKeys::CellKeys(const GridPlan& plan) : stride_(plan.k) {
  std::uint64_t stride = 1;
  for (int i = plan.k - 1; i >= 0; --i) {
    stride_[i] = stride;
    stride *= static_cast<std::uint64_t>(plan.cells[i]);
  }
}

std::size_t CellIndex::find_cell(std::uint64_t key, std::size_t& from) const {
  // Galloping from `from`: lookups in increasing key order land near the last one, so a few
  // neighbouring keys are read instead of a binary search's scattered ones over all cells.
  const std::size_t n = cell_keys.size();
  std::size_t lo = from, hi = from, step = 1;
  while (hi < n && cell_keys[hi] < key) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  const auto it = std::lower_bound(cell_keys.begin() + lo, cell_keys.begin() + std::min(hi, n), key);
  from = static_cast<std::size_t>(it - cell_keys.begin());
  return it != cell_keys.end() && *it == key ? static_cast<std::size_t>(it - cell_keys.begin())
                                             : cell_count();
}

std::size_t CellIndex::cell_of(std::size_t sorted) const {
  const auto it = std::upper_bound(cell_begin.begin(), cell_begin.end(),
                                   static_cast<std::uint32_t>(sorted));
  return static_cast<std::size_t>(it - cell_begin.begin()) - 1;
}

CellIndex build_cell_index(const PointSet& set, const GridPlan& plan, const CellKeys& keys,
                           int threads) {
  CellIndex index;
  index.dim = set.dim;
  index.k = plan.k;
  const int k = plan.k;
  const bool has_sort_dim = static_cast<std::size_t>(k) < set.dim;
  const int sort_dim = has_sort_dim ? plan.order[k] : 0;

  // Keys of all points; non-finite ones are marked and dropped.
  constexpr std::uint64_t kSkip = ~std::uint64_t{0};
  std::vector<KeyedPoint> keyed(set.n);
  parallel_for_ranges(set.n, threads, [&](std::size_t begin, std::size_t end) {
    std::vector<std::int64_t> cell(k);
    for (std::size_t i = begin; i < end; ++i) {
      const double* p = set.point(i);
      KeyedPoint& entry = keyed[i];
      entry.id = static_cast<std::uint32_t>(i);
      if (!is_finite_point(p, set.dim)) {
        entry.key = kSkip;
        continue;
      }
      for (int d = 0; d < k; ++d) cell[d] = grid_cell(plan, d, p[plan.order[d]]);
      entry.key = keys.key(cell.data());
    }
  });
  keyed.erase(std::remove_if(keyed.begin(), keyed.end(),
                             [](const KeyedPoint& e) { return e.key == kSkip; }),
              keyed.end());
  radix_sort_by_key(keyed);  // stable: ids ascend within a cell
  const std::size_t n = keyed.size();

  std::size_t cells = 0;
  for (std::size_t s = 0; s < n; ++s) cells += s == 0 || keyed[s].key != keyed[s - 1].key;
  index.cell_keys.reserve(cells);
  index.cell_begin.reserve(cells + 1);
  for (std::size_t s = 0; s < n; ++s) {
    if (s == 0 || keyed[s].key != keyed[s - 1].key) {
      index.cell_keys.push_back(keyed[s].key);
      index.cell_begin.push_back(static_cast<std::uint32_t>(s));
    }
  }
  index.cell_begin.push_back(static_cast<std::uint32_t>(n));
  // Each cell's coordinates from its key: reading a point per cell would be a cache miss each.
  index.cell_coords.resize(cells * k);
  parallel_for_ranges(cells, threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t c = first; c < last; ++c)
      keys.coords(index.cell_keys[c], index.cell_coords.data() + c * k);
  });

  // SORTIDU: each cell's points by their coordinate in the first un-indexed dimension.
  if (has_sort_dim) {
    parallel_for_ranges(index.cell_count(), threads, [&](std::size_t first, std::size_t last) {
      for (std::size_t c = first; c < last; ++c) {
        std::sort(keyed.begin() + index.cell_begin[c], keyed.begin() + index.cell_begin[c + 1],
                  [&](const KeyedPoint& a, const KeyedPoint& b) {
                    const double ca = set.point(a.id)[sort_dim], cb = set.point(b.id)[sort_dim];
                    return ca != cb ? ca < cb : a.id < b.id;
                  });
      }
    });
  }

  index.ids.resize(n);
  index.coords.resize(n * set.dim);
  if (has_sort_dim) index.sort_coord.resize(n);
  parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t s = begin; s < end; ++s) {
      const double* p = set.point(keyed[s].id);
      double* to = index.coords.data() + s * set.dim;
      for (std::size_t j = 0; j < set.dim; ++j) to[j] = p[j];
      index.ids[s] = keyed[s].id;
      if (has_sort_dim) index.sort_coord[s] = p[sort_dim];
    }
  });

  index.occupied.resize(k);
  for (int d = 0; d < k; ++d) {
    // A bitmap much larger than the cell list costs more memory than its pruning is worth.
    const std::int64_t dense_enough = 64 * static_cast<std::int64_t>(index.cell_count()) + 4096;
    if (plan.cells[d] > std::min(kMaxMaskCells, dense_enough)) continue;
    std::vector<std::uint64_t>& bits = index.occupied[d];
    bits.assign(static_cast<std::size_t>((plan.cells[d] + 63) / 64), 0);
    for (std::size_t c = 0; c < index.cell_count(); ++c) {
      const std::int64_t coord = index.cell_coords[c * k + d];
      bits[coord >> 6] |= std::uint64_t{1} << (coord & 63);
    }
  }
  return index;
}

}  // namespace simjoin
