#!/usr/bin/env bash
# On the GPU machine (device tool), from the repository's root, with the carried folders
# .device (PostgreSQL bundle from ../shared/device/pack), .device-gtest (GoogleTest sources) and
# optionally .device-postgis (PostGIS's shared libraries): builds and installs simjoin with CUDA,
# runs every test with simjoin.device = gpu through the GPU service (the cluster restarted with the
# library preloaded), then the SQL-level benchmarks. Output under $OUT.
#   scripts/device/pg_check.sh [build] [tests] [fuzz] [bench] [cosine] [bench1m] [bench1m-repeat] [bench1m-floor]
#                                                                  (no argument: tests and bench)
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-logs}
mkdir -p "$OUT"
steps=" ${*:-tests bench} "

source scripts/device/pg_up.sh || exit 1  # the bundle, PostGIS, the cluster

# GoogleTest from source (the GPU machine has no system package).
source scripts/device/gtest.sh
setup_gtest

if [[ $steps == *" build "* ]]; then  # build and install only (tests does both itself)
  { make -j16 && make install; } > "$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
fi

if [[ $steps == *" tests "* ]]; then
  # simjoin.device = gpu runs through the GPU service: the library installed, then the cluster
  # restarted with it preloaded (test_all.sh's own build and install find nothing to do).
  mkdir -p "$OUT/logs"
  { make -j16 && make install; } > "$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
  restart_preloaded 100 || exit 1
  [ -x .device-fuzz/simjoin_fuzz ] && export SIMJOIN_FUZZ_BIN=.device-fuzz/simjoin_fuzz
  SIMJOIN_NO_APT=1 SIMJOIN_EXISTING_SERVER=1 SIMJOIN_TEST_DEVICE=gpu SIMJOIN_TEST_LOGS=$OUT/logs \
    bash scripts/test_all.sh > "$OUT/test_all.txt" 2>&1
  echo "tests: $(tail -1 "$OUT/test_all.txt")"
  [ -f regression.diffs ] && cp regression.diffs "$OUT/logs/"
fi

if [[ $steps == *" cosine "* ]]; then
  # The cosine join on 100-D vectors: the engine alone (GPU, and the CPU engine on every core),
  # then bench/sql/cosine_100d.sql with the engine on the GPU against PostgreSQL's own plan
  # (COSINE_N rows, default 10000), and the custom scan alone on COSINE_BIG_N rows.
  make -j16 build/simjoin_bench > "$OUT/bench-build.txt" 2>&1 || tail -5 "$OUT/bench-build.txt"
  for device in gpu cpu; do
    build/simjoin_bench --data directions --n ${COSINE_BIG_N:-100000} --dim 100 --eps 0.02 \
      --metric cosine --device $device --repeat $([ $device = gpu ] && echo 3 || echo 1) 2>&1 | tee -a "$OUT/cosine-engine.txt"
  done
  PGOPTIONS="-c simjoin.device=gpu" psql -X -v n=${COSINE_N:-10000} -f bench/sql/cosine_100d.sql \
    > "$OUT/cosine-sql.txt" 2>&1
  PGOPTIONS="-c simjoin.device=gpu" psql -X -v n=${COSINE_BIG_N:-100000} -v native=off \
    -f bench/sql/cosine_100d.sql > "$OUT/cosine-sql-big.txt" 2>&1
  grep -E "^==|Time:|^ +[0-9]+$|Device|Engine" "$OUT/cosine-sql.txt" "$OUT/cosine-sql-big.txt"
fi

if [[ $steps == *" bench1m "* ]]; then
  # bench/sql/customscan_1m.sql with the engine on the GPU: the custom scan against PostgreSQL's
  # own plan on 1M-row sets (SETS_NATIVE), the custom scan alone on SETS_CUSTOM. BENCH1M_OPTS:
  # more psql options for the script (e.g. "-v pairs=off -v analyze=on").
  for set in ${SETS_NATIVE-uniform3 places}; do
    PGOPTIONS="-c simjoin.device=gpu" psql -X -v set=$set ${BENCH1M_OPTS:-} -f bench/sql/customscan_1m.sql 2>&1 |
      grep -vE "^(SET|DROP|CREATE|COPY [0-9]|ANALYZE|VACUUM)" > "$OUT/bench1m-$set.txt"
    cat "$OUT/bench1m-$set.txt"
  done
  for set in ${SETS_CUSTOM-cluster16}; do
    PGOPTIONS="-c simjoin.device=gpu" psql -X -v set=$set -v native=off ${BENCH1M_OPTS:-} -f bench/sql/customscan_1m.sql 2>&1 |
      grep -vE "^(SET|DROP|CREATE|COPY [0-9]|ANALYZE|VACUUM)" > "$OUT/bench1m-$set.txt"
    cat "$OUT/bench1m-$set.txt"
  done
fi

