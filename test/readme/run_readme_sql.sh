#!/usr/bin/env bash
# Runs every ```sql block of README.md and of the docs pages that hold the README's longer examples
# (docs/SQL_REFERENCE.md, docs/CUSTOM_SCAN.md), each file in order on a fresh database of the server
# that PGHOST/PGPORT/PGUSER name (simjoin installed there), and fails on any error or on a query
# that returns no rows. A block that creates an extension the server lacks (e.g. postgis) is
# skipped. A file whose SQL names the loopback shard servers (port '55432' and '55433',
# docs/SHARDING.md) gets them: two throwaway clusters listening on localhost, simjoin created.
#   bash test/readme/run_readme_sql.sh [FILE.md ...]
set -uo pipefail
root=$(realpath "$(dirname "$0")/../..")
if [ $# -gt 0 ]; then
  files=("$@")
else
  files=("$root/README.md" "$root/docs/SQL_REFERENCE.md" "$root/docs/CUSTOM_SCAN.md"
         "$root/docs/SHARDING.md")
fi
db=simjoin_readme
work=$(mktemp -d)
shard_dirs=()
PG_BIN=${SIMJOIN_PG_BIN:-/usr/lib/postgresql/15/bin}
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then (cd / && su postgres -s /bin/bash -c "$*"); else bash -c "$*"; fi
}
stop_shard_servers() {
  for dir in "${shard_dirs[@]}"; do
    as_owner "$PG_BIN/pg_ctl -D $dir/data -m immediate stop >/dev/null 2>&1"; rm -rf "$dir"
  done
  shard_dirs=()
}
start_shard_servers() {
  [ ${#shard_dirs[@]} -gt 0 ] && return 0
  for port in 55432 55433; do
    local dir
    dir=$(mktemp -d /tmp/simjoin-readme-shard.XXXXXX); chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    shard_dirs+=("$dir")
    as_owner "$PG_BIN/initdb -D $dir/data -A trust -U postgres >/dev/null 2>&1" &&
      as_owner "$PG_BIN/pg_ctl -D $dir/data -l $dir/server.log -w -o \"-p $port -k $dir \
        -c listen_addresses=localhost -c shared_buffers=32MB\" start >/dev/null" &&
      psql -qX -h "$dir" -p "$port" -U postgres -d postgres -c "CREATE EXTENSION simjoin" ||
      { echo "readme: shard server on port $port did not start"; return 1; }
  done
}
trap 'stop_shard_servers; rm -rf "$work"; psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT

passed=0 failed=0 skipped=0
for file in "${files[@]}"; do
  doc=$(realpath "$file")
  dir="$work/$(basename "$doc" .md)"
  mkdir -p "$dir"
  awk -v dir="$dir" '
    /^```sql[[:space:]]*$/ { n++; file = sprintf("%s/block_%02d.sql", dir, n); inside = 1; next }
    /^```/ && inside { inside = 0; close(file); next }
    inside { print > file }
  ' "$doc"
  blocks=("$dir"/block_*.sql)
  if [ ! -e "${blocks[0]}" ]; then
    echo "readme: no sql blocks in $doc"; failed=$((failed + 1)); continue
  fi
  echo "== ${doc#"$root"/}: ${#blocks[@]} blocks, on a fresh database"
  if grep -q "port '55432'" "$doc"; then start_shard_servers || { failed=$((failed + 1)); continue; }; fi

  psql -qX -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
    -c "CREATE DATABASE $db" || exit 1
  available=$(psql -AtX -d "$db" -c "SELECT string_agg(name, ' ') FROM pg_available_extensions")

  for block in "${blocks[@]}"; do
    name="$(basename "$doc" .md)/$(basename "$block" .sql)"
    missing=""
    for ext in $(grep -ioE 'CREATE EXTENSION( IF NOT EXISTS)? +[a-z_0-9]+' "$block" | awk '{print tolower($NF)}'); do
      [[ " $available " == *" $ext "* ]] || missing="$missing $ext"
    done
    if [ -n "$missing" ]; then
      echo "-- $name: skipped (not installed:$missing)"; skipped=$((skipped + 1)); continue
    fi
    echo "-- $name"
    if psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$block" >"$block.out" 2>&1 &&
       ! grep -q '^(0 rows)$' "$block.out"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); echo "FAILED: $name"; sed 's/^/    /' "$block"
    fi
    cat "$block.out"
  done
done
echo "readme: $passed blocks passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
