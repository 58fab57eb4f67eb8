// A plain table side read by the leader alone, its tuples' columns deformed and keys parsed by
// threads beside it (threaded_load_side), where parallel workers would share cores with the leader.
#include "pg/scan/load/row_reader.h"

extern "C" {
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "engine/parallel/worker_thread.h"
#include "pg/dispatch/cpu_threads.h"
#include "pg/pg_guard.h"
#include "pg/settings.h"

namespace simjoin::pg::cs {

// A plain table side read by the leader alone, its tuples parsed by threads beside it
// (threaded_load_side): where PostgreSQL's parallel workers for the read would not each have a
// core beside the leader's (two cores, or parallel query off), a worker costs its start (loading
// every library the session has loaded: PostGIS brings GEOS and PROJ) and a copy of every row
// through a queue, while deforming the rows and parsing their keys is most of a row's cost.
// Here the leader scans the
// table under the executor's snapshot (visibility, buffers: PostgreSQL's work, on its thread),
// collects chunks of visible tuples with their pages pinned, and threads deform the chunks'
// columns and parse their keys (pure code on the page's bytes, no PostgreSQL call); the leader
// appends the chunks in scan order and parses chunks itself when it has nothing else to do. A
// key stored compressed or out of line, or a row with fewer columns than the table (an added
// column), is read by the leader; a row that parallel_load_side would give up on makes this
// load give up the same way.

namespace {

constexpr size_t kChunkTuples = 2048;  // tuples a chunk collects before it is parsed, at most
constexpr size_t kChunkCoordBytes = 512 * 1024;  // a chunk's coordinates, at most
constexpr size_t kFirstChunkTuples = 64;  // before the dimension is known
constexpr size_t kMaxPinnedPages = 1024;
constexpr int kMaxParseThreads = 8;
constexpr BlockNumber kMinBlocks = 128;  // below 1 MB the threads' start is not worth it
constexpr auto kInterruptPoll = std::chrono::milliseconds(5);

// A column's layout, for deforming a tuple without PostgreSQL's calls (which cache offsets in
// the shared tuple descriptor).
struct ColumnLayout {
  int16 attlen;
  char attalign;
  bool attbyval;
};

// Columns 1..n of a heap tuple, as heap_deform_tuple reads them; false when the tuple has fewer
// columns (an added column's default is the leader's to read).
bool deform_columns(HeapTupleHeader tuple, const ColumnLayout* columns, int n, Datum* values,
                    bool* isnull) {
  if (HeapTupleHeaderGetNatts(tuple) < n) return false;
  const bool has_nulls = (tuple->t_infomask & HEAP_HASNULL) != 0;
  const bits8* bits = tuple->t_bits;
  const char* data = reinterpret_cast<const char*>(tuple) + tuple->t_hoff;
  uint32 offset = 0;
  for (int a = 0; a < n; ++a) {
    const ColumnLayout& column = columns[a];
    if (has_nulls && att_isnull(a, bits)) {
      values[a] = 0;
      isnull[a] = true;
      continue;
    }
    isnull[a] = false;
    if (column.attlen == -1)
      offset = att_align_pointer(offset, column.attalign, -1, data + offset);
    else
      offset = att_align_nominal(offset, column.attalign);
    values[a] = fetch_att(data + offset, column.attbyval, column.attlen);
    offset = att_addlength_pointer(offset, column.attlen, data + offset);
  }
  return true;
}

// A tuple's first bytes (its header and first columns) fetched into the cache a few tuples ahead
// of its parse: the pages are read for the first time here (a scan of all-visible pages does not
// read its tuples' headers), and a parse otherwise waits on memory for most of its time. Written
// out, not as a loop: C++ lets a loop without observable effects be deleted, prefetches and all.
constexpr size_t kPrefetchTuples = 4;

void prefetch_tuple(const HeapTupleData& tuple) {
  const char* bytes = reinterpret_cast<const char*>(tuple.t_data);
  __builtin_prefetch(bytes);
  __builtin_prefetch(bytes + 64);
  __builtin_prefetch(bytes + 128);
  __builtin_prefetch(bytes + 192);
}

enum ChunkState { CHUNK_FREE, CHUNK_QUEUED, CHUNK_PARSING, CHUNK_PARSED };
enum TupleResult : uint8 { TUPLE_POINT, TUPLE_NULL_KEY, TUPLE_LEADER, TUPLE_GIVE_UP };

// Where a chunk parsed in place writes: the side's arrays at the chunk's first tuple's row, as if
// every tuple before it became a row (append_chunk moves a run down where one did not).
struct InPlace {
  uint32 first_row;
  double* points;  // dim coordinates a row
  Datum* values;   // n_need a row
  bool* nulls;
  uint32* point_row;
  MinimalTuple* tuples;
};

// Tuples of the scan in its order, their pages pinned until the chunk is appended, and what the
// parse made of them.
struct Chunk {
  std::vector<HeapTupleData> tuples;
  std::vector<Buffer> pins;
  std::vector<TupleResult> results;
  std::vector<double> coords;  // tuples x ref.dim, a point's row
  std::vector<Datum> values;   // tuples x n_need
  std::unique_ptr<bool[]> nulls;  // tuples x n_need
  size_t nulls_size = 0;
  KeyRef ref;                  // fixed by the chunk's first key unless the join's was
  bool in_place = false;       // parsed into `place` (ref fixed by the leader), not the buffers
  InPlace place;
  std::atomic<int> state{CHUNK_FREE};
};

// The chunks, the parse threads and what they share.
class ChunkParser {
 public:
  ChunkParser(const LoadShared& columns, TupleDesc desc, int threads, int chunks)
      : shared_(columns), chunks_(chunks) {
    layout_.resize(columns.last_attno);
    for (int a = 0; a < columns.last_attno; ++a) {
      const Form_pg_attribute att = TupleDescAttr(desc, a);
      layout_[a] = ColumnLayout{att->attlen, att->attalign, att->attbyval};
    }
    try {
      for (int t = 0; t < threads; ++t) threads_.push_back(start_worker_thread([this] { run(); }));
    } catch (const std::system_error&) {  // fewer threads: the leader parses the rest
    }
  }
  ~ChunkParser() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }

  Chunk& chunk(size_t i) { return chunks_[i % chunks_.size()]; }
  size_t chunk_count() const { return chunks_.size(); }

  void queue(Chunk& chunk) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      chunk.state.store(CHUNK_QUEUED);
    }
    work_.notify_one();
  }
  // Parses a queued chunk on the calling thread; false when none waits.
  bool parse_one() {
    Chunk* chunk = claim();
    if (!chunk) return false;
    parse(*chunk);
    return true;
  }
  // Waits a while for a chunk to be parsed.
  void wait_parsed(const Chunk& chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    parsed_.wait_for(lock, kInterruptPoll, [&] { return chunk.state.load() == CHUNK_PARSED; });
  }

 private:
  Chunk* claim() {
    for (Chunk& chunk : chunks_) {
      int queued = CHUNK_QUEUED;
      if (chunk.state.compare_exchange_strong(queued, CHUNK_PARSING)) return &chunk;
    }
    return nullptr;
  }

  void run() {
    while (true) {
      Chunk* chunk = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // A chunk claimed once: the predicate is asked again after the wait.
        wait_unless_abandoned(work_, lock, [&] {
          if (!chunk && !threads_abandoned()) chunk = claim();
          return stop_ || chunk != nullptr;
        }, kInterruptPoll);
        if (!chunk) return;
      }
      parse(*chunk);
    }
  }

  void parse(Chunk& chunk) {
    const int k = shared_.n_need;
    const size_t n = chunk.tuples.size();
    chunk.results.resize(n);
    if (!chunk.in_place) {
      chunk.values.resize(n * k);
      if (chunk.nulls_size < n * k) {
        chunk.nulls.reset(new bool[n * k]);
        chunk.nulls_size = n * k;
      }
      chunk.ref = shared_.ref;
    }
    Datum columns[MaxHeapAttributeNumber];
    bool nulls[MaxHeapAttributeNumber];
    for (size_t r = 0; r < n; ++r) {
      if (r + kPrefetchTuples < n) prefetch_tuple(chunk.tuples[r + kPrefetchTuples]);
      chunk.results[r] = parse_tuple(chunk, r, columns, nulls);
    }
    if (chunk.in_place) {  // the rows as add_row_without_tuple and append_point number them
      for (size_t r = 0; r < n; ++r) {
        chunk.place.point_row[r] = chunk.place.first_row + static_cast<uint32>(r);
        chunk.place.tuples[r] = nullptr;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      chunk.state.store(CHUNK_PARSED);
    }
    parsed_.notify_all();
  }

  TupleResult parse_tuple(Chunk& chunk, size_t r, Datum* columns, bool* nulls) {
    if (!deform_columns(chunk.tuples[r].t_data, layout_.data(), shared_.last_attno, columns, nulls))
      return TUPLE_LEADER;
    if (nulls[shared_.key_attno - 1]) return TUPLE_NULL_KEY;
    const Datum key = columns[shared_.key_attno - 1];
    // Compressed or out of line (pg_detoast_datum_packed's test; an out-of-line pointer has a
    // short header too): detoasting is PostgreSQL's, on the leader.
    if (shared_.form.kind != KEY_POINT && (VARATT_IS_COMPRESSED(DatumGetPointer(key)) ||
                                           VARATT_IS_EXTERNAL(DatumGetPointer(key))))
      return TUPLE_LEADER;
    const size_t k = static_cast<size_t>(shared_.n_need);
    if (chunk.in_place) {  // another dimension is not a point: the chunk's ref is the leader's
      const size_t dim = static_cast<size_t>(chunk.ref.dim);
      if (!read_point_key(shared_.form, key, &chunk.ref, chunk.place.points + r * dim))
        return TUPLE_GIVE_UP;
      needed_columns(shared_, columns, nulls, chunk.place.values + r * k, chunk.place.nulls + r * k);
      return TUPLE_POINT;
    }
    if (!key_is_point(shared_.form, key, &chunk.ref)) return TUPLE_GIVE_UP;
    const size_t dim = static_cast<size_t>(chunk.ref.dim);
    if (chunk.coords.size() < chunk.tuples.size() * dim) chunk.coords.resize(chunk.tuples.size() * dim);
    read_key(shared_.form, key, chunk.ref, chunk.coords.data() + r * dim);
    needed_columns(shared_, columns, nulls, chunk.values.data() + r * k, chunk.nulls.get() + r * k);
    return TUPLE_POINT;
  }

  const LoadShared shared_;
  std::vector<ColumnLayout> layout_;
  std::vector<Chunk> chunks_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable parsed_;
  bool stop_ = false;
};

