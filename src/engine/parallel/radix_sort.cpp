#include "engine/parallel/radix_sort.h"

#include <algorithm>

#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

constexpr int kDigitBits = 11;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

struct KeyedId {
  std::uint64_t key;
  std::uint32_t id;
};

// Stable LSD passes over the digits of key_of(item), bits [0, bits).
template <typename Items, typename KeyOf>
void lsd_sort(Items& items, const KeyOf& key_of, int bits, int threads) {
  using Item = typename Items::value_type;
  const std::size_t n = items.size();
  const int digits = (bits + kDigitBits - 1) / kDigitBits;
  if (n < 2 || digits == 0) return;
  const std::size_t parts = range_parts(n, threads);
  const auto digit_of = [&](const Item& item, int digit) {
    return static_cast<std::size_t>((key_of(item) >> (digit * kDigitBits)) & (kBuckets - 1));
  };
  // counts[(part * digits + digit) * kBuckets + bucket]: every digit's in one read of the items.
  std::vector<std::size_t> counts(parts * digits * kBuckets, 0);
  const auto count_of = [&](std::size_t part, int digit) {
    return counts.data() + (part * digits + digit) * kBuckets;
  };
  parallel_for_parts(parts, [&](std::size_t part) {
    std::size_t* first = count_of(part, 0);
    for (std::size_t i = part_begin(n, parts, part); i < part_begin(n, parts, part + 1); ++i) {
      const std::uint64_t key = key_of(items[i]);
      for (int d = 0; d < digits; ++d)
        ++first[d * kBuckets + ((key >> (d * kDigitBits)) & (kBuckets - 1))];
    }
  });
  Items scratch;  // a FilledVector for a FilledVector: not written before the pass fills it
  std::vector<std::size_t> next(parts * kBuckets);
  bool moved = false;  // a pass has reordered the items: the per-part counts are stale
  for (int d = 0; d < digits; ++d) {
    // The totals do not depend on the order: one bucket holding every item leaves it unchanged.
    bool trivial = false;
    for (std::size_t b = 0; b < kBuckets && !trivial; ++b) {
      std::size_t total = 0;
      for (std::size_t p = 0; p < parts; ++p) total += count_of(p, d)[b];
      trivial = total == n;
    }
    if (trivial) continue;
    if (moved && parts > 1) {
      parallel_for_parts(parts, [&](std::size_t part) {
        std::size_t* count = count_of(part, d);
        std::fill(count, count + kBuckets, 0);
        for (std::size_t i = part_begin(n, parts, part); i < part_begin(n, parts, part + 1); ++i)
          ++count[digit_of(items[i], d)];
      });
    }
    std::size_t sum = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      for (std::size_t p = 0; p < parts; ++p) {
        next[p * kBuckets + b] = sum;
        sum += count_of(p, d)[b];
      }
    }
    scratch.resize(n);
    parallel_for_parts(parts, [&](std::size_t part) {
      std::size_t* to = next.data() + part * kBuckets;
      for (std::size_t i = part_begin(n, parts, part); i < part_begin(n, parts, part + 1); ++i)
        scratch[to[digit_of(items[i], d)]++] = items[i];
    });
    items.swap(scratch);
    moved = true;
  }
}

}  // namespace

int bit_width(std::uint64_t value) {
  int bits = 0;
  while (bits < 64 && (value >> bits) != 0) ++bits;
  return bits;
}

template <typename Keys, typename Ids>
void sort_keys_with_ids(Keys& keys, Ids& ids, int key_bits, int threads) {
  const std::size_t n = keys.size();
  if (n < 2 || key_bits <= 0) return;
  const std::uint32_t max_id = *std::max_element(ids.begin(), ids.end());
  const int id_bits = bit_width(max_id);
  if (key_bits + id_bits <= 64) {  // one word per point, packed in place of its key
    const std::uint64_t id_mask = (std::uint64_t{1} << id_bits) - 1;  // id_bits < 64
    parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) keys[i] = keys[i] << id_bits | ids[i];
    });
    lsd_sort(keys, [id_bits](std::uint64_t word) { return word >> id_bits; }, key_bits, threads);
    parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        ids[i] = static_cast<std::uint32_t>(keys[i] & id_mask);
        keys[i] >>= id_bits;
      }
    });
    return;
  }
  FilledVector<KeyedId> items(n);
  parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) items[i] = KeyedId{keys[i], ids[i]};
  });
  lsd_sort(items, [](const KeyedId& item) { return item.key; }, key_bits, threads);
  parallel_for_ranges(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      keys[i] = items[i].key;
      ids[i] = items[i].id;
    }
  });
}

template void sort_keys_with_ids(std::vector<std::uint64_t>&, std::vector<std::uint32_t>&, int, int);
template void sort_keys_with_ids(FilledVector<std::uint64_t>&, FilledVector<std::uint32_t>&, int, int);

}  // namespace simjoin
