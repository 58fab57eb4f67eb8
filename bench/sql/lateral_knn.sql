-- The SimJoin Nearest Scan against PostgreSQL's plan (SeqScan + top-N sort per outer row):
-- 100k random 100-D float8[] rows, 20 outer rows, k = 10, CROSS JOIN LATERAL; three rounds
-- each. Run: psql -X -f bench/sql/lateral_knn.sql (a database with simjoin installed).
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS simjoin;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';  -- the cache: 100k x (100 x 8 + 24) bytes
SELECT setseed(0.11);
DROP TABLE IF EXISTS lk_items, lk_queries;
CREATE TABLE lk_items AS SELECT i AS id,
  ARRAY(SELECT random() FROM generate_series(1, 100) WHERE i > 0) AS v
  FROM generate_series(1, 100000) i;
CREATE TABLE lk_queries AS SELECT i AS id,
  ARRAY(SELECT random() FROM generate_series(1, 100) WHERE i > 0) AS v
  FROM generate_series(1, 20) i;
ANALYZE lk_items;
ANALYZE lk_queries;
\set query 'SELECT count(*), sum(n.d) FROM lk_queries q CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM lk_items b ORDER BY q.v <-> b.v LIMIT 10) n'
-- The planner's choice (the Nearest Scan), then PostgreSQL's plan with the scan off.
EXPLAIN (COSTS OFF) :query;
\timing on
:query;
:query;
:query;
SET simjoin.enable_nearest_scan = off;
\timing off
EXPLAIN (COSTS OFF) :query;
\timing on
:query;
:query;
:query;