// The tuples a chunk collects for keys of `dim` coordinates (-1: not known yet).
size_t chunk_tuples(int dim) {
  if (dim <= 0) return kFirstChunkTuples;
  return std::clamp<size_t>(kChunkCoordBytes / (sizeof(double) * dim), kFirstChunkTuples, kChunkTuples);
}

// The next tuples of the scan into a free chunk, each page pinned once more while the chunk
// holds tuples of it: up to `tuples` tuples from up to `pages` pages. Returns false at the end of
// the scan (the chunk may hold the last ones).
bool collect(TableScanDesc scan, Chunk& chunk, size_t tuples, size_t pages) {
  HeapScanDesc heap_scan = reinterpret_cast<HeapScanDesc>(scan);
  chunk.tuples.clear();
  chunk.pins.clear();
  while (chunk.tuples.size() < tuples && chunk.pins.size() < pages) {
    HeapTuple tuple = heap_getnext(scan, ForwardScanDirection);
    if (!tuple) return false;
    if (chunk.pins.empty() || chunk.pins.back() != heap_scan->rs_cbuf) {
      IncrBufferRefCount(heap_scan->rs_cbuf);
      chunk.pins.push_back(heap_scan->rs_cbuf);
    }
    chunk.tuples.push_back(*tuple);
  }
  return true;
}

