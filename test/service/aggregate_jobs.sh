# Aggregate jobs of the GPU service (neighbour statistics, DBSCAN), sourced by service_test.sh
# (its cluster, q, check, wait_for, stall-free helpers and $log_dir). The aggregates are reached
# through test-only C functions declared here (the extension's SQL does not declare them):
# simjoin.device = gpu runs them as service jobs, simjoin.device = cpu in this backend.

q -c "CREATE OR REPLACE FUNCTION agg_stats(l regclass, r regclass, eps float8, right_side bool,
        unique_pairs bool, ranked bool)
      RETURNS TABLE (key int8, partners int8, min_distance float8, max_distance float8, nearest int8)
      AS 'simjoin', 'simjoin_test_neighbour_stats' LANGUAGE C STRICT;
      CREATE OR REPLACE FUNCTION agg_dbscan(t regclass, eps float8, min_points int8)
      RETURNS TABLE (key int8, cluster int8, kind text)
      AS 'simjoin', 'simjoin_test_dbscan' LANGUAGE C STRICT" >/dev/null
# Keys in another order than the rows (the nearest partner's ties go to the smaller key only with
# ranks), duplicate points, distances of exactly eps = 1, a NULL vector (no point).
q -c "DROP TABLE IF EXISTS agg_l, agg_r, agg_d, agg_s;
      CREATE TABLE agg_l (id int PRIMARY KEY, v float8[]);
      INSERT INTO agg_l SELECT (i * 7) % 1201, ARRAY[(i * 37 % 50) / 2.0, (i * 11 % 40) / 2.0]
        FROM generate_series(1, 1200) i;
      UPDATE agg_l SET v = NULL WHERE id = 5;
      CREATE TABLE agg_r (id int PRIMARY KEY, v float8[]);
      INSERT INTO agg_r SELECT (i * 5) % 801, ARRAY[(i * 13 % 45) / 2.0 + 0.25, (i * 17 % 38) / 2.0]
        FROM generate_series(1, 800) i;
      ANALYZE agg_l; ANALYZE agg_r" >/dev/null

# PostgreSQL's own answer (table ref): per point of $1, its partners in $2 within 1 (with the
# filter $3 on a partner c of point a), the nearest one by distance, then key.
reference_stats() {
  echo "SET simjoin.enable_customscan = off;
        CREATE TEMP TABLE ref AS
        SELECT a.id::int8 AS key, count(b.id) AS partners, min(a.v <-> b.v) AS min_distance,
               max(a.v <-> b.v) AS max_distance,
               (SELECT c.id::int8 FROM $2 c WHERE a.v <-> c.v <= 1 $3 ORDER BY a.v <-> c.v, c.id LIMIT 1) AS nearest
        FROM $1 a LEFT JOIN $2 b ON a.v <-> b.v <= 1 ${3//c./b.} WHERE a.v IS NOT NULL GROUP BY a.id;
        RESET simjoin.enable_customscan;"
}
# Checks that agg_stats($2) (eps 1, ranked) on the service equals PostgreSQL's answer for points of
# $3 with partners in $4 (filter $5), and the in-process CPU run's.
stats_case() {
  check "neighbour stats, $1: the service's equal PostgreSQL's and the CPU's" \
    "$(q -c "$(reference_stats "$3" "$4" "${5:-}") SET simjoin.device = cpu;
             CREATE TEMP TABLE cpu AS SELECT * FROM agg_stats($2, 1, $6, true);
             SET simjoin.device = gpu; SET simjoin.gpu_error = error;
             CREATE TEMP TABLE svc AS SELECT * FROM agg_stats($2, 1, $6, true);
             SELECT (SELECT count(*) FROM svc) > 0 AND NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM ref)
                    AND NOT EXISTS (SELECT * FROM ref EXCEPT ALL SELECT * FROM svc),
                    NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM cpu)
                    AND NOT EXISTS (SELECT * FROM cpu EXCEPT ALL SELECT * FROM svc)" | tr '|' ' ')" "t t"
}

