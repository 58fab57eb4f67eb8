#!/usr/bin/env bash
# The GPU service's shared-memory path, without a GPU: a throwaway cluster with
# shared_preload_libraries = 'simjoin' and simjoin.service_device = cpu (the service runs the CPU
# engine as its device), then
#   1. the whole pg_regress suite (test/sql, expected/) with simjoin.device = gpu and
#      simjoin.gpu_error = error: every engine join goes through a service job and must give the
#      same output as in this backend;
#   2. the checks below, with concurrent sessions: results equal, faults, cancel and
#      statement_timeout in every job state, LIMIT, backend exit, a full ledger and its queue, a
#      killed service and its restart, many sessions at once within the ledger;
#   3. aggregate jobs (aggregate_jobs.sh): neighbour statistics and DBSCAN computed by the service,
#      equal to PostgreSQL's and to this backend's, cancelled, failed, fallen back;
#   4. kNN join jobs (knn_jobs.sh): similarity_knn_join as a service job, likewise.
# Ends with "service: N passed, M failed"; exit status 0 only if all passed.
#   SIMJOIN_EXISTING_SERVER=1  use the server PGHOST/PGPORT name (started with the preload)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
log_dir=${SIMJOIN_TEST_LOGS:-$root/build/test-logs}
mkdir -p "$log_dir"
passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', expected '$3')"; fi; }
q() { psql -AtqX -v ON_ERROR_STOP=1 "$@" 2>&1; }

source scripts/pg_cluster.sh
if [ -z "${SIMJOIN_EXISTING_SERVER:-}" ]; then
  PG_CLUSTER_OPTS="-c shared_preload_libraries=simjoin -c simjoin.service_device=cpu -c max_connections=60" \
    pg_cluster_start || { echo "service: 0 passed, 1 failed"; exit 1; }
fi

# Polls a query until it prints the wanted value (at most $3 seconds, default 5).
wait_for() {
  local query=$1 want=$2 limit=${3:-5} got=""
  for _ in $(seq 1 $((limit * 20))); do
    got=$(q -c "$query")
    [ "$got" = "$want" ] && { echo "$got"; return 0; }
    sleep 0.05
  done
  echo "$got"
  return 1
}
service_pid() { q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'"; }

echo "== the service is up"
check "the service runs and reports its test device" \
  "$(wait_for "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'" 1)" 1
q -c "CREATE EXTENSION IF NOT EXISTS simjoin" >/dev/null
check "simjoin_device_info() says the service runs" "$(q -c "SELECT gpu_available FROM simjoin_device_info()")" t
check "simjoin_devices() lists the device and its ledger" \
  "$(q -c "SELECT name || ' ' || (ledger_limit_bytes > 0) FROM simjoin_devices()")" "cpu (test device) true"

echo "== the pg_regress suite through the service (simjoin.device = gpu, gpu_error = error)"
rm -rf "$log_dir/service-regress" && mkdir -p "$log_dir/service-regress"
ln -s "$root/expected" "$log_dir/service-regress/expected"
PGOPTIONS="-c simjoin.device=gpu -c simjoin.gpu_error=error" \
  "$(pg_config --pgxs | xargs dirname)/../test/regress/pg_regress" --inputdir=test \
  --outputdir="$log_dir/service-regress" --load-extension=simjoin \
  $(ls test/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//') >"$log_dir/service-regress.log" 2>&1
regress_ok=$(grep -cE '^ok |^test .* \.\.\. ok' "$log_dir/service-regress.log")
regress_failed=$(grep -cE '^not ok |^test .* \.\.\. FAILED' "$log_dir/service-regress.log")
if [ "$regress_failed" -eq 0 ] && [ "$regress_ok" -gt 0 ]; then
  ok "pg_regress through the service: $regress_ok tests"
else
  not_ok "pg_regress through the service: $regress_failed of $((regress_ok + regress_failed)) failed"
  head -60 "$log_dir/service-regress/regression.diffs" 2>/dev/null
fi
check "the regress suite's joins ran as service jobs" \
  "$(q -c "SELECT jobs_done > 20 FROM simjoin_devices()")" t

echo "== results"
q -c "DROP TABLE IF EXISTS svc_p; CREATE TABLE svc_p (id int PRIMARY KEY, v float8[]);
      INSERT INTO svc_p SELECT i, ARRAY[(i % 200)::float8, (i / 200)::float8] FROM generate_series(1, 40000) i;
      ANALYZE svc_p" >/dev/null
on_cpu=$(q -c "SET simjoin.device = cpu; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)")
check "similarity_join: the service's count equals the backend's" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)")" "$on_cpu"
check "custom scan: the service's pairs equal PostgreSQL's plan" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error;
           CREATE TEMP TABLE a AS SELECT x.id l, y.id r FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 1.5;
           SET simjoin.enable_customscan = off;
           CREATE TEMP TABLE b AS SELECT x.id l, y.id r FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 1.5;
           SELECT (SELECT count(*) FROM a) = $on_cpu AND NOT EXISTS (SELECT * FROM a EXCEPT ALL SELECT * FROM b)
                  AND NOT EXISTS (SELECT * FROM b EXCEPT ALL SELECT * FROM a)")" t
check "simjoin.explain names the service" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 0.5)" 2>&1 | grep -c 'device=gpu service')" 1
check "its phases add the job's time outside the engine (service)" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 0.5)" 2>&1 | grep -c 'device=gpu service.* time: .*service=[0-9.]*s')" 1
check "and so do an aggregate job's (the custom scan's folded count)" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.explain = on; SELECT count(*) FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 0.5" 2>&1 | grep -c 'device=gpu service.* time: .*service=[0-9.]*s')" 1
check "the service's own sampling is phase choose" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 0.5)" 2>&1 | grep -c 'device=gpu service.* time: choose=')" 1
check "simjoin.device = auto: simjoin.explain reports the prices it weighed, with the same count" \
  "$(q -c "SET simjoin.device = auto; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" 2>&1 |
     grep -E -c "auto priced the engine at [0-9.e+-]+s on the CPU \([0-9]+ threads\) and [0-9.e+-]+s on the GPU.*: (cpu|gpu) \(sampled: |^$on_cpu\$")" 2
