#!/usr/bin/env bash
# Runs every ```sql block of README.md, in order, on a fresh database of the server that
# PGHOST/PGPORT/PGUSER name (simjoin installed there), and fails on any error or on a query that
# returns no rows. A block that creates an extension the server lacks (e.g. postgis) is skipped.
#   bash test/readme/run_readme_sql.sh [README.md]
set -uo pipefail
readme=$(realpath "${1:-$(dirname "$0")/../../README.md}")
db=simjoin_readme
work=$(mktemp -d)
trap 'rm -rf "$work"; psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT

awk -v dir="$work" '
  /^```sql[[:space:]]*$/ { n++; file = sprintf("%s/block_%02d.sql", dir, n); inside = 1; next }
  /^```/ && inside { inside = 0; close(file); next }
  inside { print > file }
' "$readme"
blocks=("$work"/block_*.sql)
[ -e "${blocks[0]}" ] || { echo "readme: no sql blocks in $readme"; exit 1; }

psql -qX -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
  -c "CREATE DATABASE $db" || exit 1
available=$(psql -AtX -d "$db" -c "SELECT string_agg(name, ' ') FROM pg_available_extensions")

passed=0 failed=0 skipped=0
for block in "${blocks[@]}"; do
  name=$(basename "$block" .sql)
  missing=""
  for ext in $(grep -ioE 'CREATE EXTENSION( IF NOT EXISTS)? +[a-z_0-9]+' "$block" | awk '{print tolower($NF)}'); do
    [[ " $available " == *" $ext "* ]] || missing="$missing $ext"
  done
  if [ -n "$missing" ]; then
    echo "-- $name: skipped (not installed:$missing)"; skipped=$((skipped + 1)); continue
  fi
  echo "-- $name"
  if psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$block" >"$work/$name.out" 2>&1 &&
     ! grep -q '^(0 rows)$' "$work/$name.out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAILED: $name"; sed 's/^/    /' "$block"
  fi
  cat "$work/$name.out"
done
echo "readme: $passed blocks passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