void unpin(Chunk& chunk) {
  for (Buffer buffer : chunk.pins) ReleaseBuffer(buffer);
  chunk.pins.clear();
}

// Whether the chunk of `tuples` tuples from tuple `first` on can be parsed into the side's arrays
// (place_chunk): the key's dimension known, the arrays allocated and big enough for every tuple
// up to its last, no spill. The arrays then do not move until the chunk is appended: no row
// before it goes past them (a row never comes after its tuple).
bool fits_in_place(const SimJoinState* st, const Side* side, size_t first, size_t tuples) {
  const size_t end = first + tuples;
  return st->ref.dim > 0 && side->points && side->tuples && !side->file && end <= side->cap &&
         end <= side->points_cap && (side->n_need == 0 || end <= side->values_cap);
}

void place_chunk(const SimJoinState* st, const Side* side, Chunk& chunk, size_t first) {
  const size_t k = static_cast<size_t>(side->n_need);
  chunk.in_place = true;
  chunk.ref = st->ref;
  chunk.place = InPlace{static_cast<uint32>(first),
                        side->points + first * st->ref.dim,
                        k ? side->values + first * k : nullptr,
                        k ? side->isnull + first * k : nullptr,
                        side->point_row + first,
                        side->tuples + first};
}

// Rows [from, from + count) of an in-place chunk moved down to the side's next row.
void move_rows_down(const SimJoinState* st, Side* side, uint32 from, uint32 count) {
  const uint32 to = side->n;
  const size_t dim = static_cast<size_t>(st->ref.dim), k = static_cast<size_t>(side->n_need);
  std::memmove(side->points + to * dim, side->points + from * dim, sizeof(double) * dim * count);
  if (k > 0) {
    std::memmove(side->values + to * k, side->values + from * k, sizeof(Datum) * k * count);
    std::memmove(side->isnull + to * k, side->isnull + from * k, sizeof(bool) * k * count);
  }
  for (uint32 i = 0; i < count; ++i) side->point_row[to + i] = to + i;
}

