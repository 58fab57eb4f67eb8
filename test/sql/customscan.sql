-- The SimilarityJoin custom scan: plain joins on simjoin's distances are planned as a custom scan
-- and return exactly the rows of PostgreSQL's own plan (simjoin.enable_customscan = off).
-- No LOAD: the distance functions' planner support loads the library (and the planner hook)
-- while the first query using them is planned.
\i test/sql/include/customscan_setup.sql

-- Points on a 0.1 grid (many pairs exactly at the bound), duplicates, NULLs, NaN, infinities.
SELECT setseed(0.1234);
CREATE TABLE cs_a (id int PRIMARY KEY, cat int, v float8[]);
CREATE TABLE cs_b (id int PRIMARY KEY, cat int, v float8[]);
INSERT INTO cs_a SELECT i, i % 3, ARRAY[round(random() * 40) / 10, round(random() * 40) / 10]
  FROM generate_series(1, 1200) i;
INSERT INTO cs_b SELECT i, i % 3, ARRAY[round(random() * 40) / 10, round(random() * 40) / 10]
  FROM generate_series(1, 1500) i;
INSERT INTO cs_a SELECT 2000 + id, 1, v FROM cs_a WHERE id <= 50 ORDER BY id;  -- duplicates
INSERT INTO cs_a VALUES (3001, 0, NULL), (3002, 1, '{NaN,1}'), (3003, 2, '{Infinity,1}'),
  (3004, 0, '{1e200,1e200}');
INSERT INTO cs_b VALUES (3001, 0, NULL), (3002, 1, '{1,NaN}'), (3003, 2, '{Infinity,1}'),
  (3004, 0, '{-1e200,1e200}');
ANALYZE cs_a;
ANALYZE cs_b;

-- Plan shape.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cs_a a JOIN cs_b b
  ON a.v <+> b.v < 0.25 AND a.cat = b.cat;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_a a, cs_b b WHERE 0.2 >= chebyshev_distance(b.v, a.v);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3;

-- Same rows as PostgreSQL's own plan: each operator and function, each comparison.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v < 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON 0.5 >= a.v <-> b.v');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON 0.3 > b.v <-> a.v');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <+> b.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON chebyshev_distance(a.v, b.v) <= 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b, euclidean_distance(a.v, b.v) AS d FROM cs_a a JOIN cs_b b
     ON euclidean_distance(a.v, b.v) <= 0.4');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON manhattan_distance(b.v, a.v) <= 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON chebyshev_distance(a.v, b.v) < 0.15');
-- other join clauses are rechecked too; a self-join; eps = 0 (duplicates only)
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3 AND a.cat = b.cat
     AND a.id < b.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_a x JOIN cs_a y ON x.v <-> y.v <= 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_a x JOIN cs_a y ON x.v <-> y.v <= 0');
-- eps float4, infinite (forced: the planner prefers a nested loop there), NaN (every non-NULL
-- pair: NaN sorts above all), negative, NULL (folded to a one-time filter) (every non-NULL pair: NaN sorts above all), negative, NULL
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3::real');
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b
     ON a.v <-> b.v <= ''Infinity''::float8 AND a.id % 50 = 0');
-- NaN eps: every pair matches, so the custom scan is no cheaper; nested loops off to test it.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b
     ON a.v <-> b.v <= ''NaN''::float8 AND b.id % 100 = 0');
RESET enable_nestloop;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= -1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= NULL::float8');

-- real[] vectors in 3-D
CREATE TABLE cs_c (id int, v real[]);
INSERT INTO cs_c SELECT i, ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
  round(random() * 20) / 10]::real[] FROM generate_series(1, 1000) i;
ANALYZE cs_c;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_c x JOIN cs_c y ON x.v <-> y.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_c x JOIN cs_c y ON x.v <+> y.v <= 0.3');

-- Prepared statements: eps as a parameter, custom and generic plans.
PREPARE cs_q(float8) AS SELECT count(*) FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= $1;
EXECUTE cs_q(0.3);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE cs_q(0.3);
EXECUTE cs_q(0.3);
EXECUTE cs_q(0.5);
RESET plan_cache_mode;
SET simjoin.enable_customscan = off;
EXECUTE cs_q(0.3);
EXECUTE cs_q(0.5);
RESET simjoin.enable_customscan;
DEALLOCATE cs_q;

-- Rescans with a changing eps (a parameter from the outer query), LIMIT.
SELECT e, (SELECT count(*) FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= e)
  FROM (VALUES (0.1::float8), (0.3), (0.1)) AS t(e);
SET simjoin.enable_customscan = off;
SELECT e, (SELECT count(*) FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= e)
  FROM (VALUES (0.1::float8), (0.3), (0.1)) AS t(e);
