// simjoin_fuzz: a differential fuzzer for the SimilarityJoin custom scan and similarity_join().
// Generates tables and queries (deterministic per seed) and compares each query's result with
// simjoin.enable_customscan = on (its costs at 0, so the planner picks it) against off, in the
// spirit of SQLancer's TLP/NoREC: any difference in rows, an error on one side only (or other
// SQLSTATEs), or a server crash is a failure, printed with the seed, the tables' SQL, the query
// and a short diff.
//
//   simjoin_fuzz --seed S --queries N [--seconds T] [--device cpu|gpu] [--tables-per-round K]
//                [--queries-per-round M] [--no-explain] [--stop-on-failure] [--log FILE]
//                [--statement-timeout SECONDS] [--keep-schema] [--only TEXT] [--verbose]
//                [--print-queries] [--end-sessions PERCENT]
//
// --only TEXT keeps only the queries whose form or shape contains TEXT (e.g. "correlated",
// "cube", "outer values"): the same seed then draws other queries. --library names the library
// each session LOADs (default simjoin) for the cube, point and PostGIS forms' planner hook.
// --lenient-data-errors reports an error on one side only whose SQLSTATE is a data exception
// (class 22: a key expression evaluated on a row the other plan never evaluates, the join's
// clauses taken in another order), or PostGIS's internal "unclosed ring" error on a degenerate
// polygon in PostgreSQL's plan only, as a NOTE instead of a failure. --print-queries prints the
// rounds' tables and the queries the seed generates (cube and PostGIS assumed) without connecting.
// --end-sessions P reruns P% of the queries in a session ended at a random moment of its run
// (pg_terminate_backend or a dropped connection); a server restart is a failure (session_end.cpp).
//
// Connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE); works in its own
// schema fuzz_<seed>. Exit status 1 when there was a difference or a crash.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "fuzz.h"

using namespace fuzz;

namespace {

// How a plain table side is read, per round, from a generator of its own (the rounds' tables and
// queries stay those of the seed): auto (PostgreSQL's parallel workers, or serial), or the leader
// with one or two parse threads (pg/scan/load/threaded_load.cpp), which the rounds' small tables
// get only this way; and in half the rounds an indexed outer table read through its index
// wherever the plan can (simjoin.index_probe_cost).
std::string read_settings(uint64_t seed, int round_no) {
  Rng load_rng(seed * 1000003 + static_cast<uint64_t>(round_no));
  std::string sql = "SET simjoin.load_threads = " + std::to_string(load_rng.range(-1, 2)) + ";\n";
  if (load_rng.chance(0.5)) sql += "SET simjoin.index_probe_cost = 0; SET simjoin.index_probe_row_cost = 0;\n";
  return sql;
}

void usage() {
  std::cerr << "usage: simjoin_fuzz --seed S [--queries N] [--seconds T] [--device auto|cpu|gpu]\n"
               "                    [--tables-per-round K] [--queries-per-round M] [--no-explain]\n"
               "                    [--stop-on-failure] [--log FILE] [--statement-timeout S] [--keep-schema]\n"
               "                    [--only SUBSTRING-OF-FORM-OR-SHAPE] [--library simjoin] [--lenient-data-errors]\n"
               "                    [--verbose] [--print-queries] [--end-sessions PERCENT]\n";
  std::exit(2);
}

std::string pct(long long a, long long b) {
  if (b == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * static_cast<double>(a) / static_cast<double>(b));
  return buf;
}

const char* mode_name(StepMode m) {
  switch (m) {
    case StepMode::Sequence: return "sequence";
    case StepMode::Multiset: return "multiset";
    case StepMode::Count: return "count";
    case StepMode::Accumulate: return "accumulate";
    case StepMode::SubsetOfNext: return "subset of next";
  }
  return "?";
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Plain: return "plain";
    case Kind::Cursor: return "cursor";
    case Kind::Prepared: return "prepared";
    case Kind::Function: return "function";
    case Kind::Dml: return "dml";
  }
  return "?";
}

