#include "engine/join/cell_index.h"

#include "engine/parallel/radix_sort.h"
#include "engine/parallel/worker_thread.h"

#include <algorithm>
#include <thread>

#include "engine/join/finite_points.h"

namespace simjoin {
namespace {

constexpr std::int64_t kMaxMaskCells = std::int64_t{1} << 27;  // 16 MiB of bits per dimension

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
  FilledVector<std::uint64_t> keys_sorted(set.n);
  FilledVector<std::uint32_t> ids(set.n);
  const std::size_t parts = range_parts(set.n, threads);
  std::vector<std::uint64_t> part_max(parts, 0);
  std::vector<std::size_t> part_skipped(parts, 0);
  parallel_for_parts(parts, [&](std::size_t part) {
    std::vector<std::int64_t> cell(k);
    std::uint64_t max_key = 0;
    std::size_t skipped = 0;
    for (std::size_t i = part_begin(set.n, parts, part); i < part_begin(set.n, parts, part + 1);
         ++i) {
      const double* p = set.point(i);
      ids[i] = static_cast<std::uint32_t>(i);
      if (!is_finite_point(p, set.dim)) {
        keys_sorted[i] = kSkip;
        skipped++;
        continue;
      }
      for (int d = 0; d < k; ++d) cell[d] = grid_cell(plan, d, p[plan.order[d]]);
      keys_sorted[i] = keys.key(cell.data());
      max_key = std::max(max_key, keys_sorted[i]);
    }
    part_max[part] = max_key;
    part_skipped[part] = skipped;
  });
  std::size_t n = set.n;
  if (std::any_of(part_skipped.begin(), part_skipped.end(), [](std::size_t s) { return s > 0; })) {
    n = 0;
    for (std::size_t i = 0; i < set.n; ++i) {
      if (keys_sorted[i] == kSkip) continue;
      keys_sorted[n] = keys_sorted[i];
      ids[n++] = ids[i];
    }
    keys_sorted.resize(n);
    ids.resize(n);
  }
  // Stable: ids ascend within a cell.
  sort_keys_with_ids(keys_sorted, ids,
                     bit_width(*std::max_element(part_max.begin(), part_max.end())), threads);

  // The cells: where the sorted keys change, found per part and laid out in part order.
  const std::size_t key_parts = range_parts(n, threads);
  std::vector<std::size_t> part_cells(key_parts + 1, 0);
  const auto starts_cell = [&](std::size_t s) { return s == 0 || keys_sorted[s] != keys_sorted[s - 1]; };
  parallel_for_parts(key_parts, [&](std::size_t part) {
    std::size_t starts = 0;
    for (std::size_t s = part_begin(n, key_parts, part); s < part_begin(n, key_parts, part + 1); ++s)
      starts += starts_cell(s);
    part_cells[part + 1] = starts;
  });
  for (std::size_t part = 0; part < key_parts; ++part) part_cells[part + 1] += part_cells[part];
  const std::size_t cells = part_cells[key_parts];
  index.cell_keys.resize(cells);
  index.cell_begin.resize(cells + 1);
  parallel_for_parts(key_parts, [&](std::size_t part) {
    std::size_t c = part_cells[part];
    for (std::size_t s = part_begin(n, key_parts, part); s < part_begin(n, key_parts, part + 1); ++s) {
      if (!starts_cell(s)) continue;
      index.cell_keys[c] = keys_sorted[s];
      index.cell_begin[c++] = static_cast<std::uint32_t>(s);
    }
  });
  index.cell_begin[cells] = static_cast<std::uint32_t>(n);
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
        std::sort(ids.begin() + index.cell_begin[c], ids.begin() + index.cell_begin[c + 1],
                  [&](std::uint32_t a, std::uint32_t b) {
                    const double ca = set.point(a)[sort_dim], cb = set.point(b)[sort_dim];
                    return ca != cb ? ca < cb : a < b;
                  });
      }
    });
  }

  index.coords.resize(n * set.dim);
  if (has_sort_dim) index.sort_coord.resize(n);
  parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t s = begin; s < end; ++s) {
      const double* p = set.point(ids[s]);
      double* to = index.coords.data() + s * set.dim;
      for (std::size_t j = 0; j < set.dim; ++j) to[j] = p[j];
      if (has_sort_dim) index.sort_coord[s] = p[sort_dim];
    }
  });
  index.ids = std::move(ids);

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
