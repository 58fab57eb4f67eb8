#!/usr/bin/env bash
# On the GPU machine (device tool; carry .device and .device-gtest), from the repository's root:
# the GPU service on a real GPU. Builds and installs simjoin for Hopper, restarts the cluster with
# shared_preload_libraries = 'simjoin', then measures and checks, output under $OUT:
#   first-join   a new session's first join, GPU service against the CPU engine (10-row table)
#   regress      the pg_regress suite through the GPU service (simjoin.device = gpu, gpu_error = error;
#                REGRESS_TESTS: some of its tests)
#   concurrent   N sessions at once (function and custom scan mixed, gpu_error = error) on a
#                500k-row clustered 2-D table: every count right, no error, GPU memory sampled
#   concurrent100  the same with 64 sessions on a 100k-row 100-D set
#   faults       on the GPU: an injected engine error (fallback and error), a service killed
#                mid-job (the session falls back, the service restarts, the next job works), a
#                sticky CUDA error (the context is poisoned: the service restarts)
#   throughput   16 sessions at once on a 100-D set, GPU service against the CPU engine
#   calibrate    the engine alone (simjoin_bench) on the CPU (16 threads) and the GPU over a sweep
#                of sets: each run's sampled work estimate and its times, for fitting the device
#                choice's speeds (src/engine/choice/device_choice.cpp)
#   panel        bench/device_panel.sh: simjoin.device = cpu, gpu and auto on eight sets (SETS)
#   choice       bench/choice_panel.sh: the held-out panel of the device and algorithm choice
#                (CHOICE_SETS: some of its sets; carry .device-data for its real sets)
#   aggregates   aggregates through the service on the GPU: bench/sql/aggregates_group_by.sql
#                (1M places, GROUP BY a.id counts and count(*)) with simjoin.device = gpu and cpu,
#                PostgreSQL's plan once (AGG_NATIVE=off skips it); simjoin_dbscan of 10M uniform
#                2-D rows and simjoin_cluster_dbscan against ST_ClusterDBSCAN on the places
#                (AGG_PARTS: groupby dbscan postgis; and, asked for by name: workers, the GPU run
#                again with max_parallel_workers_per_gather 0, 2 and 8, the sides read by 1, 3
#                and 8 processes; loadthreads, the GPU run with simjoin.load_threads 0, -1, 4
#                and 15 and max_parallel_workers_per_gather 2 and 8; dbscan32, simjoin_dbscan of
#                1M clustered 32-D rows)
#   gtest        the engine's GPU tests (the backend installed as the GPU service installs it;
#                GTEST_FILTER, default 'Gpu*:*Gpu*'; GTEST_TIMEOUT seconds, default 420)
#   sanitizer    compute-sanitizer memcheck on the GPU edge cases (SANITIZER_FILTER)
#   scripts/device/service_check.sh [first-join] [regress] [concurrent] [gtest] [sanitizer]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-logs}
mkdir -p "$OUT"
steps=" ${*:-first-join regress concurrent gtest} "
source scripts/device/pg_up.sh || exit 1  # the bundle, PostGIS, the cluster
export CUDA_ARCH="-gencode arch=compute_90,code=sm_90"
{ make -j16 && make install; } >"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
restart_preloaded 200 || exit 1
psql -X -c "SELECT * FROM simjoin_device_info()" -c "SELECT * FROM simjoin_devices()" | tee "$OUT/devices.txt"
grep simjoin /tmp/pg.log | head -5

if [[ $steps == *" first-join "* ]]; then
  psql -qX -c "DROP TABLE IF EXISTS small; CREATE TABLE small (id int PRIMARY KEY, v float8[]);
               INSERT INTO small SELECT i, ARRAY[i, i] FROM generate_series(1, 10) i"
  for device in gpu cpu gpu cpu gpu cpu; do  # each a new session: its first join
    t=$(psql -AtqX -c "SET simjoin.device = $device; SET simjoin.gpu_error = error" -c '\timing on' \
          -c "SELECT count(*) FROM similarity_join('small', 'small', 1.5)" 2>&1 | grep -oE 'Time: [0-9.]+' | cut -d' ' -f2)
    echo "first join of a new session, device=$device: $t ms" | tee -a "$OUT/first-join.txt"
  done
