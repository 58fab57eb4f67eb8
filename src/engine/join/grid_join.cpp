#include "engine/join/grid_join.h"

#include <algorithm>
#include <atomic>

#include "engine/bounded_distance.h"
#include "engine/join/self_pairs.h"
#include "engine/parallel/polled_units.h"

namespace simjoin {
namespace {

enum class Stencil {
  Full,  // all 3^k neighbours, own cell included
  Half,  // neighbours with a larger key only (first non-zero offset is +1): unicomp
};

// Appends to `found` the non-empty cells of `index` around `cell` (k coordinates), in increasing
// key order. Offsets are enumerated most significant dimension first, so keys increase and each
// binary search starts where the previous one ended; the per-dimension masks prune whole branches.
class StencilWalker {
 public:
  StencilWalker(const CellIndex& index, const Grid& grid)
      : index_(index), plan_(grid.plan), keys_(grid.keys) {
    if (plan_.k <= kMaxCursorDims) {
      std::size_t slots = 1;
      for (int d = 0; d + 1 < plan_.k; ++d) slots *= 3;
      cursors_.assign(slots, 0);
    }
  }

  // The non-empty cells of `cell`'s stencil, in increasing key order. Called for probe cells in
  // increasing key order: each stencil slot's key then only grows, and its lookup starts where
  // the slot's last one ended.
  void collect(const std::int64_t* cell, Stencil stencil, std::vector<std::size_t>& found) {
    cell_ = cell;
    found_ = &found;
    search_from_ = 0;
    visit(0, 0, 0, stencil == Stencil::Half);
  }

 private:
  static constexpr int kMaxCursorDims = 7;  // 3^6 cursors per walker at most

  // `slot`: the offsets so far in base 3; `still_zero`: every offset so far is 0 and only the
  // half stencil is wanted. The last indexed dimension's neighbours have consecutive keys (its
  // stride is 1): one search finds the first, the others follow it in the cell list.
  void visit(int dim, std::uint64_t key, std::size_t slot, bool still_zero) {
    if (dim + 1 == plan_.k) {
      const std::int64_t cells = plan_.cells[dim];
      // The half stencil skips the own cell: from +1 where every earlier offset is 0.
      const std::int64_t first = std::max<std::int64_t>(cell_[dim] + (still_zero ? 1 : -1), 0);
      const std::int64_t last = std::min<std::int64_t>(cell_[dim] + 1, cells - 1);
      if (first > last) return;
      std::size_t& from = cursors_.empty() ? search_from_ : cursors_[slot];
      const std::uint64_t last_key = key + static_cast<std::uint64_t>(last);
      index_.find_cell(key + static_cast<std::uint64_t>(first), from);
      for (std::size_t c = from; c < index_.cell_count() && index_.cell_keys[c] <= last_key; ++c)
        found_->push_back(c);
      return;
    }
    for (int offset = still_zero ? 0 : -1; offset <= 1; ++offset) {
      const std::int64_t coord = cell_[dim] + offset;
      if (!index_.may_have(dim, coord, plan_.cells[dim])) continue;
      visit(dim + 1, key + keys_.stride(dim) * static_cast<std::uint64_t>(coord),
            slot * 3 + static_cast<std::size_t>(offset + 1), still_zero && offset == 0);
    }
  }

