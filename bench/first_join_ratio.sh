#!/usr/bin/env bash
# A new session's first join against PostgreSQL's own plan, measured in pairs close in time: each
# round runs the GROUP BY neighbour counts of bench/sql/aggregates_group_by.sql (wrapped the same
# way) as the first join of a new session, then PostgreSQL's plan in another new session
# (simjoin.enable_customscan = off), then a new session's first join again, and prints PostgreSQL's
# time over the mean of the two. On a shared machine whose speed drifts, a ratio from times taken
# minutes apart says little; these are seconds apart.
#
# Needs the table bm_data left by `psql -v keep=on -f bench/sql/aggregates_group_by.sql` in the
# database the libpq environment (PGHOST, PGPORT, PGDATABASE) names.
#   bench/first_join_ratio.sh [rounds (6)] [eps (1)]
set -euo pipefail
rounds=${1:-6}
eps=${2:-1}
group_by="SELECT a.id, count(*) AS c FROM bm_data a JOIN bm_data b ON ST_DWithin(a.g, b.g, $eps) GROUP BY a.id"
query="SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM ($group_by) s"

# One new session: its settings, the plan (EXPLAIN, untimed, as the bench script does), then the
# query timed; prints milliseconds.
session_time() {
  psql -X -q -v ON_ERROR_STOP=1 <<SQL | awk '/^Time:/ { print $2 }'
SET work_mem = '256MB';
LOAD 'simjoin';
$1
EXPLAIN (COSTS OFF) $group_by;
\timing on
$query;
SQL
}

for round in $(seq "$rounds"); do
  before=$(session_time "")
  native=$(session_time "SET simjoin.enable_customscan = off;")
  after=$(session_time "")
  awk -v a="$before" -v n="$native" -v b="$after" -v r="$round" 'BEGIN {
    printf "round %d: first joins %.1f, %.1f ms; PostgreSQL %.0f ms; %.1fx\n", r, a, b, n, n / ((a + b) / 2)
  }'
done