fi

if [[ $steps == *" regress "* ]]; then
  mkdir -p "$OUT/regress" && ln -sfn "$PWD/expected" "$OUT/regress/expected"
  PGOPTIONS="-c simjoin.device=gpu -c simjoin.gpu_error=error" \
    /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress --inputdir=test --outputdir="$OUT/regress" \
    --load-extension=simjoin ${REGRESS_TESTS:-$(ls test/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//')} \
    >"$OUT/regress.txt" 2>&1
  tail -4 "$OUT/regress.txt"
  psql -X -c "SELECT * FROM simjoin_devices()"
fi

# many_sessions TABLE EPS NAME: SESSIONS sessions at once (half similarity_join(), half the custom
# scan, simjoin.device = gpu, gpu_error = error) on TABLE, every count checked against the CPU
# engine's, GPU memory sampled; results in $OUT/NAME.txt.
many_sessions() {
  local table=$1 eps=$2 name=$3 n=${SESSIONS:-64} want start elapsed smi sql
  want=$(psql -AtqX -c "SET simjoin.device = cpu; SELECT count(*) FROM similarity_join('$table', '$table', $eps)")
  echo "pairs (CPU engine): $want" | tee -a "$OUT/$name.txt"
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits -lms 100 >"$OUT/gpu-mem-$name.csv" &
  smi=$!
  start=$(date +%s%N)
  for s in $(seq 1 "$n"); do
    if [ $((s % 2)) -eq 0 ]; then sql="SELECT count(*) FROM similarity_join('$table', '$table', $eps)"
    else sql="SELECT count(*) FROM $table a JOIN $table b ON a.v <-> b.v <= $eps"; fi
    psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; $sql" >"$OUT/session_$s.txt" 2>&1 &
  done
  wait $(jobs -p | grep -v "^$smi$")
  elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
  kill $smi
  cat "$OUT"/session_*.txt | grep -v -x "$want" | sort | uniq -c | head -5 | tee -a "$OUT/$name.txt"
  echo "$n sessions on $table: $(cat "$OUT"/session_*.txt | grep -cx "$want") right, $(cat "$OUT"/session_*.txt | grep -c ERROR) errors, ${elapsed} ms;" \
       "GPU memory peak $(cut -d, -f1 "$OUT/gpu-mem-$name.csv" | sort -n | tail -1) MiB of $(head -1 "$OUT/gpu-mem-$name.csv" | cut -d, -f2) MiB" | tee -a "$OUT/$name.txt"
  rm -f "$OUT"/session_*.txt
  psql -X -c "SELECT * FROM simjoin_devices()" | tee -a "$OUT/$name.txt"
}

if [[ $steps == *" concurrent "* ]]; then
  psql -qX -c "DROP TABLE IF EXISTS skew; CREATE TABLE skew (id int PRIMARY KEY, v float8[]);
               INSERT INTO skew SELECT i, ARRAY[(i % 50) * 10 + random() * power(random(), 3) * 10, random() * 500]
               FROM generate_series(1, 500000) i; ANALYZE skew"
  many_sessions skew 0.05 concurrent
  for device in cpu gpu; do  # 16 sessions at once on each (the CPU engine under the thread cap)
    start=$(date +%s%N)
    for s in $(seq 1 16); do
      psql -AtqX -c "SET simjoin.device = $device; SELECT count(*) FROM similarity_join('skew', 'skew', 0.05)" >/dev/null 2>&1 &
    done
    wait
    echo "16 sessions, simjoin.device = $device: $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$OUT/concurrent.txt"
  done
fi

if [[ $steps == *" concurrent100 "* ]]; then  # the same on a 100-D set (100k rows)
  df -h /dev/shm | tail -1 | sed 's/^/shared memory: /' | tee "$OUT/concurrent100.txt"
  psql -qX -c "DROP TABLE IF EXISTS c100; CREATE TABLE c100 (id int PRIMARY KEY, v float8[]);
               INSERT INTO c100 SELECT i, (SELECT array_agg((i % 100) + random() * 0.5 + 0 * g) FROM generate_series(1, 100) g)
               FROM generate_series(1, 100000) i; ANALYZE c100"
  many_sessions c100 1.8 concurrent100
fi

if [[ $steps == *" faults "* ]]; then
  psql -qX -c "DROP TABLE IF EXISTS f2; CREATE TABLE f2 (id int PRIMARY KEY, v float8[]);
               INSERT INTO f2 SELECT i, ARRAY[i % 300, i / 300] FROM generate_series(1, 90000) i"
  want=$(psql -AtqX -c "SET simjoin.device = cpu; SELECT count(*) FROM similarity_join('f2', 'f2', 1.5)")
  {
    echo "pairs (CPU engine): $want"
    echo "engine error, fallback: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.service_test_fault = error; SELECT count(*) FROM similarity_join('f2', 'f2', 1.5)" 2>&1 | tr '\n' ' ')"
    echo "engine error, error: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = error; SELECT count(*) FROM f2 a JOIN f2 b ON a.v <-> b.v <= 1.5" 2>&1 | tr '\n' ' ')"
    old=$(psql -AtqX -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'")
    psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.service_test_fault = stall; SET statement_timeout = '60s'; SELECT count(*) FROM similarity_join('f2', 'f2', 1.5)" >"$OUT/killed.txt" 2>&1 &
    sleep 1
    psql -AtqX -c "SELECT state FROM simjoin_jobs()" -c "SELECT pg_terminate_backend($old)"
    wait
    echo "service killed mid-job: session got $(tr '\n' ' ' < "$OUT/killed.txt")"
    for _ in $(seq 1 100); do
      [ "$(psql -AtqX -c "SELECT gpu_available FROM simjoin_device_info()")" = t ] && break; sleep 0.1
    done
    echo "restarted service: $(psql -AtqX -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'") (was $old)"
    echo "next job: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM f2 a JOIN f2 b ON a.v <-> b.v <= 1.5" 2>&1)"
    old=$(psql -AtqX -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'")
    echo "sticky CUDA error (injected), fallback: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.service_test_fault = sticky; SELECT count(*) FROM similarity_join('f2', 'f2', 1.5)" 2>&1 | tr '\n' ' ')"
    for _ in $(seq 1 100); do
      [ "$(psql -AtqX -c "SELECT gpu_available FROM simjoin_device_info()")" = t ] && break; sleep 0.1
    done
    echo "service after the sticky error: $(psql -AtqX -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'") (was $old)"
    echo "next job: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('f2', 'f2', 1.5)" 2>&1)"
    echo "crash restarts in the log: $(grep -c 'terminating any other active server processes' /tmp/pg.log)"
  } | tee "$OUT/faults.txt"
