-- Semi- and anti-joins of PostGIS polygons (bounding-box candidates of the SimilarityJoin
-- custom scan) against PostgreSQL's own plan (GiST index nested loop semi/anti join): 20k small
-- polygons (points buffered by 5 m) on 20 km x 20 km, each side; the plan the planner picks,
-- then each plan forced. psql -X -f bench/sql/postgis_boxes_semi_anti.sql
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0; SET jit = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
SELECT setseed(0.5);
DROP TABLE IF EXISTS bb_qa, bb_qb;
CREATE TABLE bb_qa AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 20000, random() * 20000), 5) AS g FROM generate_series(1, 20000) i;
CREATE TABLE bb_qb AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 20000, random() * 20000), 5) AS g FROM generate_series(1, 20000) i;
CREATE INDEX ON bb_qb USING gist (g);
VACUUM ANALYZE bb_qa; VACUUM ANALYZE bb_qb;
\echo == NOT EXISTS within 100 m (anti-join)
\set q 'SELECT count(*) FROM bb_qa a WHERE NOT EXISTS (SELECT FROM bb_qb b WHERE ST_DWithin(a.g, b.g, 100))'
\ir postgis_boxes_plans.sql
\echo == EXISTS within 100 m (semi-join)
\set q 'SELECT count(*) FROM bb_qa a WHERE EXISTS (SELECT FROM bb_qb b WHERE ST_DWithin(a.g, b.g, 100))'
\ir postgis_boxes_plans.sql
DROP TABLE bb_qa, bb_qb;