check "the job carries simjoin.algorithm (szl, forced in the service)" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.algorithm = szl; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 0.5)" 2>&1 | grep -c 'device=gpu service.*algorithm=szl')" 1
check "and the function's algorithm argument (bruteforce)" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.explain = on; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 0.5, algorithm => 'bruteforce')" 2>&1 | grep -c 'device=gpu service.*algorithm=brute-force')" 1
check "a LIMIT withdraws the job and frees its slot and reservation" \
  "$(q -c "SET simjoin.device = gpu; SELECT count(*) FROM (SELECT * FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 30 LIMIT 5) s" >/dev/null;
     wait_for "SELECT count(*) || ' ' || (SELECT reserved_bytes FROM simjoin_devices()) FROM simjoin_jobs()" "0 0")" "0 0"

echo "== faults"
out=$(q -c "SET simjoin.device = gpu; SET simjoin.service_test_fault = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)")
check "an engine error before the first pair falls back to the CPU (gpu_error = fallback)" \
  "$(echo "$out" | grep -c 'GPU join failed (simjoin: injected fault); running it on the CPU') $(echo "$out" | tail -1)" "1 $on_cpu"
check "an engine error is an ERROR with gpu_error = error" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" | grep -o 'ERROR:  simjoin: injected fault')" \
  "ERROR:  simjoin: injected fault"
check "bad_alloc in an engine worker thread becomes the job's error" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = bad_alloc; SELECT count(*) FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 1.5" 2>&1 | grep -o 'out of memory in the simjoin engine (GPU service)')" \
  "out of memory in the simjoin engine (GPU service)"
check "an error after the first pair is an ERROR even with fallback" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.enable_aggregates = off; SET simjoin.service_test_fault = late_error; SELECT count(*) FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 1.5" 2>&1 | grep -o 'injected fault after the first batch')" \
  "injected fault after the first batch"
check "the service survived the faults (same process)" "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service'")" 1

q -c "DROP TABLE IF EXISTS svc_big; CREATE TABLE svc_big (id int PRIMARY KEY, v float8[]);
      INSERT INTO svc_big SELECT i, ARRAY[(i % 400)::float8, (i / 400)::float8] FROM generate_series(1, 100000) i;
      ANALYZE svc_big" >/dev/null
