#!/usr/bin/env bash
# The sharded self-join as servers are added, all on this machine (loopback, Unix sockets; the
# CPU engine): a coordinator and up to 16 small server clusters, a generated 2-D uniform set laid
# out by simjoin_shard_table over S servers (S in 1 2 4 8 16), and for each S the layout's time,
# its halo (rows stored beyond their home) and the time of the per-region counts, pushed down to
# every server at once (GROUP BY simjoin_region, partitionwise). Prints a markdown table; its
# first rows are the coordinator's own local join: count(*) (the engine's aggregate) and the
# servers' query on a local copy in one region (the region equality and GROUP BY: pairs counted
# by PostgreSQL). Not run in CI. The servers share this machine's cores: the times show the
# halo's and the fan-out's cost more than a cluster's speedup.
#
#   bash bench/shards/loopback_growth.sh [--rows N (1000000)] [--servers "1 2 4 8 16"]
#                                        [--eps E (2)] [--split work|points] [--runs R (3)]
#                                        [--no-analyze] [--functions]
#
# --functions: a second table, the functions on the layout (simjoin_sharded_stats, and
# simjoin_sharded_dbscan with min_points 4) against similarity_join_stats and simjoin_dbscan on
# the coordinator's table, each result compared with the local one.
#
# Points uniform in [0, 1000)^2 (setseed 0.5): eps 2 gives about 12.6 neighbours a point. Runs the
# servers as the invoking user, or as "postgres" when invoked as root; stops them on exit.
set -uo pipefail
cd "$(dirname "$0")/../.."
rows=1000000 server_counts="1 2 4 8 16" eps=2 split=work runs=3 no_analyze="" functions=""
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift 2 ;;
    --servers) server_counts=$2; shift 2 ;;
    --eps) eps=$2; shift 2 ;;
    --split) split=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-analyze) no_analyze=1; shift ;;
    --functions) functions=1; shift ;;
    *) echo "usage: $0 [--rows N] [--servers \"1 2 4\"] [--eps E] [--split work|points]" \
            "[--runs R] [--no-analyze] [--functions]" >&2; exit 2 ;;
  esac
done
max_s=0
for s in $server_counts; do [ "$s" -gt $max_s ] && max_s=$s; done

# ---- Clusters (scripts/pg_clusters.sh): 0 is the coordinator, 1..max_s the servers s1.. ----
CLUSTER_OPTS="-c fsync=off"
source scripts/pg_clusters.sh
cluster_start() { cluster_initdb "$1" && cluster_up "$1"; }

qc() {  # psql on cluster $1
  local i=$1; shift
  PGOPTIONS="-c enable_partitionwise_join=on -c enable_partitionwise_aggregate=on" \
    psql -h "${C_DIR[$i]}" -p "${C_PORT[$i]}" -U postgres -d postgres -AtqX -v ON_ERROR_STOP=1 \
    "$@"
}
q() { qc 0 "$@"; }
die() { echo "loopback_growth: $*" >&2; exit 1; }
# Statement $2 run $3 times in one session after statement $1 (settings), timed by psql's
# \timing: $t_first, the first run (new connections to the servers), $t_ms, the best; in ms.
# $result: its output.
timed() {
  local out args=(-c "${1:-SELECT}" -c '\timing on')
  for _ in $(seq "$3"); do args+=(-c "$2"); done
  out=$(q "${args[@]}") || die "$2: $out"
  result=$(grep -v '^Time:' <<<"$out" | tail -1)
  t_first=$(awk '/^Time:/ { print $2; exit }' <<<"$out")
  t_ms=$(awk '/^Time:/ && (m == "" || $2 < m) { m = $2 } END { print m }' <<<"$out")
}

echo "starting a coordinator and $max_s servers" >&2
for i in $(seq 0 $max_s); do cluster_alloc "$i"; done
pids=()
for i in $(seq 0 $max_s); do cluster_start "$i" & pids[$i]=$!; done
for i in $(seq 0 $max_s); do wait "${pids[$i]}" || die "cluster $i did not start"; done
for i in $(seq 1 $max_s); do
  qc "$i" -c "CREATE EXTENSION simjoin" -c "ALTER DATABASE postgres SET simjoin.device = 'cpu'" \
    >/dev/null || die "simjoin on server $i"
done
sql="CREATE EXTENSION simjoin; CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;
     ALTER DATABASE postgres SET simjoin.device = 'cpu';"
for i in $(seq 1 $max_s); do
  sql+=" CREATE SERVER s$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${C_DIR[$i]}',
           port '${C_PORT[$i]}', dbname 'postgres', extensions 'simjoin', async_capable 'true');
         CREATE USER MAPPING FOR CURRENT_USER SERVER s$i OPTIONS (user 'postgres');"
done
q -c "$sql" >/dev/null || die "the coordinator's extensions and servers"

echo "generating $rows points" >&2
q -c "SELECT setseed(0.5)" -c "CREATE TABLE pts AS SELECT i id,
        ARRAY[random() * 1000, random() * 1000]::float8[] v FROM generate_series(1, $rows) i" \
  -c "ANALYZE pts" >/dev/null || die "the points"

region_counts="SELECT sum(n) FROM (SELECT a.simjoin_region, count(*) n FROM pts_sharded a
                 JOIN pts_sharded b ON a.simjoin_region = b.simjoin_region AND a.v <-> b.v <= $eps
                 WHERE NOT a.simjoin_halo GROUP BY a.simjoin_region) s"
