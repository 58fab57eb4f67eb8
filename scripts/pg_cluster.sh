# Source this: a throwaway PostgreSQL 15 cluster for the demo and the tests.
#   pg_cluster_start   initdb + start on a free port with its socket in a temp dir; exports
#                      PGHOST, PGPORT, PGUSER, PGDATABASE for psql, pg_regress and pg_prove
#   pg_cluster_stop    stops it and removes its files (also run on EXIT)
# Runs the server as the invoking user, or as "postgres" when invoked as root.

PG_BIN=${SIMJOIN_PG_BIN:-/usr/lib/postgresql/15/bin}

_pg_as_owner() {
  # From /: postgres may not read the invoking directory (a checkout under /root).
  if [ "$(id -u)" -eq 0 ]; then (cd / && su postgres -s /bin/bash -c "$*"); else bash -c "$*"; fi
}

pg_cluster_start() {
  PG_CLUSTER_DIR=$(mktemp -d /tmp/simjoin-pg.XXXXXX)
  chmod 755 "$PG_CLUSTER_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres "$PG_CLUSTER_DIR"
  local port=${SIMJOIN_PGPORT:-$((54000 + RANDOM % 1000))}
  _pg_as_owner "$PG_BIN/initdb -D $PG_CLUSTER_DIR/data -A trust -U postgres -E UTF8 --locale=C.UTF-8 >$PG_CLUSTER_DIR/initdb.log 2>&1" ||
    { cat "$PG_CLUSTER_DIR/initdb.log"; return 1; }
  _pg_as_owner "$PG_BIN/pg_ctl -D $PG_CLUSTER_DIR/data -l $PG_CLUSTER_DIR/server.log -w \
      -o \"-p $port -k $PG_CLUSTER_DIR -c listen_addresses= ${PG_CLUSTER_OPTS:-}\" start >/dev/null" ||
    { tail -20 "$PG_CLUSTER_DIR/server.log"; return 1; }
  export PGHOST=$PG_CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
  trap pg_cluster_stop EXIT
}

pg_cluster_stop() {
  [ -n "${PG_CLUSTER_DIR:-}" ] && [ -d "$PG_CLUSTER_DIR" ] || return 0
  _pg_as_owner "$PG_BIN/pg_ctl -D $PG_CLUSTER_DIR/data -m immediate stop >/dev/null 2>&1" || true
  if [ -n "${SIMJOIN_KEEP_LOG:-}" ]; then cp "$PG_CLUSTER_DIR/server.log" "$SIMJOIN_KEEP_LOG" || true; fi
  rm -rf "$PG_CLUSTER_DIR"
  PG_CLUSTER_DIR=
}
