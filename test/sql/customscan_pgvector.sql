-- The SimilarityJoin custom scan on pgvector: <-> (L2), <+> (L1), <=> (cosine), and the functions
-- l2_distance, l1_distance, cosine_distance. pgvector computes in single precision; the engine
-- runs with a widened bound and every candidate pair is rechecked with pgvector's operator, so
-- the rows are PostgreSQL's own (simjoin.enable_customscan = off) in every case below.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT count(*) > 0 AS has_vector FROM pg_available_extensions WHERE name = 'vector' \gset
\if :has_vector
CREATE EXTENSION IF NOT EXISTS vector;

-- 1. Points on a 0.1 grid: not exact in float4, so pairs near the bound depend on pgvector's
-- rounding (its build and CPU): the counts are not printed, only that both plans agree.
SELECT setseed(0.67);
CREATE TABLE cs_va (id int, v vector(4));
CREATE TABLE cs_vb (id int, v vector(4));
INSERT INTO cs_va SELECT i, ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
  round(random() * 20) / 10, round(random() * 20) / 10]::real[]::vector
  FROM generate_series(1, 1200) i;
INSERT INTO cs_vb SELECT i, ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
  round(random() * 20) / 10, round(random() * 20) / 10]::real[]::vector
  FROM generate_series(1, 1200) i;
INSERT INTO cs_va VALUES (9001, NULL), (9002, '[0,0,0,0]'), (9003, '[1e30,1,1,1]');
INSERT INTO cs_vb VALUES (9001, '[0,0,0,0]'), (9002, '[0.1,0.1,0.1,0.1]'), (9003, NULL);
ANALYZE cs_va;
ANALYZE cs_vb;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_va a JOIN cs_vb b ON a.v <-> b.v <= 0.3;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_va a JOIN cs_vb b ON a.v <+> b.v <= 0.3;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_va a JOIN cs_vb b ON a.v <=> b.v < 0.01;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_va a JOIN cs_vb b ON cosine_distance(b.v, a.v) <= 0.01;
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <-> b.v <= 0.5');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <+> b.v <= 0.5');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <=> b.v <= 0.01');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON l2_distance(a.v, b.v) < 0.4');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON 0.3 >= l1_distance(b.v, a.v)');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON cosine_distance(a.v, b.v) < 0.02');
SELECT custom_scan, rows_custom > 0 AS some_rows, only_custom, only_native FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_va x JOIN cs_va y ON x.v <-> y.v <= 0.2');
-- A NULL eps matches nothing; a negative one nothing either.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <-> b.v <= NULL::float8');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <=> b.v <= -0.5');
DROP TABLE cs_va, cs_vb;

-- 2. Points on a 0.25 grid: every float4 sum is exact, so many pairs lie exactly at the bound
-- for each operator and the counts are the same on every build.
SELECT setseed(0.21);
CREATE TABLE cs_da (id int, v vector(4));
CREATE TABLE cs_db (id int, v vector(4));
INSERT INTO cs_da SELECT i, ARRAY[round(random() * 8) / 4, round(random() * 8) / 4,
  round(random() * 8) / 4, round(random() * 8) / 4]::real[]::vector
  FROM generate_series(1, 1000) i;
INSERT INTO cs_db SELECT i, ARRAY[round(random() * 8) / 4, round(random() * 8) / 4,
  round(random() * 8) / 4, round(random() * 8) / 4]::real[]::vector
  FROM generate_series(1, 1000) i;
ANALYZE cs_da;
ANALYZE cs_db;
-- L2 0.5 and 1.25 (0.75-1-1.25) are exact distances, L1 sums of quarters, cosine 0 (parallel).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <-> b.v <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <-> b.v < 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <-> b.v <= 1.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <+> b.v <= 0.75');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <+> b.v < 0.75');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <=> b.v <= 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <=> b.v < 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_da a JOIN cs_db b ON a.v <=> b.v <= 0.015');
DROP TABLE cs_da, cs_db;

