-- Joins of PostGIS geometries that are not points (bounding-box candidates of the
-- SimilarityJoin custom scan) against PostgreSQL's own plan (GiST index nested loop), side by
-- side: the plan the planner picks, then each plan forced. Run with psql against a server
-- with simjoin and PostGIS:  psql -X -f bench/sql/postgis_boxes.sql
\set ON_ERROR_STOP 1
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
SELECT setseed(0.5);
DROP TABLE IF EXISTS bb_homes, bb_shops, bb_pts, bb_centres, bb_pa, bb_pb;
-- 10 shops x 200k homes on 20 km x 20 km (metres)
CREATE TABLE bb_homes AS SELECT i AS id, ST_MakePoint(random() * 20000, random() * 20000) AS geom
  FROM generate_series(1, 200000) i;
CREATE TABLE bb_shops AS SELECT i AS id, ST_MakePoint(random() * 20000, random() * 20000) AS geom
  FROM generate_series(1, 10) i;
-- 299 centres x 126k points on 10 km x 10 km
CREATE TABLE bb_pts AS SELECT i AS id, ST_MakePoint(random() * 10000, random() * 10000) AS g
  FROM generate_series(1, 126000) i;
CREATE TABLE bb_centres AS SELECT i AS id, ST_MakePoint(random() * 10000, random() * 10000) AS g
  FROM generate_series(1, 299) i;
-- 200k x 200k small polygons (points buffered by 5 m) on 20 km x 20 km
CREATE TABLE bb_pa AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 20000, random() * 20000), 5) AS g
  FROM generate_series(1, 200000) i;
CREATE TABLE bb_pb AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 20000, random() * 20000), 5) AS g
  FROM generate_series(1, 200000) i;
CREATE INDEX ON bb_homes USING gist (geom);
CREATE INDEX ON bb_pts USING gist (g);
CREATE INDEX ON bb_pb USING gist (g);
VACUUM ANALYZE bb_homes; VACUUM ANALYZE bb_shops; VACUUM ANALYZE bb_pts;
VACUUM ANALYZE bb_centres; VACUUM ANALYZE bb_pa; VACUUM ANALYZE bb_pb;
\timing on
\set q1 'SELECT count(*) FROM bb_shops s JOIN bb_homes h ON ST_DWithin(ST_Buffer(s.geom, 100), h.geom, 2000)'
\set q2 'SELECT count(*) FROM bb_centres c JOIN bb_pts p ON ST_DWithin(ST_Buffer(c.g, 50), p.g, 200)'
\set q3 'SELECT count(*) FROM bb_pa a JOIN bb_pb b ON ST_DWithin(a.g, b.g, 10)'
\echo == q1 buffered shops x 200k homes: chosen plan, custom scan forced, PostgreSQL plan
\set q :q1
\ir postgis_boxes_plans.sql
\echo == q2 buffered centres x 126k points
\set q :q2
\ir postgis_boxes_plans.sql
\echo == q3 200k x 200k buffered points (polygons)
\set q :q3
\ir postgis_boxes_plans.sql
DROP TABLE bb_homes, bb_shops, bb_pts, bb_centres, bb_pa, bb_pb;
