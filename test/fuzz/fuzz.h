// simjoin_fuzz: the pieces' interfaces (tables.cpp, queries.cpp, runner.cpp, main.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model.h"

namespace fuzz {

// tables.cpp
std::string fmt_double(double x);  // a float8 SQL literal (shortest of 15 digits, quoted specials)
Round generate_round(Rng& rng, const Env& env, int ntables);

// queries.cpp (the joins' distance forms: query_forms.h)
Query generate_query(Rng& rng, const Round& round, const Env& env);

}  // namespace fuzz

// runner.cpp: one libpq connection and the differential check of a query.
struct pg_conn;
namespace fuzz {

struct Row {
  uint64_t hash;
  uint64_t order_hash;  // of the text with -0 read as 0 (equal in ORDER BY, printed differently)
  std::string text;  // kept for the first rows of a step only (the diff shows them)
};

struct StepResult {
  std::vector<Row> rows;
  long long count = 0;  // rows returned, or moved (MOVE)
};

struct SideResult {
  bool ok = true;
  bool crashed = false;
  bool timeout = false;
  std::string sqlstate, message;
  std::vector<StepResult> steps;
};

struct Options {
  uint64_t seed = 1;
  long long queries = 1000;
  double seconds = 0;
  std::string device;
  int tables_per_round = 4;
  int queries_per_round = 0;   // 0: random 50-200
  bool verbose = false;
  bool stop_on_failure = false;
  bool explain = true;
  int statement_timeout_s = 10;
  std::string log_file;        // failures are appended to it too
  bool keep_schema = false;
  bool lenient_data_errors = false;  // one-sided SQLSTATE 22xxx errors: notes, not failures
  std::string library = "simjoin";  // LOADed by each session
  std::string only;            // only queries whose "form; shape" contains it
  double end_sessions = 0;     // the share of queries rerun in a session ended mid-query (0-1)
};

class Db {
 public:
  explicit Db(const Options& o) : opts_(o) {}
  ~Db();
  bool connect(std::string* error);
  bool alive() const;
  // Waits (up to 60 s) for the server to accept connections again, then reconnects.
  bool recover();
  void set_session(const std::string& sql) { session_sql_ = sql; }
  // Runs a command; false (and the error in *error) when it fails.
  bool command(const std::string& sql, std::string* error = nullptr, std::string* sqlstate = nullptr);
  // Runs a query, streaming its rows into *out; fills side's error fields when it fails.
  bool query(const std::string& sql, StepResult* out, SideResult* side,
             const std::vector<std::optional<std::string>>* params = nullptr, const std::string& stmt = "");
  bool prepare(const std::string& name, const std::string& sql, int nparams, SideResult* side);
  std::string text(const std::string& sql);  // the first column of all rows, newline separated

 private:
  const Options& opts_;
  pg_conn* conn_ = nullptr;
  std::string session_sql_;
};

struct Coverage {
  long long explained = 0, used = 0;
  long long index_probed = 0;  // explained plans reading a side through its index (probes)
};

struct Stats {
  long long queries = 0, differences = 0, crashes = 0, one_sided_timeouts = 0, both_failed = 0;
  long long data_errors = 0;
  long long sessions_ended = 0;  // --end-sessions: sessions ended mid-query (crashes count above)
  long long sessions_after_query = 0;  // --end-sessions: ended after their query had finished  // one-sided data exceptions under --lenient-data-errors
  // the custom scan agreed with PostgreSQL's plan without index scans, not with the one using an
  // index: the index disagrees with its own operator (cube or PostGIS on infinite coordinates)
  long long index_disagreements = 0;
  long long explained = 0, used = 0;
  long long index_probed = 0;  // explained plans reading a side through its index (probes)
  std::map<std::string, Coverage> by_form, by_shape;
  std::map<std::string, long long> compared_by_form;
};

// Runs q with the custom scan on and off, compares, prints a failure. Returns false on a failure.
bool check_query(Db& db, const Query& q, const Round& round, const Options& opts, Stats* stats,
                 long long qno, int round_no);

// session_end.cpp (--end-sessions): reruns q with the custom scan on in a session of its own and
// ends that session at a random moment within 1.2 x full_ms (drop or pg_terminate_backend);
// false (a failure printed, a crash counted) when the server restarted or the session stayed.
bool end_session_mid_query(Db& db, const Query& q, const Options& opts, const std::string& session_sql,
                           double full_ms, Rng& rng, Stats* stats, long long qno);

// session_end.cpp (--end-sessions): reruns q with the custom scan on in a session of its own and
// ends that session at a random moment within 1.2 x full_ms (drop or pg_terminate_backend);
// false (a failure printed, a crash counted) when the server restarted or the session stayed.
bool end_session_mid_query(Db& db, const Query& q, const Options& opts, const std::string& session_sql,
                           double full_ms, Rng& rng, Stats* stats, long long qno);

}  // namespace fuzz