echo "== aggregate jobs: results"
jobs_before=$(q -c "SELECT jobs_done FROM simjoin_devices()")
stats_case "two-sided, left side" "'agg_l', 'agg_r'" agg_l agg_r "" "false, false"
stats_case "two-sided, right side" "'agg_l', 'agg_r'" agg_r agg_l "" "true, false"
stats_case "self-join with duplicates, all pairs (itself included)" "'agg_l', 'agg_l'" agg_l agg_l "" "false, false"
stats_case "self-join with duplicates, unique pairs (itself excluded)" "'agg_l', 'agg_l'" agg_l agg_l \
  "AND c.id <> a.id" "false, true"
# Without ranks the nearest partner's ties go to the smaller row index: the CPU run decides.
check "neighbour stats without ranks: the service's equal the CPU's (ties by row, not by key)" \
  "$(q -c "SET simjoin.device = cpu; CREATE TEMP TABLE cpu AS SELECT * FROM agg_stats('agg_l', 'agg_l', 1, false, false, false);
           CREATE TEMP TABLE ranked AS SELECT * FROM agg_stats('agg_l', 'agg_l', 1, false, false, true);
           SET simjoin.device = gpu; SET simjoin.gpu_error = error;
           CREATE TEMP TABLE svc AS SELECT * FROM agg_stats('agg_l', 'agg_l', 1, false, false, false);
           SELECT NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM cpu) AND NOT EXISTS (SELECT * FROM cpu EXCEPT ALL SELECT * FROM svc),
                  EXISTS (SELECT * FROM svc EXCEPT SELECT * FROM ranked)" | tr '|' ' ')" "t t"

# DBSCAN (eps 1, min_points 3) on a line: 0..3 (0 and 3 border, 1 and 2 core), 10 and 10.5 noise,
# 20, 21, 21, 22 (all core: 20 has {20, 21, 21}), 40 noise; a NULL vector is no point.
q -c "CREATE TABLE agg_d (id int PRIMARY KEY, v float8[]);
      INSERT INTO agg_d VALUES (9, '{3}'), (2, '{0}'), (4, '{1}'), (7, '{2}'), (1, '{10}'), (3, '{10.5}'),
        (8, '{21}'), (5, '{20}'), (6, '{21}'), (11, '{22}'), (10, '{40}'), (12, NULL)" >/dev/null
dbscan_line="SELECT string_agg(key || ':' || cluster || ':' || kind, ' ' ORDER BY key) FROM agg_dbscan('agg_d', 1, 3)"
check "DBSCAN core, border and noise as a service job" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; $dbscan_line")" \
  "1:-1:noise 2:0:border 3:-1:noise 4:0:core 5:1:core 6:1:core 7:0:core 8:1:core 9:0:border 10:-1:noise 11:1:core"
check "and the same in this backend" "$(q -c "SET simjoin.device = cpu; $dbscan_line")" \
  "1:-1:noise 2:0:border 3:-1:noise 4:0:core 5:1:core 6:1:core 7:0:core 8:1:core 9:0:border 10:-1:noise 11:1:core"
q -c "CREATE TABLE agg_s (id int PRIMARY KEY, v float8[]); SELECT setseed(0.25);
      INSERT INTO agg_s SELECT (i * 7) % 2003, ARRAY[round(random() * 600) / 10, round(random() * 600) / 10]
        FROM generate_series(1, 2000) i" >/dev/null
check "DBSCAN on 2,000 scattered points (min_points 4): the service's clusters equal the CPU's" \
  "$(q -c "SET simjoin.device = cpu; CREATE TEMP TABLE cpu AS SELECT * FROM agg_dbscan('agg_s', 1.5, 4);
           SET simjoin.device = gpu; SET simjoin.gpu_error = error; CREATE TEMP TABLE svc AS SELECT * FROM agg_dbscan('agg_s', 1.5, 4);
           SELECT (SELECT count(DISTINCT kind) FROM svc) = 3 AND NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM cpu)
                  AND NOT EXISTS (SELECT * FROM cpu EXCEPT ALL SELECT * FROM svc)")" t
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.explain = on;
            SELECT count(*) FROM agg_dbscan('agg_s', 1.5, 4)" 2>&1)
