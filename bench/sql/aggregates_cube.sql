-- Neighbour counts and the farthest neighbour's distance within eps per place on contrib cube keys, the form
-- users write for cube's GiST index:
--   SELECT a.id, count(*), max(a.c <-> b.c) FROM t a JOIN t b
--     ON cube_enlarge(a.c, eps, 3) @> b.c AND a.c <-> b.c <= eps GROUP BY a.id
-- computed in the engine (the SimilarityJoinAggregate scan, the box clause decided on each pair),
-- against the same join handing its pairs to PostgreSQL's aggregation (simjoin.enable_aggregates
-- off), the float8[] form on the same points, and PostgreSQL's own plan (GiST index nested loop).
--   psql -X -f bench/sql/aggregates_cube.sql      (from the repository's root; needs cube)
-- Points: the 199,568 GeoNames places as 3-D points on the sphere in km (demo/data); -v eps=E
-- (km, default 5). Each engine query runs three times in one session, PostgreSQL's plan once; all
-- are wrapped in count(*), sum(c) and the sum of the maxima (rounded to metres), which must agree.
\set ON_ERROR_STOP 1
\if :{?eps}
\else
\set eps 5
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cube;
RESET client_min_messages;
\ir include/cities.sql
SET work_mem = '256MB';
DROP TABLE IF EXISTS ac_places;
CREATE TABLE ac_places AS
  SELECT geonameid AS id, ARRAY[x, y, z] AS v, cube(ARRAY[x, y, z]) AS c
  FROM (SELECT geonameid, 6371 * cos(radians(latitude)) * cos(radians(longitude)) AS x,
               6371 * cos(radians(latitude)) * sin(radians(longitude)) AS y,
               6371 * sin(radians(latitude)) AS z FROM bench_cities) s;
DROP TABLE bench_cities;
ALTER TABLE ac_places ADD PRIMARY KEY (id);
CREATE INDEX ON ac_places USING gist (c);
VACUUM ANALYZE ac_places;
SELECT count(*) AS places, :eps AS eps_km FROM ac_places;

\set by_form 'SELECT a.id, count(*) AS c, max(a.c <-> b.c) AS m FROM ac_places a JOIN ac_places b ON cube_enlarge(a.c, ' :eps ', 3) @> b.c AND a.c <-> b.c <= ' :eps ' GROUP BY a.id'
\set by_array 'SELECT a.id, count(*) AS c, max(a.v <-> b.v) AS m FROM ac_places a JOIN ac_places b ON a.v <-> b.v <= ' :eps ' GROUP BY a.id'
\set wrap 'SELECT count(*) AS groups, sum(c) AS pairs, round(sum(m)::numeric, 3) AS sum_max FROM'

\set form cube
\ir include/aggregates_runs.sql
DROP TABLE ac_places;