fi

if [[ $steps == *" throughput "* ]]; then
  psql -qX -c "DROP TABLE IF EXISTS d100; CREATE TABLE d100 (id int PRIMARY KEY, v float8[]);
               INSERT INTO d100 SELECT i, (SELECT array_agg((i % 100) + random() * 0.5 + 0 * g) FROM generate_series(1, 100) g)
               FROM generate_series(1, ${D100_N:-30000}) i; ANALYZE d100"
  psql -AtqX -c "SET simjoin.device = gpu; SELECT count(*) FROM similarity_join('d100', 'd100', 1.8)" | sed 's/^/pairs: /' | tee "$OUT/throughput.txt"
  for device in gpu cpu; do
    start=$(date +%s%N)
    for s in $(seq 1 16); do
      psql -AtqX -c "SET simjoin.device = $device; SELECT count(*) FROM similarity_join('d100', 'd100', 1.8)" >"$OUT/t100_${device}_$s.txt" 2>&1 &
    done
    wait
    echo "16 sessions, 100-D, ${D100_N:-30000} rows, simjoin.device = $device: $(( ($(date +%s%N) - start) / 1000000 )) ms;" \
         "distinct answers: $(cat "$OUT"/t100_${device}_*.txt | sort -u | tr '\n' ' ')" | tee -a "$OUT/throughput.txt"
  done
fi