check "DBSCAN's NOTICEs name the service for both joins (counting, linking)" "$(echo "$out" | grep -c 'device=gpu service')" 2
check "each aggregate ran as one service job (8 above), and no slot or reservation is left" \
  "$(q -c "SELECT (jobs_done - $jobs_before) || ' ' || reserved_bytes FROM simjoin_devices()") $(q -c "SELECT count(*) FROM simjoin_jobs()")" "8 0 0"

# The custom scan's aggregates as service jobs, each asking for less: count(*) (the pair count
# only), GROUP BY count(*) of a self-join (per-point counts only), GROUP BY min / max (every
# field). Each equals PostgreSQL's plan; three jobs ran.
scan_aggregates="SELECT (SELECT count(*) FROM agg_l a JOIN agg_r b ON a.v <-> b.v <= 1) || ' ' ||
  (SELECT md5(string_agg(id || ':' || n, ',' ORDER BY id)) FROM
    (SELECT a.id, count(*) AS n FROM agg_l a JOIN agg_l b ON a.v <-> b.v <= 1 GROUP BY a.id) g) || ' ' ||
  (SELECT md5(string_agg(id || ':' || lo || ':' || hi, ',' ORDER BY id)) FROM
    (SELECT a.id, min(a.v <-> b.v) AS lo, max(a.v <-> b.v) AS hi FROM agg_l a JOIN agg_r b ON a.v <-> b.v <= 1 GROUP BY a.id) g)"
jobs_before=$(q -c "SELECT jobs_done FROM simjoin_devices()")
check "the custom scan's count(*), GROUP BY count(*) and min / max as service jobs equal PostgreSQL's plan" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; $scan_aggregates")" \
  "$(q -c "SET simjoin.enable_customscan = off; $scan_aggregates")"
check "and ran as three service jobs" "$(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()")" 3

echo "== aggregate jobs: points read in place, the ledger"
q -c "DROP TABLE IF EXISTS agg_big; CREATE TABLE agg_big (id int PRIMARY KEY, v float8[]);
      INSERT INTO agg_big SELECT i, ARRAY[(i % 400)::float8, (i / 400)::float8] FROM generate_series(1, 100000) i;
      ANALYZE agg_big" >/dev/null