-- 3. Vectors where pgvector's float4 sums are not the distance: cosine of vectors whose squares
-- fall into float4's subnormals ([3e-23,0] and [3e-23,1e-23] are at its distance 0) or whose
-- squared norm overflows float4 (distance 1 or NaN), L2 and L1 overflowing to Infinity, zero
-- vectors (cosine NaN), NULL. The custom scan leaves these rows to pgvector's operator.
SELECT setseed(0.5);
CREATE TABLE cs_ea (id int, v vector(6));
CREATE TABLE cs_eb (id int, v vector(6));
INSERT INTO cs_ea SELECT i, ARRAY[round(random() * 4) / 4, round(random() * 4) / 4, 1, 1, 1,
  round(random() * 4) / 4]::real[]::vector FROM generate_series(1, 400) i;
INSERT INTO cs_eb SELECT i, ARRAY[round(random() * 4) / 4, round(random() * 4) / 4, 1, 1, 1,
  round(random() * 4) / 4]::real[]::vector FROM generate_series(1, 400) i;
INSERT INTO cs_ea VALUES (9001, '[3e-23,0,0,0,0,0]'), (9002, '[0,0,0,0,0,0]'), (9003, NULL),
  (9004, '[3e38,0,0,0,0,0]'), (9005, '[1e19,1e19,1e19,1e19,1e19,1e19]'),
  (9006, '[1e-20,1e-20,1e-20,1e-20,1e-20,1e-20]');
INSERT INTO cs_eb VALUES (9001, '[3e-23,1e-23,0,0,0,0]'), (9002, '[0,0,0,0,0,0]'),
  (9004, '[-3e38,0,0,0,0,0]'), (9005, '[1e19,-1e19,1e19,1e19,1e19,1e19]'),
  (9006, '[1e-20,1e-20,1e-20,1e-20,1e-20,2e-20]');
ANALYZE cs_ea;
ANALYZE cs_eb;
SELECT a.id, b.id, round((a.v <=> b.v)::numeric, 4) AS cosine, a.v <-> b.v AS l2, a.v <+> b.v AS l1
  FROM cs_ea a JOIN cs_eb b ON a.id = b.id WHERE a.id > 9000 ORDER BY a.id;
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ea a JOIN cs_eb b ON a.v <=> b.v <= 0.01');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ea a JOIN cs_eb b ON a.v <=> b.v <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ea a JOIN cs_eb b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ea a JOIN cs_eb b ON a.v <+> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ea a JOIN cs_eb b ON a.v <-> b.v <= 1e300');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_ea a JOIN cs_eb b
                           ON a.v <=> b.v <= 0.01', 'Wild Rows') AS wild_rows;
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_ea a JOIN cs_eb b
                           ON a.v <-> b.v <= 0.25', 'Wild Rows') AS wild_rows;
-- eps NaN: every distance (NaN ones too) is <= NaN; a generic plan meets it at run time.
SET plan_cache_mode = force_generic_plan;
PREPARE cs_vq(float8) AS SELECT count(*) FROM cs_ea a JOIN cs_eb b ON a.v <=> b.v <= $1;
EXPLAIN (COSTS OFF) EXECUTE cs_vq(0.01);
EXECUTE cs_vq('NaN');
EXECUTE cs_vq(0.01);
SET simjoin.enable_customscan = off;
EXECUTE cs_vq('NaN');
EXECUTE cs_vq(0.01);
RESET simjoin.enable_customscan;
DEALLOCATE cs_vq;
RESET plan_cache_mode;
DROP TABLE cs_ea, cs_eb;
-- A squared norm past float4's range through many dimensions (400 x 1e36): pgvector's cosine
-- is then 1 against every vector its dot product stays finite with, more than 1 or not.
CREATE TABLE cs_ga (id int, v vector(400));
CREATE TABLE cs_gb (id int, v vector(400));
INSERT INTO cs_ga SELECT i, ARRAY(SELECT round(random() * 8) / 4 - 1
  FROM generate_series(1, 400) WHERE i > 0)::real[]::vector FROM generate_series(1, 150) i;