if [[ $steps == *" bench1m-repeat "* ]]; then
  # uniform3 (1M 3-D points, cube and float8[] columns) built once by customscan_1m.sql, then
  # ROUNDS rounds of the cube count(*) query, interleaved: the custom scan with the engine on
  # the GPU and on the CPU (all cores), three runs per session (the first pays the session's
  # CUDA start), and PostgreSQL's own plan once.
  psql -X -q -v set=uniform3 -v pairs=off -v native=off -v keep=on \
    -f bench/sql/customscan_1m.sql > /dev/null 2>&1
  query="SELECT count(*) FROM bm_data a JOIN bm_data b ON cube_enlarge(a.c, 1, 3) @> b.c AND a.c <-> b.c <= 1"
  run_query() {  # $1: custom scan on|off, $2: simjoin.device, $3: runs
    local args=(-X -c "LOAD 'simjoin'" -c "SET work_mem = '256MB'" -c "SET jit = off"
                -c "SET simjoin.enable_customscan = $1" -c "SET simjoin.device = $2" -c '\timing on')
    for _ in $(seq "$3"); do args+=(-c "$query"); done
    psql "${args[@]}" 2>&1 | grep -E "Time|^ +[0-9]+$" | tr '\n' ' '
    echo
  }
  for round in $(seq "${ROUNDS:-3}"); do
    echo "round $round gpu: $(run_query on gpu 3)"
    echo "round $round cpu: $(run_query on cpu 3)"
    echo "round $round native: $(run_query off auto 1)"
  done | tee "$OUT/bench1m-repeat.txt"
fi

if [[ $steps == *" bench1m-floor "* ]]; then
  # The floor under the places count(*) (5,413,692 pairs of 997,840 rows) in this PostgreSQL:
  # one sequential scan of the table and count(*) over a stored table of the result's size, next
  # to the custom scan itself (single process, GPU engine); then bench/sql/delivery.sql.
  psql -X -q -v set=places -v native=off -v custom=off -v keep=on -v pairs=off \
    -f bench/sql/customscan_1m.sql > /dev/null 2>&1
  psql -X -q -c "DROP TABLE IF EXISTS floor_rows" \
    -c "CREATE TABLE floor_rows AS SELECT i AS a, i AS b FROM generate_series(1, 5413692) i" \
    -c "VACUUM ANALYZE floor_rows" -c "VACUUM ANALYZE bm_data"
  dwithin="SELECT count(*) FROM bm_data a JOIN bm_data b ON ST_DWithin(a.g, b.g, 1)"
  array="SELECT count(*) FROM bm_data a JOIN bm_data b ON a.v <-> b.v <= 1"
  {
    psql -X -c "LOAD 'simjoin'" -c "SET work_mem = '256MB'" -c "SET jit = off" \
      -c "SET max_parallel_workers_per_gather = 0" -c "SET simjoin.device = gpu" -c '\timing on' \
      -c "SELECT count(g) FROM bm_data" -c "SELECT count(g) FROM bm_data" \
      -c "SELECT count(*) FROM floor_rows" -c "SELECT count(*) FROM floor_rows" \
      -c "$dwithin" -c "$dwithin" -c "$dwithin" -c "$array" -c "$array" 2>&1 |
      grep -E "Time|^ +[0-9]+$"
    echo "== bench/sql/delivery.sql"
    PGOPTIONS="-c simjoin.device=gpu" psql -X -f bench/sql/delivery.sql 2>&1 |
      grep -E "Time|rows_v|^ +[0-9]+ +\|"
  } | tee "$OUT/bench1m-floor.txt"
fi

if [[ $steps == *" fuzz "* ]]; then
  # The differential fuzzer with the engine on the GPU (the custom scan and similarity_join()
  # against PostgreSQL's own plan): FUZZ_SEEDS, FUZZ_QUERIES queries each; a GPU failure is
  # an error (no silent fallback to the CPU engine). The binary is built
  # on the development machine and carried in .device-fuzz (the bundle has no libpq.so to link).
  fuzz=.device-fuzz/simjoin_fuzz
  [ -x "$fuzz" ] || { make -s build/simjoin_fuzz && fuzz=build/simjoin_fuzz; }
  for seed in ${FUZZ_SEEDS:-1 2 3}; do
    PGOPTIONS="-c simjoin.gpu_error=error" "$fuzz" --seed "$seed" --queries "${FUZZ_QUERIES:-1000}" \
      --device gpu --log "$OUT/fuzz-failures.log" > "$OUT/fuzz-$seed.txt" 2>&1
    tail -1 "$OUT/fuzz-$seed.txt"
  done
fi

if [[ $steps == *" bench "* ]]; then
  {
    echo "== similarity_join vs cube GiST, 1M uniform 3-D points, eps 1: GPU"
    PGOPTIONS="-c simjoin.device=gpu" timeout 240 psql -X -q -v n=1000000 -v eps=1 -v once=1 \
      -f bench/sql/function_vs_gist.sql 2>&1 | grep -E "^n =|Time|native|simjoin|equal|[0-9] \|"
    echo "== the same similarity_join on the CPU engine (all cores)"
    PGOPTIONS="-c simjoin.device=cpu" psql -X -q -c '\timing on' \
      -c "SELECT count(*) FROM similarity_join('bench_points', 'bench_points', 1, left_column => 'v', right_column => 'v')" \
      -c "SELECT count(*) FROM similarity_join('bench_points', 'bench_points', 1, left_column => 'v', right_column => 'v')" 2>&1 | grep -E "Time|^ +[0-9]+$"
    echo "== custom scan vs native plans, n=${BENCH_N:-500000}, GPU"
    PGOPTIONS="-c simjoin.device=gpu" timeout 300 psql -X -v n=${BENCH_N:-500000} -f bench/sql/customscan_bench.sql 2>&1 |
      grep -E "^==|Time|^ +[0-9]+$|Custom Scan|Nested Loop|Hash Join"
  } > "$OUT/bench.txt" 2>&1
  cat "$OUT/bench.txt"
fi
