# Source this: several throwaway PostgreSQL 15 clusters at once, for the sharding test and
# benchmark (test/shards, bench/shards). Cluster i: C_DIR[i] (a temp dir holding data, logs and
# the socket) and C_PORT[i] (a free port from 55000), reached over its socket. Run as the
# invoking user, or as "postgres" when invoked as root. clusters_stop (on EXIT) removes them;
# SIMJOIN_KEEP_LOG=DIR keeps their logs there. CLUSTER_OPTS: more server options.
PG_BIN=${SIMJOIN_PG_BIN:-/usr/lib/postgresql/15/bin}
declare -a C_DIR=() C_PORT=()
as_owner() {
  # From /: postgres may not read the invoking directory (a checkout under /root).
  if [ "$(id -u)" -eq 0 ]; then (cd / && su postgres -s /bin/bash -c "$*"); else bash -c "$*"; fi
}
port_taken() {
  local p=$1 i
  for i in "${!C_PORT[@]}"; do [ "${C_PORT[$i]}" = "$p" ] && return 0; done
  ss -Hlx 2>/dev/null | grep -q "\.s\.PGSQL\.$p\b" && return 0
  ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && return 0
  return 1
}
cluster_alloc() {  # $1: index. A temp dir and a free port from 55000.
  local dir p=55000
  dir=$(mktemp -d /tmp/simjoin-shard.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  while port_taken $p; do p=$((p + 1)); done
  C_DIR[$1]=$dir C_PORT[$1]=$p
}
cluster_initdb() {  # $1: index
  as_owner "$PG_BIN/initdb -D ${C_DIR[$1]}/data -A trust -U postgres -E UTF8 --locale=C.UTF-8 \
      >${C_DIR[$1]}/initdb.log 2>&1" || { cat "${C_DIR[$1]}/initdb.log"; return 1; }
}
cluster_up() {  # $1: index
  local dir=${C_DIR[$1]}
  as_owner "$PG_BIN/pg_ctl -D $dir/data -l $dir/server.log -w -o \"-p ${C_PORT[$1]} -k $dir \
      -c listen_addresses= -c shared_buffers=32MB -c max_connections=30 ${CLUSTER_OPTS:-}\" \
      start >/dev/null" || { tail -20 "$dir/server.log"; return 1; }
}
cluster_down() {  # $1: index
  as_owner "$PG_BIN/pg_ctl -D ${C_DIR[$1]}/data -m fast -w stop >/dev/null 2>&1"
}
clusters_stop() {
  local i
  for i in "${!C_DIR[@]}"; do
    [ -d "${C_DIR[$i]}" ] || continue
    as_owner "$PG_BIN/pg_ctl -D ${C_DIR[$i]}/data -m immediate stop >/dev/null 2>&1" || true
    if [ -n "${SIMJOIN_KEEP_LOG:-}" ]; then
      mkdir -p "$SIMJOIN_KEEP_LOG" && cp "${C_DIR[$i]}/server.log" "$SIMJOIN_KEEP_LOG/shard-$i.log"
    fi
    rm -rf "${C_DIR[$i]}"
  done
}
trap clusters_stop EXIT
