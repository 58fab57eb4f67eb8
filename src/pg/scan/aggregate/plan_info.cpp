// The SimilarityJoinAggregate scan's private data (pg/scan/aggregate/plan_info.h) in PostgreSQL's
// node lists: the only place that knows their positions. The plan's are Integer nodes; the path
// holds the scan tuple's expressions next to them.
#include "pg/scan/aggregate/plan_info.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/value.h"
}

namespace simjoin::pg::cs {

namespace {

// Positions in the plan's custom_private; then one EngineAggregate each.
enum AggregatePrivate : int {
  AGGPRIV_GROUPED = 0,
  AGGPRIV_EQ_OPERATOR,
  AGGPRIV_COLLATION,
  AGGPRIV_DISTANCE_COLUMN,
  AGGPRIV_KEY_UNIQUE,
  AGGPRIV_COUNTED_COLUMN,
  AGGPRIV_PAIR_DECISION,
  AGGPRIV_COUNT
};
// Positions in the path's custom_private.
enum AggregatePathIndex : int { AGGPATH_KEY_AND_AGGS = 0, AGGPATH_PLAN };

int private_int(List* priv, int index) { return intVal(list_nth(priv, index)); }

AggregatePlanInfo deform_plan_list(List* priv) {
  AggregatePlanInfo info;
  info.grouped = private_int(priv, AGGPRIV_GROUPED) != 0;
  info.eq_operator = static_cast<Oid>(private_int(priv, AGGPRIV_EQ_OPERATOR));
  info.collation = static_cast<Oid>(private_int(priv, AGGPRIV_COLLATION));
  info.distance_column = private_int(priv, AGGPRIV_DISTANCE_COLUMN);
  info.key_unique = private_int(priv, AGGPRIV_KEY_UNIQUE) != 0;
  info.counted_column = private_int(priv, AGGPRIV_COUNTED_COLUMN);
  info.pair_decision = private_int(priv, AGGPRIV_PAIR_DECISION);
  info.n_aggs = list_length(priv) - AGGPRIV_COUNT;
  info.kinds = static_cast<int*>(palloc(sizeof(int) * Max(info.n_aggs, 1)));
  for (int k = 0; k < info.n_aggs; ++k) info.kinds[k] = private_int(priv, AGGPRIV_COUNT + k);
  return info;
}

}  // namespace

List* form_aggregate_plan_private(const AggregatePlanInfo& info) {
  List* priv = list_make5(makeInteger(info.grouped),
                          makeInteger(static_cast<int>(info.eq_operator)),
                          makeInteger(static_cast<int>(info.collation)),
                          makeInteger(info.distance_column), makeInteger(info.key_unique));
  priv = lappend(priv, makeInteger(info.counted_column));
  priv = lappend(priv, makeInteger(info.pair_decision));
  for (int k = 0; k < info.n_aggs; ++k) priv = lappend(priv, makeInteger(info.kinds[k]));
  return priv;
}

AggregatePlanInfo deform_aggregate_plan_private(const CustomScan* cscan) {
  return deform_plan_list(cscan->custom_private);
}

List* form_aggregate_path_private(const AggregatePathInfo& info) {
  return list_make2(info.key_and_aggs, form_aggregate_plan_private(info.plan));
}

AggregatePathInfo deform_aggregate_path_private(const CustomPath* path) {
  List* priv = path->custom_private;
  return AggregatePathInfo{static_cast<List*>(list_nth(priv, AGGPATH_KEY_AND_AGGS)),
                           deform_plan_list(static_cast<List*>(list_nth(priv, AGGPATH_PLAN)))};
}

}  // namespace simjoin::pg::cs
