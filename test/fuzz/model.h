// simjoin_fuzz: what the generators produce and the runner executes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rng.h"

namespace fuzz {

// Which optional extensions the server has (forms whose extension is missing are skipped).
struct Env {
  bool cube = false;
  bool postgis = false;
};

// One generated table. Every table has the same column names so that queries can join any two;
// the flags say which columns exist and what the rows may hold.
struct Table {
  std::string name;
  std::string key_type;      // int or bigint (column id)
  int rows = 0;              // rows from the generator, before special rows and duplicates
  int dim = 2;               // dimension of v and w (wild rows aside)
  double spacing = 1;        // lattice spacing (coordinates are multiples of it, if lattice)
  bool lattice = true;
  bool primary_key = false;  // id is a primary key (unique, never NULL)
  bool key_nonnull = true;   // id is never NULL
  bool key_unique = true;    // id has no duplicates
  bool partitioned = false;
  bool has_w = false;        // real[] column w
  bool has_cube = false;     // cube column cb
  bool has_point = false;    // point column p
  bool has_geom = false;     // PostGIS geometry column g
  bool has_jsonb = false;    // jsonb column j
  bool error_rows = false;   // rows on which simjoin's distances raise (other dims, NULL elements)
  bool special_rows = false; // NULL vectors, NaN, infinities, -0, huge values
  bool analyzed = true;
  std::string sql;           // every statement that creates and fills it (the reproduction)
};

// A round's tables plus the small tables that feed correlated eps and shifts.
struct Round {
  std::vector<Table> tables;
  int dim = 2;
  double spacing = 1;
  std::string aux_sql;       // fz_eps, fz_shift, helper functions
  std::string settings_sql;  // the round's session settings, applied to both sides
};

// How the rows of one step of a query are compared between the two plans.
enum class StepMode {
  Sequence,   // same rows in the same order
  Multiset,   // same rows, any order
  Count,      // same number of rows
  Accumulate, // same number of rows; the rows of all Accumulate steps compared as a multiset
  SubsetOfNext,  // same count; each side's rows a sub-multiset of the next step's off rows
};

enum class Kind {
  Plain,      // one statement, sql
  Cursor,     // BEGIN; DECLARE ... ; the fetches; COMMIT
  Prepared,   // PQprepare(sql) then PQexecPrepared for each parameter set
  Function,   // similarity_join(): sql with the custom scan on, off_sql (a plain join) off
  Dml,        // BEGIN; sql (row locks, UPDATE/DELETE ... RETURNING); ROLLBACK
};

struct Step {
  std::string sql;  // the statement (a FETCH, or the query)
  StepMode mode = StepMode::Multiset;
  std::vector<std::optional<std::string>> params;  // Prepared: the parameter values
};

struct Query {
  Kind kind = Kind::Plain;
  std::string form;    // distance form, the coverage key (e.g. "simjoin <-> float8[]")
  std::string shape;   // query shape (e.g. "correlated eps")
  std::vector<std::string> tables;  // tables it reads (for the reproduction)
  std::string sql;     // Plain, Cursor (the cursor's query), Prepared (with $n), Function
  std::string off_sql; // Function: the equivalent plain join, run with the custom scan off
  std::vector<Step> steps;
  int nparams = 0;
  std::string plan_cache_mode;  // Prepared
  bool hold = false;            // Cursor: WITH HOLD (commit after the first fetch)
  bool scroll = true;           // Cursor
  bool explain = false;         // check with EXPLAIN that the custom scan is used
  std::string repro() const;    // the query as a SQL script
};

}  // namespace fuzz
