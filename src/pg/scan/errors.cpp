// The rows the SimilarityJoin custom scan's errors name (pg/scan/form_state.h): the table a
// side's child scans and the row's value of a unique column the query reads, in the CONTEXT of
// an error raised while a row is read or a pair with a wild row is checked; and simjoin's error
// for vectors of different dimensions raised again naming the table and the row (by that column,
// else by its key's value), as similarity_join() names its rows.
#include "pg/scan/form_state.h"
#include "pg/scan/plan_info.h"

extern "C" {
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
}

#include <cstring>

namespace simjoin::pg::cs {

namespace {

constexpr int kLongestValue = 60;  // characters of a value shown, at most

// "column = value" of a row, the value shortened to kLongestValue characters.
void describe_column(const NamedColumn& column, TupleTableSlot* slot, StringInfo out) {
  bool isnull;
  const Datum value = slot_getattr(slot, column.position + 1, &isnull);
  if (isnull) {
    appendStringInfo(out, "%s IS NULL", column.name);
    return;
  }
  const char* text = OutputFunctionCall(const_cast<FmgrInfo*>(&column.output), value);
  const int length = static_cast<int>(strlen(text));
  appendStringInfo(out, "%s = %.*s%s", column.name, Min(length, kLongestValue), text,
                   length > kLongestValue ? "..." : "");
}

// "row with id = 7 of table "t"" (a unique column), "row with v = {1,2,3} of table "t"" (the
// key column, if by_key), "a row of table "t"", or "a row of the join's outer input".
void describe_row(const SimJoinState* st, int side, TupleTableSlot* slot, StringInfo out,
                  bool with_table, bool by_key) {
  const RowNaming& naming = st->form_state->naming[side];
  const NamedColumn* column = naming.id.name             ? &naming.id
                              : by_key && naming.key.name ? &naming.key
                                                          : nullptr;
  if (column) {
    appendStringInfoString(out, "row with ");
    describe_column(*column, slot, out);
  } else {
    appendStringInfoString(out, "a row");
  }
  if (!with_table) return;
  if (naming.table)
    appendStringInfo(out, " of table \"%s\"", naming.table);
  else
    appendStringInfo(out, " of the join's %s input", side == 0 ? "outer" : "inner");
}

// The error context callback: the rows being read or checked, where a unique column of one of
// them is at hand (the query reads it).
void name_error_rows(void* arg) {
  const SimJoinState* st = static_cast<const SimJoinState*>(arg);
  const FormState* fs = st->form_state;
  TupleTableSlot* const* rows = fs->error_rows;
  if (!(rows[0] && fs->naming[0].id.name) && !(rows[1] && fs->naming[1].id.name)) return;
  StringInfoData text;
  initStringInfo(&text);
  for (int side = 0; side < 2; ++side) {
    if (!rows[side]) continue;
    if (text.len) appendStringInfoString(&text, " paired with ");
    describe_row(st, side, rows[side], &text, true, false);
  }
  errcontext("SimilarityJoin %s", text.data);
}

// The number of elements of an array key (-1: NULL or not one-dimensional).
int key_length(SimJoinState* st, ExprState* key, TupleTableSlot* slot) {
  ExprContext* econtext = st->key_cxt;
  econtext->ecxt_scantuple = slot;
  bool isnull;
  const Datum value = ExecEvalExprSwitchContext(key, econtext, &isnull);
  if (isnull) return -1;
  ArrayType* array = DatumGetArrayTypeP(value);
  return ARR_NDIM(array) == 1 ? ARR_DIMS(array)[0] : -1;
}

// simjoin's operators on arrays of different lengths (pg/functions/distance_functions.cpp).
bool is_dimension_error(const ErrorData* error) {
  static const char kMessage[] = "simjoin: vectors of different dimensions";
  return error->sqlerrcode == ERRCODE_ARRAY_SUBSCRIPT_ERROR && error->message &&
         std::strncmp(error->message, kMessage, sizeof kMessage - 1) == 0;
}

// The pair in the sides' slots raised `original` (is_dimension_error): raised again naming the
// row whose vector does not have the join's dimension (that of the first key read).
void raise_dimension_error(SimJoinState* st, ErrorData* original) {
  const int dims[2] = {key_length(st, st->outer_key, st->outer_slot),
                       key_length(st, st->inner_key, st->inner_slot)};
  int side = 0, expected = st->ref.dim;
  if (expected > 0)
    side = dims[0] != expected ? 0 : 1;
  else
    expected = dims[1];
  TupleTableSlot* slot = side == 0 ? st->outer_slot : st->inner_slot;
  const RowNaming& naming = st->form_state->naming[side];
  StringInfoData row;
  initStringInfo(&row);
  describe_row(st, side, slot, &row, naming.table == nullptr, true);
  if (naming.table)
    ereport(ERROR, (errcode(original->sqlerrcode),
                    errmsg("simjoin: vectors of table \"%s\" have different dimensions: %s has "
                           "%d, expected %d",
                           naming.table, row.data, dims[side], expected),
                    errhint("All vectors of a join must have the same number of dimensions.")));
  ereport(ERROR, (errcode(original->sqlerrcode),
                  errmsg("simjoin: vectors of different dimensions: %s has %d, expected %d",
                         row.data, dims[side], expected),
                  errhint("All vectors of a join must have the same number of dimensions.")));
}

}  // namespace

namespace {

// A column of a side's child tuple at `position`, named `name`.
void name_column(NamedColumn* column, TupleDesc desc, int position, char* name) {
  if (!name || position < 0 || position >= desc->natts) return;
  column->name = name;
  column->position = position;
  Oid output;
  bool varlena;
  getTypeOutputInfo(TupleDescAttr(desc, position)->atttypid, &output, &varlena);
  fmgr_info(output, &column->output);
}

}  // namespace

void begin_row_naming(SimJoinState* st, CustomScan* cscan) {
  FormState* fs = st->form_state;
  for (int side = 0; side < 2; ++side) {
    const RowIdentity& rows = st->plan->rows[side];
    const Oid table = rows.table;
    const int id_attno = rows.id_attno;
    RowNaming& naming = fs->naming[side];
    naming.table = OidIsValid(table) ? get_rel_name(table) : nullptr;
    if (!naming.table) continue;
    TupleDesc desc = ExecGetResultType(side == 0 ? st->outer_ps : st->inner_ps);
    if (id_attno > 0)
      name_column(&naming.id, desc, rows.id_position,
                  get_attname(table, id_attno, true));
    // The key, where it is a column of the table (its scan tuple entry is the table's Var).
    Node* key = reinterpret_cast<Node*>(side == 0 ? st->plan->outer_key : st->plan->inner_key);
    while (IsA(key, RelabelType)) key = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(key)->arg);
    if (!IsA(key, Var) || reinterpret_cast<Var*>(key)->varno != INDEX_VAR) continue;
    const int scan_column = reinterpret_cast<Var*>(key)->varattno - 1;
    if (scan_column < 0 || scan_column >= list_length(cscan->custom_scan_tlist)) continue;
    const Expr* entry =
        static_cast<TargetEntry*>(list_nth(cscan->custom_scan_tlist, scan_column))->expr;
    if (!IsA(entry, Var) || reinterpret_cast<const Var*>(entry)->varattno <= 0) continue;
    name_column(&naming.key, desc, scan_column - (side == 0 ? 0 : st->outer_columns),
                get_attname(table, reinterpret_cast<const Var*>(entry)->varattno, true));
  }
  fs->error_context.callback = name_error_rows;
  fs->error_context.arg = st;
}

