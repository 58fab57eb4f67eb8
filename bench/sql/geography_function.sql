-- similarity_join() on a PostGIS geography column (GeoNames' cities500, 199,568 points
-- worldwide, eps 10 km): the function, the same join written in SQL (the SimilarityJoin custom
-- scan) and PostgreSQL's own plan (a nested loop over a GiST index on the geography), each with
-- the pairs' count and the sum of their ST_Distance (the same three figures are the check).
--   psql -X -f bench/sql/geography_function.sql      (from the repository root; needs postgis)
-- Optional: -v eps=METRES (default 10000).
\set ON_ERROR_STOP 1
\if :{?eps}
\else
\set eps 10000
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
\i bench/sql/include/cities.sql
DROP TABLE IF EXISTS gf_places;
CREATE TABLE gf_places AS SELECT geonameid AS id,
  ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS g FROM bench_cities;
DROP TABLE bench_cities;
ALTER TABLE gf_places ADD PRIMARY KEY (id);
CREATE INDEX ON gf_places USING gist (g);
VACUUM ANALYZE gf_places;
SELECT count(*) AS places, :eps AS eps_m FROM gf_places;

\echo similarity_join() on the geography column
\set query 'SELECT count(*), round(sum(distance::numeric), 3) FROM similarity_join(''gf_places'', ''gf_places'', ' :eps ')'
\i bench/sql/include/three_runs.sql
\echo the same join in SQL, the planner choosing
\set query 'SELECT count(*), round(sum(ST_Distance(a.g, b.g)::numeric), 3) FROM gf_places a JOIN gf_places b ON ST_DWithin(a.g, b.g, ' :eps ')'
EXPLAIN (COSTS OFF) :query;
\i bench/sql/include/three_runs.sql
\echo the plan without simjoin (the GiST index)
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) :query;
\i bench/sql/include/three_runs.sql
RESET simjoin.enable_customscan;
DROP TABLE gf_places;