big_cpu=$(q -c "SET simjoin.device = cpu; SELECT count(*) FROM svc_big a JOIN svc_p b ON a.v <-> b.v <= 1.5")
big_fn=$(q -c "SET client_min_messages = debug1; SET simjoin.device = gpu; SET simjoin.gpu_error = error;
               SELECT count(*) FROM similarity_join('svc_big', 'svc_big', 1.5)" 2>&1)
check "a job reads the backend's points where it built them (function, 1.6 MB of points)" \
  "$(echo "$big_fn" | grep -c 'left points read in place, right points (self-join)')" 1
check "and its count is the CPU engine's" "$(echo "$big_fn" | tail -1)" \
  "$(q -c "SET simjoin.device = cpu; SELECT count(*) FROM similarity_join('svc_big', 'svc_big', 1.5)")"
big_cs=$(q -c "SET client_min_messages = debug1; SET simjoin.device = gpu; SET simjoin.gpu_error = error;
               SELECT count(*) FROM svc_big a JOIN svc_p b ON a.v <-> b.v <= 1.5" 2>&1)
check "custom scan: both sides are read where the backend built them" \
  "$(echo "$big_cs" | grep -c 'left points read in place, right points read in place')" 1
small_cs=$(q -c "SET client_min_messages = debug1; SET simjoin.device = gpu; SET simjoin.gpu_error = error;
                 SELECT count(*) FROM svc_p a JOIN (SELECT * FROM svc_p LIMIT 1000) b ON a.v <-> b.v <= 1.5" 2>&1)
check "a side under 1 MB is copied into the job" \
  "$(echo "$small_cs" | grep -cE 'read in place, right points copied|copied, right points read in place')" 1
check "and its count is the CPU engine's" "$(echo "$big_cs" | tail -1)" "$big_cpu"
q -c "DROP TABLE svc_big" >/dev/null

echo "== cancel, statement_timeout and backend exit in every state"
# A stalled job stays "running" until withdrawn.
stall() {  # $1: extra settings; runs in the background, output to $2
  psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = stall;
                 SET statement_timeout = '60s'; $1
                 SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" >"$2" 2>&1 &
}
stall "" "$log_dir/svc_stall1.out"
check "a stalled job is shown running" "$(wait_for "SELECT state FROM simjoin_jobs()" running)" running
pid=$(q -c "SELECT pid FROM simjoin_jobs()")
start=$(date +%s%N)
q -c "SELECT pg_cancel_backend($pid)" >/dev/null
wait
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "cancel of a running job: the session gets the cancel" "$(grep -o 'canceling statement due to user request' "$log_dir/svc_stall1.out")" \
  "canceling statement due to user request"
check "cancel of a running job takes effect within a second" "$([ "$elapsed_ms" -lt 1000 ] && echo yes || echo "no: ${elapsed_ms} ms")" yes
check "the cancelled job is gone" "$(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" 0

stall "SET statement_timeout = '300ms';" "$log_dir/svc_stall2.out"
wait
check "statement_timeout ends a running job" "$(grep -o 'canceling statement due to statement timeout' "$log_dir/svc_stall2.out")" \
  "canceling statement due to statement timeout"
check "the timed-out job is gone" "$(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" 0

stall "" "$log_dir/svc_stall3.out"
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
q -c "SELECT pg_terminate_backend(pid) FROM simjoin_jobs()" >/dev/null
wait
check "a session that exits withdraws its job" "$(wait_for "SELECT count(*) || ' ' || (SELECT reserved_bytes FROM simjoin_devices()) FROM simjoin_jobs()" "0 0")" "0 0"

# A full ledger: a stalled job holds the whole (small) limit; the next one queues behind it.
q -c "ALTER SYSTEM SET simjoin.gpu_memory_limit = '100MB'" -c "SELECT pg_reload_conf()" >/dev/null
check "the ledger limit follows simjoin.gpu_memory_limit" \
  "$(wait_for "SELECT ledger_limit_bytes FROM simjoin_devices()" 104857600)" 104857600
stall "" "$log_dir/svc_stall4.out"
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" \
  >"$log_dir/svc_queued.out" 2>&1 &
check "a job that does not fit the ledger waits in the queue" \
  "$(wait_for "SELECT string_agg(state, ',' ORDER BY job_id) FROM simjoin_jobs()" "running,queued")" "running,queued"
check "the queue is visible in simjoin_devices()" "$(q -c "SELECT queued_jobs FROM simjoin_devices()")" 1
check "nothing is reserved past the ledger" "$(q -c "SELECT reserved_bytes <= ledger_limit_bytes FROM simjoin_devices()")" t
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs() WHERE state = 'running'" >/dev/null
sleep 0.1
wait
check "the queued job runs once the ledger has room, with the right result" "$(cat "$log_dir/svc_queued.out")" "$on_cpu"

stall "" "$log_dir/svc_stall5.out"
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
psql -AtqX -c "SET simjoin.device = gpu; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" >"$log_dir/svc_queued2.out" 2>&1 &
wait_for "SELECT count(*) FROM simjoin_jobs() WHERE state = 'queued'" 1 >/dev/null
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs() WHERE state = 'queued'" >/dev/null
check "cancel of a queued job withdraws it" "$(wait_for "SELECT string_agg(state, ',') FROM simjoin_jobs()" running)" running
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs()" >/dev/null
wait
check "cancel of a queued job: the session gets the cancel" "$(grep -c 'canceling statement due to user request' "$log_dir/svc_queued2.out")" 1

# Backfill with aging: with 150 MB, a stalled self-join of svc_p (74 MB) leaves no room for one of
# svc_q (100,000 rows: 85 MB), which queues; another svc_p join (74 MB) fits and runs at once, ahead of it,
# until the svc_q job has waited 5 s: then the younger wait behind it, and the ledger drains.
q -c "ALTER SYSTEM SET simjoin.gpu_memory_limit = '150MB'" -c "SELECT pg_reload_conf()" >/dev/null
wait_for "SELECT ledger_limit_bytes FROM simjoin_devices()" 157286400 >/dev/null
q -c "DROP TABLE IF EXISTS svc_q; CREATE TABLE svc_q (id int PRIMARY KEY, v float8[]);
      INSERT INTO svc_q SELECT i, ARRAY[(i % 400)::float8, (i / 400)::float8] FROM generate_series(1, 100000) i;
      ANALYZE svc_q" >/dev/null
big_self=$(q -c "SET simjoin.device = cpu; SELECT count(*) FROM similarity_join('svc_q', 'svc_q', 1.5)")
stall "" "$log_dir/svc_stall6.out"
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_q', 'svc_q', 1.5)" \
  >"$log_dir/svc_aged.out" 2>&1 &
check "a job that does not fit behind a running one queues" \
  "$(wait_for "SELECT string_agg(state, ',' ORDER BY job_id) FROM simjoin_jobs()" "running,queued")" "running,queued"
check "a job that fits runs before an older one that does not (backfill), with the right result" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)")" "$on_cpu"
check "the older one still waits" "$(q -c "SELECT string_agg(state, ',' ORDER BY job_id) FROM simjoin_jobs()")" "running,queued"

# simjoin_jobs() as pg_stat_activity shows sessions: another role's jobs without their details,
# unless one is a member of pg_read_all_stats.
q -c "DROP ROLE IF EXISTS svc_peer; DROP ROLE IF EXISTS svc_reader; CREATE ROLE svc_peer LOGIN;
      CREATE ROLE svc_reader LOGIN IN ROLE pg_read_all_stats" >/dev/null
check "another role sees the jobs' states, not their sessions, sizes or progress" \
  "$(q -U svc_peer -c "SELECT count(*) || ' ' || count(pid) || ' ' || count(wanted_bytes) || ' ' || count(submitted_at) || ' ' || string_agg(state, ',' ORDER BY job_id) FROM simjoin_jobs()")" \
  "2 0 0 0 running,queued"
check "a member of pg_read_all_stats sees every detail" \
  "$(q -U svc_reader -c "SELECT count(*) || ' ' || count(pid) || ' ' || count(wanted_bytes) || ' ' || count(submitted_at) FROM simjoin_jobs()")" "2 2 2 2"
check "a superuser sees every detail too" \
  "$(q -c "SELECT count(pid) || ' ' || count(candidates_estimate) FROM simjoin_jobs()")" "2 2"

wait_for "SELECT queued_seconds > 5.2 FROM simjoin_jobs() WHERE state = 'queued'" t 10 >/dev/null
psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" \
  >"$log_dir/svc_young.out" 2>&1 &
sleep 1
check "once the older one waited 5 s, a younger one that fits waits behind it" \
  "$(q -c "SELECT string_agg(state, ',' ORDER BY job_id) FROM simjoin_jobs()")" "running,queued,queued"
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs() WHERE state = 'running'" >/dev/null
wait
check "then the older one runs, with the right result" "$(cat "$log_dir/svc_aged.out")" "$big_self"
check "and the younger one after it, with the right result" "$(cat "$log_dir/svc_young.out")" "$on_cpu"
q -c "DROP ROLE svc_peer; DROP ROLE svc_reader; DROP TABLE svc_q" >/dev/null
q -c "ALTER SYSTEM RESET simjoin.gpu_memory_limit" -c "SELECT pg_reload_conf()" >/dev/null
wait_for "SELECT ledger_limit_bytes FROM simjoin_devices()" 1073741824 >/dev/null

# Streaming: a slow consumer keeps the ring full; cancel it there.
psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error;
               SELECT count(pg_sleep(0.0001)) FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 40" >"$log_dir/svc_stream.out" 2>&1 &
check "a job whose consumer is slow is shown streaming" "$(wait_for "SELECT state FROM simjoin_jobs()" streaming)" streaming
check "its pairs so far are shown" "$(q -c "SELECT pairs > 0 FROM simjoin_jobs()")" t
check "its progress: candidates done out of the sampled estimate (40,000^2 point pairs bound it)" \
  "$(q -c "SELECT candidates_done > 0 AND candidates_estimate > 0 AND candidates_estimate < 1600000000 FROM simjoin_jobs()")" t
q -c "SELECT pg_cancel_backend(pid) FROM simjoin_jobs()" >/dev/null
wait
check "cancel of a streaming job" "$(grep -c 'canceling statement due to user request' "$log_dir/svc_stream.out")" 1
check "the streaming job is gone" "$(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" 0

echo "== a killed service"
old_pid=$(service_pid)
stall "SET simjoin.gpu_error = fallback;" "$log_dir/svc_kill.out"
wait_for "SELECT state FROM simjoin_jobs()" running >/dev/null
q -c "SELECT pg_terminate_backend($old_pid)" >/dev/null
wait
check "a session whose service was killed mid-job gets the CPU fallback" "$(tail -1 "$log_dir/svc_kill.out")" "$on_cpu"
check "the postmaster restarts the service (no crash restart)" \
  "$(wait_for "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service' AND pid <> $old_pid" 1 10)" 1
check "the next job works" "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)")" "$on_cpu"
old_pid=$(service_pid)
check "a service that exits mid-job (injected): the session gets an ERROR with gpu_error = error" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.service_test_fault = exit; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" | grep -o 'the GPU service stopped')" \
  "the GPU service stopped"
check "and the service comes back" \
  "$(wait_for "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service' AND pid <> $old_pid" 1 10)" 1
old_pid=$(service_pid)
check "a sticky device error (injected) ends its job: the session gets the CPU fallback" \
  "$(q -c "SET simjoin.device = gpu; SET simjoin.gpu_error = fallback; SET simjoin.service_test_fault = sticky; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" 2>/dev/null | tail -1)" "$on_cpu"
check "and the service restarts with a fresh context" \
  "$(wait_for "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simjoin gpu service' AND pid <> $old_pid" 1 10)" 1
check "the next job after the sticky error works" \
  "$(wait_for "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)" "$on_cpu" 10)" "$on_cpu"