if [[ $steps == *" calibrate "* ]]; then
  make -j16 build/simjoin_bench >"$OUT/bench-build.txt" 2>&1 || tail -5 "$OUT/bench-build.txt"
  while read -r args; do
    for device in cpu gpu; do
      timeout 60 build/simjoin_bench $args --device $device --threads 16 --repeat 2 | grep -v '^$'
    done
  done >"$OUT/calibrate.txt" 2>&1 < <(grep -v "^#" bench/calibration_sets.txt)
  grep -c total_s "$OUT/calibrate.txt"
fi

if [[ $steps == *" panel "* ]]; then
  ROUNDS=${ROUNDS:-2} NOTICE_LOG="$OUT/panel_notices.txt" bash bench/device_panel.sh ${SETS:-} 2>&1 | tee "$OUT/panel.txt"
fi

if [[ $steps == *" choice "* ]]; then
  ROUNDS=${ROUNDS:-2} NOTICE_LOG="$OUT/choice_notices.txt" bash bench/choice_panel.sh ${CHOICE_SETS:-} 2>&1 | tee "$OUT/choice.txt"
fi

if [[ $steps == *" aggregates "* ]]; then
  parts=" ${AGG_PARTS:-groupby dbscan postgis} "  # which of the three parts run
  [[ $parts == *" groupby "* ]] && for device in gpu cpu; do
    native=off; [ $device = gpu ] && native=${AGG_NATIVE:-on}
    PGOPTIONS="-c simjoin.device=$device" timeout 300 psql -X -v keep=on -v reuse=$([ $device = gpu ] && echo off || echo on) \
      -v native=$native -f bench/sql/aggregates_group_by.sql > "$OUT/aggregates-$device.txt" 2>&1
    echo "== aggregates, simjoin.device = $device"
    grep -E "^==|Time:|results_equal| t$| f$|Engine Aggregates|Engine:" "$OUT/aggregates-$device.txt" | head -40
  done
  [[ $parts == *" workers "* ]] && for workers in 0 2 8; do
    PGOPTIONS="-c simjoin.device=gpu -c max_parallel_workers_per_gather=$workers" timeout 200 psql -X \
      -v keep=on -v reuse=on -v native=off -f bench/sql/aggregates_group_by.sql \
      > "$OUT/aggregates-gpu-workers$workers.txt" 2>&1
    echo "== aggregates, simjoin.device = gpu, max_parallel_workers_per_gather = $workers"
    grep -E "^==|Time:|Parallel Load|Engine:" "$OUT/aggregates-gpu-workers$workers.txt" | head -30
  done
  # loadthreads: the GPU run with the sides read by the leader's parse threads (simjoin.load_threads
  # N, -1: auto) or by PostgreSQL's workers (0), max_parallel_workers_per_gather 2 and 8
  [[ $parts == *" loadthreads "* ]] && for setting in "0 2" "-1 2" "4 2" "15 2" "0 8" "-1 8"; do
    set -- $setting
    PGOPTIONS="-c simjoin.device=gpu -c simjoin.load_threads=$1 -c max_parallel_workers_per_gather=$2" \
      timeout 200 psql -X -v keep=on -v reuse=on -v native=off -f bench/sql/aggregates_group_by.sql \
      > "$OUT/aggregates-gpu-load$1-workers$2.txt" 2>&1
    echo "== aggregates, simjoin.device = gpu, load_threads = $1, max_parallel_workers_per_gather = $2"
    grep -E "^==|Time:|Parallel Load" "$OUT/aggregates-gpu-load$1-workers$2.txt" | head -16
  done
  [[ $parts == *" dbscan32 "* ]] && psql -X > "$OUT/dbscan-32d.txt" 2>&1 <<'SQL'
-- 100 clusters of 10,000 points in 32-D: centres in [0, 100)^32, each point its centre plus
-- uniform noise in [-0.5, 0.5)^32 (two points of a cluster about 2.3 apart, 1.4% within 1.7)
CREATE TABLE IF NOT EXISTS c32 AS
  SELECT i AS id, ARRAY(SELECT (hashint4(i % 100 * 32 + d) & 65535)::float8 / 655.36 + random() - 0.5
                        FROM generate_series(1, 32) d) AS v
  FROM generate_series(1, 1000000) i;
