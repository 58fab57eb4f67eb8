-- The SimilarityJoin custom scan on PostGIS distances between geometries: ST_Distance(a, b) <= d
-- and a <-> b <= d. The engine finds candidates within a widened bound on points; PostGIS's own
-- function decides every pair; rows that are not points are paired with every row.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- PostGIS is installed by scripts/setup.sh: without it this test fails rather than skips.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
SELECT setseed(0.52);
CREATE TABLE pd_a (id int PRIMARY KEY, g geometry);
CREATE TABLE pd_b (id int PRIMARY KEY, g geometry);
-- a lattice of 0.1: many pairs at exactly 0.5 (0.3-0.4-0.5 and axis-aligned)
INSERT INTO pd_a SELECT i, ST_MakePoint(round(random() * 200) / 10, round(random() * 200) / 10)
  FROM generate_series(1, 2000) i;
INSERT INTO pd_b SELECT i, ST_MakePoint(round(random() * 200) / 10, round(random() * 200) / 10)
  FROM generate_series(1, 2000) i;
-- not points, an empty point, NULL
INSERT INTO pd_b VALUES (9001, 'LINESTRING(0 0, 10 10)'), (9002, 'POINT EMPTY'), (9003, NULL),
  (9004, ST_Buffer(ST_MakePoint(5, 5), 1));
ANALYZE pd_a;
ANALYZE pd_b;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM pd_a a JOIN pd_b b ON ST_Distance(a.g, b.g) <= 0.5;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM pd_a a JOIN pd_b b ON a.g <-> b.g <= 0.5;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_b b ON ST_Distance(a.g, b.g) <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_b b ON ST_Distance(a.g, b.g) < 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_b b ON 0.5 >= ST_Distance(b.g, a.g)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_b b ON a.g <-> b.g <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_b b ON b.g <-> a.g <= 1.2 AND a.id % 3 = b.id % 3');
-- a self-join, an empty side
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN pd_a b ON ST_Distance(a.g, b.g) <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM pd_a a JOIN (SELECT * FROM pd_b WHERE id < 0) b ON a.g <-> b.g <= 0.5');
-- a generic plan: the bound is a parameter
SET plan_cache_mode = force_generic_plan;
PREPARE pd_q(float8) AS SELECT count(*) FROM pd_a a JOIN pd_b b ON ST_Distance(a.g, b.g) <= $1;
EXECUTE pd_q(0.5);
SET simjoin.enable_customscan = off;
EXECUTE pd_q(0.5);
RESET simjoin.enable_customscan;
DEALLOCATE pd_q;
RESET plan_cache_mode;
DROP TABLE pd_a, pd_b;
