#!/usr/bin/env bash
# On the GPU machine (device tool; carry .device), from the repository's root: similarity_knn_join
# through the GPU service on a real GPU. Builds and installs simjoin for Hopper, restarts the
# cluster with shared_preload_libraries = 'simjoin', then, output under $OUT:
#   regress   the kNN suite through the service (simjoin.device = gpu, gpu_error = error): the
#             same output as on the CPU engine
#   bench     bench/sql/knn_100d.sql (1,000 queries x 300,000 100-D rows, k = 10) with
#             simjoin.device = gpu, PostgreSQL's LATERAL plan on its first LATERAL_Q queries
#   compare   on the same tables and on 30,000 exponential 128-D rows (self, k = 10): the
#             function with simjoin.device = gpu (three new sessions: each its first join) and
#             cpu (all cores), the rows of both compared
#   large     1,000,000 exponential 128-D rows (LARGE_N), self, k = 10, on the GPU (two new
#             sessions); not compared (the CPU engine takes hours): the function's own tests are
#   scripts/device/knn_check.sh [regress] [bench] [compare] [large]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-logs}
mkdir -p "$OUT"
steps=" ${*:-regress bench compare large} "
source scripts/device/pg_up.sh || exit 1
export CUDA_ARCH="-gencode arch=compute_90,code=sm_90"
{ make -j16 && make install; } >"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
restart_preloaded 100 || exit 1
psql -X -c "SELECT * FROM simjoin_devices()" | tee "$OUT/devices.txt"

if [[ $steps == *" regress "* ]]; then
  mkdir -p "$OUT/regress" && ln -sfn "$PWD/expected" "$OUT/regress/expected"
  PGOPTIONS="-c simjoin.device=gpu -c simjoin.gpu_error=error" \
    /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress --inputdir=test --outputdir="$OUT/regress" \
    --load-extension=simjoin knn_join >"$OUT/regress.txt" 2>&1
  tail -4 "$OUT/regress.txt"
fi

if [[ $steps == *" bench "* ]]; then
  PGOPTIONS="-c simjoin.device=gpu -c simjoin.gpu_error=error" \
    psql -X -v n=300000 -v q=1000 -v k=10 -v lateral_q="${LATERAL_Q:-20}" -f bench/sql/knn_100d.sql \
    >"$OUT/knn_100d_gpu.txt" 2>&1
  grep -E "Time|only_|^ +[0-9]+ \|" "$OUT/knn_100d_gpu.txt" | tail -12
fi

# Times similarity_knn_join($1) in a new session with simjoin.device = $2 into table $3 (kept).
timed_knn() {
  psql -AtqX -c "SET simjoin.device = $2; SET simjoin.gpu_error = error; SET simjoin.explain = on" \
    -c "DROP TABLE IF EXISTS $3" -c '\timing on' -c "CREATE TABLE $3 AS SELECT * FROM similarity_knn_join($1)" 2>&1 |
    grep -E 'Time|device=' | tr '\n' ' '
  echo
}
# Compares tables $1 and $2 as multisets of rows: "equal (N rows)" or the counts that differ.
compare_rows() {
  psql -AtqX -c "SELECT CASE WHEN a = 0 AND b = 0 THEN 'equal (' || n || ' rows)' ELSE a || ' and ' || b || ' rows differ' END
                 FROM (SELECT (SELECT count(*) FROM (SELECT * FROM $1 EXCEPT ALL SELECT * FROM $2) x) AS a,
                              (SELECT count(*) FROM (SELECT * FROM $2 EXCEPT ALL SELECT * FROM $1) x) AS b,
                              (SELECT count(*) FROM $1) AS n) c"
}

if [[ $steps == *" compare "* ]]; then
  {
    echo "== 1,000 queries x 300,000 clustered 100-D rows, k = 10 (bench/sql/knn_100d.sql's tables)"
    for run in 1 2 3; do echo "gpu, new session $run: $(timed_knn "'knn_queries', 'knn_base', 10" gpu knn_gpu)"; done
    echo "cpu: $(timed_knn "'knn_queries', 'knn_base', 10" cpu knn_cpu)"
    echo "gpu against cpu: $(compare_rows knn_gpu knn_cpu)"
    echo "reading the vectors alone (SELECT sum(array_length(v, 1)) of both tables):" \
      "$(psql -AtqX -c '\timing on' -c "SELECT (SELECT sum(array_length(v, 1)) FROM knn_base) + (SELECT sum(array_length(v, 1)) FROM knn_queries)" | grep Time)"
    echo "gpu, every phase: $(psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.explain = on; SET simjoin.explain_machine_details = on" \
      -c '\timing on' -c "SELECT count(*) FROM similarity_knn_join('knn_queries', 'knn_base', 10)" 2>&1 | tr '\n' ' ')"
    echo "== 30,000 exponential (lambda 40) 128-D rows, self, k = 10"
    psql -qX -c "DROP TABLE IF EXISTS knn_exp" -c "SELECT setseed(0.25)" \
      -c "CREATE TABLE knn_exp AS SELECT i AS id, ARRAY(SELECT -ln(1 - random()) / 40
            FROM generate_series(1, 128) j WHERE i > 0) AS v FROM generate_series(1, 30000) i" \
      -c "ALTER TABLE knn_exp ADD PRIMARY KEY (id)" -c "VACUUM ANALYZE knn_exp" >/dev/null
    for run in 1 2 3; do echo "gpu, new session $run: $(timed_knn "'knn_exp', 'knn_exp', 10" gpu exp_gpu)"; done
    echo "cpu: $(timed_knn "'knn_exp', 'knn_exp', 10" cpu exp_cpu)"
    echo "gpu against cpu: $(compare_rows exp_gpu exp_cpu)"
    echo "gpu, include_self => false: $(timed_knn "'knn_exp', 'knn_exp', 10, include_self => false" gpu exp_gpu_other)"
    echo "cpu, include_self => false: $(timed_knn "'knn_exp', 'knn_exp', 10, include_self => false" cpu exp_cpu_other)"
    echo "gpu against cpu: $(compare_rows exp_gpu_other exp_cpu_other)"
    echo "gpu, cosine: $(timed_knn "'knn_exp', 'knn_exp', 10, metric => 'cosine'" gpu exp_gpu_cos)"
    echo "cpu, cosine: $(timed_knn "'knn_exp', 'knn_exp', 10, metric => 'cosine'" cpu exp_cpu_cos)"
    echo "gpu against cpu: $(compare_rows exp_gpu_cos exp_cpu_cos)"
    psql -X -c "SELECT * FROM simjoin_devices()"
  } 2>&1 | tee "$OUT/compare.txt"
fi

if [[ $steps == *" large "* ]]; then
  {
    n=${LARGE_N:-1000000}
    echo "== $n exponential (lambda 40) 128-D rows, self, k = 10"
    psql -qX -c "DROP TABLE IF EXISTS knn_large" -c "SELECT setseed(0.75)" \
      -c "CREATE TABLE knn_large AS SELECT i AS id, ARRAY(SELECT -ln(1 - random()) / 40
            FROM generate_series(1, 128) j WHERE i > 0) AS v FROM generate_series(1, $n) i" \
      -c "ALTER TABLE knn_large ADD PRIMARY KEY (id)" -c "VACUUM ANALYZE knn_large" >/dev/null
    for run in 1 2; do echo "gpu, new session $run: $(timed_knn "'knn_large', 'knn_large', 10" gpu large_gpu)"; done
    psql -AtqX -c "SELECT count(*), count(DISTINCT left_id), max(rank) FROM large_gpu"
  } 2>&1 | tee "$OUT/large.txt"
fi
