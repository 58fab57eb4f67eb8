#!/usr/bin/env bash
# The upgrade test: for every earlier version X (sql/simjoin--1.0.sql, the oldest full script, and
# each update script's starting version), a database gets CREATE EXTENSION simjoin VERSION 'X'
# (PostgreSQL runs 1.0's script and the update chain to X, one script at a time) and
# ALTER EXTENSION simjoin UPDATE, and must then hold exactly what a fresh CREATE EXTENSION simjoin
# gives another database, which runs the current version's one script (the Makefile makes
# build/sql/simjoin--DEFAULT.sql from the same scripts, one after another):
#   - pg_dump --schema-only of both (it shows the extension as one CREATE EXTENSION line), and
#     pg_dump --schema-only --binary-upgrade, which writes out every member object (functions,
#     operators, comments, owners) and the extension's version, as pg_upgrade would carry them;
#   - test/upgrade/members.sql: pg_extension's row, every member object (pg_depend deptype 'e',
#     named with pg_describe_object) with its comment, each function's pg_get_functiondef and
#     each operator's function, commutator and planner properties;
#   - psql's \dx simjoin and \dx+ simjoin;
#   - test/upgrade/behaviour.sql, run in both: the operators (pgvector's convention since 1.1),
#     the distance functions, similarity_join and the custom scan give the expected answers.
# Any difference fails the test and is printed as a diff. The only normalization: pg_dump 15.14
# and later write "\restrict KEY" / "\unrestrict KEY" lines with a random KEY in every dump; the
# key is replaced by a fixed word. Nothing else differs between the two databases' outputs: both
# are dumped from the same server, the extension lives in the same schema (public), every listing
# is sorted by name, and no OID or database name is compared.
# Then, per X, in a third database: a user's table and view on <-> (unchanged since 1.0) survive
# the update. From 1.0: with this library 1.0's <=> is still Chebyshev; a view on it makes the
# update fail and leaves the database at 1.0 (no view silently turns into a cosine join); once
# rewritten with chebyshev_distance(), the view survives the update.
#
# CREATE EXTENSION simjoin VERSION 'X' also proves that the library still has every C function
# that version X's script names (CREATE FUNCTION ... LANGUAGE C looks each one up).
#
# Runs against the server that PGHOST/PGPORT/PGUSER name (a superuser; scripts/test_all.sh's
# throwaway cluster), with this checkout's build installed there (make install): it first checks
# that the server's simjoin.control and sql scripts are those of this checkout and its build.
#   bash test/upgrade/upgrade_test.sh
# Ends with "upgrade: N checks passed, M failed"; exit status 0 only if none failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
here=test/upgrade
work=$(mktemp -d)
prefix=simjoin_upgrade
dbs=()
cleanup() {
  for db in "${dbs[@]}"; do psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAILED: $1"; }
sql() { psql -qAtX -v ON_ERROR_STOP=1 -d "$@"; }
new_db() {
  dbs+=("$1")
  psql -qX -d postgres -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
    -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
}
# same NAME FILE_A FILE_B: passes when the files are equal, else fails and prints the diff.
same() {
  if diff -u "$2" "$3" >"$work/diff" 2>&1; then pass "$1"; else fail "$1"; head -150 "$work/diff"; fi
}
# Everything the test compares, of database $1, into files $2.*
describe() {
  local db=$1 out=$2
  pg_dump --schema-only "$db" | sed -E 's/^\\(un)?restrict .*/\\\1restrict KEY/' >"$out.dump" || echo "pg_dump failed" >>"$out.dump"
  # (what a binary upgrade carries over of a relation, e.g. the view's OIDs and row type, is the
  # database's own)
  pg_dump --schema-only --binary-upgrade "$db" | sed -E 's/^\\(un)?restrict .*/\\\1restrict KEY/' |
    sed -E "s/(binary_upgrade_set_next_[a-z_]+)\('[^']*'/\1('N'/" >"$out.dump-members" ||
    echo "pg_dump --binary-upgrade failed" >>"$out.dump-members"
  psql -X -d "$db" -f "$here/members.sql" >"$out.members" 2>&1
  psql -X -d "$db" -c '\dx simjoin' -c '\dx+ simjoin' >"$out.dx" 2>&1
  psql -qX -d "$db" -f "$here/behaviour.sql" >"$out.behaviour" 2>&1
}

default=$(sed -nE "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" simjoin.control)
versions=$(ls sql | sed -nE 's/^simjoin--([^-]+)(--[^-]+)?\.sql$/\1/p' | grep -vxF "$default" | sort -uV)
installed=$(psql -AtX -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'simjoin'")
if [ "$installed" != "$default" ]; then
  echo "upgrade: the server's simjoin has default_version '$installed', simjoin.control says '$default' (make install first)"
  echo "upgrade: 0 checks passed, 1 failed"; exit 1
fi
echo "upgrade: default_version $default; earlier versions: ${versions:-none}"
# The server must run this checkout's scripts (pg_read_file and pg_config need a superuser).
sharedir=$(psql -AtX -d postgres -c "SELECT setting FROM pg_config WHERE name = 'SHAREDIR'" 2>/dev/null)
if [ -n "$sharedir" ]; then
  stale=""
  for f in simjoin.control sql/simjoin--*.sql build/sql/simjoin--$default.sql; do
    name=$(basename "$f")
    [ -f "$f" ] || { stale="$stale $name (not built here: make first)"; continue; }
    theirs=$(psql -AtX -d postgres -c "SELECT md5(pg_read_file('$sharedir/extension/$name'))" 2>/dev/null)
    [ "$theirs" = "$(md5sum <"$f" | cut -d' ' -f1)" ] || stale="$stale $name"
  done
  if [ -z "$stale" ]; then pass "the server's simjoin.control and scripts are this checkout's"
  else fail "the server's scripts differ from this checkout's (make install first):$stale"; fi
fi

fresh=${prefix}_fresh
new_db "$fresh" && sql "$fresh" -c "CREATE EXTENSION simjoin" || { echo "upgrade: 0 checks passed, 1 failed"; exit 1; }
describe "$fresh" "$work/fresh"
if grep -q '| t$' "$work/fresh.behaviour" && ! grep -vq '| t$' "$work/fresh.behaviour"; then
  pass "fresh $default: behaviour.sql"
else
  fail "fresh $default: behaviour.sql"; cat "$work/fresh.behaviour"
fi

for from in $versions; do
  db=${prefix}_from_${from//[^0-9a-zA-Z]/_}
  step="$from -> $default"
  if ! sql "postgres" -c "SELECT 1 FROM pg_available_extension_versions WHERE name = 'simjoin' AND version = '$from'" | grep -q 1; then
    fail "$step: the server has no script for version $from (make install first)"; continue
  fi
  new_db "$db"
  if sql "$db" -c "CREATE EXTENSION simjoin VERSION '$from'" >"$work/log" 2>&1 &&
     sql "$db" -c "ALTER EXTENSION simjoin UPDATE" >>"$work/log" 2>&1; then
    pass "$step: CREATE EXTENSION simjoin VERSION '$from'; ALTER EXTENSION simjoin UPDATE"
  else
    fail "$step: CREATE EXTENSION simjoin VERSION '$from'; ALTER EXTENSION simjoin UPDATE"; cat "$work/log"; continue
  fi
  got=$(sql "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'simjoin'")
  if [ "$got" = "$default" ]; then pass "$step: extversion is $default"; else fail "$step: extversion is '$got', not $default"; fi

  describe "$db" "$work/up"
  same "$step: pg_dump --schema-only" "$work/up.dump" "$work/fresh.dump"
  same "$step: pg_dump --schema-only --binary-upgrade (every member object)" "$work/up.dump-members" "$work/fresh.dump-members"
  same "$step: members, comments and definitions (test/upgrade/members.sql)" "$work/up.members" "$work/fresh.members"
  same "$step: \\dx simjoin, \\dx+ simjoin" "$work/up.dx" "$work/fresh.dx"
  same "$step: behaviour.sql (the same answers as in the fresh database)" "$work/up.behaviour" "$work/fresh.behaviour"

  # A user's objects on what the update keeps survive it.
  deps=${prefix}_deps_${from//[^0-9a-zA-Z]/_}
  new_db "$deps"
  if sql "$deps" >"$work/log" 2>&1 <<SQL
CREATE EXTENSION simjoin VERSION '$from';
CREATE TABLE pts (id int PRIMARY KEY, v float8[]);
INSERT INTO pts VALUES (1, '{0,0}'), (2, '{3,4}'), (3, '{10,10}');
CREATE VIEW near AS SELECT a.id AS l, b.id AS r FROM pts a JOIN pts b ON a.v <-> b.v <= 5;
ALTER EXTENSION simjoin UPDATE;
SELECT CASE WHEN count(*) = 5 THEN 'ok' ELSE 'wrong count ' || count(*) END FROM near;
SQL
  then
    if grep -qx ok "$work/log"; then pass "$step: a view on <-> survives the update"; else fail "$step: a view on <-> survives the update"; cat "$work/log"; fi
  else
    fail "$step: a view on <-> survives the update"; cat "$work/log"
  fi

  # From 1.0: <=> was Chebyshev; a view using it must stop the update, not change its meaning.
  if [ "$from" = "1.0" ]; then
    sql "$deps" >"$work/log" 2>&1 <<SQL
DROP EXTENSION simjoin CASCADE;
CREATE EXTENSION simjoin VERSION '1.0';
CREATE VIEW cheb AS SELECT a.id AS l, b.id AS r FROM pts a JOIN pts b ON a.v <=> b.v <= 4;
SELECT CASE WHEN count(*) = 5 THEN 'chebyshev' ELSE 'wrong count ' || count(*) END FROM cheb;
SQL
    # (The cosine distance would give 4 rows: {0,0} has none.) The library serves 1.0's objects.
    if grep -qx chebyshev "$work/log"; then pass "$step: at 1.0, with this library, <=> is still Chebyshev"
    else fail "$step: at 1.0, with this library, <=> is still Chebyshev"; cat "$work/log"; fi
    if ! sql "$deps" -c "ALTER EXTENSION simjoin UPDATE" >>"$work/log" 2>&1 &&
       grep -q 'because other objects depend on it' "$work/log" &&
       [ "$(sql "$deps" -c "SELECT extversion FROM pg_extension WHERE extname = 'simjoin'")" = "1.0" ]; then
      pass "$step: a view on 1.0's <=> (Chebyshev) stops the update; the database stays at 1.0"
    else
      fail "$step: a view on 1.0's <=> (Chebyshev) stops the update; the database stays at 1.0"; cat "$work/log"
    fi
    if sql "$deps" >"$work/log" 2>&1 <<SQL
CREATE OR REPLACE VIEW cheb AS SELECT a.id AS l, b.id AS r FROM pts a JOIN pts b ON chebyshev_distance(a.v, b.v) <= 4;
ALTER EXTENSION simjoin UPDATE;
SELECT CASE WHEN count(*) = 5 THEN 'ok' ELSE 'wrong count ' || count(*) END FROM cheb;
SQL
    then
      if grep -qx ok "$work/log"; then pass "$step: rewritten with chebyshev_distance(), the view survives the update"
      else fail "$step: rewritten with chebyshev_distance(), the view survives the update"; cat "$work/log"; fi
    else
      fail "$step: rewritten with chebyshev_distance(), the view survives the update"; cat "$work/log"
    fi
  fi
done

echo "upgrade: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
