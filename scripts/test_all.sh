#!/usr/bin/env bash
# Runs every test of simjoin on a fresh machine: installs what is missing (scripts/setup.sh),
# builds, runs the engine's GoogleTest suite, starts a throwaway PostgreSQL 15 cluster, runs the
# pg_regress suite (test/sql, expected/), the isolation specs (test/isolation), the pgTAP suite
# (test/pgtap), the README's SQL blocks (test/readme) and a bounded run of the differential fuzzer
# (test/fuzz, some sessions ended mid-query), and tears it down; then the GPU service's tests
# (test/service) on a second, preloaded cluster, sessions ended mid-join (test/session_death), and
# the Debian package.
# Ends with one line "simjoin: N passed, M failed". Exit status 0 only if all passed.
#   SIMJOIN_NO_APT=1         skip package installation (a machine without apt, e.g. the GPU one)
#   SIMJOIN_TEST_DEVICE=gpu  run the SQL suites with simjoin.device = gpu (default: the setting's)
#   SIMJOIN_EXISTING_SERVER=1  use the server that PGHOST/PGPORT/PGUSER name (e.g. the GPU
#                              machine's .device/pg-up) instead of a throwaway cluster
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
log_dir=${SIMJOIN_TEST_LOGS:-$root/build/test-logs}
mkdir -p "$log_dir"

if [ -z "${SIMJOIN_NO_APT:-}" ]; then
  bash scripts/setup.sh || { echo "simjoin: 0 passed, 1 failed"; exit 1; }
else
  make -j"$(nproc)" >/dev/null && make install >/dev/null || { echo "simjoin: 0 passed, 1 failed"; exit 1; }
fi

passed=0
failed=0

# 1. The engine, on its own.
echo "== engine (GoogleTest)"
make -j"$(nproc)" build/engine_tests >/dev/null || { echo "engine tests failed to build"; failed=$((failed + 1)); }
if [ -x build/engine_tests ]; then
  build/engine_tests --gtest_brief=1 2>&1 | tee "$log_dir/engine.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure" | head -50
  p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log_dir/engine.log" | grep -oE '[0-9]+$' || echo 0)
  f=$(grep -oE '^\[  FAILED  \] [0-9]+ test' "$log_dir/engine.log" | grep -oE '[0-9]+' || echo 0)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  grep -q '^\[  PASSED  \]' "$log_dir/engine.log" || failed=$((failed + 1))
fi

# 2. SQL suites on a throwaway cluster.
source scripts/pg_cluster.sh
if [ -z "${SIMJOIN_EXISTING_SERVER:-}" ]; then
  pg_cluster_start || { echo "simjoin: $passed passed, $((failed + 1)) failed"; exit 1; }
fi
if [ -n "${SIMJOIN_TEST_DEVICE:-}" ]; then export PGOPTIONS="-c simjoin.device=$SIMJOIN_TEST_DEVICE"; fi
# SIMJOIN_TEST_ALGORITHM=szl (grid, bruteforce): the suites with simjoin.algorithm forced.
if [ -n "${SIMJOIN_TEST_ALGORITHM:-}" ]; then
  export PGOPTIONS="${PGOPTIONS:-} -c simjoin.algorithm=$SIMJOIN_TEST_ALGORITHM"
fi

echo "== pg_regress (test/sql, expected/) and isolation (test/isolation)"
rm -rf results regression.diffs regression.out "$log_dir/regression.diffs.regress"
make installcheck ISOLATION= >"$log_dir/regress.log" 2>&1
[ -f regression.diffs ] && mv regression.diffs "$log_dir/regression.diffs.regress"
make isolationcheck >>"$log_dir/regress.log" 2>&1  # it empties ./regression.diffs first
[ -f "$log_dir/regression.diffs.regress" ] && cat "$log_dir/regression.diffs.regress" >> regression.diffs
grep -E "^(ok|not ok|test )|tests passed|failed" "$log_dir/regress.log" | head -60
p=$(grep -cE '^ok ' "$log_dir/regress.log"); f=$(grep -cE '^not ok ' "$log_dir/regress.log")
if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then  # pg_regress's older output format
  p=$(grep -cE '^test .* \.\.\. ok' "$log_dir/regress.log"); f=$(grep -cE '^test .* \.\.\. FAILED' "$log_dir/regress.log")