check "no backend was restarted by a crash" "$(grep -c 'terminating any other active server processes' "$PG_CLUSTER_DIR/server.log" 2>/dev/null)" 0

echo "== many sessions at once"
q -c "ALTER SYSTEM SET simjoin.gpu_memory_limit = '300MB'" -c "SELECT pg_reload_conf()" >/dev/null
wait_for "SELECT ledger_limit_bytes FROM simjoin_devices()" 314572800 >/dev/null
for s in $(seq 1 24); do
  if [ $((s % 2)) -eq 0 ]; then
    sql="SELECT count(*) FROM similarity_join('svc_p', 'svc_p', 1.5)"
  else
    sql="SELECT count(*) FROM svc_p x JOIN svc_p y ON x.v <-> y.v <= 1.5"
  fi
  psql -AtqX -c "SET simjoin.device = gpu; SET simjoin.gpu_error = error; SET simjoin.threads = 1; $sql" >"$log_dir/svc_many_$s.out" 2>&1 &
done
max_reserved=0
for _ in $(seq 1 40); do
  r=$(q -c "SELECT reserved_bytes FROM simjoin_devices()")
  [ "$r" -gt "$max_reserved" ] && max_reserved=$r
  sleep 0.05
done
wait
right=$(cat "$log_dir"/svc_many_*.out | grep -cx "$on_cpu")
check "24 concurrent sessions (function and custom scan): all correct, no error" "$right" 24
check "the reservations stayed within the ledger" "$([ "$max_reserved" -le 314572800 ] && echo yes || echo "no: $max_reserved")" yes
q -c "ALTER SYSTEM RESET simjoin.gpu_memory_limit" -c "SELECT pg_reload_conf()" >/dev/null
check "every slot is free afterwards" "$(wait_for "SELECT count(*) FROM simjoin_jobs()" 0)" 0

# Neighbour statistics and DBSCAN as aggregate jobs (results, points in place, ledger, cancel,
# faults, fallback).
source test/service/aggregate_jobs.sh
# kNN joins as service jobs (results, routing, faults, cancel).
source test/service/knn_jobs.sh

echo "service: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