echo "local join on the coordinator" >&2
timed "" "SELECT count(*) FROM pts a JOIN pts b ON a.v <-> b.v <= $eps" "$runs"
local_ms=$t_ms local_first=$t_first local_pairs=$result
# The servers' query on a local table of one region.
q -c "CREATE TABLE pts_one AS SELECT *, 0 simjoin_region, false simjoin_halo FROM pts" \
  -c "ANALYZE pts_one" >/dev/null || die "pts_one"
timed "" "${region_counts//pts_sharded/pts_one}" "$runs"
local_rows_ms=$t_ms local_rows_first=$t_first

echo
echo "$rows points uniform in [0, 1000)^2, eps $eps, split '$split', $(nproc) cores shared;"
echo "join: the GROUP BY simjoin_region count ($local_pairs pairs) $runs times in one session:"
echo "its first run (the servers' sessions new) and the best; vs local: the engine count's best"
echo "over it. async scans: Async Foreign Scan nodes in its plan (none with one server)."
echo
printf '%s\n' "| servers | layout s | halo rows | halo % | join ms, first | join ms, best |\
 vs local | async scans | pairs equal |" "|--------:|---------:|----------:|-------:|\
---------------:|--------------:|---------:|------------:|:-----------:|"
row() {  # servers layout halo first best async equal
  awk -v s="$1" -v l="$2" -v h="$3" -v r="$rows" -v f="$4" -v j="$5" -v lm="$local_ms" -v a="$6" \
      -v e="$7" 'BEGIN {
    printf "| %s | %s | %s | %s | %.0f | %.0f | %.2fx | %s | %s |\n", s, l, h,
      (h == "-" ? "-" : sprintf("%.1f", 100 * h / r)), f, j, lm / j, a, e
  }'
}
row "local, engine count" - - "$local_first" "$local_ms" - -
row "local, the servers' query" - - "$local_rows_first" "$local_rows_ms" - -
for s in $server_counts; do
  servers="ARRAY[$(for i in $(seq 1 "$s"); do printf "'s%s'," "$i"; done | sed 's/,$//')]::name[]"
  echo "S=$s: layout" >&2
  t0=$(date +%s%N)
  out=$(q -c "SELECT simjoin_shard_table('pts', $servers, $eps, target => 'pts_sharded',
                                         split => '$split') IS NOT NULL" 2>&1) ||
    { echo "| $s | failed: ${out//$'\n'/ } | | | | | | | |"; continue; }
  layout_s=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  # The servers' new tables analyzed, as autovacuum would within a minute: without statistics
  # a server may plan the pushed-down join otherwise.
  for i in $(seq 1 "$s"); do
    [ -n "$no_analyze" ] || q -c "SELECT dblink_exec('s$i', 'ANALYZE')" >/dev/null
  done
  halo=$(q -c "SELECT count(*) FILTER (WHERE simjoin_halo) FROM pts_sharded")
  async=$(q -c "EXPLAIN VERBOSE $region_counts" | grep -c 'Async Foreign Scan')
  echo "S=$s: join" >&2
  timed "" "$region_counts" "$runs"
  equal=no; [ "$result" = "$local_pairs" ] && equal=yes
  row "$s" "$layout_s" "$halo" "$t_first" "$t_ms" "$async" "$equal"
done

[ -n "$functions" ] || exit 0
# The functions: each query's rows as one hash, so that the sharded rows can be compared with
# the local ones.
stats_of() { echo "SELECT count(*), sum(hashtext(s::text)) FROM similarity_join_stats($1) s"; }
dbscan_of() { echo "SELECT count(*), sum(hashtext(d::text)) FROM simjoin_dbscan($1) d"; }
echo
echo "The functions on the layout (best of $runs, ms): simjoin_sharded_stats against"
echo "similarity_join_stats('pts', 'pts', $eps), simjoin_sharded_dbscan against"
echo "simjoin_dbscan('pts', $eps, 4) on the coordinator; equal: the same rows."
echo
printf '%s
' "| servers | stats ms | stats equal | DBSCAN ms | DBSCAN equal |" \
  "|--------:|---------:|:-----------:|----------:|:------------:|"
timed "" "$(stats_of "'pts', 'pts', $eps, left_key => 'id', right_key => 'id'")" "$runs"
local_stats=$result
printf '| local | %.0f | - |' "$t_ms"
timed "" "$(dbscan_of "'pts', $eps, 4, key => 'id'")" "$runs"; local_dbscan=$result
printf ' %.0f | - |\n' "$t_ms"
for s in $server_counts; do
  servers="ARRAY[$(for i in $(seq 1 "$s"); do printf "'s%s'," "$i"; done | sed 's/,$//')]::name[]"
  q -c "SELECT simjoin_shard_table('pts', $servers, $eps, target => 'pts_sharded',
                                   split => '$split') IS NOT NULL" >/dev/null ||
    die "layout over $s servers"
  timed "" "SELECT count(*), sum(hashtext(s::text))
              FROM simjoin_sharded_stats('pts_sharded', $eps, key => 'id') s" "$runs"
  equal=no; [ "$result" = "$local_stats" ] && equal=yes
  printf '| %s | %.0f | %s |' "$s" "$t_ms" "$equal"
  timed "" "SELECT count(*), sum(hashtext(d::text))
              FROM simjoin_sharded_dbscan('pts_sharded', $eps, 4, key => 'id') d" "$runs"
  equal=no; [ "$result" = "$local_dbscan" ] && equal=yes
  printf ' %.0f | %s |\n' "$t_ms" "$equal"
done