fi
[ -f regression.diffs ] && { cp regression.diffs "$log_dir/"; head -80 regression.diffs; }
[ "$p" -gt 0 ] || f=$((f + 1))
passed=$((passed + p)); failed=$((failed + f))
# A test whose part for an optional extension the server lacks passes without it: say so
# (pgvector: no Debian 12 package, so customscan_pgvector's expected output is the one without).
for ext in $(grep -hoE "pg_available_extensions WHERE name = '[a-z_0-9]+'" test/sql/*.sql | cut -d"'" -f2 | sort -u); do
  [ -n "$(psql -AtX -c "SELECT 1 FROM pg_available_extensions WHERE name = '$ext'")" ] ||
    echo "note: extension $ext not installed: skipped its part of $(grep -l "name = '$ext'" test/sql/*.sql | xargs -n1 basename | tr '\n' ' ')"
done

echo "== pgTAP (test/pgtap)"
psql -qX -c "DROP DATABASE IF EXISTS simjoin_tap" -c "CREATE DATABASE simjoin_tap" >/dev/null 2>&1
pg_prove -d simjoin_tap --ext .sql -r test/pgtap >"$log_dir/pgtap.log" 2>&1
cat "$log_dir/pgtap.log" | tail -30
p=$(grep -oE 'Tests=[0-9]+' "$log_dir/pgtap.log" | grep -oE '[0-9]+' || echo 0)
f=$(grep -oE 'Failed: [0-9]+' "$log_dir/pgtap.log" | awk '{s += $2} END {print s + 0}')
grep -q '^Result: PASS' "$log_dir/pgtap.log" || [ "$f" -gt 0 ] || f=1
passed=$((passed + ${p:-0} - f)); failed=$((failed + f))

# Upgrades: each earlier version, created and updated with ALTER EXTENSION simjoin UPDATE, must
# equal a fresh CREATE EXTENSION (dumps, members and comments, \dx+, behaviour). One test.
echo "== upgrades (test/upgrade)"
if bash test/upgrade/upgrade_test.sh >"$log_dir/upgrade.log" 2>&1; then
  passed=$((passed + 1)); tail -1 "$log_dir/upgrade.log"
else
  failed=$((failed + 1)); grep -v '^ok: ' "$log_dir/upgrade.log" | head -80
fi

echo "== README's SQL (test/readme)"
if bash test/readme/run_readme_sql.sh >"$log_dir/readme.log" 2>&1; then
  passed=$((passed + 1)); tail -1 "$log_dir/readme.log"
else
  failed=$((failed + 1)); tail -40 "$log_dir/readme.log"
fi

# A bounded, seeded run of the differential fuzzer (test/fuzz): generated tables and queries, each
# compared with PostgreSQL's own plan. One test per seed; scripts/fuzz.sh runs longer campaigns.
# One-sided data exceptions are notes, not failures: like a hash join, the custom scan evaluates
# its key expressions on every row, where a nested loop may skip rows another clause rules out.
echo "== fuzzer (test/fuzz): seeds ${SIMJOIN_FUZZ_SEEDS:-1 2 3}, ${SIMJOIN_FUZZ_QUERIES:-500} queries each"
fuzz=${SIMJOIN_FUZZ_BIN:-build/simjoin_fuzz}  # the GPU machine carries one built here (no libpq.so there)
if [ -n "${SIMJOIN_FUZZ_BIN:-}" ] || make -s build/simjoin_fuzz >"$log_dir/fuzz-build.log" 2>&1; then
  for seed in ${SIMJOIN_FUZZ_SEEDS:-1 2 3}; do
    if "$fuzz" --seed "$seed" --queries "${SIMJOIN_FUZZ_QUERIES:-500}" --lenient-data-errors \
         --end-sessions "${SIMJOIN_FUZZ_END_SESSIONS:-10}" \
         --log "$log_dir/fuzz-failures.log" >"$log_dir/fuzz-$seed.log" 2>&1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      grep -A30 '^=== FAILURE' "$log_dir/fuzz-$seed.log" | head -60
    fi
    grep -E '^fuzz: seed ' "$log_dir/fuzz-$seed.log" | tail -1
  done
else
  cat "$log_dir/fuzz-build.log"; failed=$((failed + 1))
fi

pg_cluster_stop

# A suite that prints "ok ..." / "not ok ..." lines and ends with "NAME: ..." (missing: it did not
# finish, one failure): its counts into passed and failed.
count_suite() {  # NAME LOG
  local p f
  p=$(grep -cE '^ok ' "$2"); f=$(grep -cE '^not ok ' "$2")
  grep -q "^$1: " "$2" || f=$((f + 1))
  passed=$((passed + p)); failed=$((failed + f))
}

# The GPU service's shared-memory path on its own cluster (preloaded, the CPU engine as the
# service's device): the pg_regress suite through service jobs, faults, cancel in every state, a
# full ledger, a killed service, many sessions. Each check counts. The GPU machine runs the same
# path on its GPU with scripts/device/service_check.sh instead.
if [ -z "${SIMJOIN_EXISTING_SERVER:-}" ]; then
  echo "== GPU service (test/service, CPU test device)"
  SIMJOIN_TEST_LOGS=$log_dir bash test/service/service_test.sh >"$log_dir/service.log" 2>&1
  grep -E '^not ok|^service: ' "$log_dir/service.log"
  count_suite service "$log_dir/service.log"
fi

# Sessions ended mid-join (test/session_death): pg_terminate_backend and dropped connections at
# random moments of every form's life, on a plain and a preloaded cluster; no crash restart, no
# lease or service job left. Bounded here; longer campaigns with --rounds and --seed.
if [ -z "${SIMJOIN_EXISTING_SERVER:-}" ]; then
  echo "== session death (test/session_death), ${SIMJOIN_SESSION_DEATH_ROUNDS:-60} rounds a cluster"
  SIMJOIN_TEST_LOGS=$log_dir bash test/session_death/session_death.sh --rounds "${SIMJOIN_SESSION_DEATH_ROUNDS:-60}" \
    >"$log_dir/session_death.log" 2>&1
  grep -E '^(ok|not ok) ' "$log_dir/session_death.log"
  count_suite session_death "$log_dir/session_death.log"
fi

# One table sharded over three servers with postgres_fdw (test/shards): a coordinator and three
# clusters of its own; the sharded joins equal the local ones, run on every server at once.
if [ -z "${SIMJOIN_EXISTING_SERVER:-}" ]; then
  echo "== shards (test/shards)"
  SIMJOIN_TEST_LOGS=$log_dir bash test/shards/shard_test.sh >"$log_dir/shards.log" 2>&1
  grep -E '^(not ok|shards: )' "$log_dir/shards.log"
  count_suite shards "$log_dir/shards.log"
fi

# The Debian package, built from a copy of the tree and checked (scripts/package_test.sh; no server
# needed). Skipped with SIMJOIN_NO_APT: a machine without apt has no Debian packaging tools.
if [ -z "${SIMJOIN_NO_APT:-}" ]; then
  echo "== Debian package (scripts/package_test.sh)"
  if bash scripts/package_test.sh >"$log_dir/package.log" 2>&1; then
    passed=$((passed + 1)); tail -1 "$log_dir/package.log"
  else
    failed=$((failed + 1)); tail -20 "$log_dir/package.log"
  fi
fi

echo "simjoin: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
