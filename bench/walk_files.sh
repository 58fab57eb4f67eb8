#!/usr/bin/env bash
# The simjoin source files a query executes: the two walks of docs/ARCHITECTURE.md (a plain SQL
# join; similarity_join()) run in a single-user backend under callgrind, against the installed
# extension (build with -g, as the Makefile does). Needs valgrind; run as root or as postgres.
#   bash bench/walk_files.sh [OUT]     -> OUT/files1.txt, OUT/files2.txt and their counts
set -euo pipefail
out=${1:-walk-files}; mkdir -p "$out"
pg_bin=/usr/lib/postgresql/15/bin
dir=$(mktemp -d /tmp/simjoin-walk.XXXXXX)
as_owner() { if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$dir"; (cd / && su postgres -s /bin/bash -c "$*"); else bash -c "$*"; fi; }
trap 'rm -rf "$dir"' EXIT
as_owner "$pg_bin/initdb -D $dir/data -A trust -U postgres >/dev/null"
single() { as_owner "${1:-} $pg_bin/postgres --single -D $dir/data -c simjoin.threads=2 postgres"; }
printf '%s\n' "CREATE EXTENSION simjoin;" \
  "CREATE TABLE a (id int PRIMARY KEY, v float8[]); CREATE TABLE b (id int PRIMARY KEY, v float8[]);" \
  "INSERT INTO a SELECT i, ARRAY[(i*7919 % 1000)/100.0, (i*104729 % 1000)/100.0] FROM generate_series(1,20000) i;" \
  "INSERT INTO b SELECT i, ARRAY[(i*7907 % 1000)/100.0, (i*104723 % 1000)/100.0] FROM generate_series(1,20000) i;" \
  "ANALYZE a; ANALYZE b;" | single >/dev/null
n=1
for query in "SELECT count(*) FROM (SELECT a.id, b.id FROM a JOIN b ON a.v <-> b.v <= 0.05 OFFSET 0) s;" \
             "SELECT count(*) FROM similarity_join('a', 'b', 0.05);"; do
  echo "$query" | single "valgrind --tool=callgrind --callgrind-out-file=$dir/cg.$n" >/dev/null 2>&1
  callgrind_annotate --threshold=100 "$dir/cg.$n" 2>/dev/null |
    grep -oE '(^|[ /])(src|cuda)/[^ :]+\.(cpp|h|cu|cuh):' | sed -E 's#^[ /]*##; s/:$//' |
    grep -vE '^src/(backend|include|common|port|interfaces|pl|bin)/' | sort -u > "$out/files$n.txt"
  echo "walk $n: $(wc -l < "$out/files$n.txt") files ($query)"
  n=$((n + 1))
done
