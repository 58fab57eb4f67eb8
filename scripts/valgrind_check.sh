#!/usr/bin/env bash
# Runs PostgreSQL under Valgrind memcheck (every backend: --trace-children is not needed, the
# postmaster forks them) with simjoin installed, runs SQL test files and optionally a fuzzer run
# against it, and reports every memcheck error whose stack passes through simjoin.so.
#   bash scripts/valgrind_check.sh [--fuzz-queries N] [--fuzz-seed S] [test ...]
# Tests are names from test/sql (default: the custom-scan rescan, self-join and delivery tests,
# robustness and similarity_join). Exit status 1 when an error in simjoin.so was found.
# Debian's server is not built with USE_VALGRIND, so palloc'd chunks are not poisoned one by one:
# memcheck sees reads of undefined memory and accesses outside malloc'd blocks (large arrays,
# over 8 kB, are blocks of their own), and the engine's C++ heap and threads in full.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

fuzz_queries=0
fuzz_seed=1
tests=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-queries) fuzz_queries=$2; shift 2 ;;
    --fuzz-seed) fuzz_seed=$2; shift 2 ;;
    *) tests+=("$1"); shift ;;
  esac
done
[ ${#tests[@]} -gt 0 ] || tests=(customscan_rescan customscan_self_join robustness similarity_join)

command -v valgrind >/dev/null || { echo "valgrind_check: valgrind not found (apt-get install valgrind)"; exit 2; }
out=${SIMJOIN_VALGRIND_OUT:-$root/build/valgrind}
rm -rf "$out"; mkdir -p "$out/expected"
cp expected/*.out "$out/expected/"
chmod -R a+rwX "$out"

PG_BIN=/usr/lib/postgresql/15/bin
dir=$(mktemp -d /tmp/simjoin-vg.XXXXXX)
chmod 755 "$dir"
as_owner() { if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$dir"; (cd / && su postgres -s /bin/bash -c "$*"); else bash -c "$*"; fi; }
port=$((55000 + RANDOM % 1000))
as_owner "$PG_BIN/initdb -D $dir/data -A trust -U postgres -E UTF8 --locale=C.UTF-8 >$dir/initdb.log 2>&1" ||
  { cat "$dir/initdb.log"; exit 2; }
# autovacuum off: its workers only add noise and time under Valgrind.
as_owner "valgrind --tool=memcheck --quiet --error-limit=no --num-callers=30 --read-var-info=no \
  --log-file=$dir/vg.%p.log $PG_BIN/postgres -D $dir/data -p $port -k $dir -c listen_addresses= \
  -c autovacuum=off -c simjoin.device=cpu >$dir/server.log 2>&1 &"
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres
for _ in $(seq 1 120); do pg_isready -q && break; sleep 1; done
pg_isready -q || { echo "valgrind_check: the server did not start"; tail -20 "$dir/server.log"; exit 2; }
stop() { as_owner "$PG_BIN/pg_ctl -D $dir/data -m fast stop -t 120 >/dev/null 2>&1"; }
trap 'stop; rm -rf "$dir"' EXIT

status=0
echo "== pg_regress under valgrind: ${tests[*]}"
/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress --inputdir=test --outputdir="$out" \
  --load-extension=simjoin --dbname=vg_regression "${tests[@]}" 2>&1 | grep -E "^(test|ok|not ok)| tests? " || true
if [ "$fuzz_queries" -gt 0 ]; then
  echo "== fuzzer under valgrind: seed $fuzz_seed, $fuzz_queries queries"
  make -s build/simjoin_fuzz >/dev/null && build/simjoin_fuzz --seed "$fuzz_seed" --queries "$fuzz_queries" \
    --lenient-data-errors | tail -3
fi
stop
trap 'rm -rf "$dir"' EXIT

# Error blocks (each starts with a "==pid== Kind ..." line, blank-prefixed lines end it): keep
# those whose stack names simjoin.so.
cat "$dir"/vg.*.log > "$out/valgrind.log" 2>/dev/null
sed -E 's/^==[0-9]+== ?//' "$out/valgrind.log" |
  awk 'BEGIN { RS = ""; } /simjoin\.so/ && !/blocks are (definitely|indirectly|possibly) lost|still reachable/ { print; print ""; }' \
  > "$out/simjoin-errors.log"
total=$(sed -E 's/^==[0-9]+== ?//' "$out/valgrind.log" | grep -cE '^(Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument)' || true)
ours=$(grep -cE '^(Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument)' "$out/simjoin-errors.log" || true)
echo "valgrind: $total error lines in all backends, $ours in blocks through simjoin.so ($out/simjoin-errors.log)"
[ "$ours" -eq 0 ] || { head -60 "$out/simjoin-errors.log"; status=1; }
exit $status
