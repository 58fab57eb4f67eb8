// A pair's result row of the functions over tables: (left key, right key, distance[, rank]).
// Integer keys: the fixed int8 layout, formed once and overwritten (FixedRow); keys of another
// type (the polymorphic forms, table_keys.h): the keys' own Datums.
#pragma once

#include <optional>

#include "pg/functions/fixed_row.h"
#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

class PairRow {
 public:
  // Inside cpp_guard. `left`, `right`: the sides whose keys the pairs name (kept by reference).
  PairRow(ReturnSetInfo* rsinfo, const TableVectors& left, const TableVectors& right, bool keyed)
      : rsinfo_(rsinfo), left_(left), right_(right) {
    if (!keyed) fixed_.emplace(rsinfo);
  }
  // Appends a row. `rank` < 0: a row of three columns. Inside pg_call.
  void put(int64 left, int64 right, double distance, int32 rank = -1) {
    if (fixed_) {
      fixed_->set_pair(left, right, distance);
      if (rank >= 0) std::memcpy(fixed_->data() + 24, &rank, 4);
      fixed_->put();
      return;
    }
    Datum values[4] = {key_datum(left_, left), key_datum(right_, right), Float8GetDatum(distance),
                       Int32GetDatum(rank)};
    bool nulls[4] = {false, false, false, false};
    tuplestore_putvalues(rsinfo_->setResult, rsinfo_->setDesc, values, nulls);
  }

 private:
  ReturnSetInfo* rsinfo_;
  const TableVectors& left_;
  const TableVectors& right_;
  std::optional<FixedRow> fixed_;
};

}  // namespace simjoin::pg
