#!/usr/bin/env bash
# A new session's PostGIS join with and without the library in the database's
# session_preload_libraries (which CREATE EXTENSION simjoin sets from 1.8): the first and only
# query of each session, as a user who never wrote LOAD runs it. Runs on a throwaway cluster
# (scripts/pg_cluster.sh) from the repository's root:
#   bash bench/fresh_session_postgis.sh [sessions]      (default: 3 per setting)
# Data: the 199,568 GeoNames places shipped in demo/data as geography points with a GiST index;
# the self-join's count within 10 km (ST_DWithin, a.id < b.id). Sessions alternate between the
# two settings (simjoin_session_preload(true/false)); psql's \timing of each.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pg_cluster.sh
pg_cluster_start
sessions=${1:-3}
psql -qX -c "CREATE EXTENSION postgis" >/dev/null
psql -qX -f bench/sql/include/cities.sql >/dev/null
psql -qX -c "CREATE TABLE places AS SELECT geonameid AS id,
               ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS geog
             FROM bench_cities" \
  -c "DROP TABLE bench_cities" -c "ALTER TABLE places ADD PRIMARY KEY (id)" \
  -c "CREATE INDEX ON places USING gist (geog)" -c "VACUUM ANALYZE places" >/dev/null
query="SELECT count(*) FROM places a JOIN places b ON ST_DWithin(a.geog, b.geog, 10000) AND a.id < b.id"
for ((s = 1; s <= sessions; s++)); do
  for preload in true false; do
    psql -qAtX -c "SELECT simjoin_session_preload($preload)" >/dev/null 2>&1
    line=$(psql -AtX -c '\timing on' -c "$query" | tr '\n' ' ')
    echo "session $s, simjoin in session_preload_libraries: $preload: $line"
  done
done