big=$(q -c "SET client_min_messages = debug1; SET simjoin.device = gpu; SET simjoin.gpu_error = error;
            SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_big', 'agg_l', 1.5, false, false, true)" 2>&1)
check "neighbour stats reads a large side where the backend built it (1.6 MB), copies a small one" \
  "$(echo "$big" | grep -c 'neighbour stats job: left points read in place, right points copied')" 1
check "and its result is the CPU's" "$(echo "$big" | tail -1)" \
  "$(q -c "SET simjoin.device = cpu; SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_big', 'agg_l', 1.5, false, false, true)")"
big=$(q -c "SET client_min_messages = debug1; SET simjoin.device = gpu; SET simjoin.gpu_error = error;
            SELECT count(*) || ' ' || count(DISTINCT cluster) FROM agg_dbscan('agg_big', 1.5, 5)" 2>&1)
check "DBSCAN reads its points in place" "$(echo "$big" | grep -c 'dbscan job: left points read in place, right points (self-join)')" 1
check "and its clusters are the CPU's" "$(echo "$big" | tail -1)" \
  "$(q -c "SET simjoin.device = cpu; SELECT count(*) || ' ' || count(DISTINCT cluster) FROM agg_dbscan('agg_big', 1.5, 5)")"

# A stalled job shows its reservation: a join's for the same points plus the result arrays (32
# bytes a point for neighbour statistics, and 8 for each partner's rank).
stalled_wanted() {  # $1: the query; prints the stalled job's kind and wanted_bytes, then cancels it
  timeout 20 psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = stall; $1" \
    >/dev/null 2>&1 &
  wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
  q -c "SELECT kind || ':' || wanted_bytes FROM simjoin_jobs()"
  q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs()" >/dev/null
  wait
  wait_for "SELECT count(*) FROM simjoin_jobs()" 0 >/dev/null
}
join_wanted=$(stalled_wanted "SELECT count(*) FROM similarity_join('agg_big', 'agg_big', 1.5)")
stats_wanted=$(stalled_wanted "SELECT count(*) FROM agg_stats('agg_big', 'agg_big', 1.5, false, false, true)")
check "simjoin_jobs() names each job's kind" "${join_wanted%%:*},${stats_wanted%%:*}" "join,neighbour stats"
# An aggregate folds on the device only when its whole join fits at once (the SZL's 16 d + 176
# bytes a point where Auto may pick it, against the join's chunkable 20 d + 48; d = 2 here), so it
# reserves twice that and twice its arrays and ranks.
check "the ledger reserves the whole join, the aggregate's arrays and ranks (100,000 points)" \
  "$((${stats_wanted#*:} - ${join_wanted#*:}))" "$((2 * 100000 * (208 - 88) + 2 * (100000 * 32 + 100000 * 8)))"

echo "== aggregate jobs: cancel, faults, fallback"
start=$(date +%s%N)
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET statement_timeout = '400ms';
            SELECT count(*) FROM agg_stats('svc_p', 'svc_p', 150, false, false, false)")
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "statement_timeout cancels a running neighbour stats job" \
  "$(echo "$out" | grep -o 'canceling statement due to statement timeout')" "canceling statement due to statement timeout"
check "within a second" "$([ "$elapsed_ms" -lt 1400 ] && echo yes || echo "no: ${elapsed_ms} ms")" yes
check "the service stops the engine: the slot is free within 2 s (the whole job takes far longer)" \
  "$(wait_for "SELECT count(*) || ' ' || (SELECT reserved_bytes FROM simjoin_devices()) FROM simjoin_jobs()" "0 0" 2)" "0 0"
out=$(timeout 30 psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET statement_timeout = '400ms';
            SET simjoin.service_test_fault = stall; SELECT count(*) FROM agg_dbscan('agg_l', 1, 4)" 2>&1)
check "statement_timeout cancels a stalled DBSCAN job" \
  "$(echo "$out" | grep -o 'canceling statement due to statement timeout')" "canceling statement due to statement timeout"
check "the cancelled DBSCAN job is gone" "$(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" 0

ref_dbscan=$(q -c "SET simjoin.device = cpu; $dbscan_line")
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = fallback; SET simjoin.service_test_fault = error; $dbscan_line" 2>&1)
check "an engine error in a DBSCAN job falls back to the CPU (gpu_error = fallback)" \
  "$(echo "$out" | grep -c 'GPU join failed (simjoin: injected fault); running it on the CPU') $(echo "$out" | tail -1)" "1 $ref_dbscan"
check "and is an ERROR with gpu_error = error" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = error;
           SELECT count(*) FROM agg_stats('agg_l', 'agg_r', 1, false, false, true)" | grep -o 'ERROR:  simjoin: injected fault')" \
  "ERROR:  simjoin: injected fault"
ref_stats=$(q -c "SET simjoin.device = cpu; SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_l', 'agg_r', 1, false, false, true)")
old_pid=$(service_pid)
# The service exits under the job; the next statement finds it not ready (it restarts after 1 s).
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = fallback; SET simjoin.service_test_fault = exit;
            SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_l', 'agg_r', 1, false, false, true);
            RESET simjoin.service_test_fault;
            SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_l', 'agg_r', 1, false, false, true)" 2>&1)
check "a service that exits under a neighbour stats job: the CPU fallback" \
  "$(echo "$out" | grep -c 'GPU join failed (simjoin: the GPU service stopped); running it on the CPU')" 1
check "a service not ready (simjoin.device = gpu, gpu_error = fallback): the CPU with its NOTICE" \
  "$(echo "$out" | grep -c "simjoin.device is 'gpu' but the GPU service is not running; running the join on the CPU")" 1
check "both results are the CPU's" "$(echo "$out" | grep -vc NOTICE) $(echo "$out" | grep -v NOTICE | sort -u)" "2 $ref_stats"
check "the service comes back" \
  "$(wait_for "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service' AND pid <> $old_pid" 1 10)" 1
check "and the next aggregate job runs there" \
  "$(wait_for "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT sum(partners) || ' ' || sum(nearest) FROM agg_stats('agg_l', 'agg_r', 1, false, false, true)" "$ref_stats" 10)" "$ref_stats"
q -c "DROP TABLE agg_l, agg_r, agg_d, agg_s, agg_big; DROP FUNCTION agg_stats, agg_dbscan" >/dev/null
