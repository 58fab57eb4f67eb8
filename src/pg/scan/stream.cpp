// The SimilarityJoin custom scan's engine run: a BatchSource (a PairStream on this backend's CPU
// engine, or a job of the GPU service: start_join in pg/dispatch/dispatch.h), whose batches
// of candidate pairs the executor takes one at a time (next_batch), waiting in slices with
// CHECK_FOR_INTERRUPTS() between them; its statistics summed for EXPLAIN (EngineTotals).
#include "pg/scan/state.h"
#include "pg/scan/form_state.h"

#include "pg/dispatch/dispatch.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"
#include "pg/settings.h"

extern "C" {
#include "miscadmin.h"
}

#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

namespace simjoin::pg::cs {

constexpr size_t kQueueBatches = 4;  // batches of spec.batch_pairs waiting for the executor
constexpr int kWaitMs = 50;          // slice of the wait for a batch between interrupt checks

namespace {

// The stream ended by itself: totals, NOTICEs, the engine's error. Returns true when the engine
// stopped for an interrupt.
bool finish_stream(SimJoinState* st) {
  return cpp_guard([st]() -> bool {
    BatchSource* stream = st->stream;
    const JoinStats stats = stream->stats();
    const std::exception_ptr error = stream->error();
    const std::string note = stream->fallback_note();
    destroy_stream(st);
    if (error) std::rethrow_exception(error);
    add_engine_totals(&st->totals, stats);
    report_join(stats, note);
    return stats.stopped;
  });
}

}  // namespace

// Whether both sides hold the same points in the same order (a self-join, both children reading
// the same rows): the engine then joins one set with itself (SelfPairs::All: every pair (i, j)
// and (j, i) with d <= bound, and (i, i)), which is the same set of index pairs as the two-input
// join of two identical sets, at about half the work (each pair of cells once). The distances
// are symmetric bit for bit ((a - b)^2 = (b - a)^2, |a - b| = |b - a|), and d(p, p) = 0 is within
// any bound the engine runs with (an engine run needs bound >= 0). Compared bytewise, so -0.0
// against 0.0 or differing NaN payloads (never in points anyway) only cost the shortcut.
bool same_points(const SimJoinState* st) {
  const Side& a = st->outer;
  const Side& b = st->inner;
  if (a.n_points != b.n_points || a.n_points == 0) return false;
  if (a.points == b.points) return true;  // borrowed (same_scan)
  return std::memcmp(a.points, b.points,
                     sizeof(double) * static_cast<size_t>(a.n_points) * st->ref.dim) == 0;
}

// Stops and joins the producer and frees the stream; never raises. Also the arrays context's
// reset callback: on an ERROR the query's memory goes away, and the producer (which reads the
// coordinates in that context) is stopped before it is freed.
void destroy_stream(void* arg) {
  SimJoinState* st = static_cast<SimJoinState*>(arg);
  BatchSource* stream = st->stream;
  st->stream = nullptr;
  st->batch = StreamBatch{};
  st->batch_pos = 0;
  delete stream;  // stop(): noexcept
}

PointSet side_points(const SimJoinState* st, const Side* side) {
  PointSet points;
  points.coords = side->points;
  points.n = side->n_points;
  points.dim = st->ref.dim;
  return points;
}

void start_stream(SimJoinState* st) {
  const bool self_join = same_points(st);
  cpp_guard([st, self_join] {
    const PointSet left = side_points(st, &st->outer);
    const PointSet right = side_points(st, &st->inner);
    JoinSpec spec = spec_from_settings(st->bound, st->form.metric);
    // A key-ordered self-join on a shared scan takes each unordered pair once (custom_scan_pairs
    // tries its orientations): the engine's unique-pairs mode emits exactly those, at half the pairs.
    const bool key_ordered = st->form_state && st->form_state->key_order != KEY_ORDER_NONE &&
                             st->outer_shared;
    spec.self_pairs = self_join && key_ordered ? SelfPairs::Unique : SelfPairs::All;
    PairStream::Options options = stream_options();
    options.queue_batches = kQueueBatches;
    // The recheck decides; distances are needed only against a certain bound, to keep the
    // nearest pair of each outer point, and for the aggregate scan's folds.
    options.keep_distance = (st->form_state && st->form_state->certain_bound >= 0) ||
                            st->nearest || st->engine_by_caller;
    options.order_by_right = st->inner.file != nullptr;  // inner rows read from disk in order
    progress_joining(st->progress_owned, left, self_join ? nullptr : &right, spec);
    st->stream = start_join(left, self_join ? nullptr : &right, spec, std::move(options)).release();
  });
  st->batch = StreamBatch{};
  st->batch_pos = 0;
}

// The executor needs no more pairs (LIMIT, end of the scan, rescan): stops the engine early. An
// engine error after that point is of no consequence and dropped.
void stop_stream(SimJoinState* st) {
  if (!st->stream) return;
  cpp_guard([st] {
    st->stream->stop();
    const JoinStats stats = st->stream->stats();
    const bool failed = static_cast<bool>(st->stream->error());
    const std::string note = st->stream->fallback_note();
    destroy_stream(st);
    if (failed) return;
    add_engine_totals(&st->totals, stats);
    report_join(stats, note);
  });
}

// Makes the next batch current. Returns false when the engine's pairs are exhausted.
bool next_batch(SimJoinState* st) {
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    progress_candidates(st->progress_owned, st->stream->candidates_done());
    const BatchSource::Next next = cpp_guard([st] {
      return st->stream->next(&st->batch, std::chrono::milliseconds(kWaitMs));
    });
    if (next == BatchSource::Next::Batch) {
      progress_add_pairs(st->progress_owned, st->batch.size);
      st->batch_pos = 0;
      return true;
    }
    if (next == BatchSource::Next::End) {
      raise_if_interrupted(finish_stream(st));
      return false;
    }
  }
}

void add_engine_totals(EngineTotals* t, const JoinStats& stats) {
  t->runs++;
  if (stats.stopped) t->stopped_early++;
  add_join_stats(&t->sum, stats);
}

}  // namespace simjoin::pg::cs
