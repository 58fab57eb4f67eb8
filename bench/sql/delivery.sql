-- The custom scan's result delivery against PostgreSQL's own ceiling on the same server (issue
-- 4): count(*) over a similarity self-join of n rows vs count(*) over a stored two-int table
-- with as many rows as the join's result. Five interleaved rounds; take the medians.
--   psql -v n=200000 -f bench/sql/delivery.sql      (default n = 200000)
-- Data as bench/sql/customscan_bench.sql generates it (setseed(0.5)): n random 2-D points in
-- [0,1000]^2 (float8[], eps 5), then n random 3-D cubes in [0,100]^3 (eps 3, with cube's index
-- clause). Single process (no parallel workers), work_mem 256MB, no JIT.
\if :{?n}
\else
\set n 200000
\endif
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
CREATE EXTENSION IF NOT EXISTS cube;
DROP TABLE IF EXISTS dv_places, dv_set, dv_ceiling_v, dv_ceiling_c;
SELECT setseed(0.5);
CREATE TABLE dv_places AS
  SELECT i AS id, ARRAY[x, y]::float8[] AS v
  FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y FROM generate_series(1, :n) i) s;
CREATE TABLE dv_set AS
  SELECT i AS id, cube(ARRAY[random() * 100, random() * 100, random() * 100]) AS c
  FROM generate_series(1, :n) i;
VACUUM ANALYZE dv_places;
VACUUM ANALYZE dv_set;
\set q_v 'SELECT count(*) FROM dv_places a JOIN dv_places b ON a.v <-> b.v <= 5'
\set q_c 'SELECT count(*) FROM dv_set a JOIN dv_set b ON b.c <@ cube_enlarge(a.c, 3, 3) AND a.c <-> b.c <= 3'
CREATE TABLE dv_ceiling_v AS SELECT i AS a, i AS b FROM generate_series(1, (:q_v)) i;
CREATE TABLE dv_ceiling_c AS SELECT i AS a, i AS b FROM generate_series(1, (:q_c)) i;
VACUUM ANALYZE dv_ceiling_v;
VACUUM ANALYZE dv_ceiling_c;
SELECT (SELECT count(*) FROM dv_ceiling_v) AS rows_v, (SELECT count(*) FROM dv_ceiling_c) AS rows_c;
EXPLAIN (COSTS OFF) :q_c;
\timing on
:q_v; SELECT count(*) FROM dv_ceiling_v; :q_c; SELECT count(*) FROM dv_ceiling_c;
:q_v; SELECT count(*) FROM dv_ceiling_v; :q_c; SELECT count(*) FROM dv_ceiling_c;
:q_v; SELECT count(*) FROM dv_ceiling_v; :q_c; SELECT count(*) FROM dv_ceiling_c;
:q_v; SELECT count(*) FROM dv_ceiling_v; :q_c; SELECT count(*) FROM dv_ceiling_c;
:q_v; SELECT count(*) FROM dv_ceiling_v; :q_c; SELECT count(*) FROM dv_ceiling_c;
\timing off
DROP TABLE dv_places, dv_set, dv_ceiling_v, dv_ceiling_c;
