# kNN joins as jobs of the GPU service, sourced by service_test.sh (its cluster, q, check,
# wait_for helpers): similarity_knn_join with simjoin.device = gpu runs as a "knn join" job (the
# service's CPU test device answers here, the tensor-core kNN join on a GPU), with
# simjoin.device = cpu in this backend; both must give PostgreSQL's own rows.

echo "== kNN join jobs: results"
# Keys in another order than the rows, duplicate points (ties at the k-th distance go to the
# smaller key), a NULL vector (no point, no row), 10-D: above the 8 of the CPU's sorted walk, so
# that auto may choose the service.
q -c "DROP TABLE IF EXISTS knn_l, knn_r;
      CREATE TABLE knn_l (id int PRIMARY KEY, v float8[]);
      INSERT INTO knn_l SELECT (i * 7) % 601, ARRAY(SELECT ((i * j * 37) % 23) / 4.0 FROM generate_series(1, 10) j)
        FROM generate_series(1, 600) i;
      UPDATE knn_l SET v = NULL WHERE id = 14;
      CREATE TABLE knn_r (id int PRIMARY KEY, v float8[]);
      INSERT INTO knn_r SELECT (i * 5) % 1201, ARRAY(SELECT ((i * j * 13) % 19) / 4.0 + 0.25 FROM generate_series(1, 10) j)
        FROM generate_series(1, 1200) i;
      ANALYZE knn_l; ANALYZE knn_r" >/dev/null

# PostgreSQL's own answer (table ref) for similarity_knn_join($1, $2, $3 [, eps $4]) with the
# distance operator $5 (default <->) and the extra condition $6 on b.
reference_knn() {
  echo "SET simjoin.enable_customscan = off;
        CREATE TEMP TABLE ref AS SELECT a.id::int8 AS left_id, n.id::int8 AS right_id, n.d AS distance, n.rank
        FROM $1 a CROSS JOIN LATERAL (
          SELECT b.id, a.v ${5:-<->} b.v AS d, (row_number() OVER (ORDER BY a.v ${5:-<->} b.v, b.id))::int AS rank
          FROM $2 b WHERE a.v ${5:-<->} b.v <= ${4:-'Infinity'} ${6:-} ORDER BY a.v ${5:-<->} b.v, b.id LIMIT $3) n;
        RESET simjoin.enable_customscan;"
}
# Checks that $2 (a similarity_knn_join call) as a service job equals PostgreSQL's answer ($3:
# reference_knn's arguments) and the in-process CPU run's.
knn_case() {
  local label=$1 call=$2
  shift 2
  check "kNN join, $label: the service's rows equal PostgreSQL's and the CPU's" \
    "$(q -c "$(reference_knn "$@") SET simjoin.device = cpu;
             CREATE TEMP TABLE cpu AS SELECT * FROM $call;
             SET simjoin.device = gpu; SET simjoin.gpu_error = error;
             CREATE TEMP TABLE svc AS SELECT * FROM $call;
             SELECT (SELECT count(*) FROM svc) > 0 AND NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM ref)
                    AND NOT EXISTS (SELECT * FROM ref EXCEPT ALL SELECT * FROM svc),
                    NOT EXISTS (SELECT * FROM svc EXCEPT ALL SELECT * FROM cpu)
                    AND NOT EXISTS (SELECT * FROM cpu EXCEPT ALL SELECT * FROM svc)" | tr '|' ' ')" "t t"
}
jobs_before=$(q -c "SELECT jobs_done FROM simjoin_devices()")
knn_case "two tables, k = 5" "similarity_knn_join('knn_l', 'knn_r', 5)" knn_l knn_r 5
knn_case "two tables, k = 3 within eps 2.5" "similarity_knn_join('knn_l', 'knn_r', 3, 2.5)" knn_l knn_r 3 2.5
knn_case "self-join, the row its own neighbour" "similarity_knn_join('knn_l', 'knn_l', 4)" knn_l knn_l 4
knn_case "self-join without the row itself" \
  "similarity_knn_join('knn_l', 'knn_l', 4, include_self => false)" knn_l knn_l 4 "'Infinity'" "<->" "AND b.id <> a.id"
knn_case "cosine, k = 2" "similarity_knn_join('knn_l', 'knn_r', 2, metric => 'cosine')" knn_l knn_r 2 "'Infinity'" "<=>"
check "and ran as five service jobs" "$(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()")" 5

echo "== kNN join jobs: what runs where"
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.explain = on;
            SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 3)" 2>&1)
check "the explain NOTICE names the service" "$(echo "$out" | grep -c 'device=gpu service') $(echo "$out" | tail -1)" "1 1797"
jobs_before=$(q -c "SELECT jobs_done FROM simjoin_devices()")
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.explain = on;
            SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 40)" 2>&1)
check "k above the GPU's 32 runs in this backend (no job, device=cpu)" \
  "$(echo "$out" | grep -c 'device=cpu') $(echo "$out" | tail -1) $(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()")" \
  "1 23960 0"
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.explain = on;
            SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 3, metric => 'manhattan')" 2>&1)
check "and so does a metric it does not take" "$(echo "$out" | grep -c 'device=cpu') $(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()")" "1 0"
# auto: on one thread 600 x 1,200 x 10 is too little work for a job (about 4 ms on the CPU),
# 600 x 120,000 x 10 enough (about 0.4 s).
q -c "DROP TABLE IF EXISTS knn_big; CREATE TABLE knn_big (id int PRIMARY KEY, v float8[]);
      INSERT INTO knn_big SELECT i, ARRAY(SELECT ((i * j * 13) % 101) / 8.0 FROM generate_series(1, 10) j)
        FROM generate_series(1, 120000) i; ANALYZE knn_big" >/dev/null
jobs_before=$(q -c "SELECT jobs_done FROM simjoin_devices()")
q -c "SET simjoin.device = auto; SET simjoin.threads = 1; SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 3)" >/dev/null
small=$(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()")
big=$(q -c "SET simjoin.device = auto; SET simjoin.threads = 1; SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_big', 3)")
check "auto keeps a small kNN join here and sends a large one to the service" \
  "$small $(q -c "SELECT jobs_done - $jobs_before FROM simjoin_devices()") $big" "0 1 1797"

echo "== kNN join jobs: faults, cancel"
out=$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = fallback; SET simjoin.service_test_fault = error;
            SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 3)" 2>&1)
check "a failed kNN job reruns on this backend's CPU with a NOTICE" \
  "$(echo "$out" | grep -c 'injected fault); running it on the CPU') $(echo "$out" | tail -1)" "1 1797"
check "or raises with gpu_error = error" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = error;
           SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_r', 3)" | grep -o 'ERROR:  simjoin: injected fault')" \
  "ERROR:  simjoin: injected fault"
timeout 20 psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = stall;
  SELECT count(*) FROM similarity_knn_join('knn_l', 'knn_big', 3)" >"$log_dir/knn_stall.out" 2>&1 &
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
check "simjoin_jobs() shows the kNN job" "$(q -c "SELECT kind FROM simjoin_jobs()")" "knn join"
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs()" >/dev/null
wait
check "a cancel ends it (the query is cancelled, the slot freed)" \
  "$(grep -c 'canceling statement due to user request' "$log_dir/knn_stall.out") $(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" "1 0"
check "no reservation is left" "$(q -c "SELECT reserved_bytes FROM simjoin_devices()")" 0
q -c "DROP TABLE knn_l, knn_r, knn_big" >/dev/null
