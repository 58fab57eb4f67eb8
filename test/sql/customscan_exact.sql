-- The SimilarityJoin custom scan with simjoin's own distances: the engine decides the distance
-- clause exactly (no recheck of its pairs); rows it cannot represent (NULL elements, another
-- dimension, NaN / infinite / huge coordinates) are paired with everything and decided by the
-- operator. Every case is compared with PostgreSQL's own plan (simjoin.enable_customscan = off):
-- a wrong skip of the recheck shows as rows only one plan returns, or as a different error.
\i test/sql/include/customscan_setup.sql

-- cs_error(query): the error of the query with the custom scan, then without it.
CREATE FUNCTION pg_temp.cs_error(query text, OUT custom_error text, OUT native_error text)
LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE 'SELECT count(*) FROM (' || query || ') q';
  EXCEPTION WHEN OTHERS THEN
    custom_error := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('simjoin.enable_customscan', 'off', true);
  BEGIN
    EXECUTE 'SELECT count(*) FROM (' || query || ') q';
  EXCEPTION WHEN OTHERS THEN
    native_error := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
END $$;

-- Integer points (distances 5 = 3-4-5 exactly, many pairs exactly at integer bounds) and points
-- on a 0.1 grid (pairs exactly at a computed distance), enough pairs for the grid algorithm.
SELECT setseed(0.42);
CREATE TABLE ex_a (id int PRIMARY KEY, cat int, v float8[]);
CREATE TABLE ex_b (id int PRIMARY KEY, cat int, v float8[]);
INSERT INTO ex_a SELECT i, i % 3, ARRAY[floor(random() * 40), floor(random() * 40)]
  FROM generate_series(1, 1200) i;
INSERT INTO ex_b SELECT i, i % 3, ARRAY[floor(random() * 40), floor(random() * 40)]
  FROM generate_series(1, 1200) i;
INSERT INTO ex_a SELECT 5000 + i, i % 2,
  ARRAY[100 + round(random() * 20) / 10, round(random() * 20) / 10] FROM generate_series(1, 300) i;
INSERT INTO ex_b SELECT 5000 + i, i % 2,
  ARRAY[100 + round(random() * 20) / 10, round(random() * 20) / 10] FROM generate_series(1, 300) i;
ANALYZE ex_a;
ANALYZE ex_b;

EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5;
-- The engine's pairs are not rechecked: no row removed by the filter without wild rows.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT a.id, b.id FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT a.id, b.id FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5 AND a.cat = b.cat;

