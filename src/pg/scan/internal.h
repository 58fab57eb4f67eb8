// Internals of the SimilarityJoin custom scan, shared by its planner part
// (pg/scan/join_path.cpp), its executor (pg/scan/exec.cpp and the files pg/scan/state.h lists),
// the recognized distance forms (pg/scan/keys/forms.cpp; their keys: pg/scan/keys/keys.h) and the
// planning-time sample estimate (pg/scan/sample.cpp).
//
// Exactness design: the engine runs over the key coordinates it can read exactly (as doubles).
// For simjoin's own distances (engine_is_exact) it runs with the exact bound and yields exactly
// the pairs the distance clause accepts: only the join's other clauses are checked on them. For
// the other forms (cube, point, pgvector, PostGIS) it runs with a safely widened bound and yields
// a superset of the matching pairs; every candidate pair is then checked with ALL the join's
// original clauses (ExecQual on the pair), so the rows returned are exactly those PostgreSQL's
// own operators accept. Rows whose key the engine cannot represent
// faithfully (NaN/infinite/huge coordinates, non-point cubes, curved geometries, an unexpected
// dimension or SRID, arrays with NULL elements) are "wild": they are paired with every row of the
// other side and left to the recheck, so PostgreSQL's operator decides (and raises the same
// errors it would raise in its own plan).
#pragma once

extern "C" {
#include "postgres.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
}

#include <cmath>
#include <functional>

#include "engine/bounds/clause_bound.h"
#include "engine/types.h"

