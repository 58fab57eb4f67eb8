-- SimilarityJoin custom scan vs PostgreSQL's native plans (GiST on PostGIS / cube).
--   psql -v n=1000000 -f bench/sql/customscan_bench.sql     (default n = 1000000)
-- Needs: simjoin, cube, postgis. Data: n 2-D places in a 1000 x 1000 square (about one
-- neighbour within eps2 per point on average) and n 3-D points in a 100^3 cube.
\if :{?n}
\else
\set n 1000000
\endif
\set eps2 0.5
\set eps3 1.0
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
CREATE EXTENSION IF NOT EXISTS cube;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
DROP TABLE IF EXISTS bench_places, bench_set;
SELECT setseed(0.5);
CREATE TABLE bench_places AS
  SELECT i AS id, x, y, ARRAY[x, y]::float8[] AS v, ST_MakePoint(x, y) AS g
  FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y
        FROM generate_series(1, :n) i) s;
CREATE INDEX ON bench_places USING gist (g);
CREATE TABLE bench_set AS
  SELECT i AS id, cube(ARRAY[random() * 100, random() * 100, random() * 100]) AS c
  FROM generate_series(1, :n) i;
CREATE INDEX ON bench_set USING gist (c);
VACUUM ANALYZE bench_places;
VACUUM ANALYZE bench_set;
\timing on

\echo '== 2-D places, PostGIS ST_DWithin, count(*)'
SET simjoin.enable_customscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);
SELECT count(*) FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);
SELECT count(*) FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);

\echo '== 2-D places, PostGIS ST_DWithin, all pairs (returned to the client, discarded)'
\o /dev/null
SET simjoin.enable_customscan = on;
SELECT a.id, b.id FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);
SET simjoin.enable_customscan = off;
SELECT a.id, b.id FROM bench_places a JOIN bench_places b ON ST_DWithin(a.g, b.g, :eps2);
\o

\echo '== 2-D places, simjoin float8[] <->, count(*) (native: nested loop, too slow: not run)'
SET simjoin.enable_customscan = on;
SELECT count(*) FROM bench_places a JOIN bench_places b ON a.v <-> b.v <= :eps2;

\echo '== 3-D set, cube <-> with the GiST-indexable cube_enlarge clause, count(*)'
SET simjoin.enable_customscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;
SELECT count(*) FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;
SELECT count(*) FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;

\echo '== 3-D set, all pairs'
\o /dev/null
SET simjoin.enable_customscan = on;
SELECT a.id, b.id FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;
SET simjoin.enable_customscan = off;
SELECT a.id, b.id FROM bench_set a JOIN bench_set b
  ON b.c <@ cube_enlarge(a.c, :eps3, 3) AND a.c <-> b.c <= :eps3;
\o
\timing off
RESET simjoin.enable_customscan;
DROP TABLE bench_places, bench_set;