-- Pairs exactly at the bound, <= and <, each operator and function, both argument orders.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v < 5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON 5 > b.v <-> a.v');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON 5 >= euclidean_distance(b.v, a.v)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <+> b.v <= 3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON manhattan_distance(a.v, b.v) < 3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON chebyshev_distance(a.v, b.v) <= 2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON chebyshev_distance(b.v, a.v) < 2');
-- eps exactly a computed distance (about sqrt(0.1^2 + 0.2^2) in double arithmetic), and the doubles
-- next to it: d <= eps, d < eps and their neighbours.
SET extra_float_digits = 3;
SELECT '{100,0}'::float8[] <-> '{100.1,0.2}'::float8[] AS d \gset
SELECT count(*) AS at_d FROM ex_a a JOIN ex_b b ON a.v <-> b.v = :'d'::float8;
SELECT * FROM pg_temp.cs_compare(format(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= %L::float8', :'d'));
SELECT * FROM pg_temp.cs_compare(format(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v < %L::float8', :'d'));
SELECT * FROM pg_temp.cs_compare(format(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON %L::float8 > a.v <-> b.v', :'d'));
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <+> b.v <= 0.30000000000000004');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <+> b.v < 0.30000000000000004');
RESET extra_float_digits;
-- eps 0 and -0 (<= matches equal points only, < nothing), a float4 eps, an infinite eps with <
-- (d < Infinity for every finite distance; forced: the planner prefers a nested loop there).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= ''-0''::float8');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON chebyshev_distance(a.v, b.v) < 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v < 0.3::real');
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v < ''Infinity''::float8 AND a.id % 40 = 0');
RESET enable_nestloop;
-- Extra join clauses: checked on every pair.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5 AND a.cat = b.cat');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <+> b.v < 3 AND a.id < b.id AND a.v[1] <> b.v[2]');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v <= 5 AND a.v <+> b.v < 6 AND a.cat + b.cat = 2');
-- The pair's columns: keys, distances and whole rows come out as in the native plan.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.*, b.v AS bv, a.v <-> b.v AS d FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a, b FROM ex_a a JOIN ex_b b ON chebyshev_distance(a.v, b.v) < 1');

-- Rows the engine cannot represent: NaN, infinite and huge coordinates (decided by the
-- operator on every pair), NULL keys.
INSERT INTO ex_a VALUES (9001, 0, '{NaN,1}'), (9002, 1, '{Infinity,1}'), (9003, 2, '{1e200,0}'),
  (9004, 0, NULL), (9005, 1, '{-Infinity,-Infinity}'), (9006, 2, '{NaN,NaN}');
INSERT INTO ex_b VALUES (9001, 0, '{1,NaN}'), (9002, 1, '{Infinity,1}'), (9003, 2, '{1e200,3}'),
  (9004, 0, NULL), (9005, 1, '{-Infinity,5}');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v < 5 AND a.cat = b.cat');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <+> b.v <= 3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON chebyshev_distance(a.v, b.v) < 2');
-- NaN eps: d <= NaN and d < NaN for every distance but NaN (NaN sorts above everything); the
-- custom scan is no cheaper than a nested loop on every pair: nested loops off to test it.
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v <= ''NaN''::float8 AND b.id % 100 = 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v < ''NaN''::float8 AND b.id % 100 = 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v <= ''Infinity''::float8 AND a.id % 40 = 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b
     ON a.v <-> b.v < ''Infinity''::float8 AND a.id % 40 = 0');
RESET enable_nestloop;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= -1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ex_a a JOIN ex_b b ON a.v <-> b.v < NULL::float8');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT a.id, b.id FROM ex_a a JOIN ex_b b ON a.v <-> b.v <= 5;

-- real[] keys (float4 widened exactly), and real[] against float8[].
CREATE TABLE ex_r (id int PRIMARY KEY, v real[]);
INSERT INTO ex_r SELECT i, ARRAY[round(random() * 30) / 10, round(random() * 30) / 10]::real[]
  FROM generate_series(1, 1500) i;
INSERT INTO ex_r VALUES (9001, '{NaN,0}'), (9002, '{Infinity,0}');
ANALYZE ex_r;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM ex_r x JOIN ex_r y ON x.v <-> y.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM ex_r x JOIN ex_r y ON x.v <-> y.v < 0.3::real');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM ex_r x JOIN ex_r y ON x.v <+> y.v < 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, b.id AS b FROM ex_r x JOIN ex_b b ON x.v::float8[] <-> b.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, b.id AS b FROM ex_r x JOIN ex_b b ON chebyshev_distance(b.v, x.v::float8[]) < 0.2');

-- Wild rows whose distance raises an error: the same error as PostgreSQL's own plan (SQLSTATE;
-- simjoin's error for vectors of different dimensions names the table and the row).
CREATE TABLE ex_e (id int PRIMARY KEY, v float8[]);
INSERT INTO ex_e SELECT i, ARRAY[floor(random() * 40), floor(random() * 40)]
  FROM generate_series(1, 1500) i;
INSERT INTO ex_e VALUES (9001, '{1,NULL}');
ANALYZE ex_e;
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON a.v <-> e.v <= 5');
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON e.v <+> a.v < 3');
UPDATE ex_e SET v = '{1,2,3}' WHERE id = 9001;
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON a.v <-> e.v <= 5');
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON chebyshev_distance(e.v, a.v) < 2');
UPDATE ex_e SET v = '{{1,2},{3,4}}' WHERE id = 9001;
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON a.v <-> e.v <= 5');
-- A cheaper clause that is false for the wild row first: no error in either plan.
SELECT * FROM pg_temp.cs_error(
  'SELECT a.id, e.id FROM ex_a a JOIN ex_e e ON a.v <-> e.v <= 5 AND e.id < 9000');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, e.id AS b FROM ex_a a JOIN ex_e e ON a.v <-> e.v <= 5 AND e.id < 9000');
DROP TABLE ex_a, ex_b, ex_r, ex_e;
