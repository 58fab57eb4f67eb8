// One input's points grouped by eps-grid cell (Gowanlock and Karsin, IPDPSW 2018): only non-empty cells are stored, as a
// sorted array of linear cell keys with per-cell point ranges; lookups gallop from the last one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/join/grid_plan.h"
#include "engine/parallel/filled_vector.h"
#include "engine/types.h"

namespace simjoin {

// Linear cell keys over the plan's k indexed dimensions, first dimension most significant, so that
// key order is the lexicographic order of cell coordinates. plan_grid keeps the key space < 2^62.
class CellKeys {
 public:
  explicit CellKeys(const GridPlan& plan);
  std::uint64_t key(const std::int64_t* cell) const {
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < stride_.size(); ++i) key += stride_[i] * cell[i];
    return key;
  }
  std::uint64_t stride(int i) const { return stride_[i]; }
  // The cell coordinates of a key (the inverse of key(): each coordinate within its dimension's
  // cells), without reading the point.
  void coords(std::uint64_t key, std::int64_t* cell) const {
    for (std::size_t i = 0; i < stride_.size(); ++i) {
      cell[i] = static_cast<std::int64_t>(key / stride_[i]);
      key -= static_cast<std::uint64_t>(cell[i]) * stride_[i];
    }
  }

 private:
  std::vector<std::uint64_t> stride_;
};

struct CellIndex {
  std::size_t dim = 0;
  int k = 0;
  // Sorted by (cell key, SORTIDU coordinate): original point ids and their coordinates.
  FilledVector<std::uint32_t> ids;
  FilledVector<double> coords;       // ids.size() x dim, row-major
  FilledVector<double> sort_coord;   // coordinate of dimension plan.order[k]; empty when k == dim
  // Non-empty cells, by increasing key: points cell_begin[c] .. cell_begin[c + 1] - 1.
  FilledVector<std::uint64_t> cell_keys;
  FilledVector<std::uint32_t> cell_begin;
  FilledVector<std::int64_t> cell_coords;  // cell_keys.size() x k
  // Per indexed dimension: bit c set when some point has cell coordinate c there (the masks M of
  // Gowanlock and Karsin, IPDPSW 2018). Empty for a dimension with too many cells to be worth a bitmap (no pruning there).
  std::vector<std::vector<std::uint64_t>> occupied;

  std::size_t cell_count() const { return cell_keys.size(); }
  std::size_t point_count() const { return ids.size(); }
  const double* point(std::size_t sorted) const { return coords.data() + sorted * dim; }
  // Whether some cell has coordinate c in indexed dimension i (c may be out of range).
  bool may_have(int i, std::int64_t c, std::int64_t cells) const {
    if (c < 0 || c >= cells) return false;
    const std::vector<std::uint64_t>& bits = occupied[i];
    return bits.empty() || ((bits[c >> 6] >> (c & 63)) & 1u);
  }
  // The cell with this key, or cell_count() when there is none. Searches from cell `from` on
  // (every cell before it has a smaller key), galloping, and advances `from` to the first cell
  // with a key >= key: lookups in increasing key order each start where the last one ended.
  std::size_t find_cell(std::uint64_t key, std::size_t& from) const;
  // The cell containing sorted point position `sorted`.
  std::size_t cell_of(std::size_t sorted) const;
};

// Indexes the finite points of `set` (non-finite ones never match a finite eps).
// `threads`: worker threads for computing the keys (the sort itself runs on the calling thread).
CellIndex build_cell_index(const PointSet& set, const GridPlan& plan, const CellKeys& keys,
                           int threads);

}  // namespace simjoin
