-- Cosine join on 100-D vectors: the SimilarityJoin custom scan against PostgreSQL's own plan for
-- the same query (a nested loop evaluating simjoin's <=> on every pair; no index serves it).
--   psql -v n=10000 -f bench/sql/cosine_100d.sql      (defaults: n = 10000, eps = 0.05)
-- Data: n embedding-like vectors, n/100 directions with about 100 noisy copies each (centres
-- uniform in [-1, 1]^100, noise uniform +-0.2 per coordinate), so each row has tens of
-- neighbours within eps. Both plans run with the session's defaults (parallel workers allowed).
\if :{?n}
\else
\set n 10000
\endif
\if :{?eps}
\else
\set eps 0.05
\endif
\if :{?native}
\else
\set native on
\endif
CREATE EXTENSION IF NOT EXISTS simjoin;
LOAD 'simjoin';
SET jit = off;
SET simjoin.explain_machine_details = on;
DROP TABLE IF EXISTS cos_vectors;
SELECT setseed(0.25);
CREATE TEMP TABLE cos_centres AS
  SELECT c, ARRAY(SELECT random() * 2 - 1 FROM generate_series(1, 100) WHERE c >= 0) AS centre
  FROM generate_series(0, greatest(:n / 100, 1) - 1) c;
CREATE TABLE cos_vectors AS
  SELECT i AS id,
         ARRAY(SELECT centre[j] + (random() - 0.5) * 0.4 FROM generate_series(1, 100) j
               WHERE i > 0)::float8[] AS v
  FROM generate_series(1, :n) i JOIN cos_centres ON c = i % greatest(:n / 100, 1);
VACUUM ANALYZE cos_vectors;
\timing on

\echo '== cosine <=> <= eps, count(*): custom scan'
SET simjoin.enable_customscan = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
SELECT count(*) FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
SELECT count(*) FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;

\echo '== cosine, all pairs with their distances (to the client, discarded): custom scan'
\o /dev/null
SELECT a.id, b.id, a.v <=> b.v FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
\o

\echo '== similarity_join(metric => cosine), count(*)'
SELECT count(*) FROM similarity_join('cos_vectors', 'cos_vectors', :eps, metric => 'cosine',
                                     left_key => 'id');

\if :native
\echo '== the same queries, PostgreSQL own plan'
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF)
  SELECT count(*) FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
SELECT count(*) FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
\o /dev/null
SELECT a.id, b.id, a.v <=> b.v FROM cos_vectors a JOIN cos_vectors b ON a.v <=> b.v <= :eps;
\o
\endif
