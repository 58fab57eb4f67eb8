// simjoin_fuzz: execution and comparison. A query runs with simjoin.enable_customscan = on (the
// custom scan's costs at 0, so the planner picks it) and off; the rows of each step are compared
// as sequences, multisets or counts (rows hashed, the first rows' text kept for the diff).
// Crashes (the connection lost) are failures; the runner waits for the server and reconnects.
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "fuzz.h"

namespace fuzz {

namespace {

constexpr size_t kKeepText = 200000;  // rows of a step whose text is kept

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void ignore_notice(void*, const char*) {}

// "-0" tokens (a float's negative zero) as "0": ORDER BY sees them equal, so among ties the
// plans may return either.
std::string without_negative_zero(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const bool token_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.');
    const bool zero = i + 1 < s.size() && s[i] == '-' && s[i + 1] == '0' &&
                      (i + 2 >= s.size() || !(std::isalnum(static_cast<unsigned char>(s[i + 2])) || s[i + 2] == '.'));
    if (token_start && zero) continue;  // drop the sign
    out += s[i];
  }
  return out;
}

std::string error_of(PGresult* res, pg_conn* conn, std::string* sqlstate) {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  *sqlstate = state ? state : "";
  std::string msg = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

}  // namespace

Db::~Db() {
  if (conn_) PQfinish(conn_);
}

bool Db::connect(std::string* error) {
  if (conn_) PQfinish(conn_);
  const char* keys[] = {"fallback_application_name", nullptr};
  const char* vals[] = {"simjoin_fuzz", nullptr};
  conn_ = PQconnectdbParams(keys, vals, 1);
  if (PQstatus(conn_) != CONNECTION_OK) {
    if (error) *error = PQerrorMessage(conn_);
    return false;
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
  if (!session_sql_.empty() && !command(session_sql_, error)) return false;
  return true;
}

bool Db::alive() const { return conn_ && PQstatus(conn_) == CONNECTION_OK; }

bool Db::recover() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (PQping("") == PQPING_OK) {
      std::string err;
      if (connect(&err)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

bool Db::command(const std::string& sql, std::string* error, std::string* sqlstate) {
  PGresult* res = PQexec(conn_, sql.c_str());
  const ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  const bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY;
  if (!ok && error) {
    std::string state;
    *error = error_of(res, conn_, &state);
    if (sqlstate) *sqlstate = state;
  }
  PQclear(res);
  return ok;
}

std::string Db::text(const std::string& sql) {
  PGresult* res = PQexec(conn_, sql.c_str());
  std::string out;
  if (res && PQresultStatus(res) == PGRES_TUPLES_OK)
    for (int r = 0; r < PQntuples(res); ++r) out += std::string(PQgetvalue(res, r, 0)) + "\n";
  PQclear(res);
  return out;
}

bool Db::prepare(const std::string& name, const std::string& sql, int nparams, SideResult* side) {
  std::vector<Oid> types(static_cast<size_t>(nparams), 701);  // float8
  PGresult* res = PQprepare(conn_, name.c_str(), sql.c_str(), nparams, types.data());
  const bool ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
  if (!ok) {
    side->ok = false;
    side->message = error_of(res, conn_, &side->sqlstate);
    side->crashed = PQstatus(conn_) != CONNECTION_OK;
  }
  PQclear(res);
  return ok;
}

bool Db::query(const std::string& sql, StepResult* out, SideResult* side,
               const std::vector<std::optional<std::string>>* params, const std::string& stmt) {
  int sent;
  if (params) {
    std::vector<const char*> vals;
    for (const auto& p : *params) vals.push_back(p ? p->c_str() : nullptr);
    sent = PQsendQueryPrepared(conn_, stmt.c_str(), static_cast<int>(vals.size()), vals.data(), nullptr, nullptr, 0);
  } else {
    sent = PQsendQuery(conn_, sql.c_str());
  }
  if (!sent) {
    side->ok = false;
    side->message = PQerrorMessage(conn_);
    side->crashed = PQstatus(conn_) != CONNECTION_OK;
    return false;
  }
  PQsetSingleRowMode(conn_);
  bool ok = true;
  std::string row;
  while (PGresult* res = PQgetResult(conn_)) {
    const ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_SINGLE_TUPLE) {
      row.clear();
      const int nf = PQnfields(res);
      for (int f = 0; f < nf; ++f) {
        if (f) row += " | ";
        row += PQgetisnull(res, 0, f) ? "<NULL>" : PQgetvalue(res, 0, f);
      }
      out->rows.push_back({fnv1a(row), fnv1a(without_negative_zero(row)), out->rows.size() < kKeepText ? row : std::string()});
      ++out->count;
    } else if (st == PGRES_TUPLES_OK) {
      // end of rows
    } else if (st == PGRES_COMMAND_OK) {
      const char* n = PQcmdTuples(res);  // MOVE n
      if (n && *n) out->count = std::atoll(n);
    } else if (ok) {
      ok = false;
      side->ok = false;
      side->message = error_of(res, conn_, &side->sqlstate);
      side->timeout = side->sqlstate == "57014";
    }
    PQclear(res);
  }
  if (PQstatus(conn_) != CONNECTION_OK) {
    ok = false;
    side->ok = false;
    side->crashed = true;
    if (side->message.empty()) side->message = PQerrorMessage(conn_);
  }
  return ok;
}

namespace {

std::string trim_message(const std::string& m) {
  std::string s = m.substr(0, 400);
  for (auto& c : s) if (c == '\n') c = ' ';
  return s;
}

// Runs all of a query's steps on one side.
SideResult run_side(Db& db, const Query& q, bool on, bool explain, std::string* plan) {
  SideResult side;
  if (!db.alive() && !db.recover()) {
    side.ok = false;
    side.crashed = true;
    side.message = "no connection";
    return side;
  }
  db.command(std::string("SET simjoin.enable_customscan = ") + (on ? "on" : "off"));
  auto run_plain = [&](const std::string& sql) {
    side.steps.emplace_back();
    return db.query(sql, &side.steps.back(), &side);
  };
  auto do_explain = [&](const std::string& sql) {
    if (explain) *plan = db.text("EXPLAIN (COSTS OFF) " + sql);
  };
  switch (q.kind) {
    case Kind::Plain:
      do_explain(q.steps[0].sql);
      for (const auto& st : q.steps)
        if (!run_plain(st.sql)) break;
      break;
    case Kind::Function:
      run_plain(on ? q.sql : q.off_sql);
      break;
    case Kind::Dml:
      do_explain(q.sql);
      db.command("BEGIN");
      run_plain(q.sql);
      if (db.alive()) db.command("ROLLBACK");
      break;
    case Kind::Cursor: {
      do_explain(q.sql);
      db.command("BEGIN");
      std::string err;
      if (!db.command("DECLARE c " + std::string(q.scroll ? "SCROLL" : "NO SCROLL") + " CURSOR" +
                          (q.hold ? " WITH HOLD" : "") + " FOR " + q.sql,
                      &err, &side.sqlstate)) {
        side.ok = false;
        side.message = err;
        side.crashed = !db.alive();
      } else {
        for (size_t k = 0; k < q.steps.size(); ++k) {
          if (!run_plain(q.steps[k].sql)) break;
          if (q.hold && k == 0 && !db.command("COMMIT", &err, &side.sqlstate)) {  // WITH HOLD: materialized at commit
            side.ok = false;
            side.message = err;
            side.crashed = !db.alive();
            break;
          }
        }
      }
      if (db.alive()) {
        db.command(side.ok ? "COMMIT" : "ROLLBACK");
        db.command("CLOSE ALL");
      }
      break;
    }
    case Kind::Prepared: {
      db.command("SET plan_cache_mode = " + q.plan_cache_mode);
      const std::string name = on ? "fz_on" : "fz_off";
      if (db.prepare(name, q.sql, q.nparams, &side)) {
        for (const auto& st : q.steps) {
          side.steps.emplace_back();
          if (!db.query(st.sql, &side.steps.back(), &side, &st.params, name)) break;
        }
        if (explain && db.alive()) {
          std::string args;
          for (const auto& p : q.steps[0].params) args += (args.empty() ? "" : ", ") + (p ? "'" + *p + "'" : std::string("NULL"));
          *plan = db.text("EXPLAIN (COSTS OFF) EXECUTE " + name + "(" + args + ")");
        }
      }
      if (db.alive()) {
        db.command("DEALLOCATE ALL");
        db.command("RESET plan_cache_mode");
      }
      break;
    }
  }
  return side;
}

using Hashes = std::vector<uint64_t>;

Hashes sorted_hashes(const std::vector<Row>& rows) {
  Hashes h;
  h.reserve(rows.size());
  for (const auto& r : rows) h.push_back(r.hash);
  std::sort(h.begin(), h.end());
  return h;
}

// Rows of a whose hashes are not matched in b (multiset difference), as text (up to max).
std::vector<std::string> only_in(const std::vector<Row>& a, const std::vector<Row>& b, size_t max, size_t* total) {
  std::map<uint64_t, long long> counts;
  for (const auto& r : b) ++counts[r.hash];
  std::vector<std::string> out;
  *total = 0;
  for (const auto& r : a) {
    auto it = counts.find(r.hash);
    if (it != counts.end() && it->second > 0) {
      --it->second;
    } else {
      ++*total;
      if (out.size() < max) out.push_back(r.text.empty() ? "(row text not kept)" : r.text);
    }
  }
  return out;
}

bool is_subset(const std::vector<Row>& a, const std::vector<Row>& b) {
  size_t total;
  only_in(a, b, 0, &total);
  return total == 0;
}

std::string rows_diff(const std::vector<Row>& on, const std::vector<Row>& off) {
  std::ostringstream o;
  size_t n_on, n_off;
  const auto a = only_in(on, off, 8, &n_on);
  const auto b = only_in(off, on, 8, &n_off);
  o << "-- rows: " << on.size() << " with the custom scan, " << off.size() << " without\n";
  o << "-- only with the custom scan (" << n_on << "):\n";
  for (const auto& r : a) o << "--   " << r.substr(0, 300) << "\n";
  o << "-- only without it (" << n_off << "):\n";
  for (const auto& r : b) o << "--   " << r.substr(0, 300) << "\n";
  if (n_on == 0 && n_off == 0) {  // same multiset, another order
    o << "-- same rows, another order; first rows with / without:\n";
    for (size_t k = 0; k < std::min<size_t>(5, on.size()); ++k)
      o << "--   " << on[k].text.substr(0, 200) << "    //    " << off[k].text.substr(0, 200) << "\n";
  }
  return o.str();
}

// Compares the steps; returns "" when equal, else a description.
std::string compare(const Query& q, const SideResult& on, const SideResult& off) {
  std::vector<Row> acc_on, acc_off;
  bool any_acc = false;
  const size_t n = std::min(on.steps.size(), off.steps.size());
  for (size_t k = 0; k < n && k < q.steps.size(); ++k) {
    const StepResult& a = on.steps[k];
    const StepResult& b = off.steps[k];
    const std::string where = q.steps.size() > 1 ? "step " + std::to_string(k + 1) + " (" + q.steps[k].sql.substr(0, 60) + "): " : "";
    switch (q.steps[k].mode) {
      case StepMode::Sequence: {
        bool same = a.rows.size() == b.rows.size();
        for (size_t r = 0; same && r < a.rows.size(); ++r) same = a.rows[r].order_hash == b.rows[r].order_hash;
        if (!same) return where + "different rows or order\n" + rows_diff(a.rows, b.rows);
        break;
      }
      case StepMode::Multiset:
        if (sorted_hashes(a.rows) != sorted_hashes(b.rows)) return where + "different rows\n" + rows_diff(a.rows, b.rows);
        break;
      case StepMode::Count:
        if (a.count != b.count)
          return where + "different row counts: " + std::to_string(a.count) + " with the custom scan, " +
                 std::to_string(b.count) + " without\n";
        break;
      case StepMode::Accumulate:
        if (a.count != b.count)
          return where + "different row counts: " + std::to_string(a.count) + " with the custom scan, " +
                 std::to_string(b.count) + " without\n";
        acc_on.insert(acc_on.end(), a.rows.begin(), a.rows.end());
        acc_off.insert(acc_off.end(), b.rows.begin(), b.rows.end());
        any_acc = true;
        break;
      case StepMode::SubsetOfNext: {
        if (a.count != b.count)
          return where + "different row counts: " + std::to_string(a.count) + " with the custom scan, " +
                 std::to_string(b.count) + " without\n";
        if (k + 1 < off.steps.size()) {
          const auto& full = off.steps[k + 1].rows;
          if (!is_subset(a.rows, full))
            return where + "rows not in the full result (without the custom scan)\n" + rows_diff(a.rows, full);
          if (!is_subset(b.rows, full)) return where + "PostgreSQL's own rows are not in its full result (?)\n";
        }
        break;
      }
    }
  }
  if (any_acc && sorted_hashes(acc_on) != sorted_hashes(acc_off))
    return "different rows over all fetches\n" + rows_diff(acc_on, acc_off);
  if (on.steps.size() != off.steps.size())
    return "different number of steps run: " + std::to_string(on.steps.size()) + " / " + std::to_string(off.steps.size()) + "\n";
  return "";
}

std::string describe(const SideResult& s) {
  if (s.crashed) return "CONNECTION LOST (server crash?): " + trim_message(s.message);
  if (!s.ok) return "ERROR " + s.sqlstate + ": " + trim_message(s.message);
  std::string out = "ok, rows per step:";
  for (const auto& st : s.steps) out += " " + std::to_string(st.count);
  return out;
}

}  // namespace

bool check_query(Db& db, const Query& q, const Round& round, const Options& opts, Stats* stats,
                 long long qno, int round_no) {
  ++stats->queries;
  ++stats->compared_by_form[q.form];
  std::string plan;
  const bool explain = opts.explain && q.explain;
  const SideResult on = run_side(db, q, true, explain, &plan);
  if (on.crashed) {
    db.recover();
  }
  std::string unused;
  const SideResult off = run_side(db, q, false, false, &unused);
  if (off.crashed) db.recover();
  if (explain && !on.crashed && !plan.empty()) {
    const bool used = plan.find("SimilarityJoin") != std::string::npos ||
                      plan.find("SimJoin Nearest Scan") != std::string::npos;
    ++stats->explained;
    stats->used += used;
    stats->index_probed += plan.find("Outer Rows Read Through Index") != std::string::npos;
    ++stats->by_form[q.form].explained;
    stats->by_form[q.form].used += used;
    ++stats->by_shape[q.shape].explained;
    stats->by_shape[q.shape].used += used;
    if (opts.verbose) std::cout << "fuzz: custom scan " << (used ? "used" : "NOT used") << "\n";
  }

  std::string what, detail;
  // A difference that vanishes when PostgreSQL's plan may not use an index is the other
  // extension's index disagreeing with its own operator (PostGIS's and cube's boxes of infinite
  // coordinates): the custom scan evaluates the operator, as a sequential plan does.
  auto agrees_without_indexes = [&] {
    if (on.crashed || off.crashed || on.timeout || off.timeout) return false;
    db.command("SET enable_indexscan = off");
    db.command("SET enable_bitmapscan = off");
    db.command("SET enable_indexonlyscan = off");
    std::string ignored;
    const SideResult seq = run_side(db, q, false, false, &ignored);
    if (seq.crashed) db.recover();
    db.command("RESET enable_indexscan");
    db.command("RESET enable_bitmapscan");
    db.command("RESET enable_indexonlyscan");
    if (seq.crashed || seq.timeout || seq.ok != on.ok) return false;
    if (!on.ok) return seq.sqlstate == on.sqlstate;
    return compare(q, on, seq).empty();
  };
  if (on.crashed || off.crashed) {
    ++stats->crashes;
    what = std::string("crash ") + (on.crashed ? "with the custom scan" : "without the custom scan");
  } else if (on.timeout != off.timeout && (on.timeout || off.timeout)) {
    ++stats->one_sided_timeouts;
    if (opts.verbose)
      std::cout << "fuzz: one-sided timeout (" << (on.timeout ? "custom scan" : "PostgreSQL's plan") << ") at query "
                << qno << ": " << q.sql.substr(0, 200) << "\n";
    std::cout << "fuzz: one-sided statement timeout, query " << qno << " (" << (on.timeout ? "with" : "without")
              << " the custom scan)\n";
    return true;
  } else if (!on.ok || !off.ok) {
    if (!on.ok && !off.ok && on.sqlstate == off.sqlstate) {
      ++stats->both_failed;
      if (opts.verbose) std::cout << "fuzz: both failed alike (" << on.sqlstate << "): " << trim_message(on.message) << "\n";
      return true;
    }
    if (agrees_without_indexes()) {
      ++stats->index_disagreements;
      return true;
    }
    const SideResult& failed = on.ok ? off : on;
    // a data exception on one side only, or on both but from other rows (another SQLSTATE)
    // (or PostGIS's internal error on a degenerate polygon, ST_Expand of a point by 0, in
    // PostgreSQL's plan only: the engine decides such pairs of points without calling PostGIS)
    const bool postgis_degenerate = on.ok && off.sqlstate == "XX000" &&
                                    off.message.find("called on unclosed ring") != std::string::npos;
    const bool data_error = postgis_degenerate ||
                            (failed.sqlstate.rfind("22", 0) == 0 &&
                             (on.ok || off.ok || (on.sqlstate.rfind("22", 0) == 0 && off.sqlstate.rfind("22", 0) == 0)));
    if (data_error && opts.lenient_data_errors) {
      ++stats->data_errors;  // reported below, not counted as a difference
      what = std::string(on.ok || off.ok ? "error on one side only" : "different errors") +
             " (data exceptions: the plans evaluate the clauses in another order?)";
    } else {
      ++stats->differences;
      what = on.ok || off.ok ? "error on one side only" : "different errors";
    }
  } else {
    detail = compare(q, on, off);
    if (detail.empty()) return true;
    if (agrees_without_indexes()) {
      ++stats->index_disagreements;
      return true;
    }
    ++stats->differences;
    what = "different results";
  }

  std::ostringstream o;
  const bool note = what.find("data exceptions") != std::string::npos;
  o << "\n=== " << (note ? "NOTE" : "FAILURE") << ": " << what << " (seed " << opts.seed << ", round " << round_no << ", query " << qno << ")\n"
    << "-- form: " << q.form << "; shape: " << q.shape << "\n"
    << "-- with the custom scan:    " << describe(on) << "\n"
    << "-- without the custom scan: " << describe(off) << "\n";
  if (!detail.empty()) o << "-- " << detail;
  if (!plan.empty()) {
    o << "-- plan with the custom scan:\n";
    std::istringstream pl(plan);
    std::string line;
    for (int k = 0; k < 30 && std::getline(pl, line); ++k) o << "--   " << line << "\n";
  }
  o << "-- reproduce (psql, in an empty schema, CREATE EXTENSION simjoin, cube, postgis; LOAD 'simjoin'):\n"
    << "SET simjoin.customscan_startup_cost = 0; SET simjoin.customscan_row_cost = 0; "
       "SET simjoin.customscan_pair_cost = 0;\n"
    << round.settings_sql;
  if (!opts.device.empty()) o << "SET simjoin.device = " << opts.device << ";\n";
  for (const auto& t : round.tables)
    if (std::find(q.tables.begin(), q.tables.end(), t.name) != q.tables.end()) o << t.sql;
  o << round.aux_sql;
  o << "-- the query (compare simjoin.enable_customscan = on with off):\n" << q.repro() << "\n=== END " << (note ? "NOTE" : "FAILURE") << "\n";
  std::cout << o.str() << std::flush;
  if (!opts.log_file.empty()) {
    std::ofstream f(opts.log_file, std::ios::app);
    f << o.str();
  }
  return note;
}

}  // namespace fuzz
