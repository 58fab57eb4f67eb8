-- Neighbour counts and the farthest neighbour's distance within eps per place on PostGIS points,
-- the form users write for PostGIS's GiST index:
--   SELECT a.id, count(*), max(ST_Distance(a.g, b.g)) FROM t a JOIN t b
--     ON ST_DWithin(a.g, b.g, eps) GROUP BY a.id
-- computed in the engine (the SimilarityJoinAggregate scan: ST_DWithin and ST_Distance of two
-- points are the engine's arithmetic, each shown by its probe), against the same join handing its
-- pairs to PostgreSQL's aggregation (simjoin.enable_aggregates off), the float8[] form on the
-- same points, and PostgreSQL's own plan (GiST index nested loop).
--   psql -X -f bench/sql/aggregates_postgis.sql      (from the repository's root; needs postgis)
-- Points: the 199,568 GeoNames places as longitude and latitude (demo/data); -v eps=E (degrees,
-- default 0.05). Each engine query runs three times in one session, PostgreSQL's plan once; all
-- are wrapped in count(*), sum(c) and the sum of the maxima (rounded), which must agree; then the
-- nearest other place per place (DISTINCT ON ... ORDER BY a.id, ST_Distance(a.g, b.g), b.id).
\set ON_ERROR_STOP 1
\if :{?eps}
\else
\set eps 0.05
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
\ir include/cities.sql
SET work_mem = '256MB';
DROP TABLE IF EXISTS ap_places;
CREATE TABLE ap_places AS
  SELECT geonameid AS id, ARRAY[longitude, latitude] AS v, ST_MakePoint(longitude, latitude) AS g
  FROM bench_cities;
DROP TABLE bench_cities;
ALTER TABLE ap_places ADD PRIMARY KEY (id);
CREATE INDEX ON ap_places USING gist (g);
VACUUM ANALYZE ap_places;
SELECT count(*) AS places, :eps AS eps_degrees FROM ap_places;

\set by_form 'SELECT a.id, count(*) AS c, max(ST_Distance(a.g, b.g)) AS m FROM ap_places a JOIN ap_places b ON ST_DWithin(a.g, b.g, ' :eps ') GROUP BY a.id'
\set by_array 'SELECT a.id, count(*) AS c, max(a.v <-> b.v) AS m FROM ap_places a JOIN ap_places b ON a.v <-> b.v <= ' :eps ' GROUP BY a.id'
\set wrap 'SELECT count(*) AS groups, sum(c) AS pairs, round(sum(m)::numeric, 9) AS sum_max FROM'

\set form PostGIS
\ir include/aggregates_runs.sql
-- The nearest other place within eps (DISTINCT ON; the engine keeps two per place and the key
-- clause rejects the place itself), then PostgreSQL's plan.
\set nearest 'SELECT count(*) AS places, round(sum(d)::numeric, 9) AS sum_nearest FROM (SELECT DISTINCT ON (a.id) a.id, b.id AS b, ST_Distance(a.g, b.g) AS d FROM ap_places a JOIN ap_places b ON ST_DWithin(a.g, b.g, ' :eps ') AND a.id <> b.id ORDER BY a.id, ST_Distance(a.g, b.g), b.id) s'
\ir include/nearest_runs.sql
DROP TABLE ap_places;