SET simjoin.explain = on; SET simjoin.explain_machine_details = on;
\timing on
SET simjoin.device = gpu;
SELECT kind, count(*), count(DISTINCT cluster) FROM simjoin_dbscan('c32', 1.7, 20, key => 'id') GROUP BY kind ORDER BY kind;
SELECT kind, count(*), count(DISTINCT cluster) FROM simjoin_dbscan('c32', 1.7, 20, key => 'id') GROUP BY kind ORDER BY kind;
SET simjoin.device = cpu;
SELECT kind, count(*), count(DISTINCT cluster) FROM simjoin_dbscan('c32', 1.7, 20, key => 'id') GROUP BY kind ORDER BY kind;
SQL
  [[ $parts == *" dbscan32 "* ]] && { echo "== simjoin_dbscan 1M clustered 32-D"; grep -E "Time:|NOTICE|core|border|noise" "$OUT/dbscan-32d.txt" | head -20; }
  [[ $parts == *" dbscan "* ]] && psql -X > "$OUT/dbscan-10m.txt" 2>&1 <<'SQL'
SET simjoin.device = gpu; SET simjoin.explain = on; SET simjoin.explain_machine_details = on;
CREATE TABLE IF NOT EXISTS u10m AS SELECT i AS id, ARRAY[random(), random()]::float8[] AS v
  FROM generate_series(1, 10000000) i;
\timing on
SELECT kind, count(*) FROM simjoin_dbscan('u10m', 0.0005, 5, key => 'id') GROUP BY kind ORDER BY kind;
SELECT kind, count(*) FROM simjoin_dbscan('u10m', 0.0005, 5, key => 'id') GROUP BY kind ORDER BY kind;
SET simjoin.device = cpu;
SELECT kind, count(*) FROM simjoin_dbscan('u10m', 0.0005, 5, key => 'id') GROUP BY kind ORDER BY kind;
SQL
  echo "== simjoin_dbscan 10M uniform 2-D"; grep -E "Time:|NOTICE|core|border|noise" "$OUT/dbscan-10m.txt" | head -20
  [[ $parts == *" postgis "* ]] && for run in ${AGG_POSTGIS_RUNS:-1:10 2:10 2:50}; do  # copies:eps
    n=${run%%:*} eps=${run#*:}
    PGOPTIONS="-c simjoin.device=gpu" timeout 200 psql -X -v n=$n -v eps=$eps -v min_points=5 \
      -f bench/sql/dbscan_postgis.sql > "$OUT/dbscan-postgis-$n-$eps.txt" 2>&1
    echo "== dbscan_postgis n=$n eps=$eps"
    grep -E -A4 "plan .*runs|speedup|noise_differences" "$OUT/dbscan-postgis-$n-$eps.txt" | head -20
  done
fi

if [[ $steps == *" gtest "* ]]; then
  source scripts/device/gtest.sh
  setup_gtest
  make -j16 build/engine_tests >"$OUT/gtest-build.txt" 2>&1 || tail -5 "$OUT/gtest-build.txt"
  timeout "${GTEST_TIMEOUT:-420}" build/engine_tests --gtest_brief=1 \
    --gtest_filter="${GTEST_FILTER:-Gpu*:*Gpu*}" >"$OUT/gtest.txt" 2>&1
  tail -4 "$OUT/gtest.txt"
fi

if [[ $steps == *" sanitizer "* ]]; then
  if [ ! -x build/engine_tests ]; then
    source scripts/device/gtest.sh
    setup_gtest
    make -j16 build/engine_tests >"$OUT/gtest-build.txt" 2>&1 || tail -5 "$OUT/gtest-build.txt"
  fi
  timeout 200 compute-sanitizer --tool memcheck --leak-check full build/engine_tests \
    --gtest_filter="${SANITIZER_FILTER:-GpuEdgeCases*:GpuStreaming*}" >"$OUT/memcheck.txt" 2>&1
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck.txt" | tail -3
fi
grep -iE "simjoin|FATAL|PANIC" /tmp/pg.log | tail -10 > "$OUT/pg-log-tail.txt"
