-- The nearest row of b within eps for every row of a (DISTINCT ON), the SimilarityJoin keeping
-- each outer row's nearest pair in the engine against PostgreSQL's own plan of the same query.
--   psql -v n=200000 -f bench/sql/aggregates_nearest.sql
-- Optional: -v n=N (rows of each table, default 200000), -v partners=P (the expected partners
-- of a row within eps, default 10: eps = sqrt(P / (pi * density))), -v native=off (skip
-- PostgreSQL's plans), -v keep=on (keep the tables).
-- Both tables: n uniform 2-D points in [0, 1000)^2 as cube (GiST-indexed, so that PostgreSQL's
-- plan is an index nested loop on the box clause users add for it) and as float8[]. Queries run
-- with work_mem 256MB and no JIT; PostgreSQL may use its default parallel workers. The results
-- go to temporary tables (CREATE TABLE AS, timed), compared as multisets at the end. The custom
-- plan runs three times, PostgreSQL's once; the LATERAL knn query (a different query: the
-- nearest by cube's GiST ordering, LIMIT 1, then kept within eps; ties unspecified) once.
\set ON_ERROR_STOP 0
\if :{?n}
\else
\set n 200000
\endif
\if :{?partners}
\else
\set partners 10
\endif
\if :{?native}
\else
\set native on
\endif
\if :{?keep}
\else
\set keep off
\endif
SELECT sqrt(:partners / (pi() * :n / 1e6)) AS eps \gset
\echo n = :n, eps = :eps

-- The query (the cube form, with the box clause cube's GiST index takes).
\set query_cube 'SELECT DISTINCT ON (a.id) a.id, b.id AS bid, a.c <-> b.c AS d FROM nb_a a JOIN nb_b b ON a.c <-> b.c <= ' :eps ' AND cube_enlarge(a.c, ' :eps ', 2) @> b.c ORDER BY a.id, a.c <-> b.c, b.id'

LOAD 'simjoin';
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE EXTENSION IF NOT EXISTS cube;
SET work_mem = '256MB';
SET jit = off;
SELECT setseed(0.42);
DROP TABLE IF EXISTS nb_a, nb_b;
CREATE TABLE nb_a (id int PRIMARY KEY, c cube, v float8[]);
CREATE TABLE nb_b (id int PRIMARY KEY, c cube, v float8[]);
INSERT INTO nb_a SELECT i, cube(p), p FROM (SELECT i, ARRAY[random() * 1000, random() * 1000] p
  FROM generate_series(1, :n) i) s;
INSERT INTO nb_b SELECT i, cube(p), p FROM (SELECT i, ARRAY[random() * 1000, random() * 1000] p
  FROM generate_series(1, :n) i) s;
CREATE INDEX ON nb_b USING gist (c);
VACUUM ANALYZE nb_a;
VACUUM ANALYZE nb_b;

\echo '== plans'
EXPLAIN (COSTS OFF) :query_cube;
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) :query_cube;
RESET simjoin.enable_customscan;

\timing on
\echo '== cube: the engine path (three runs)'
CREATE TEMP TABLE r_custom AS :query_cube;
DROP TABLE r_custom;
CREATE TEMP TABLE r_custom AS :query_cube;
DROP TABLE r_custom;
CREATE TEMP TABLE r_custom AS :query_cube;
\echo '== cube: the join without the engine keeping the nearest (simjoin.enable_aggregates off)'
SET simjoin.enable_aggregates = off;
CREATE TEMP TABLE r_join AS :query_cube;
RESET simjoin.enable_aggregates;
\echo '== float8[] <->: the engine path (PostgreSQL has no index for it: a nested loop)'
CREATE TEMP TABLE r_array AS SELECT DISTINCT ON (a.id) a.id, b.id AS bid, a.v <-> b.v AS d
  FROM nb_a a JOIN nb_b b ON a.v <-> b.v <= :eps ORDER BY a.id, a.v <-> b.v, b.id;
\if :native
\echo '== cube: PostgreSQL''s plan (simjoin.enable_customscan off)'
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE r_native AS :query_cube;
\echo '== cube: LATERAL knn (GiST ordering, LIMIT 1, within eps)'
CREATE TEMP TABLE r_knn AS SELECT a.id, n.bid, n.d FROM nb_a a CROSS JOIN LATERAL
  (SELECT b.id AS bid, a.c <-> b.c AS d FROM nb_b b ORDER BY a.c <-> b.c LIMIT 1) n
  WHERE n.d <= :eps;
RESET simjoin.enable_customscan;
\timing off
\echo '== results: rows, and rows only one plan returns (must be 0)'
SELECT (SELECT count(*) FROM r_custom) AS rows_custom, (SELECT count(*) FROM r_native) AS rows_native,
  (SELECT count(*) FROM (SELECT * FROM r_custom EXCEPT ALL SELECT * FROM r_native) x) AS only_custom,
  (SELECT count(*) FROM (SELECT * FROM r_native EXCEPT ALL SELECT * FROM r_custom) x) AS only_native,
  (SELECT count(*) FROM (SELECT * FROM r_join EXCEPT ALL SELECT * FROM r_native) x) AS join_differs,
  (SELECT count(*) FROM (SELECT * FROM r_array EXCEPT ALL SELECT * FROM r_native) x) AS array_differs,
  (SELECT count(*) FROM (SELECT id, d FROM r_knn EXCEPT ALL SELECT id, d FROM r_native) x)
    AS knn_differs_in_distance;
\endif
\timing off
\if :keep
\else
DROP TABLE nb_a, nb_b;
\endif