// A parsed chunk appended to the side in scan order, each run of the threads' points at once;
// the tuples the threads left to the leader read with PostgreSQL's functions. False when a row
// is load_side's.
bool append_chunk(SimJoinState* st, Side* side, Chunk& chunk, KeyRef* merged, RowReader* reader,
                  TupleDesc desc, Datum* columns, bool* column_nulls) {
  const int k = side->n_need;
  const size_t n = chunk.tuples.size();
  bool any_point = false;
  Datum values[kMaxNeed];
  bool isnull[kMaxNeed];
  for (size_t r = 0; r < n;) {
    switch (chunk.results[r]) {
      case TUPLE_NULL_KEY:
        ++r;
        break;
      case TUPLE_GIVE_UP:
        return false;
      case TUPLE_POINT: {
        if (!any_point && !agree(merged, chunk.ref.dim, chunk.ref.srid, chunk.ref.srid_set))
          return false;
        any_point = true;
        st->ref = *merged;
        size_t end = r + 1;
        while (end < n && chunk.results[end] == TUPLE_POINT) ++end;
        const uint32 count = static_cast<uint32>(end - r);
        if (chunk.in_place) {
          // Rows equal points here (a row without a point gives the load up).
          const uint32 from = chunk.place.first_row + static_cast<uint32>(r);
          if (from != side->n) move_rows_down(st, side, from, count);
          side->n += count;
          side->n_points += count;
        } else {
          append_rows(st, side, chunk.coords.data() + r * chunk.ref.dim,
                      chunk.values.data() + r * k, chunk.nulls.get() + r * k, count);
        }
        r = end;
        break;
      }
      case TUPLE_LEADER: {
        side->load_leader_rows++;
        heap_deform_tuple(&chunk.tuples[r], desc, columns, column_nulls);
        const RowResult result = read_columns(reader, columns, column_nulls, values, isnull);
        ++r;
        if (result == ROW_NULL_KEY) break;
        if (result == ROW_GIVE_UP ||
            !agree(merged, reader->ref.dim, reader->ref.srid, reader->ref.srid_set))
          return false;
        st->ref = *merged;
        append_rows(st, side, reader->coords, values, isnull, 1);
        break;
      }
    }
  }
  return true;
}

