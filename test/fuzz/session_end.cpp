// --end-sessions P: session death in the fuzzer. After P% of the queries' comparisons (drawn from
// a generator of its own, so that the seed's tables and queries stay the same), the query runs
// again with the custom scan on in a session of its own, which is ended at a random moment of
// its run: by pg_terminate_backend, or by its client dropping the connection. The server must
// not restart (the fuzzer's own session survives) and the ended session must go away.
#include <libpq-fe.h>
#include <sys/socket.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "fuzz.h"

namespace fuzz {

namespace {

// The statement the victim runs: the query's own SQL (a prepared query's needs parameters: none).
std::string victim_sql(const Query& q) {
  switch (q.kind) {
    case Kind::Plain: return q.steps.empty() ? q.sql : q.steps[0].sql;
    case Kind::Function:
    case Kind::Cursor: return q.sql;
    case Kind::Dml: return "BEGIN; " + q.sql + "; ROLLBACK";
    case Kind::Prepared: return "";
  }
  return "";
}

// Reads the victim's results; true when its statement had completed before the end.
bool completed(PGconn* conn) {
  bool done = false;
  while (PGresult* res = PQgetResult(conn)) {
    const ExecStatusType status = PQresultStatus(res);
    done = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK;
    PQclear(res);
  }
  return done;
}

}  // namespace

bool end_session_mid_query(Db& db, const Query& q, const Options& opts, const std::string& session_sql,
                           double full_ms, Rng& rng, Stats* stats, long long qno) {
  const std::string sql = victim_sql(q);
  if (sql.empty()) return true;
  const char* keys[] = {"application_name", nullptr};
  const char* vals[] = {"simjoin_fuzz_victim", nullptr};
  PGconn* victim = PQconnectdbParams(keys, vals, 1);
  if (PQstatus(victim) != CONNECTION_OK) {
    PQfinish(victim);
    return true;  // no connection to spare: nothing tested
  }
  PQsetNoticeProcessor(victim, [](void*, const char*) {}, nullptr);
  PQclear(PQexec(victim, (session_sql + " SET simjoin.enable_customscan = on;"
                          " SET client_connection_check_interval = '10ms';").c_str()));
  const int pid = PQbackendPID(victim);
  const bool drop = rng.chance(1.0 / 3);
  const auto delay = std::chrono::microseconds(static_cast<long long>(rng.unit() * 1200.0 * std::max(full_ms, 2.0)));
  PQsendQuery(victim, sql.c_str());
  std::this_thread::sleep_for(delay);
  if (drop) {
    shutdown(PQsocket(victim), SHUT_RDWR);  // the client is gone; the backend finds out
  } else {
    db.command("SELECT pg_terminate_backend(" + std::to_string(pid) + ")");
  }
  const bool had_finished = completed(victim);
  PQfinish(victim);
  ++(had_finished ? stats->sessions_after_query : stats->sessions_ended);
  // The ended backend leaves (its exit waits for its threads), and the server did not restart.
  bool gone = false;
  for (int k = 0; k < 400 && !gone; ++k) {
    gone = db.text("SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid)) == "0\n";
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  if (gone && db.alive()) return true;
  ++stats->crashes;
  std::ostringstream o;
  o << "\n=== FAILURE: " << (db.alive() ? "an ended session did not go away" : "the server restarted")
    << " after a session was ended (" << (drop ? "connection dropped" : "pg_terminate_backend") << " after "
    << delay.count() / 1000.0 << " ms; seed " << opts.seed << ", query " << qno << ")\n"
    << "-- form: " << q.form << "; shape: " << q.shape << "\n-- " << sql << "\n=== END FAILURE\n";
  std::cout << o.str() << std::flush;
  if (!opts.log_file.empty()) std::ofstream(opts.log_file, std::ios::app) << o.str();
  if (!db.alive()) db.recover();
  return false;
}

}  // namespace fuzz