RESET simjoin.enable_customscan;
SELECT count(*) FROM (SELECT a.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3 LIMIT 10) l;
-- The result streams: LIMIT stops the engine once a few batches are queued, long before the
-- 3.4 million pairs of this join are produced. (With a LIMIT, PostgreSQL's nested loop is rightly
-- cheaper: it is turned off to get the custom scan.)
CREATE TABLE cs_dense AS
  SELECT i AS id, ARRAY[random() * 10, random() * 10]::float8[] AS v FROM generate_series(1, 4000) i;
ANALYZE cs_dense;
SET enable_nestloop = off;
SELECT count(*) FROM (SELECT a.id FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 3 LIMIT 5) l;
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 3 LIMIT 5',
                          'Engine Runs Stopped Early') AS stopped_early,
       pg_temp.cs_explain('SELECT a.id, b.id FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 3 LIMIT 5',
                          'Engine Pairs')::bigint < 1000000 AS few_pairs,
       (SELECT count(*) FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 3) > 3000000 AS millions;
-- Cursors fetch in portions: one engine run across several ExecutorRun calls, every pair once;
-- closing a cursor early stops its engine.
CREATE FUNCTION pg_temp.cs_cursor_rows(eps float8, first int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  d refcursor;
  moved bigint;
  total bigint := 0;
BEGIN
  OPEN d NO SCROLL FOR SELECT a.id, b.id FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 3;
  MOVE FORWARD 10 IN d;
  OPEN c NO SCROLL FOR SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= eps;
  MOVE FORWARD first IN c;
  GET DIAGNOSTICS moved = ROW_COUNT;
  total := total + moved;
  CLOSE d;
  MOVE FORWARD ALL IN c;
  GET DIAGNOSTICS moved = ROW_COUNT;
  CLOSE c;
  RETURN total + moved;
END $$;
SELECT pg_temp.cs_cursor_rows(0.3, 10) AS rows_10, pg_temp.cs_cursor_rows(0.3, 20000) AS rows_20000;
RESET enable_nestloop;
DROP TABLE cs_dense;

-- An inner side larger than work_mem spills to a temporary file (the outer side only past
-- max(hash_mem, 64 MB)).
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3',
                          'Inner Storage') AS inner_storage,
       pg_temp.cs_explain('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3',
                          'Outer Storage') AS outer_storage;
RESET work_mem;
RESET hash_mem_multiplier;
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3',
                          'Inner Storage') AS inner_storage,
       pg_temp.cs_explain('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3',
                          'Wild Rows') AS wild_rows;

-- Vectors of different dimensions: the custom scan raises simjoin's error naming the table and
-- the row (by a unique column the query reads, else by its vector), PostgreSQL's plan the
-- operator's.
INSERT INTO cs_b VALUES (5000, 0, '{1,2,3}');
SELECT count(*) FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3;
RESET simjoin.enable_customscan;

-- The custom scan's row estimate is the sampled size of the join times the other clauses'
-- selectivity (PostgreSQL's own estimate for  expr <= c  is a third of all pairs): within a
-- factor of two of the actual rows here, and below a twentieth of the cross product.
CREATE FUNCTION pg_temp.cs_rows(query text, OUT planned float8, OUT actual float8)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
  SELECT (p ->> 'Plan Rows')::float8, (p ->> 'Actual Rows')::float8 INTO planned, actual
    FROM json_array_elements(plan) e,
         LATERAL (SELECT e -> 'Plan' AS p UNION ALL SELECT e -> 'Plan' -> 'Plans' -> 0) n
    WHERE p ->> 'Custom Plan Provider' = 'SimilarityJoin' LIMIT 1;
END $$;
SELECT planned BETWEEN actual / 2 AND actual * 2 AS estimate_close,
       planned < 1254 * 1504 / 20 AS below_cross_product
  FROM pg_temp.cs_rows('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3
                        WHERE a.id < 9000 AND b.id < 5000');
SELECT planned BETWEEN actual / 4 AND actual * 4 AS estimate_close
  FROM pg_temp.cs_rows('SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3
                        AND a.cat = b.cat WHERE a.id < 9000 AND b.id < 5000');

-- Tiny inputs keep PostgreSQL's own plan; the setting turns the custom scan off.
CREATE TABLE cs_tiny (id int, v float8[]);
INSERT INTO cs_tiny VALUES (1, '{0,0}'), (2, '{1,1}');
ANALYZE cs_tiny;
EXPLAIN (COSTS OFF) SELECT * FROM cs_tiny x JOIN cs_tiny y ON x.v <-> y.v <= 1;
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_a a JOIN cs_b b ON a.v <-> b.v <= 0.3;
RESET simjoin.enable_customscan;

DROP TABLE cs_a, cs_b, cs_c, cs_tiny;
