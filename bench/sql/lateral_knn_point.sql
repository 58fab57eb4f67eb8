-- The SimJoin Nearest Scan on built-in points against PostgreSQL's plans: the 5 nearest of the
-- 199,568 GeoNames places (point(longitude, latitude), demo/data) for each of 200 places, CROSS
-- JOIN LATERAL (... ORDER BY q.p <-> b.p LIMIT 5); without an index (PostgreSQL: a scan and a
-- top-N sort per outer row), then with a GiST index (PostgreSQL's KNN index scan per outer row,
-- which the planner should keep). Three rounds each, the same count and distance sum.
--   psql -X -f bench/sql/lateral_knn_point.sql      (from the repository's root)
\set ON_ERROR_STOP on
\ir include/cities.sql
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
DROP TABLE IF EXISTS lkp_places, lkp_queries;
CREATE TABLE lkp_places AS SELECT geonameid AS id, point(longitude, latitude) AS p FROM bench_cities;
DROP TABLE bench_cities;
CREATE TABLE lkp_queries AS SELECT id, p FROM lkp_places ORDER BY id LIMIT 200;
ANALYZE lkp_places;
ANALYZE lkp_queries;
\set query 'SELECT count(*), round(sum(n.d)::numeric, 9) FROM lkp_queries q CROSS JOIN LATERAL (SELECT b.id, q.p <-> b.p AS d FROM lkp_places b ORDER BY q.p <-> b.p LIMIT 5) n'
\echo '== no index: the planner''s choice, then PostgreSQL''s plan'
EXPLAIN (COSTS OFF) :query;
\ir include/three_runs.sql
SET simjoin.enable_nearest_scan = off;
\ir include/three_runs.sql
RESET simjoin.enable_nearest_scan;
\echo '== a GiST index on the points: the planner''s choice'
CREATE INDEX ON lkp_places USING gist (p);
ANALYZE lkp_places;
EXPLAIN (COSTS OFF) :query;
\ir include/three_runs.sql
DROP TABLE lkp_places, lkp_queries;