  const CellIndex& index_;
  const GridPlan& plan_;
  const CellKeys& keys_;
  const std::int64_t* cell_ = nullptr;
  std::vector<std::size_t>* found_ = nullptr;
  std::size_t search_from_ = 0;         // without cursors: within one collect
  std::vector<std::size_t> cursors_;    // per stencil slot, across collects
};

// SORTIDU (Gowanlock and Karsin, DaMoN 2019): in a cell sorted on the un-indexed dimension order[k], the points whose term
// in that dimension alone is within the bound form one contiguous range (fl(c - v) is monotone in
// c), and a point outside it cannot match (each term is at most the accumulated value).
constexpr std::size_t kSortiduMinCell = 32;  // smaller cells are scanned whole

template <Metric M>
void narrow_to_sort_range(const CellIndex& index, double value, double bound, std::size_t& begin,
                          std::size_t& end) {
  if (index.sort_coord.empty() || end - begin < kSortiduMinCell) return;
  const auto first = index.sort_coord.begin();
  const auto too_low = [&](double c) { return c < value && dimension_term<M>(c - value) > bound; };
  const auto not_too_high = [&](double c) {
    return !(c > value && dimension_term<M>(c - value) > bound);
  };
  begin = static_cast<std::size_t>(std::partition_point(first + begin, first + end, too_low) - first);
  end = static_cast<std::size_t>(std::partition_point(first + begin, first + end, not_too_high) -
                                 first);
}

// Tests probe point `a` (coordinate `sort_value` in the SORTIDU dimension) against the sorted
// build positions [begin, end) that SORTIDU leaves; report(position, distance) returns false to
// stop. Returns false when stopped.
template <Metric M, typename Report>
bool scan_candidates(const CellIndex& build, const double* a, double sort_value,
                     std::size_t begin, std::size_t end, double bound, std::uint64_t& candidates,
                     const Report& report) {
  narrow_to_sort_range<M>(build, sort_value, bound, begin, end);
  candidates += end - begin;
  double accumulated;
  for (std::size_t q = begin; q < end; ++q) {
    if (within_bound<M>(a, build.point(q), build.dim, bound, &accumulated) &&
        !report(q, finish_distance(accumulated, M))) {
      return false;
    }
  }
  return true;
}

// The same over whole build cells.
template <Metric M, typename Report>
bool scan_cells(const CellIndex& build, const std::vector<std::size_t>& cells, const double* a,
                double sort_value, double bound, std::uint64_t& candidates, const Report& report) {
  for (const std::size_t cell : cells) {
    if (!scan_candidates<M>(build, a, sort_value, build.cell_begin[cell],
                            build.cell_begin[cell + 1], bound, candidates, report)) {
      return false;
    }
  }
  return true;
}

double sort_value(const CellIndex& index, std::size_t position) {
  return index.sort_coord.empty() ? 0.0 : index.sort_coord[position];
}

// Runs the join in work units of consecutive sorted probe positions. Per probe cell (and unit)
// the stencil's build cells are looked up once; then, per probe point p of that cell,
// visit_point(p, cell, stencil_cells, out) tests p and returns false to stop.
template <typename VisitPoint>
PipelineResult run_probe_units(const CellIndex& probe, const CellIndex& build, Stencil stencil,
                               const Grid& grid, const JoinParams& params, PairSink& sink,
                               const VisitPoint& visit_point) {
  const std::size_t n = probe.point_count();
  const std::size_t unit_points = items_per_unit(n, params.threads, 32, 2048);
  const std::size_t units = (n + unit_points - 1) / unit_points;
  auto work = [&](std::size_t unit, BatchWriter& out) {
    StencilWalker walker(build, grid);
    std::vector<std::size_t> stencil_cells;
    const std::size_t last = std::min(n, (unit + 1) * unit_points);
    for (std::size_t p = unit * unit_points, cell = probe.cell_of(p); p < last; ++cell) {
      stencil_cells.clear();
      walker.collect(&probe.cell_coords[cell * probe.k], stencil, stencil_cells);
      const std::size_t end = std::min<std::size_t>(last, probe.cell_begin[cell + 1]);
      for (; p < end; ++p) {
        if (out.stopped() || !visit_point(p, cell, stencil_cells, out)) return;
      }
    }
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

template <Metric M>
PipelineResult self_join(const CellIndex& index, const Grid& grid, const JoinParams& params,
                         PairSink& sink) {
  const SelfPairs mode = params.self_pairs;
  const double bound = params.bound;
  auto visit_point = [&](std::size_t p, std::size_t cell,
                         const std::vector<std::size_t>& later_cells, BatchWriter& out) {
    const double* a = index.point(p);
    const std::uint32_t id = index.ids[p];
    if (mode == SelfPairs::All && !out.add(id, id, 0.0)) return false;
    const auto report = [&](std::size_t q, double distance) {
      return emit_self_match(out, id, index.ids[q], distance, mode);
    };
    // The own cell: only the later points, so that each pair is tested once.
    return scan_candidates<M>(index, a, sort_value(index, p), p + 1, index.cell_begin[cell + 1],
                              bound, out.candidates, report) &&
           scan_cells<M>(index, later_cells, a, sort_value(index, p), bound, out.candidates,
                         report);
  };
  return run_probe_units(index, index, Stencil::Half, grid, params, sink, visit_point);
}

template <Metric M>
PipelineResult two_input_join(const CellIndex& build, const CellIndex& probe, bool build_is_left,
                              const Grid& grid, const JoinParams& params, PairSink& sink) {
  auto visit_point = [&](std::size_t p, std::size_t /*cell*/,
                         const std::vector<std::size_t>& stencil_cells, BatchWriter& out) {
    const std::uint32_t id = probe.ids[p];
    const auto report = [&](std::size_t q, double distance) {
      return build_is_left ? out.add(build.ids[q], id, distance)
                           : out.add(id, build.ids[q], distance);
    };
    return scan_cells<M>(build, stencil_cells, probe.point(p), sort_value(probe, p), params.bound,
                         out.candidates, report);
  };
  return run_probe_units(probe, build, Stencil::Full, grid, params, sink, visit_point);
}

// Counts the partners of probe positions [first, last): see grid_neighbour_counts. Two inputs:
// each point's full stencil, its count written by this thread. A self-join: each pair once (the
// later points of the own cell and the half stencil, as self_join finds them), added to both
// points' counts atomically (a partner may be another thread's), each point counting itself.
template <Metric M>
void count_unit(const CellIndex& probe, const CellIndex& build, bool self, StencilWalker& walker,
                std::vector<std::size_t>& stencil_cells, double bound, std::size_t first,
                std::size_t last, std::uint64_t* counts, CountRun& run) {
  for (std::size_t p = first, cell = probe.cell_of(p); p < last; ++cell) {
    stencil_cells.clear();
    walker.collect(&probe.cell_coords[cell * probe.k], self ? Stencil::Half : Stencil::Full,
                   stencil_cells);
    const std::size_t end = std::min<std::size_t>(last, probe.cell_begin[cell + 1]);
    for (; p < end; ++p) {
      const double* a = probe.point(p);
      const double sorted_by = sort_value(probe, p);
      if (!self) {
        std::uint64_t count = 0;
        scan_cells<M>(build, stencil_cells, a, sorted_by, bound, run.candidates,
                      [&count](std::size_t, double) {
                        ++count;
                        return true;
                      });
        counts[probe.ids[p]] = count;
        run.pairs += count;
        continue;
      }
      std::uint64_t found = 0;
      const auto report = [&](std::size_t q, double) {
        ++found;
        __atomic_fetch_add(&counts[probe.ids[q]], 1, __ATOMIC_RELAXED);
        return true;
      };
      scan_candidates<M>(probe, a, sorted_by, p + 1, probe.cell_begin[cell + 1], bound,
                         run.candidates, report);
      scan_cells<M>(probe, stencil_cells, a, sorted_by, bound, run.candidates, report);
      __atomic_fetch_add(&counts[probe.ids[p]], found + 1, __ATOMIC_RELAXED);
      run.pairs += 2 * found + 1;
    }
  }
}

}  // namespace

CountRun grid_neighbour_counts(const CellIndex& probe, const CellIndex& build, const Grid& grid,
                               const JoinParams& params, std::uint64_t* counts,
                               const std::function<bool()>& keep_going,
                               const std::function<void(std::uint64_t)>& progress) {
  const std::size_t n = probe.point_count();
  const bool self = &probe == &build;
  const std::size_t unit_points = items_per_unit(n, params.threads, 32, 2048);
  const std::size_t units = (n + unit_points - 1) / unit_points;
  std::atomic<std::uint64_t> candidates{0}, pairs{0};
  const KeepGoing poll = reporting_progress(keep_going, progress, candidates);
  const bool done = run_polled_units(units, params.threads, poll, [&](std::size_t unit) {
    StencilWalker walker(build, grid);
    std::vector<std::size_t> stencil_cells;
    CountRun run;
    const std::size_t first = unit * unit_points, last = std::min(n, first + unit_points);
    with_metric(params.metric, [&](auto tag) {
      count_unit<decltype(tag)::value>(probe, build, self, walker, stencil_cells, params.bound,
                                       first, last, counts, run);
    });
    candidates.fetch_add(run.candidates, std::memory_order_relaxed);
    pairs.fetch_add(run.pairs, std::memory_order_relaxed);
  });
  return CountRun{candidates.load(), pairs.load(), !done};
}

PipelineResult grid_self_join(const CellIndex& index, const Grid& grid, const JoinParams& params,
                              PairSink& sink) {
  return with_metric(params.metric, [&](auto tag) {
    return self_join<decltype(tag)::value>(index, grid, params, sink);
  });
}

PipelineResult grid_two_input_join(const CellIndex& build, const CellIndex& probe,
                                   bool build_is_left, const Grid& grid, const JoinParams& params,
                                   PairSink& sink) {
  return with_metric(params.metric, [&](auto tag) {
    return two_input_join<decltype(tag)::value>(build, probe, build_is_left, grid, params, sink);
  });
}

}  // namespace simjoin
