#!/usr/bin/env bash
# One table sharded over several PostgreSQL servers with postgres_fdw (simjoin_shard_table): a
# coordinator and three server clusters on Unix sockets, each a throwaway cluster of its own. The
# sharded joins (pairs, per-region counts, two tables) must equal the coordinator's local ones and
# run on every server at once (Async Foreign Scan, the join with <-> in its Remote SQL), pairs at
# exactly eps across region boundaries included; then a re-layout by another split, the
# functions simjoin_sharded_join and simjoin_sharded_stats against similarity_join and
# similarity_join_stats, and a server down during a re-layout and a sharded join, which must
# leave the previous layout answering.
#
#   bash test/shards/shard_test.sh        (from the repository root; simjoin installed)
#
# Runs the servers as the invoking user, or as "postgres" when invoked as root. Prints
# "ok N - what" / "not ok N - what" and ends with "shards: P passed, F failed"; exit status 0
# only if all passed. SIMJOIN_KEEP_LOG=DIR keeps the servers' logs there.
set -uo pipefail
cd "$(dirname "$0")/../.."
SERVERS=3
EPS=0.05       # degrees on places_ch's lon/lat: thousands of pairs
GRID_EPS=0.5   # the grid's step: every neighbour at exactly eps

passed=0 failed=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; passed=$((passed + 1)); }
not_ok() { n=$((n + 1)); echo "not ok $n - ${1//$'\n'/ }"; failed=$((failed + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', expected '$3')"; fi; }
finish() { echo "shards: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# ---- Clusters (scripts/pg_clusters.sh): 0 is the coordinator, 1..SERVERS the servers s1.. ----
source scripts/pg_clusters.sh

# psql on cluster $1 (the coordinator, 0, with partitionwise joins and aggregates on).
qc() {
  local i=$1 opts="-c enable_partitionwise_join=on -c enable_partitionwise_aggregate=on"
  shift
  PGOPTIONS="$opts -c client_min_messages=warning" psql -h "${C_DIR[$i]}" -p "${C_PORT[$i]}" \
    -U postgres -d postgres -AtqX -v ON_ERROR_STOP=1 "$@" 2>&1
}
q() { qc 0 "$@"; }

echo "== a coordinator and $SERVERS servers"
for i in $(seq 0 $SERVERS); do cluster_alloc "$i"; done
pids=()
for i in $(seq 0 $SERVERS); do cluster_initdb "$i" & pids[$i]=$!; done
up=0
for i in $(seq 0 $SERVERS); do wait "${pids[$i]}" && cluster_up "$i" && up=$((up + 1)); done
if [ $up -ne $((SERVERS + 1)) ]; then not_ok "the $((SERVERS + 1)) clusters start"; finish; fi
ok "the $((SERVERS + 1)) clusters start (ports ${C_PORT[*]})"

setup_ok=1
for i in $(seq 1 $SERVERS); do
  out=$(qc "$i" -c "CREATE EXTENSION simjoin") || { setup_ok=0; echo "# s$i: $out"; }
done
sql="CREATE EXTENSION simjoin; CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;"
for i in $(seq 1 $SERVERS); do
  sql+=" CREATE SERVER s$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${C_DIR[$i]}',
           port '${C_PORT[$i]}', dbname 'postgres', extensions 'simjoin', async_capable 'true');
         CREATE USER MAPPING FOR CURRENT_USER SERVER s$i OPTIONS (user 'postgres');"
done
out=$(q -c "$sql") || { setup_ok=0; echo "# coordinator: $out"; }
if [ $setup_ok = 1 ]; then
  ok "simjoin on each server; simjoin, postgres_fdw, dblink, s1..s$SERVERS on the coordinator"
else
  not_ok "the extensions and foreign servers are created"; finish
fi

# The plumbing alone: a foreign table and dblink on each server, over its socket.
got=""
for i in $(seq 1 $SERVERS); do
  qc "$i" -c "CREATE TABLE plumb AS SELECT $i AS s, '{3,4}'::float8[] <-> '{0,0}'::float8[] AS d" \
    >/dev/null
  got+=$(q -c "CREATE FOREIGN TABLE plumb_$i (s int, d float8) SERVER s$i
                 OPTIONS (table_name 'plumb')" \
           -c "SELECT s, d FROM plumb_$i" \
           -c "SELECT x FROM dblink('s$i', 'SELECT s * 10 FROM plumb') AS t(x int)" | tr '\n' ' ')
done
check "postgres_fdw and dblink reach each server over its socket" "$got" \
  "$(for i in $(seq 1 $SERVERS); do printf '%s|5 %s ' $i $((i * 10)); done)"

servers="ARRAY[$(for i in $(seq 1 $SERVERS); do printf "'s%s'," "$i"; done | sed 's/,$//')]::name[]"

# Compares a sharded query's rows with the local query's, both ways: "differing|local|sharded"
# (rows each side, duplicates counted).
compare() {
  q -c "CREATE TEMP TABLE cmp_s AS $1" -c "CREATE TEMP TABLE cmp_l AS $2" \
    -c "SELECT (SELECT count(*) FROM (TABLE cmp_s EXCEPT TABLE cmp_l) x)
             + (SELECT count(*) FROM (TABLE cmp_l EXCEPT TABLE cmp_s) y),
               (SELECT count(*) FROM cmp_l), (SELECT count(*) FROM cmp_s)"
}
# ok when compare's "$2" shows no row differing, as many rows each side, and some rows.
check_equal() {
  local what=$1 got=$2 d l s
  IFS='|' read -r d l s <<<"$got"
  if [ "$d" = 0 ] && [ "$l" = "$s" ] && [ "${l:-0}" -gt 0 ] 2>/dev/null; then
    ok "$what ($l rows each)"
  else
    not_ok "$what (differing|local|sharded: '$got')"
  fi
}
self_pairs() {  # $1: sharded table, $2: eps
  echo "SELECT a.id a_id, b.id b_id FROM $1 a JOIN $1 b ON a.simjoin_region = b.simjoin_region
          AND a.v <-> b.v <= $2 WHERE NOT a.simjoin_halo AND a.id < b.id"
}
local_pairs() {  # $1: table, $2: eps
  echo "SELECT a.id a_id, b.id b_id FROM $1 a JOIN $1 b ON a.v <-> b.v <= $2 WHERE a.id < b.id"
}
region_counts() {  # $1: sharded table, $2: eps. All ordered pairs, each with itself too.
  echo "SELECT sum(n) FROM (SELECT a.simjoin_region, count(*) n FROM $1 a JOIN $1 b
          ON a.simjoin_region = b.simjoin_region AND a.v <-> b.v <= $2
          WHERE NOT a.simjoin_halo GROUP BY a.simjoin_region) s"
}

echo "== a. places_ch sharded by lon/lat, eps $EPS"
out=$(q <<'SQL'
CREATE TEMP TABLE places_csv (geonameid int, name text, country text, latitude float8,
                              longitude float8, elevation_m text, population text);
\copy places_csv FROM 'test/data/places_ch.csv' WITH (FORMAT csv, HEADER true)
CREATE TABLE places (id int PRIMARY KEY, name text, v float8[]);
INSERT INTO places SELECT geonameid, name, ARRAY[longitude, latitude] FROM places_csv;
ANALYZE places;
SELECT count(*) FROM places;
SQL
)
places_rows=$(tail -1 <<<"$out")
if [ "${places_rows:-0}" -gt 1000 ] 2>/dev/null; then ok "places loaded ($places_rows rows)"
else not_ok "places loaded ($out)"; fi

out=$(q -c "CREATE TABLE plans (name text PRIMARY KEY, plan jsonb)" \
        -c "INSERT INTO plans SELECT 'places', simjoin_shard_table('places', $servers, $EPS)" \
        -c "SELECT plan->>'split', jsonb_array_length(plan->'regions'),
                   coalesce(plan->'dims', plan->'dimensions'), plan->>'eps', plan->>'metric'
              FROM plans WHERE name = 'places'")
what="simjoin_shard_table lays places out in $SERVERS regions (split|regions|dims|eps|metric: $out)"
if [[ $out == "work|$SERVERS|["*"]|$EPS|euclidean" ]]; then ok "$what"; else not_ok "$what"; fi
check "each region a foreign partition on its server" \
  "$(q -c "SELECT string_agg(c.relname || '@' || s.srvname, ',' ORDER BY c.relname)
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             JOIN pg_foreign_table f ON f.ftrelid = c.oid
             JOIN pg_foreign_server s ON s.oid = f.ftserver
            WHERE i.inhparent = 'places_sharded'::regclass")" \
  "$(for i in $(seq 1 $SERVERS); do printf 'places_sharded_%s@s%s,' $((i - 1)) "$i"; done |
       sed 's/,$//')"
check_equal "self-join pairs over the servers equal the local ones" \
  "$(compare "$(self_pairs places_sharded $EPS)" "$(local_pairs places $EPS)")"
check "count(*) of the sharded self-join equals the local one" \
  "$(q -c "SELECT count(*) FROM ($(self_pairs places_sharded $EPS)) p")" \
  "$(q -c "SELECT count(*) FROM ($(local_pairs places $EPS)) p")"

echo "== b. per-region counts pushed down"
local_all=$(q -c "SELECT count(*) FROM places a JOIN places b ON a.v <-> b.v <= $EPS")
check "sum of GROUP BY simjoin_region counts equals the local count ($local_all)" \
  "$(q -c "$(region_counts places_sharded $EPS)")" "$local_all"
check "the same with a.id < b.id" \
  "$(q -c "SELECT sum(n) FROM (SELECT a.simjoin_region, count(*) n FROM places_sharded a
             JOIN places_sharded b ON a.simjoin_region = b.simjoin_region
             AND a.v <-> b.v <= $EPS WHERE NOT a.simjoin_halo AND a.id < b.id
             GROUP BY a.simjoin_region) s")" \
  "$(q -c "SELECT count(*) FROM ($(local_pairs places $EPS)) p")"

echo "== c. every server at once: Async Foreign Scan, the join in the Remote SQL"
# $1: what; $2: the plan. Every server's scan async, every Remote SQL a join with <->.
check_plan() {
  local async remote
  async=$(grep -c 'Async Foreign Scan' <<<"$2")
  remote=$(grep -E 'Remote SQL: .*JOIN.*<->' <<<"$2" | grep -c .)
  if [ "$async" = $SERVERS ] && [ "$remote" = $SERVERS ]; then
    ok "$1: $async Async Foreign Scans, $remote Remote SQL joins with <->"
  else
    not_ok "$1: $async Async Foreign Scans, $remote Remote SQL joins with <-> (want $SERVERS each)"
    sed 's/^/#   /' <<<"$2" | head -40
  fi
}
for opt in default use_remote_estimate; do
  if [ $opt = use_remote_estimate ]; then
    # The servers' planners estimate the pushed-down join from their tables' statistics: a new
    # layout's tables have none until autovacuum analyzes them, and a join estimated at a few
    # rows aggregates on the coordinator (no Async Foreign Scan). ANALYZE them now.
    for i in $(seq 1 $SERVERS); do
      q -c "ALTER SERVER s$i OPTIONS (ADD use_remote_estimate 'true')" \
        -c "SELECT dblink_exec('s$i', 'ANALYZE')" >/dev/null
    done
  fi
  check_plan "pairs, $opt options" "$(q -c "EXPLAIN VERBOSE $(self_pairs places_sharded $EPS)")"
  check_plan "GROUP BY counts, $opt options" \
    "$(q -c "EXPLAIN VERBOSE $(region_counts places_sharded $EPS)")"
done
for i in $(seq 1 $SERVERS); do
  q -c "ALTER SERVER s$i OPTIONS (DROP use_remote_estimate)" >/dev/null
done

echo "== d. each row at home exactly once"
check "home rows over all servers = source rows" \
  "$(q -c "SELECT count(*) FROM places_sharded WHERE NOT simjoin_halo")" "$places_rows"
check "ids unique among home rows" \
  "$(q -c "SELECT count(DISTINCT id) FROM places_sharded WHERE NOT simjoin_halo")" "$places_rows"
check "each row stored where simjoin_point_regions says (home and halo), nowhere else" \
  "$(q -c "SELECT count(*) FROM (
             (SELECT p.id, r.region, r.halo FROM places p, plans,
                     simjoin_point_regions(p.v, plans.plan) r WHERE plans.name = 'places'
              EXCEPT ALL SELECT id, simjoin_region, simjoin_halo FROM places_sharded)
             UNION ALL
             (SELECT id, simjoin_region, simjoin_halo FROM places_sharded
              EXCEPT ALL SELECT p.id, r.region, r.halo FROM places p, plans,
                     simjoin_point_regions(p.v, plans.plan) r WHERE plans.name = 'places')) x")" 0
check "every region holds home rows" \
  "$(q -c "SELECT count(DISTINCT simjoin_region) FROM places_sharded WHERE NOT simjoin_halo")" \
  $SERVERS

echo "== e. pairs at exactly eps across region boundaries (grid of step $GRID_EPS)"
# A 40 x 30 grid of step 0.5 (exact in binary): each point's 2-4 neighbours at exactly eps.
q -c "CREATE TABLE grid AS SELECT (x * 30 + y)::int id, ARRAY[x * 0.5, y * 0.5]::float8[] v
        FROM generate_series(0, 39) x, generate_series(0, 29) y" -c "ANALYZE grid" >/dev/null
out=$(q -c "INSERT INTO plans SELECT 'grid', simjoin_shard_table('grid', $servers, $GRID_EPS)" \
        -c "SELECT plan->'regions'->0->'upper' FROM plans WHERE name = 'grid'")
echo "# grid plan: region 0's upper bounds $out"
# The region boundaries' pairs: the two points' home regions differ.
cross_pairs() {  # $1: sharded table
  echo "SELECT count(*) FROM ($(local_pairs grid $GRID_EPS)) p (a, b)
          JOIN $1 ha ON ha.id = p.a AND NOT ha.simjoin_halo
          JOIN $1 hb ON hb.id = p.b AND NOT hb.simjoin_halo
         WHERE ha.simjoin_region <> hb.simjoin_region"
}
check_equal "grid: sharded pairs equal the local ones" \
  "$(compare "$(self_pairs grid_sharded $GRID_EPS)" "$(local_pairs grid $GRID_EPS)")"
got=$(q -c "$(cross_pairs grid_sharded)")
if [ "${got:-0}" -gt 0 ] 2>/dev/null; then ok "grid: $got pairs at exactly eps across boundaries"
else not_ok "grid: pairs across boundaries (got '$got')"; fi
# Cuts on grid lines, whatever the sample gave: the plan's first split dimension cut at 5 and
# 10, so that points sit on each boundary and at exactly eps from the next box.
dims=$(q -c "SELECT CASE WHEN plan ? 'dims' THEN 'dims' ELSE 'dimensions' END
               FROM plans WHERE name = 'grid'")
hand="(SELECT jsonb_set(jsonb_set(plan, '{$dims}', jsonb_build_array(plan->'$dims'->0)),
        '{regions}', '[{\"lower\": [null], \"upper\": [5.0]},
          {\"lower\": [5.0], \"upper\": [10.0]}, {\"lower\": [10.0], \"upper\": [null]}]')
        FROM plans WHERE name = 'grid')"
out=$(q -c "SELECT simjoin_shard_table('grid', $servers, $GRID_EPS, target => 'grid_cut',
                                       plan => $hand)->'regions'")
echo "# grid_cut regions: $out"
check_equal "grid, cuts on grid lines: sharded pairs equal the local ones" \
  "$(compare "$(self_pairs grid_cut $GRID_EPS)" "$(local_pairs grid $GRID_EPS)")"
got=$(q -c "$(cross_pairs grid_cut)")
if [ "${got:-0}" -gt 0 ] 2>/dev/null; then
  ok "grid, cuts on grid lines: $got pairs across boundaries"
else not_ok "grid, cuts on grid lines: pairs across boundaries (got '$got')"; fi
check "grid, cuts on grid lines: count(*) equals the local one" \
  "$(q -c "SELECT count(*) FROM ($(self_pairs grid_cut $GRID_EPS)) p")" \
  "$(q -c "SELECT count(*) FROM ($(local_pairs grid $GRID_EPS)) p")"

echo "== f. two tables: the left without halo, the right with the left's plan and halo"
q -c "SELECT setseed(0.42)" -c "CREATE TABLE probes AS SELECT i id,
        ARRAY[5.9 + random() * 4.6, 45.8 + random() * 2.1]::float8[] v
        FROM generate_series(1, 2000) i" -c "ANALYZE probes" >/dev/null
out=$(q -c "INSERT INTO plans SELECT 'probes', simjoin_shard_table('probes', $servers, $EPS,
                                                                   halo => false)" \
        -c "SELECT simjoin_shard_table('places', $servers, $EPS, target => 'places_r',
                 plan => (SELECT plan FROM plans WHERE name = 'probes'))->>'split'")
[ "$out" = work ] || echo "# $out"
check "the left has no halo rows" \
  "$(q -c "SELECT count(*) FILTER (WHERE simjoin_halo), count(*) FROM probes_sharded")" "0|2000"
two_sharded="SELECT l.id l_id, r.id r_id FROM probes_sharded l JOIN places_r r
               ON l.simjoin_region = r.simjoin_region AND l.v <-> r.v <= $EPS"
two_local="SELECT l.id l_id, r.id r_id FROM probes l JOIN places r ON l.v <-> r.v <= $EPS"
check_equal "two-table pairs over the servers equal the local ones" \
  "$(compare "$two_sharded" "$two_local")"
check_plan "two-table pairs" "$(q -c "EXPLAIN VERBOSE $two_sharded")"

echo "== g. a re-layout by point quantiles over the same target"
out=$(q -c "SELECT simjoin_shard_table('places', $servers, $EPS, split => 'points')->>'split'")
check "simjoin_shard_table(split => 'points') over places_sharded" "$out" points
check_equal "points layout: self-join pairs equal the local ones" \
  "$(compare "$(self_pairs places_sharded $EPS)" "$(local_pairs places $EPS)")"
check "points layout: GROUP BY counts equal the local count" \
  "$(q -c "$(region_counts places_sharded $EPS)")" "$local_all"
check "points layout: home rows = source rows, ids unique" \
  "$(q -c "SELECT count(*), count(DISTINCT id) FROM places_sharded WHERE NOT simjoin_halo")" \
  "$places_rows|$places_rows"

echo "== i. similarity_join and its aggregates on every server at once"
sharded_fn() {  # $1: function, $2: arguments after the table and eps
  echo "SELECT * FROM simjoin_sharded_$1('places_sharded', $EPS${2:-})"
}
check_equal "simjoin_sharded_join equals similarity_join (ordered pairs and distances)" \
  "$(compare "$(sharded_fn join)" "SELECT * FROM similarity_join('places', 'places', $EPS)")"
check_equal "simjoin_sharded_join, unique pairs" \
  "$(compare "$(sharded_fn join ", unique_pairs => true")" \
             "SELECT * FROM similarity_join('places', 'places', $EPS, unique_pairs => true)")"
check_equal "simjoin_sharded_join, eps below the layout's" \
  "$(compare "SELECT * FROM simjoin_sharded_join('places_sharded', $EPS / 3)" \
             "SELECT * FROM similarity_join('places', 'places', $EPS / 3)")"
check_equal "simjoin_sharded_stats equals similarity_join_stats" \
  "$(compare "$(sharded_fn stats)" "SELECT * FROM similarity_join_stats('places', 'places', $EPS)")"
check_equal "grid cut on its lines: simjoin_sharded_join equals similarity_join (exactly eps)" \
  "$(compare "SELECT * FROM simjoin_sharded_join('grid_cut', $GRID_EPS, key => 'id')" \
             "SELECT * FROM similarity_join('grid', 'grid', $GRID_EPS, left_key => 'id',
                                            right_key => 'id')")"
for minpts in 3 6; do
  check_equal "simjoin_sharded_dbscan equals simjoin_dbscan (min_points $minpts)" \
    "$(compare "SELECT * FROM simjoin_sharded_dbscan('places_sharded', $EPS, $minpts)" \
               "SELECT * FROM simjoin_dbscan('places', $EPS, $minpts)")"
done
check "simjoin_sharded_dbscan: clusters that span servers (min_points 3)" \
  "$(q -c "SELECT count(*) > 0 FROM (SELECT d.cluster FROM simjoin_dbscan('places', $EPS, 3) d
             JOIN places_sharded s ON s.id = d.id AND NOT s.simjoin_halo
            WHERE d.cluster IS NOT NULL GROUP BY d.cluster
           HAVING count(DISTINCT s.simjoin_region) > 1) x")" t
check_equal "grid cut on its lines: simjoin_sharded_dbscan equals simjoin_dbscan (borders at eps)" \
  "$(compare "SELECT * FROM simjoin_sharded_dbscan('grid_cut', $GRID_EPS, 5, key => 'id')" \
             "SELECT * FROM simjoin_dbscan('grid', $GRID_EPS, 5, key => 'id')")"
# A chain of points 0.5 apart cut midway between two of them: the two at the cut are core only
# with the neighbour beyond it, which each one's home server holds, the other one's does not
# (its halo ends eps beyond the box). The cluster crosses the cuts only through those pairs.
chain_plan='{"format": 1, "metric": "euclidean", "eps": 0.5, "split": "points", "dimensions": [1],
  "regions": [{"lower": [null], "upper": [5.0]}, {"lower": [5.0], "upper": [7.5]},
              {"lower": [7.5], "upper": [null]}], "rows": 20, "sampled_rows": 20}'
out=$(q -c "CREATE TABLE chain AS SELECT k id, ARRAY[0.25 + 0.5 * k, 0]::float8[] v
              FROM generate_series(0, 19) k" \
        -c "SELECT jsonb_array_length(simjoin_shard_table('chain', $servers, 0.5,
                                                          plan => '$chain_plan')->'regions')")
[ "$out" = 3 ] || echo "# chain layout: $out"
check "chain: one cluster locally, home rows on every server" \
  "$(q -c "SELECT count(DISTINCT cluster), count(*) FILTER (WHERE kind = 'core'),
                  (SELECT count(DISTINCT simjoin_region) FROM chain_sharded WHERE NOT simjoin_halo)
             FROM simjoin_dbscan('chain', 0.5, 3, key => 'id')")" "1|18|$SERVERS"
check_equal "chain: simjoin_sharded_dbscan equals simjoin_dbscan (links through rows not core there)" \
  "$(compare "SELECT * FROM simjoin_sharded_dbscan('chain_sharded', 0.5, 3, key => 'id')" \
             "SELECT * FROM simjoin_dbscan('chain', 0.5, 3, key => 'id')")"
check "eps NULL: no rows, as similarity_join gives" \
  "$(q -c "SELECT count(*) FROM simjoin_sharded_join('places_sharded', NULL)")" 0
out=$(q -c "SELECT count(*) FROM simjoin_sharded_join('places_sharded', $EPS * 2)")
if grep -q 'larger than the eps' <<<"$out"; then ok "an eps above the layout's: ${out%%$'\n'*}"
else not_ok "an eps above the layout's is an ERROR (got '$out')"; fi
out=$(q -c "SELECT count(*) FROM simjoin_sharded_stats('places_sharded', $EPS, 'chebyshev')")
if grep -q 'laid out for the euclidean metric' <<<"$out"; then ok "another metric: ${out%%$'\n'*}"
else not_ok "another metric is an ERROR (got '$out')"; fi

echo "== h. a server down during a re-layout"
layout="SELECT count(*), count(*) FILTER (WHERE simjoin_halo), sum(simjoin_region),
               sum(hashtext(id::text || simjoin_region || simjoin_halo)) FROM places_sharded"
before=$(q -c "$layout")
if cluster_down 2; then
  out=$(q -c "SELECT simjoin_shard_table('places', $servers, $EPS, split => 'work')"); rc=$?
  if [ $rc -ne 0 ] && grep -q 'ERROR' <<<"$out"; then
    ok "re-layout with s2 down: an ERROR (${out%%$'\n'*})"
  else
    not_ok "re-layout with s2 down: an ERROR (exit $rc: $out)"
  fi
  out=$(q -c "DO \$\$ BEGIN PERFORM count(*) FROM simjoin_sharded_join('places_sharded', $EPS);
               EXCEPTION WHEN OTHERS THEN RAISE WARNING 'caught: %', SQLERRM; END \$\$" \
          -c "SELECT coalesce(cardinality(dblink_get_connections()), 0)")
  if grep -q 'server "s2"' <<<"$out" && [ "$(tail -1 <<<"$out")" = 0 ]; then
    ok "simjoin_sharded_join with s2 down: an ERROR naming it, no connection left open"
  else
    not_ok "simjoin_sharded_join with s2 down: an ERROR naming it, no connection left (got '$out')"
  fi
  cluster_up 2 >/dev/null || echo "# s2 did not start again"
else
  not_ok "s2 stops"
fi
check "s2 up again: the previous layout unchanged" "$(q -c "$layout")" "$before"
check_equal "s2 up again: self-join pairs equal the local ones" \
  "$(compare "$(self_pairs places_sharded $EPS)" "$(local_pairs places $EPS)")"
check "s2 up again: GROUP BY counts equal the local count" \
  "$(q -c "$(region_counts places_sharded $EPS)")" "$local_all"

finish