INSERT INTO cs_gb SELECT i, ARRAY(SELECT round(random() * 8) / 4 - 1
  FROM generate_series(1, 400) WHERE i > 0)::real[]::vector FROM generate_series(1, 150) i;
INSERT INTO cs_ga SELECT 9001, array_fill(1e18::real, ARRAY[400])::vector;
INSERT INTO cs_gb SELECT 9001, (ARRAY[-1::real] || array_fill(0::real, ARRAY[399]))::vector;
ANALYZE cs_ga;
ANALYZE cs_gb;
SELECT a.v <=> b.v AS cosine FROM cs_ga a, cs_gb b WHERE a.id = 9001 AND b.id = 9001;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_ga a JOIN cs_gb b ON a.v <=> b.v <= 1');
DROP TABLE cs_ga, cs_gb;
RESET enable_nestloop;

-- 4. Another dimension is pgvector's error in both plans.
CREATE TABLE cs_fa AS SELECT i AS id, ARRAY[i % 5, i % 7, 1]::real[]::vector AS v
  FROM generate_series(1, 300) i;
CREATE TABLE cs_fb AS SELECT i AS id, ARRAY[i % 3, i % 4, 1]::real[]::vector AS v
  FROM generate_series(1, 300) i;
INSERT INTO cs_fb VALUES (301, '[1,2]');
ANALYZE cs_fa;
ANALYZE cs_fb;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cs_fa a JOIN cs_fb b ON a.v <-> b.v <= 1;
SELECT count(*) FROM cs_fa a JOIN cs_fb b ON a.v <-> b.v <= 1;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM cs_fa a JOIN cs_fb b ON a.v <-> b.v <= 1;
RESET simjoin.enable_customscan;
SELECT count(*) FROM cs_fa a JOIN cs_fb b ON a.v <=> b.v <= 0.1;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM cs_fa a JOIN cs_fb b ON a.v <=> b.v <= 0.1;
RESET simjoin.enable_customscan;
DELETE FROM cs_fb WHERE id = 301;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_fa a JOIN cs_fb b ON a.v <+> b.v <= 1');
DROP TABLE cs_fa, cs_fb;

-- 5. The SimJoin Nearest Scan on pgvector: LATERAL (... ORDER BY q.v <-> b.v LIMIT k). pgvector
-- computes in single precision, so the rows are taken in the engine's order and measured by
-- pgvector's operator until the nearest is certain (Rows Measured); rows whose float4 sums are
-- not the distance (huge, tiny, zero vectors) are wild rows, measured on every loop. Compared
-- with PostgreSQL's plan (simjoin.enable_nearest_scan = off) as (outer id, distances in order).
\i test/sql/include/nn_compare.sql
SELECT setseed(0.21);
CREATE TABLE cs_nb (id int, cat int, v vector(16));
INSERT INTO cs_nb SELECT i, i % 3, (SELECT array_agg(round((random() * 4)::numeric, 2))
  FROM generate_series(1, 16) WHERE i > 0)::real[]::vector FROM generate_series(1, 3000) i;
INSERT INTO cs_nb SELECT 9000 + id, 0, v FROM cs_nb WHERE id <= 40;  -- duplicates: ties
INSERT INTO cs_nb VALUES (9901, 0, NULL), (9902, 0, array_fill(0, ARRAY[16])::real[]::vector),
  (9903, 0, array_fill(1e30, ARRAY[16])::real[]::vector),
  (9904, 0, array_fill(1e-30, ARRAY[16])::real[]::vector);
