// The SimilarityJoin custom scan in EXPLAIN: the join's clauses with their sides, the distance
// form and eps, and under ANALYZE the engine's runs and the sides' storage.
#include "pg/scan/form_state.h"
#include "pg/scan/index_probe.h"
#include "pg/scan/plan_info.h"

#include "pg/dispatch/dispatch.h"
#include "pg/pg_guard.h"
#include "pg/settings.h"

extern "C" {
#include "commands/explain.h"
#include "executor/instrument.h"
#include "nodes/makefuncs.h"
#include "utils/guc.h"
#include "utils/ruleutils.h"
}

namespace simjoin::pg::cs {

namespace {

// simjoin.algorithm's value: auto, grid, szl or bruteforce.
const char* algorithm_setting_name() {
  return GetConfigOption("simjoin.algorithm", false, false);
}

const char* device_name() {
  switch (static_cast<Device>(device_setting)) {
    case Device::Gpu:
      return "gpu";
    case Device::Cpu:
      return "cpu";
    default:
      return "auto";
  }
}

// Clauses (the plan's quals or other_quals), each column with its side as PostgreSQL shows a
// join's clauses, and under ANALYZE the rows they removed (nfiltered1 or nfiltered2), in the form
// of a scan's Filter.
void explain_qual(CustomScanState* node, List* context, List* quals, const char* label,
                  bool second_count, ExplainState* es) {
  if (quals == NIL) return;
  ExplainPropertyText(label,
                      deparse_expression(reinterpret_cast<Node*>(make_ands_explicit(quals)),
                                         context, true, false),
                      es);
  Instrumentation* instrument = node->ss.ps.instrument;
  if (!es->analyze || !instrument) return;
  const double filtered = second_count ? instrument->nfiltered2 : instrument->nfiltered1;
  const double removed = instrument->nloops > 0 ? filtered / instrument->nloops : 0;
  if (removed > 0 || es->format != EXPLAIN_FORMAT_TEXT)
    ExplainPropertyFloat(psprintf("Rows Removed by %s", label), nullptr, removed, 0, es);
}

// The join's clauses: an inner join's as a Filter (the scan's rows are the join's pairs), an
// outer, semi- or anti-join's as PostgreSQL shows them (Join Filter; Filter: pushed down).
void explain_clauses(CustomScanState* node, List* context, ExplainState* es) {
  const SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  const bool inner = st->form_state->join_type == JOIN_INNER;
  explain_qual(node, context, st->plan->quals, inner ? "Filter" : "Join Filter", false, es);
  explain_qual(node, context, st->plan->other_quals, "Filter", true, es);
}

// The forms beyond  dist(x, y) <= eps  (pg/scan/form_state.h), where the plan has them.
void explain_forms(const FormState* fs, bool nearest, ExplainState* es) {
  if (fs->join_type != JOIN_INNER)
    ExplainPropertyText("Join Type",
                        fs->join_type == JOIN_LEFT   ? "Left"
                        : fs->join_type == JOIN_SEMI ? "Semi"
                                                     : "Anti",
                        es);
  if (fs->radius_side >= 0)
    ExplainPropertyText("Eps Per Row", fs->radius_side == 0 ? "outer" : "inner", es);
  if (fs->n_scale > 0) ExplainPropertyText("Distance Arithmetic", "inverted into the bound", es);
  if (fs->key_order != KEY_ORDER_NONE && !nearest)  // (the nearest mode: Engine Keeps)
    // The engine returns each unordered pair once (Engine Pairs); under a.k < b.k the scan tries
    // (a, b), then (b, a), and Rows Removed by Filter counts the way round that failed.
    ExplainPropertyText("Self-Join Pairs",
                        fs->key_order == KEY_ORDER_ONE_WAY
                            ? "each engine pair once, tried both ways round"
                            : "each engine pair once, returned both ways round",
                        es);
}

}  // namespace

void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  List* context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
  explain_clauses(node, context, es);
  ExplainPropertyText("Distance", form_label(st->form), es);
  char* eps = deparse_expression(reinterpret_cast<Node*>(st->plan->eps), context, true, false);
  ExplainPropertyText("Eps", eps, es);
  explain_forms(st->form_state, st->nearest, es);
  if (st->ordered_output) ExplainPropertyText("Output Order", "grouped by outer row", es);
  if (st->nearest)  // (two where a.k <> b.k rejects one: pg/scan/nearest.cpp)
    ExplainPropertyText("Engine Keeps",
                        st->form_state->key_order == KEY_ORDER_BOTH_WAYS
                            ? "two nearest inner rows per outer row (a key clause rejects one)"
                            : "nearest inner row per outer row",
                        es);
  if (st->plan->nearest_distance)  // (a form the engine does not measure: evaluated per pair)
    ExplainPropertyText("Nearest By",
                        deparse_expression(reinterpret_cast<Node*>(st->plan->nearest_distance),
                                           context, true, false),
                        es);
  explain_index_probe(st, es);
  // The device setting is machine-specific (gpu on a GPU machine's test run): a detail.
  if (explain_details_setting) ExplainPropertyText("Device", device_name(), es);
  // The algorithm asked for (simjoin.algorithm when the scan starts); what auto chose and the
  // estimates behind it are on the Engine line of EXPLAIN ANALYZE.
  ExplainPropertyText("Algorithm", algorithm_setting_name(), es);
  if (!es->analyze) return;
  // EXPLAIN ANALYZE (or auto_explain) runs once nothing more will be fetched: an engine still
  // running (under a LIMIT it waits on its full queue) is stopped now, to report what it did.
  stop_stream(st);
  for (const Side* side : {&st->inner, &st->outer}) {
    if (side->load_workers_planned == 0 && side->load_threads == 0) continue;
    StringInfoData text;
    initStringInfo(&text);
    if (side->load_threads > 0) {
      appendStringInfo(&text, "leader and %d parse thread%s", side->load_threads,
                       side->load_threads == 1 ? "" : "s");
      if (side->load_leader_rows > 0)
        appendStringInfo(&text, ", " UINT64_FORMAT " rows read by the leader", side->load_leader_rows);
    } else {
      appendStringInfo(&text, "%d of %d workers launched", side->load_workers_launched,
                       side->load_workers_planned);
    }
    ExplainPropertyText(side == &st->inner ? "Inner Parallel Load" : "Outer Parallel Load", text.data,
                        es);
  }
  if (st->totals.runs == 0) {
    ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out), es);
    return;
  }
  EngineTotals* t = &st->totals;
  // The Engine line names the device, the algorithm it chose and the timings: machine details.
  // The counters below are the same on every machine (Engine Pairs of a run stopped early,
  // under a LIMIT, depends on timing).
  explain_engine_line(*t, es);
  ExplainPropertyInteger("Engine Runs", nullptr, static_cast<int64>(t->runs), es);
  ExplainPropertyInteger("Engine Runs Stopped Early", nullptr,
                         static_cast<int64>(t->stopped_early), es);
  ExplainPropertyInteger("Engine Pairs", nullptr, static_cast<int64>(t->sum.pairs), es);
  ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out), es);
  ExplainPropertyInteger("Wild Rows", nullptr, static_cast<int64>(st->wild_rows), es);
  const FormState* fs = st->form_state;
  ExplainPropertyText("Distance Clause",
                      st->distance_qual >= 0        ? "engine (exact), wild rows rechecked"
                      : fs->certain_position >= 0 ? "engine within the certain bound, others rechecked"
                                                  : "rechecked",
                      es);
  if (fs->certain_position >= 0) {
    // Of the candidates: those the certain bound decided, the others (wild pairs too) rechecked.
    ExplainPropertyInteger("Candidates Decided by Engine", nullptr,
                           static_cast<int64>(fs->decided_by_engine), es);
    ExplainPropertyInteger("Candidates Rechecked", nullptr,
                           static_cast<int64>(st->candidates_out - fs->decided_by_engine), es);
  }
  ExplainPropertyInteger("Box Clauses Decided Natively", nullptr, st->n_boxes, es);
  ExplainPropertyText("Inner Storage", st->inner.spilled ? "disk" : "memory", es);
  ExplainPropertyInteger("Inner Bytes", "kB", static_cast<int64>(st->inner.bytes / 1024), es);
  ExplainPropertyText("Outer Storage",
                      st->outer_shared ? "the inner side's rows"
                                       : st->outer.spilled ? "disk" : "memory",
                      es);
  ExplainPropertyInteger("Outer Bytes", "kB", static_cast<int64>(st->outer.bytes / 1024), es);
  if (st->ordered_output) {
    ExplainPropertyText("Grouped Pairs Storage", ordered_output_spilled(st) ? "sort" : "memory",
                        es);
    ExplainPropertyInteger("Grouped Pairs Bytes", "kB",
                           static_cast<int64>(ordered_output_bytes(st) / 1024), es);
  }
}

void explain_engine_line(const EngineTotals& t, ExplainState* es) {
  if (!explain_details_setting) return;
  char line[1024];
  line[0] = '\0';
  cpp_guard([&] { describe_join(recorded_join_stats(t.sum), line, sizeof line); });
  ExplainPropertyText("Engine", line, es);
}

}  // namespace simjoin::pg::cs