// The load itself; a PostgreSQL error inside leaves through pg_call as PgError, so that the
// parser's destructor stops its threads first.
bool load_with_threads(SimJoinState* st, Side* side, Relation rel, const LoadShared& columns,
                       int threads) {
  TupleDesc desc = RelationGetDescr(rel);
  ChunkParser parser(columns, desc, threads, 4 * (threads + 1));
  const Snapshot snapshot = st->css.ss.ps.state->es_snapshot;
  TableScanDesc scan = pg_call([&] { return table_beginscan_strat(rel, snapshot, 0, nullptr, true, false); });
  RowReader reader = pg_call([&] { return make_reader(&columns, st->ref); });
  Datum* row_columns = pg_call([&] { return static_cast<Datum*>(palloc(sizeof(Datum) * desc->natts)); });
  bool* row_nulls = pg_call([&] { return static_cast<bool*>(palloc(sizeof(bool) * desc->natts)); });
  KeyRef merged = st->ref;
  // The pages pinned at once, bounded by a small share of shared buffers (the chunks' pins keep
  // their pages from being evicted until the chunk is appended).
  const size_t pages_per_chunk =
      std::max<size_t>(1, std::min<size_t>(kMaxPinnedPages, NBuffers / 16) / parser.chunk_count());
  size_t filled = 0, appended = 0;
  size_t collected = side->n;  // the side's rows before, then the tuples in the chunks so far
  bool in_place = side->n == side->n_points;  // until a chunk did not fit (the arrays may move)
  bool scanning = true, complete = true;
  while (complete && (scanning || appended < filled)) {
    Chunk& oldest = parser.chunk(appended);
    if (appended < filled && oldest.state.load() == CHUNK_PARSED) {
      complete = pg_call([&] {
        const bool ok = append_chunk(st, side, oldest, &merged, &reader, desc, row_columns, row_nulls);
        unpin(oldest);
        return ok;
      });
      oldest.state.store(CHUNK_FREE);
      appended++;
      continue;
    }
    if (scanning && filled - appended < parser.chunk_count()) {
      Chunk& next = parser.chunk(filled);
      scanning = pg_call([&] {
        CHECK_FOR_INTERRUPTS();
        return collect(scan, next, chunk_tuples(merged.dim), pages_per_chunk);
      });
      if (!next.tuples.empty()) {
        next.in_place = false;
        if (in_place && side->points) {
          in_place = fits_in_place(st, side, collected, next.tuples.size());
          if (in_place) place_chunk(st, side, next, collected);
        }
        collected += next.tuples.size();
        parser.queue(next);
        filled++;
      }
      continue;
    }
    if (parser.parse_one()) continue;  // the leader parses while the threads are busy
    parser.wait_parsed(oldest);
    pg_call([] { CHECK_FOR_INTERRUPTS(); });
  }
  // Given up: the chunks still out are waited for, then their pages unpinned.
  for (; appended < filled; ++appended) {
    Chunk& chunk = parser.chunk(appended);
    while (chunk.state.load() != CHUNK_PARSED)
      if (!parser.parse_one()) parser.wait_parsed(chunk);
    pg_call([&] { unpin(chunk); });
  }
  pg_call([&] {
    table_endscan(scan);
    free_reader(&reader);
    pfree(row_columns);
    pfree(row_nulls);
  });
  return complete;
}

}  // namespace

int load_threads(Relation rel, int workers) {
  if (load_threads_setting == 0 || rel->rd_tableam != GetHeapamTableAmRoutine()) return 0;
  const int free_threads = cpu_threads_free(threads_setting);
  if (load_threads_setting > 0) return std::max(1, std::min(load_threads_setting, free_threads));
  // Each of PostgreSQL's workers reads a row in about the time the leader scans one and a thread
  // parses it; a worker pays its start, and one without a core of its own gains nothing.
  const bool workers_fit = workers >= 2 && workers + 1 <= static_cast<int>(std::thread::hardware_concurrency());
  if (workers_fit || RelationGetNumberOfBlocks(rel) < kMinBlocks) return 0;
  return std::min(free_threads - 1, kMaxParseThreads);
}

bool threaded_load_side(SimJoinState* st, Side* side, Relation rel, const LoadShared& columns,
                        int threads) {
  return cpp_guard([&] {
    CpuThreadLease lease(threads + 1);
    return load_with_threads(st, side, rel, columns, std::max(1, lease.count() - 1));
  });
}

}  // namespace simjoin::pg::cs