namespace simjoin::pg::cs {

// How a key value is read into coordinates.
enum KeyKind : int {
  KEY_FLOAT_ARRAY = 1,  // simjoin's real[] / float8[]
  KEY_CUBE = 2,         // contrib cube (point cubes; boxes are wild)
  KEY_POINT = 3,        // built-in point
  KEY_PGVECTOR = 4,     // pgvector's vector (float4 coordinates)
  KEY_GEOMETRY = 5,     // PostGIS geometry (2-D points; boxes of linear geometries; else wild)
  KEY_GEOGRAPHY = 6,    // PostGIS geography (points as unit normals: candidates only)
};

// A recognized distance form: which function computes the distance and what it means.
struct FormInfo {
  KeyKind kind;
  Metric metric;
  bool cosine;    // pgvector <=>: engine runs Euclidean on normalized vectors
  bool dwithin;   // ST_DWithin(x, y, eps) instead of dist(x, y) <= eps
  bool float32;   // the operator computes in single precision (pgvector)
};

// The function OID -> form map, built lazily per backend from the catalogs (by name and type,
// in the schemas of the installed extensions) and dropped on pg_proc / pg_operator / pg_type
// invalidations (invalidate_forms, a syscache callback). Returns false when funcid is no known
// distance function.
bool lookup_distance_function(Oid funcid, FormInfo* form);
void invalidate_forms(Datum, int, uint32);

// Label of a form for EXPLAIN ("euclidean", "cube taxicab", "pgvector cosine", ...).
const char* form_label(const FormInfo& form);

// ---- reading keys (pg/scan/keys/keys.cpp) ----------------------------------------------------
enum KeyStatus { KEY_SKIP = 0, KEY_OK = 1, KEY_WILD = 2 };

// The per-join reference that every non-wild key must share (dimension, SRID).
struct KeyRef {
  int dim = -1;           // -1 until the first key fixes it
  int32 srid = 0;
  bool srid_set = false;
};

// A key with an extent (a PostGIS geometry other than a point): the engine takes the centre of
// its 2-D bounding box, and a pair of keys can be within d only if their centres are within
// d + both radii (half the box diagonal, rounded up).
struct KeyExtent {
  bool is_box;  // false: a point (radius 0)
  double xmin, ymin, xmax, ymax;
  double radius;
};
// The largest distance from `centre` (x, y) to a corner of `box` (xmin, ymin, xmax, ymax),
// rounded up: the centre's rounding is in the differences taken from it; the factor covers the
// rounding of the differences, squares, sum and root (a few units in the last place each).
double box_radius(const double* box, const double* centre);
// The squared distance of two boxes, no more than that of the geometries in them: xmin, ymin at
// [0], [1] and xmax, ymax at [hi], [hi + 1] (hi 2; 0 for a point stored as x, y).
inline double box_gap_sq(const double* a, int a_hi, const double* b, int b_hi) {
  const double dx = std::fmax(std::fmax(a[0] - b[b_hi], b[0] - a[a_hi]), 0.0);
  const double dy = std::fmax(std::fmax(a[1] - b[b_hi + 1], b[1] - a[a_hi + 1]), 0.0);
  return dx * dx + dy * dy;
}
// A side's outsized boxes (one huge polygon) become wild rows instead of widening the engine's
// bound for every pair: those above outsized_radius (8 times the larger of the distance bound
// and the side's mean radius, points counting 0), where few_outsized (at most max(16, rows /
// 1000) of the side's rows). The executor and the planner's estimate apply the same rule.
inline double outsized_radius(double bound, double mean_radius) {
  return 8 * (bound > mean_radius ? bound : mean_radius);
}
inline bool few_outsized(double outsized, double rows) {
  return outsized <= (rows / 1000 > 16 ? rows / 1000 : 16);
}

// The dimension the key would have (fixes ref->dim from the first readable key). Returns
// KEY_SKIP (never matches), KEY_WILD or KEY_OK; on KEY_OK *dim is the key's dimension, and
// *extent (where given) the key's extent.
// Never raises an error except out-of-memory while detoasting.
KeyStatus classify_key(const FormInfo& form, Datum value, KeyRef* ref,
                       KeyExtent* extent = nullptr);
// The value prepared for classify_key and read_key: a compressed or external varlena detoasted
// once, in the current memory context; short-header and plain ones are read in place.
Datum detoast_key(const FormInfo& form, Datum value);
// Writes ref->dim coordinates to out; call only after classify_key returned KEY_OK.
void read_key(const FormInfo& form, Datum value, const KeyRef& ref, double* out);
// Whether a key (not compressed, not out of line) is a point of the join's reference, which its
// first key fixes (dimension, SRID): what the loads beside the SeqScan take; pure code on the
// key's bytes, so the parse threads call it too.
bool key_is_point(const FormInfo& form, Datum key, KeyRef* ref);
// A key that is a point (key_is_point) read into out, which has room for
// ref->dim coordinates (2 for a geometry when not fixed yet); false for any other key. One parse
// of a geometry where classify_key and read_key take two.
bool read_point_key(const FormInfo& form, Datum value, KeyRef* ref, double* out);

// Whether the engine decides the distance clause exactly for two representable (non-wild) keys:
// simjoin's own operators and functions on real[] / float8[] compute exact_distance (distance.h)
// on the same doubles, so the engine run at exact_bound() returns exactly the pairs the clause
// accepts, and the clause needs no recheck on them. So do contrib cube's distances on point
// cubes and PostGIS's ST_DWithin on 2-D points where the installed extension passes the
// arithmetic probe (pg/scan/keys/operator_probe.h: their formulas are simjoin's, but a build that fuses
// multiply-adds or reorders sums, or a version that computes otherwise, would round differently).
// Call inside cpp_guard (the probe calls cube).
bool engine_is_exact(const FormInfo& form);

// contrib cube's box clause  cube_enlarge(x, r, n) @> y  (or  y <@ cube_enlarge(x, r, n)), which
// users add to a cube distance join for cube's GiST index: decided natively on the engine's
// pairs (in_enlarged_box, engine/bounds/enlarged_box.h) where the cube distance is exact (the probe covers
// both). The role of a function in that clause:
enum CubeBoxRole { CUBE_BOX_NONE, CUBE_BOX_ENLARGE, CUBE_BOX_CONTAINS, CUBE_BOX_CONTAINED };
CubeBoxRole cube_box_role(Oid funcid);
// The engine's bound for an exact form: exact_bound(eps, strict) (engine/bounds/clause_bound.h, the engine's).

// The engine's bound: a widened eps such that every pair the operator accepts at `eps` lies
// within it in the engine's double arithmetic on keys of ref's dimension (and SRID: geography).
// NaN if no engine run is needed (nothing can match) or none can bound the pairs.
double engine_bound(const FormInfo& form, double eps, const KeyRef& ref);

// Rechecked forms whose engine pairs within a second, certain bound satisfy the distance clause
// for sure (pg/scan/certain.cpp, src/engine/bounds/certain_bound.h): PostGIS geography, point <->.
// Whether the form, its clause and its arithmetic allow one (the plan's, for a non-exact form):
bool has_certain_bound(int kind, Expr* clause, List* scale, int radius_side);
// The scan's certain bound on the engine's distance (negative: nothing certain), and the share
// of candidates expected beyond it (the operator's rechecks, for the plan's cost).
double certain_bound(const FormInfo& form, double eps, const KeyRef& ref);
double certain_recheck_share(const FormInfo& form);

// PostGIS's ST_Distance(geometry, geometry) where it computes simjoin's Euclidean distance of
// two 2-D points bit for bit (its arithmetic probe, run once per session), else InvalidOid
// (pg/scan/keys/forms.cpp). Inside cpp_guard.
Oid exact_postgis_distance();
// Whether funcid is PostGIS's ST_Distance(geometry, geometry) or the function of its geometry
// <-> geometry, and computes simjoin's Euclidean distance of two 2-D points bit for bit (its
// probe, run once per session). Inside cpp_guard.
bool exact_postgis_distance_function(Oid funcid);
// Whether PostgreSQL's point <-> point is the engine's planar_point_distance bit for bit (its
// probe, run once per session): the aggregates then decide and fold point pairs in the engine.
bool exact_point_distance();
// Whether an expression is a column of this query level declared NOT NULL (pg/scan/match.cpp).
bool is_not_null_column(PlannerInfo* root, Node* expr);
// An expression without the binary-compatible casts (RelabelType) around it.
inline Node* without_relabel(Node* node) {
  while (node && IsA(node, RelabelType))
    node = reinterpret_cast<Node*>(castNode(RelabelType, node)->arg);
  return node;
}
// Whether an expression reads a parameter, a subplan or a placeholder, which stay where
// PostgreSQL's plan evaluates them (pg/scan/plan.cpp; an expression tree walker).
bool reads_params_or_subplans(Node* node, void*);

// A self-join's key order clause (pg/scan/match.h: match_key_order): none, one under which
// at most one orientation of a pair holds (a.k < b.k, a.k > b.k), or one under which both may
// (a.k <> b.k).
enum KeyOrder { KEY_ORDER_NONE = 0, KEY_ORDER_ONE_WAY = 1, KEY_ORDER_BOTH_WAYS = 2 };

// ---- settings (pg/scan/custom_scan.cpp) -----------------------------------------------------------
extern bool enable_customscan;
// simjoin.enable_aggregates: aggregate and DISTINCT ON paths computed in the engine.
extern bool enable_aggregates;
extern double startup_cost_setting;
extern double row_cost_setting;
extern double pair_cost_setting;
extern int sample_rows_setting;

// ---- planning-time estimate (pg/scan/sample.cpp) ----------------------------------------
// The bound of a distance clause for the estimate: one eps for every pair, or a per-row radius.
struct PairBound {
  double eps = 0;         // the bound on the distance of every pair (radius_side < 0)
  int radius_side = -1;   // 0: the outer row's radius, 1: the inner row's
  Expr* radius = nullptr;  // that row's radius (an expression of its relation)
  // A radius value to the bound on the distance (the inverse of the clause's arithmetic on the
  // distance); -Infinity (a NULL radius) must give NaN or a negative bound: nothing within.
  std::function<double(double)> radius_eps;
};
struct PairEstimate {
  double pairs = 0;          // pairs within the bound (rows the engine cannot take: every pair)
  // the pairs the operator checks: pairs, or more where PostGIS keys have an extent (their
  // centres within the bound plus both sides' largest radius)
  double candidates = 0;
  double outer_keyed = 0;    // fraction of the outer rows with a key the engine reads
  double outer_matched = 0;  // fraction of the outer rows with a match in the inner SAMPLE
};
// Estimated pairs from samples of both sides' keys (and the radius side's radius). Returns false
// when no sample could be taken (side is not a plain table, no privileges, row-level security,
// a key or radius that cannot be evaluated at planning time).
bool estimate_pairs(PlannerInfo* root, RelOptInfo* outer_rel, Expr* outer_key,
                    RelOptInfo* inner_rel, Expr* inner_key, const FormInfo& form,
                    const PairBound& bound, PairEstimate* out);
// The fraction of a side's sampled rows whose PostGIS key has an extent (KeyExtent; 0 where
// none or no sample): an exact plan leaves them wild, else the operator decides every candidate.
double sampled_extent_fraction(PlannerInfo* root, RelOptInfo* rel, Expr* key,
                               const FormInfo& form);

// ---- the distance clauses' selectivity (pg/scan/estimate.cpp) ----------------------------
// Sets, before the join search, the selectivity of each distance clause between base relation
// rti and an earlier one from the samples (so every join relation holding the clause, in every
// join order, is sized on them). From the relation hook, inside cpp_guard.
void size_join_clauses(PlannerInfo* root, RelOptInfo* rel, Index rti);
// Pairs assumed where the bound is unknown when the plan is made (a parameter in a generic plan)
// or a side cannot be sampled: a selective join, each row of the smaller side matching 10 rows.
double default_pairs(double rows_o, double rows_i);
// The selectivity that hook set on a clause of the join (rinfo->norm_selec), or -1 where it set
// none (a clause joining no two base relations, one it does not take).
double sized_clause_selectivity(PlannerInfo* root, RestrictInfo* rinfo);
// The sampled candidate pairs of such a clause (PairEstimate::candidates), or -1 where unknown.
double sampled_clause_candidates(PlannerInfo* root, RestrictInfo* rinfo);

// ---- the output grouped by outer row (pg/scan/ordered.cpp) -------------------------------
// Whether that many candidate pairs, all held before the first row, fit in hash_mem.
bool ordered_output_fits(double candidates);
// Adds `unordered` (not yet added) grouped by outer row on each outer input path whose pathkeys
// are useful above, priced with the engine's run and the grouping before the first row.
void add_ordered_paths(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                       JoinType jointype, const CustomPath* unordered, double candidates);
// The output of a path and its plan (JoinPathInfo / JoinPlanInfo::output_mode): in no order, or
// in the outer input's order, every pair of an outer row in turn (GROUPED) or only its nearest
// engine pair (NEAREST: pg/scan/nearest_path.cpp, pg/scan/nearest.cpp).
enum OutputMode { OUTPUT_UNORDERED = 0, OUTPUT_GROUPED = 1, OUTPUT_NEAREST = 2 };

// ---- the nearest row per outer row under DISTINCT ON (pg/scan/nearest_path.cpp) ----------
// The upper-path hook at UPPERREL_DISTINCT over a join relation: the nearest paths derived from
// the join's remembered paths, where the query's shape allows. Inside cpp_guard.
void add_nearest_paths(PlannerInfo* root, RelOptInfo* input_rel, RelOptInfo* distinct_rel);

// ---- the join path (pg/scan/join_path.cpp) ----------------------------------------------
// The join path hook: the SimilarityJoin path of an inner, LEFT, semi- or anti-join whose clauses
// hold a distance clause it can decide (at DEBUG1, why not for a FULL join). Inside cpp_guard.
void add_join_paths(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                    RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra);
// Each SimilarityJoin path the join path hook makes, kept (a copy: add_path may free the path)
// for the upper-path hook: the nearest paths under DISTINCT ON (pg/scan/nearest_path.cpp) and the
// aggregates computed in the engine (pg/scan/aggregate/path.cpp) build on them. Kept in the
// planner's memory context; a reset callback there unlinks it, so that the list never points
// into freed memory.
struct KeptJoinPath {
  PlannerInfo* root;
  RelOptInfo* joinrel;
  RelOptInfo* outerrel;
  RelOptInfo* innerrel;
  CustomPath* path;        // the unordered path (JoinPathInfo::output_mode OUTPUT_UNORDERED)
  double candidates;       // the engine's expected pairs
  KeptJoinPath* next;      // kept after this one
  KeptJoinPath* previous;  // kept before this one
  MemoryContextCallback forget;
};
const KeptJoinPath* first_kept_join_path();  // the first kept of those alive
const KeptJoinPath* last_kept_join_path();   // the last kept

// ---- the plan (pg/scan/plan.cpp) ---------------------------------------------------------
// PlanCustomPath of the SimilarityJoin path.
Plan* plan_custom_path(PlannerInfo* root, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                       List* clauses, List* custom_plans);

// ---- executor (pg/scan/exec.cpp) --------------------------------------------------------
extern CustomScanMethods scan_methods;

// A scan's executor methods: no mark/restore, no parallel execution of its own, and no
// ShutdownCustomScan: PostgreSQL 15 calls it after every portion of a cursor, which may be
// fetched from again; an engine stopped there could not resume. EndCustomScan stops it.
constexpr CustomExecMethods scan_exec_methods(
    const char* name, void (*begin)(CustomScanState*, EState*, int),
    TupleTableSlot* (*exec)(CustomScanState*), void (*end)(CustomScanState*),
    void (*rescan)(CustomScanState*), void (*explain)(CustomScanState*, List*, ExplainState*)) {
  return CustomExecMethods{name,    begin,   exec,    end,     rescan,  nullptr, nullptr,
                           nullptr, nullptr, nullptr, nullptr, nullptr, explain};
}

// The path's and the plan's private data: pg/scan/plan_info.h.

}  // namespace simjoin::pg::cs