CREATE TABLE cs_nq AS SELECT id, v FROM cs_nb WHERE id % 97 = 0 OR id > 9900;
ANALYZE cs_nb;
ANALYZE cs_nq;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM cs_nq q
  CROSS JOIN LATERAL (SELECT b.id FROM cs_nb b ORDER BY q.v <-> b.v LIMIT 5) n;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT q.id, n.id FROM cs_nq q
  CROSS JOIN LATERAL (SELECT b.id FROM cs_nb b ORDER BY q.v <-> b.v LIMIT 5) n;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.ds FROM cs_nq q CROSS JOIN LATERAL (
  SELECT array_agg(d) AS ds FROM (SELECT q.v <-> b.v AS d FROM cs_nb b
                                  ORDER BY q.v <-> b.v LIMIT 6) s) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.ds FROM cs_nq q CROSS JOIN LATERAL (
  SELECT array_agg(d) AS ds FROM (SELECT b.v <+> q.v AS d FROM cs_nb b WHERE b.cat <> 1
                                  ORDER BY b.v <+> q.v LIMIT 9) s) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.ds FROM cs_nq q CROSS JOIN LATERAL (
  SELECT array_agg(d) AS ds FROM (SELECT q.v <=> b.v AS d FROM cs_nb b WHERE b.id <> q.id
                                  ORDER BY q.v <=> b.v LIMIT 4) s) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM cs_nq q LEFT JOIN LATERAL (
  SELECT l2_distance(q.v, b.v) AS d FROM cs_nb b ORDER BY l2_distance(q.v, b.v) LIMIT 3) n
  ON true$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM cs_nq q CROSS JOIN LATERAL (
  SELECT cosine_distance(q.v, b.v) AS d FROM cs_nb b ORDER BY cosine_distance(q.v, b.v)
  LIMIT 7) n$$);
DROP TABLE cs_nb, cs_nq;

-- 6. The functions on a pgvector column (vector, halfvec): read as their real[] values, the
-- distances simjoin's own in double on them, so the rows equal the same call on a real[] copy.
\i test/sql/include/rows_differ.sql
CREATE TABLE cs_pv (id int PRIMARY KEY, v vector(3));
INSERT INTO cs_pv SELECT i, ARRAY[i % 11, i % 7, (i % 5) * 0.5]::real[]::vector
  FROM generate_series(1, 600) i;
INSERT INTO cs_pv VALUES (601, NULL);
CREATE TABLE cs_pr AS SELECT id, v::real[] AS v FROM cs_pv;
ALTER TABLE cs_pr ADD PRIMARY KEY (id);
CREATE TABLE cs_ph AS SELECT id, v::halfvec AS h FROM cs_pv;
ALTER TABLE cs_ph ADD PRIMARY KEY (id);
SELECT rows_differ($$SELECT * FROM similarity_join('cs_pv', 'cs_pv', 1.5)$$,
                   $$SELECT * FROM similarity_join('cs_pr', 'cs_pr', 1.5)$$);
SELECT rows_differ($$SELECT * FROM similarity_join('cs_ph', 'cs_pv', 2, metric => 'manhattan')$$,
                   $$SELECT * FROM similarity_join('cs_pr', 'cs_pr', 2, metric => 'manhattan')$$);
SELECT rows_differ($$SELECT * FROM similarity_join_stats('cs_pv', 'cs_pv', 1)$$,
                   $$SELECT * FROM similarity_join_stats('cs_pr', 'cs_pr', 1)$$);
SELECT rows_differ($$SELECT * FROM similarity_knn_join('cs_pv', 'cs_pv', 4, metric => 'cosine')$$,
                   $$SELECT * FROM similarity_knn_join('cs_pr', 'cs_pr', 4, metric => 'cosine')$$);
SELECT rows_differ($$SELECT * FROM simjoin_dbscan('cs_pv', 1, 5)$$,
                   $$SELECT * FROM simjoin_dbscan('cs_pr', 1, 5)$$);
SELECT count(*) FROM similarity_join('cs_pv', 'cs_pv', 0);
DROP TABLE cs_pv, cs_pr, cs_ph;
DROP FUNCTION rows_differ(text, text);
\else
\echo 'pgvector is not available: pgvector tests skipped'
\endif
