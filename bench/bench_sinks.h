// The benchmark's pair sinks: one that counts, one that also keeps the pairs (for --verify).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/pair_sink.h"

namespace simjoin::bench {

struct Pair {
  std::uint32_t l, r;
  double d;
  bool operator<(const Pair& o) const {
    return l != o.l ? l < o.l : r != o.r ? r < o.r : d < o.d;
  }
  bool operator==(const Pair& o) const { return l == o.l && r == o.r && d == o.d; }
};

// Counts the pairs; with `keep`, keeps them too, in arrival order.
class CollectingSink : public PairSink {
 public:
  explicit CollectingSink(bool keep = true) : keep_(keep) {}
  bool consume(const PairBatch& batch) override {
    count += batch.size;
    if (keep_)
      for (std::size_t k = 0; k < batch.size; ++k)
        pairs.push_back({batch.left[k], batch.right[k], batch.distance[k]});
    return true;
  }
  std::uint64_t count = 0;
  std::vector<Pair> pairs;

 private:
  bool keep_;
};

}  // namespace simjoin::bench