// --print-queries: the rounds and queries the main loop would generate, printed instead of run.
void print_queries(const Options& o) {
  Env env;
  env.cube = env.postgis = true;
  Rng rng(o.seed);
  long long n = 0;
  for (int round_no = 1; n < o.queries; ++round_no) {
    Round round = generate_round(rng, env, o.tables_per_round);
    round.settings_sql += read_settings(o.seed, round_no);
    const int per_round = o.queries_per_round > 0 ? o.queries_per_round : static_cast<int>(rng.range(50, 200));
    std::cout << "-- round " << round_no << ": " << per_round << " queries, dim " << round.dim << ", spacing "
              << round.spacing << "\n";
    for (const auto& t : round.tables) std::cout << t.sql << "\n";
    std::cout << round.aux_sql << "\n" << round.settings_sql << "\n";
    for (int k = 0; k < per_round && n < o.queries; ++k) {
      Query q = generate_query(rng, round, env);
      for (int tries = 0; !o.only.empty() && tries < 10000 &&
                          (q.form + "; " + q.shape).find(o.only) == std::string::npos; ++tries)
        q = generate_query(rng, round, env);
      std::cout << "-- query " << ++n << " [" << q.form << "; " << q.shape << "] " << kind_name(q.kind)
                << (q.explain ? ", explain" : "") << ", tables";
      for (const auto& t : q.tables) std::cout << " " << t;
      std::cout << "\n" << q.sql << "\n";
      if (!q.off_sql.empty()) std::cout << "-- off: " << q.off_sql << "\n";
      if (q.kind == Kind::Prepared) std::cout << "-- plan_cache_mode " << q.plan_cache_mode << "\n";
      if (q.kind == Kind::Cursor)
        std::cout << "-- " << (q.scroll ? "scroll" : "no scroll") << (q.hold ? ", hold" : "") << "\n";
      for (const auto& st : q.steps) {
        std::cout << "-- step (" << mode_name(st.mode) << ")";
        for (const auto& p : st.params) std::cout << " " << (p ? "'" + *p + "'" : "NULL");
        std::cout << ": " << st.sql << "\n";
      }
      std::cout << "-- repro:\n" << q.repro() << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool queries_given = false, print = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--seed") o.seed = std::strtoull(val().c_str(), nullptr, 10);
    else if (a == "--queries") { o.queries = std::atoll(val().c_str()); queries_given = true; }
    else if (a == "--seconds") o.seconds = std::atof(val().c_str());
    else if (a == "--device") o.device = val();
    else if (a == "--tables-per-round") o.tables_per_round = std::max(1, std::atoi(val().c_str()));
    else if (a == "--queries-per-round") o.queries_per_round = std::atoi(val().c_str());
    else if (a == "--statement-timeout") o.statement_timeout_s = std::atoi(val().c_str());
    else if (a == "--log") o.log_file = val();
    else if (a == "--only") o.only = val();
    else if (a == "--end-sessions") o.end_sessions = std::atof(val().c_str()) / 100.0;
    else if (a == "--library") o.library = val();
    else if (a == "--no-explain") o.explain = false;
    else if (a == "--lenient-data-errors") o.lenient_data_errors = true;
    else if (a == "--stop-on-failure") o.stop_on_failure = true;
    else if (a == "--keep-schema") o.keep_schema = true;
    else if (a == "--verbose" || a == "-v") o.verbose = true;
    else if (a == "--print-queries") print = true;
    else usage();
  }
  if (print) {
    print_queries(o);
    return 0;
  }
  if (o.seconds > 0 && !queries_given) o.queries = -1;  // until the time is up

  Db db(o);
  std::string err;
  if (!db.connect(&err)) {
    std::cerr << "simjoin_fuzz: cannot connect: " << err << "\n";
    return 2;
  }
  Env env;
  env.cube = !db.text("SELECT 1 FROM pg_available_extensions WHERE name = 'cube'").empty();
  env.postgis = !db.text("SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'").empty();
  db.command("SET client_min_messages = warning");
  // Several fuzzers starting on one database race on IF NOT EXISTS (a unique violation for the
  // loser): try again, by then the extension exists.
  auto create_extension = [&](const std::string& name) {
    std::string state;
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (db.command("CREATE EXTENSION IF NOT EXISTS " + name, &err, &state)) return true;
      if (state != "23505") return false;
    }
    return false;
  };
  if (!create_extension("simjoin")) {
    std::cerr << "simjoin_fuzz: CREATE EXTENSION simjoin: " << err << "\n";
    return 2;
  }
  if (env.cube && !create_extension("cube")) env.cube = false;
  if (env.postgis && !create_extension("postgis")) env.postgis = false;
  std::string ext_schemas;
  for (const char* ext : {"simjoin", "cube", "postgis"}) {
    std::string s = db.text(std::string("SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n "
                                        "ON n.oid = e.extnamespace WHERE e.extname = '") + ext + "'");
    if (!s.empty()) s.pop_back();
    if (!s.empty() && ext_schemas.find(s) == std::string::npos) ext_schemas += ", " + s;
  }
  const std::string schema = "fuzz_" + std::to_string(o.seed);
  std::string base_session = "SET client_min_messages = warning; SET search_path = " + schema + ext_schemas +
                             ", public; LOAD '" + o.library + "'; SET simjoin.customscan_startup_cost = 0; "
                             "SET simjoin.customscan_row_cost = 0; SET simjoin.customscan_pair_cost = 0; "
                             "SET jit = off; SET statement_timeout = '" + std::to_string(o.statement_timeout_s) + "s';";
  if (!o.device.empty()) base_session += " SET simjoin.device = " + o.device + ";";
  std::cout << "fuzz: seed " << o.seed << ", schema " << schema << ", cube " << (env.cube ? "yes" : "no")
            << ", postgis " << (env.postgis ? "yes" : "no") << (o.device.empty() ? "" : ", device " + o.device) << "\n"
            << std::flush;

  Rng rng(o.seed);
  Rng end_rng(o.seed * 7919 + 17);  // --end-sessions' draws: the seed's queries stay the same
  Stats stats;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto done = [&] {
    if (o.queries >= 0 && stats.queries >= o.queries) return true;
    return o.seconds > 0 && elapsed() >= o.seconds;
  };
  bool stop = false;
  int round_no = 0;
  while (!done() && !stop) {
    ++round_no;
    Round round = generate_round(rng, env, o.tables_per_round);
    round.settings_sql += read_settings(o.seed, round_no);
    const int per_round = o.queries_per_round > 0 ? o.queries_per_round : static_cast<int>(rng.range(50, 200));
    db.set_session(base_session);
    if (!db.alive() && !db.recover()) {
      std::cerr << "simjoin_fuzz: the server does not come back\n";
      break;
    }
    db.command("RESET ALL");
    db.command(base_session);
    db.command("SET statement_timeout = 0");
    db.command("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    db.command("CREATE SCHEMA " + schema);
    bool setup_ok = true;
    for (const auto& t : round.tables)
      if (!db.command(t.sql, &err)) {
        std::cout << "fuzz: warning: creating " << t.name << " failed: " << err << "\n" << t.sql;
        setup_ok = false;
      }
    if (!db.command(round.aux_sql, &err)) {
      std::cout << "fuzz: warning: creating the eps and shift tables failed: " << err << "\n";
      setup_ok = false;
    }
    db.set_session(base_session + " " + round.settings_sql);
    db.command("RESET ALL");
    db.command(base_session + " " + round.settings_sql);
    if (o.verbose) {
      std::cout << "fuzz: round " << round_no << ": " << per_round << " queries, dim " << round.dim << ", spacing "
                << round.spacing << (setup_ok ? "" : " (setup failed)") << "\n";
      for (const auto& t : round.tables)
        std::cout << "fuzz:   " << t.name << ": " << t.rows << " rows, dim " << t.dim << (t.partitioned ? ", partitioned" : "")
                  << (t.special_rows ? ", special rows" : "") << (t.error_rows ? ", error rows" : "") << "\n";
    }
    for (int k = 0; k < per_round && !done(); ++k) {
      Query q = generate_query(rng, round, env);
      for (int tries = 0; !o.only.empty() && tries < 10000 &&
                          (q.form + "; " + q.shape).find(o.only) == std::string::npos; ++tries)
        q = generate_query(rng, round, env);
      if (o.verbose) std::cout << "fuzz: query " << stats.queries + 1 << " [" << q.form << "; " << q.shape << "]: " << q.sql.substr(0, 300) << "\n" << std::flush;
      const double t0 = elapsed();
      bool passed = check_query(db, q, round, o, &stats, stats.queries + 1, round_no);
      if (o.end_sessions > 0 && end_rng.chance(o.end_sessions))
        passed = end_session_mid_query(db, q, o, base_session + " " + round.settings_sql,
                                       (elapsed() - t0) * 500.0, end_rng, &stats, stats.queries) && passed;
      if (o.verbose && elapsed() - t0 > 2) std::printf("fuzz: slow query (%.1f s)\n", elapsed() - t0);
      if (!passed && o.stop_on_failure) {
        stop = true;
        break;
      }
    }
  }
  const double secs = elapsed();
  if (!o.keep_schema && (db.alive() || db.recover())) {
    db.command("SET statement_timeout = 0");
    db.command("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  std::cout << "fuzz: coverage (custom scan in the plan / queries explained) by form:\n";
  for (const auto& [form, n] : stats.compared_by_form) {
    const Coverage c = stats.by_form.count(form) ? stats.by_form.at(form) : Coverage{};
    std::printf("fuzz:   %-52s %5lld compared, custom scan in %4lld of %4lld explained (%s)\n", form.c_str(), n, c.used,
                c.explained, pct(c.used, c.explained).c_str());
  }
  std::cout << "fuzz: by shape:\n";
  for (const auto& [shape, c] : stats.by_shape)
    std::printf("fuzz:   %-52s custom scan in %4lld of %4lld explained (%s)\n", shape.c_str(), c.used, c.explained,
                pct(c.used, c.explained).c_str());
  std::string notes = ", " + std::to_string(stats.index_disagreements) + " where only an index disagreed with its operator";
  if (o.lenient_data_errors) notes += ", " + std::to_string(stats.data_errors) + " one-sided data errors (notes)";
  std::printf("fuzz: %lld queries in %.0f s (%.1f queries/s), %lld failed alike on both sides%s\n", stats.queries, secs,
              secs > 0 ? static_cast<double>(stats.queries) / secs : 0.0, stats.both_failed, notes.c_str());
  if (o.end_sessions > 0)
    std::printf("fuzz: %lld sessions ended mid-query, %lld after their query had finished\n",
                stats.sessions_ended, stats.sessions_after_query);
  std::printf("fuzz: %lld explained plans read a side through its index\n", stats.index_probed);
  std::printf("fuzz: seed %llu, %lld queries, %lld differences, %lld crashes, %lld one-sided timeouts, "
              "custom scan used in %lld of %lld explained\n",
              static_cast<unsigned long long>(o.seed), stats.queries, stats.differences, stats.crashes,
              stats.one_sided_timeouts, stats.used, stats.explained);
  return stats.differences + stats.crashes > 0 ? 1 : 0;
}
