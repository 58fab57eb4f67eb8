-- similarity_join() against PostgreSQL's best native plan for the same self-join: the cube
-- extension with a GiST index (cube_enlarge(a.c, eps, d) @> b.c AND a.c <-> b.c <= eps).
-- Usage: psql -v n=100000 -v eps=3 [-v once=1] -f bench/sql/function_vs_gist.sql
-- (uniform points in [0,100]^3; each query three times; the native one once with -v once=1)
\set ON_ERROR_STOP on
\if :{?n} \else \set n 100000 \endif
\if :{?eps} \else \set eps 3 \endif
CREATE EXTENSION IF NOT EXISTS cube;
CREATE EXTENSION IF NOT EXISTS simjoin;
SET simjoin.enable_customscan = off;  -- the native plan is PostgreSQL's own
DROP TABLE IF EXISTS bench_points;
SELECT setseed(0.5);
CREATE TABLE bench_points (id int PRIMARY KEY, v float8[], c cube);
INSERT INTO bench_points
  SELECT i, ARRAY[random() * 100, random() * 100, random() * 100] FROM generate_series(1, :n) i;
UPDATE bench_points SET c = cube(v);
CREATE INDEX ON bench_points USING gist (c);
VACUUM ANALYZE bench_points;
\echo n = :n, eps = :eps
\timing on
\echo native: cube + GiST index
SELECT count(*) AS native_pairs FROM bench_points a JOIN bench_points b
  ON cube_enlarge(a.c, :eps, 3) @> b.c AND a.c <-> b.c <= :eps \gset
\if :{?once} \else
SELECT count(*) AS native_pairs FROM bench_points a JOIN bench_points b
  ON cube_enlarge(a.c, :eps, 3) @> b.c AND a.c <-> b.c <= :eps \gset
SELECT count(*) AS native_pairs FROM bench_points a JOIN bench_points b
  ON cube_enlarge(a.c, :eps, 3) @> b.c AND a.c <-> b.c <= :eps \gset
\endif
\echo simjoin: similarity_join() (device from simjoin.device)
SELECT count(*) AS simjoin_pairs FROM similarity_join('bench_points', 'bench_points', :eps, left_column => 'v', right_column => 'v') \gset
SELECT count(*) AS simjoin_pairs FROM similarity_join('bench_points', 'bench_points', :eps, left_column => 'v', right_column => 'v') \gset
SELECT count(*) AS simjoin_pairs FROM similarity_join('bench_points', 'bench_points', :eps, left_column => 'v', right_column => 'v') \gset
\timing off
SELECT :native_pairs AS native_pairs, :simjoin_pairs AS simjoin_pairs, :native_pairs = :simjoin_pairs AS equal;
