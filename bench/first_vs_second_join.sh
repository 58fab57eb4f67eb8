#!/usr/bin/env bash
# A session's first join against its second (the same query, the same session): the time a new
# session pays on top (loading the library, the planner's sample, catalog caches, the engine's
# first threads), with PostgreSQL's own first and second plain query beside it for the baseline
# any session pays (bench/first_join_ratio.sh sets a first join against PostgreSQL's plan
# instead). Runs on a throwaway cluster (scripts/pg_cluster.sh) from the repository's root:
#   bash bench/first_vs_second_join.sh [rows ...]      (default: 126000 1000000)
# Per size: 3-D points uniform in [0, 100)^2 x [0, 10) as float8[] and as a cube with a GiST
# index; SELECT count(*) of the self-join within 0.5 in each form (cube as users write it for its
# index, in sessions with session_preload_libraries = 'simjoin': cube's operators do not load the
# library; the array form loads it in its first query, timed), five new sessions each timing the query twice (psql's \timing); the median of the
# five firsts and of the five seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pg_cluster.sh
pg_cluster_start
psql -qX -c "CREATE EXTENSION simjoin" -c "CREATE EXTENSION cube" >/dev/null
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(126000 1000000)
for rows in "${sizes[@]}"; do
  psql -qX -c "DROP TABLE IF EXISTS fj" -c "SELECT setseed(0.5)" \
    -c "CREATE TABLE fj AS SELECT id, v, cube(v) AS c FROM (SELECT i AS id,
          ARRAY[random() * 100, random() * 100, random() * 10] AS v FROM generate_series(1, $rows) i) s" \
    -c "ALTER TABLE fj ADD PRIMARY KEY (id)" -c "CREATE INDEX ON fj USING gist (c)" \
    -c "VACUUM ANALYZE fj" >/dev/null
  for query in "SELECT count(*) FROM fj a JOIN fj b ON a.v <-> b.v <= 0.5" \
      "SELECT count(*) FROM fj a JOIN fj b ON cube_enlarge(a.c, 0.5, 3) @> b.c AND a.c <-> b.c <= 0.5" \
      "SELECT count(*) FROM fj"; do
    firsts=() seconds=()
    for _ in 1 2 3 4 5; do
      preload=""
      [[ $query == *cube* ]] && preload="-c session_preload_libraries=simjoin"
      times=($(PGOPTIONS="$preload" psql -AtqX -c '\timing on' -c "$query" -c "$query" |
                 grep -oE 'Time: [0-9.]+' | cut -d' ' -f2))
      firsts+=("${times[0]}") seconds+=("${times[1]}")
    done
    first=$(printf '%s\n' "${firsts[@]}" | median)
    second=$(printf '%s\n' "${seconds[@]}" | median)
    printf '%8s rows  first %8.1f ms  second %8.1f ms  ratio %.2f  %s\n' "$rows" "$first" "$second" \
      "$(echo "$first / $second" | bc -l)" "$query"
  done
done
