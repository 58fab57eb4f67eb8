-- The k-nearest-neighbour join on 100-D vectors: similarity_knn_join() against PostgreSQL's own
-- k-NN query (CROSS JOIN LATERAL (... ORDER BY a.v <-> b.v, b.id LIMIT k): a sort of every right
-- row per left row; no index serves float8[]), results checked equal.
--   psql -v n=300000 -v q=1000 -v k=10 -v lateral_q=50 -f bench/sql/knn_100d.sql
-- Data: n base vectors, n/100 centres uniform in [-1, 1]^100 with about 100 noisy copies each
-- (noise uniform +-0.2 per coordinate); q query vectors drawn the same way. The LATERAL query
-- runs on the first lateral_q query rows (q of them take minutes), compared with the function's
-- rows for those; the function runs on all q.
\if :{?n}
\else
\set n 300000
\endif
\if :{?q}
\else
\set q 1000
\endif
\if :{?k}
\else
\set k 10
\endif
\if :{?lateral_q}
\else
\set lateral_q 50
\endif
CREATE EXTENSION IF NOT EXISTS simjoin;
SET jit = off;
SET simjoin.enable_customscan = off;
DROP TABLE IF EXISTS knn_base, knn_queries, knn_centres;
SELECT setseed(0.5);
CREATE TABLE knn_centres AS
  SELECT c, ARRAY(SELECT random() * 2 - 1 FROM generate_series(1, 100) WHERE c >= 0) AS centre
  FROM generate_series(0, greatest(:n / 100, 1) - 1) c;
CREATE TABLE knn_base AS
  SELECT i AS id, ARRAY(SELECT centre[j] + (random() - 0.5) * 0.4 FROM generate_series(1, 100) j) AS v
  FROM generate_series(1, :n) i JOIN knn_centres ON c = i % greatest(:n / 100, 1);
CREATE TABLE knn_queries AS
  SELECT i AS id, ARRAY(SELECT centre[j] + (random() - 0.5) * 0.4 FROM generate_series(1, 100) j) AS v
  FROM generate_series(1, :q) i JOIN knn_centres ON c = (i * 7919) % greatest(:n / 100, 1);
ALTER TABLE knn_base ADD PRIMARY KEY (id);
ALTER TABLE knn_queries ADD PRIMARY KEY (id);
VACUUM ANALYZE knn_base;
VACUUM ANALYZE knn_queries;
SELECT count(*) AS base_rows, :q AS query_rows, :k AS k FROM knn_base;

\timing on
\echo similarity_knn_join, all query rows (three runs)
CREATE TEMP TABLE knn_fn AS SELECT * FROM similarity_knn_join('knn_queries', 'knn_base', :k);
DROP TABLE knn_fn;
CREATE TEMP TABLE knn_fn AS SELECT * FROM similarity_knn_join('knn_queries', 'knn_base', :k);
DROP TABLE knn_fn;
CREATE TEMP TABLE knn_fn AS SELECT * FROM similarity_knn_join('knn_queries', 'knn_base', :k);
\echo PostgreSQL LATERAL plan, the first lateral_q query rows
EXPLAIN (COSTS OFF)
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance, n.rank
  FROM (SELECT * FROM knn_queries WHERE id <= :lateral_q) a CROSS JOIN LATERAL (
    SELECT b.id, a.v <-> b.v AS d, (row_number() OVER (ORDER BY a.v <-> b.v, b.id))::int AS rank
    FROM knn_base b WHERE a.v <-> b.v <= 'Infinity' ORDER BY a.v <-> b.v, b.id LIMIT :k) n;
CREATE TEMP TABLE knn_lateral AS
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance, n.rank
  FROM (SELECT * FROM knn_queries WHERE id <= :lateral_q) a CROSS JOIN LATERAL (
    SELECT b.id, a.v <-> b.v AS d, (row_number() OVER (ORDER BY a.v <-> b.v, b.id))::int AS rank
    FROM knn_base b WHERE a.v <-> b.v <= 'Infinity' ORDER BY a.v <-> b.v, b.id LIMIT :k) n;
\timing off
\echo rows in one result only (0 and 0: equal)
SELECT (SELECT count(*) FROM (SELECT * FROM knn_fn WHERE left_id <= :lateral_q
                              EXCEPT ALL SELECT * FROM knn_lateral) x) AS only_function,
       (SELECT count(*) FROM (SELECT * FROM knn_lateral
                              EXCEPT ALL SELECT * FROM knn_fn WHERE left_id <= :lateral_q) x) AS only_lateral,
       (SELECT count(*) FROM knn_lateral) AS lateral_rows, (SELECT count(*) FROM knn_fn) AS function_rows;
