-- The SimilarityJoin custom scan on pgvector: <-> (L2), <+> (L1), <=> (cosine).
LOAD 'simjoin';
SET simjoin.explain_machine_details = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- cs_explain(query, key): one property of the SimilarityJoin node in EXPLAIN ANALYZE.
CREATE FUNCTION pg_temp.cs_explain(query text, key text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  PERFORM set_config('simjoin.explain_machine_details', 'on', true);
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
  PERFORM set_config('simjoin.explain_machine_details', 'off', true);
  RETURN (SELECT p ->> key FROM json_array_elements(plan) e,
            LATERAL (SELECT e -> 'Plan' AS p UNION ALL SELECT e -> 'Plan' -> 'Plans' -> 0) n
          WHERE p ->> 'Custom Plan Provider' = 'SimilarityJoin' LIMIT 1);
END $$;

-- cs_compare(query): whether the custom scan plans it, and the row counts with and without it,
-- and the rows only one of the two plans returns (multiset difference, both ways).
CREATE FUNCTION pg_temp.cs_compare(query text,
    OUT custom_scan boolean, OUT rows_custom bigint, OUT rows_native bigint,
    OUT only_custom bigint, OUT only_native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  custom_scan := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Custom Scan (SimilarityJoin)%' THEN custom_scan := true; END IF;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE cs_on AS ' || query;
  PERFORM set_config('simjoin.enable_customscan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE cs_off AS ' || query;
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
  SELECT count(*) INTO rows_custom FROM cs_on;
  SELECT count(*) INTO rows_native FROM cs_off;
  SELECT count(*) INTO only_custom FROM (SELECT * FROM cs_on EXCEPT ALL SELECT * FROM cs_off) d;
  SELECT count(*) INTO only_native FROM (SELECT * FROM cs_off EXCEPT ALL SELECT * FROM cs_on) d;
  DROP TABLE cs_on;
  DROP TABLE cs_off;
END $$;

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
