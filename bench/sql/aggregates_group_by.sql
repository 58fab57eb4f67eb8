-- Neighbour counts per row on 1M rows: SELECT a.id, count(*) ... GROUP BY a.id over a
-- self-join within eps, computed in the engine (the SimilarityJoinAggregate scan) vs PostgreSQL's
-- best plan (simjoin.enable_customscan = off: ST_DWithin with the GiST index), in one session.
--   psql -f bench/sql/aggregates_group_by.sql            places: GeoNames cities500 x 5, eps 1 km
-- Run from the repository's root (reads demo/data/cities500.csv.gz). Optional: -v n=N (copies of
-- each place, default 5), -v eps=E, -v native=off (skip PostgreSQL's plan), -v keep=on (keep
-- bm_data), -v reuse=on (use the bm_data left by an earlier run with keep=on).
-- The engine's queries run three times, PostgreSQL's once (statement_timeout 1200 s); each query
-- is wrapped in count(*), sum(c) and sum((id % 1000) * c) over its groups (int4 sums: cheap next
-- to the join), which both plans must agree on. id gets a unique index (a primary key's): the
-- engine's groups are then its points, read in place.
\set ON_ERROR_STOP 0
\if :{?n}
\else
\set n 5
\endif
\if :{?eps}
\else
\set eps 1
\endif
\if :{?native}
\else
\set native on
\endif
\if :{?keep}
\else
\set keep off
\endif
\if :{?reuse}
\else
\set reuse off
\endif

LOAD 'simjoin';
SET jit = off;
SET work_mem = '256MB';
SET maintenance_work_mem = '1GB';
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT setseed(0.5);
\if :reuse
\else
\i bench/sql/include/places_data.sql
VACUUM ANALYZE bm_data;
\endif
CREATE UNIQUE INDEX IF NOT EXISTS bm_data_id ON bm_data (id);
SELECT count(*) AS rows, :eps AS eps FROM bm_data;

\set by_g 'SELECT a.id, count(*) AS c FROM bm_data a JOIN bm_data b ON ST_DWithin(a.g, b.g, ' :eps ') GROUP BY a.id'
\set by_v 'SELECT a.id, count(*) AS c FROM bm_data a JOIN bm_data b ON a.v <-> b.v <= ' :eps ' GROUP BY a.id'
\set total_g 'SELECT count(*) FROM bm_data a JOIN bm_data b ON ST_DWithin(a.g, b.g, ' :eps ')'
-- the places with a neighbour among a tenth of them (a DISTINCT without aggregates)
\set near_g 'SELECT DISTINCT a.id FROM bm_data a JOIN bm_data b ON ST_DWithin(a.g, b.g, ' :eps ') WHERE b.id % 10 = 0'

\echo '== engine: ' :by_g
EXPLAIN (COSTS OFF) :by_g;
\timing on
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_g) s;
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_g) s;
SELECT count(*) AS engine_groups, sum(c::int) AS engine_pairs,
       sum((id % 1000)::int * c::int) AS engine_checksum
  FROM (:by_g) s \gset
\echo '== engine: ' :by_v
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_v) s;
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_v) s;
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_v) s;
\echo '== engine: ' :total_g
SELECT (:total_g) AS pairs;
SELECT (:total_g) AS pairs;
SELECT (:total_g) AS pairs;
\echo '== engine: ' :near_g
EXPLAIN (COSTS OFF) :near_g;
SELECT count(*) AS places_with_neighbour FROM (:near_g) s;
SELECT count(*) AS places_with_neighbour FROM (:near_g) s;
SELECT count(*) AS engine_near FROM (:near_g) s \gset
\timing off
SET simjoin.explain_machine_details = on;
EXPLAIN (ANALYZE, COSTS OFF) :by_g;
RESET simjoin.explain_machine_details;
-- the same join handing every pair to PostgreSQL's HashAggregate (the aggregate path off)
SET simjoin.enable_aggregates = off;
\echo '== SimilarityJoin + HashAggregate: ' :by_g
EXPLAIN (COSTS OFF) :by_g;
\timing on
SELECT count(*) AS groups, sum(c::int) AS pairs, sum((id % 1000)::int * c::int) AS checksum FROM (:by_g) s;
\echo '== SimilarityJoin + HashAggregate: ' :near_g
SELECT count(*) AS places_with_neighbour FROM (:near_g) s;
\timing off
RESET simjoin.enable_aggregates;

\if :native
\echo '== PostgreSQL''s own plan: ' :by_g
SET simjoin.enable_customscan = off;
SET statement_timeout = '1200s';
EXPLAIN (COSTS OFF) :by_g;
\timing on
SELECT count(*) AS native_groups, sum(c::int) AS native_pairs,
       sum((id % 1000)::int * c::int) AS native_checksum
  FROM (:by_g) s \gset
\echo '== PostgreSQL''s own plan: ' :near_g
EXPLAIN (COSTS OFF) :near_g;
SELECT count(*) AS native_near FROM (:near_g) s \gset
\timing off
RESET statement_timeout;
RESET simjoin.enable_customscan;
SELECT :engine_groups AS engine_groups, :native_groups AS native_groups,
       :engine_pairs AS engine_pairs, :native_pairs AS native_pairs,
       :engine_groups = :native_groups AND :engine_pairs = :native_pairs
         AND :engine_checksum = :native_checksum AS results_equal,
       :engine_near AS engine_near, :native_near AS native_near,
       :engine_near = :native_near AS near_equal;
\endif
\if :keep
\else
DROP TABLE bm_data;
\endif
