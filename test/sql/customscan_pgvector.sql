-- The SimilarityJoin custom scan on pgvector: <-> (L2), <+> (L1), <=> (cosine).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT count(*) > 0 AS has_vector FROM pg_available_extensions WHERE name = 'vector' \gset
\if :has_vector
CREATE EXTENSION IF NOT EXISTS vector;
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
INSERT INTO cs_vb VALUES (9001, '[0,0,0,0]'), (9002, '[0.1,0.1,0.1,0.1]');
ANALYZE cs_va;
ANALYZE cs_vb;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_va a JOIN cs_vb b ON a.v <-> b.v <= 0.3;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <-> b.v <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <+> b.v <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON a.v <=> b.v <= 0.01');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_va a JOIN cs_vb b ON l2_distance(a.v, b.v) < 0.4');
DROP TABLE cs_va, cs_vb;
\else
\echo 'pgvector is not available: pgvector tests skipped'
\endif