void push_error_rows(SimJoinState* st, TupleTableSlot* outer_row, TupleTableSlot* inner_row) {
  FormState* fs = st->form_state;
  fs->error_rows[0] = outer_row;
  fs->error_rows[1] = inner_row;
  fs->error_context.previous = error_context_stack;
  error_context_stack = &fs->error_context;
}

void pop_error_rows(SimJoinState* st) {
  FormState* fs = st->form_state;
  error_context_stack = fs->error_context.previous;
  fs->error_rows[0] = fs->error_rows[1] = nullptr;
}

bool check_wild_pair(SimJoinState* st, ExprState* qual, ExprContext* econtext) {
  MemoryContext caller = CurrentMemoryContext;
  volatile bool passed = false;
  ErrorData* volatile dimension_error = nullptr;
  push_error_rows(st, st->outer_slot, st->inner_slot);
  PG_TRY();
  { passed = ExecQual(qual, econtext); }
  PG_CATCH();
  {
    MemoryContextSwitchTo(caller);
    ErrorData* error = CopyErrorData();
    if (st->form.kind != KEY_FLOAT_ARRAY || !is_dimension_error(error)) PG_RE_THROW();
    FlushErrorState();
    dimension_error = error;
  }
  PG_END_TRY();
  pop_error_rows(st);
  if (dimension_error) raise_dimension_error(st, dimension_error);
  return passed;
}

}  // namespace simjoin::pg::cs
