// A set-returning function's result row of fixed layout (by-value columns, never NULL): formed
// once, then each result overwrites its data area in place and the tuplestore copies it.
#pragma once

extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/tuplestore.h"
}

#include <cstring>

#include "pg/pg_guard.h"

namespace simjoin::pg {

class FixedRow {
 public:
  // Inside cpp_guard (it forms the tuple through pg_call).
  explicit FixedRow(ReturnSetInfo* rsinfo) : rsinfo_(rsinfo) {
    pg_call([this] {
      const int columns = rsinfo_->setDesc->natts;
      Datum* values = static_cast<Datum*>(palloc0(sizeof(Datum) * columns));
      bool* nulls = static_cast<bool*>(palloc0(sizeof(bool) * columns));
      tuple_ = heap_form_tuple(rsinfo_->setDesc, values, nulls);
    });
    data_ = reinterpret_cast<char*>(tuple_->t_data) + tuple_->t_data->t_hoff;
  }
  // The columns' bytes, at their aligned offsets.
  char* data() { return data_; }
  // The first three columns of a pair's row: (left_id int8, right_id int8, distance float8).
  void set_pair(int64 left, int64 right, double distance) {
    std::memcpy(data_, &left, 8);
    std::memcpy(data_ + 8, &right, 8);
    std::memcpy(data_ + 16, &distance, 8);
  }
  // Appends the row as it is now to the tuplestore. Inside pg_call.
  void put() { tuplestore_puttuple(rsinfo_->setResult, tuple_); }

 private:
  ReturnSetInfo* rsinfo_;
  HeapTuple tuple_ = nullptr;
  char* data_ = nullptr;
};

}  // namespace simjoin::pg
