-- A side read by parallel workers (pg/scan/load/parallel_load.cpp): a plain sequential scan of a
-- table large enough for PostgreSQL's parallel workers (here every table: min size 0) is read by
-- the leader and up to max_parallel_workers_per_gather workers, their points sent to the leader.
-- Every query is compared with PostgreSQL's own plan, with the leader reading too and with the
-- workers alone (parallel_leader_participation off: every row comes through the queues), on
-- float8[] and point keys, an integer lattice (pairs exactly at eps), duplicates and NULL keys;
-- a wild key (another dimension, NaN) makes the load step aside for the serial one.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;

-- How a side of the join was read (Inner or Outer), from EXPLAIN ANALYZE (the launched count
-- varies).
CREATE FUNCTION pg_temp.parallel_load(query text, side text DEFAULT 'Inner') RETURNS text
LANGUAGE sql AS $$
  SELECT coalesce(regexp_replace(pg_temp.cs_explain(query, side || ' Parallel Load'), '^\d+', 'N'),
                  'serial')
$$;

-- The lines of a query's plan.
CREATE FUNCTION pg_temp.cs_lines(query text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || query;
END $$;

-- 2,000 points on a 20 x 50 lattice, each twice; 1,500 on a second one (load_tables.sql)
\set load_a pl_a
\set load_b pl_b
\set n_a 2000
\set n_b 1500
\i test/sql/include/load_tables.sql
SELECT relpages > 10 AS several_blocks FROM pg_class WHERE relname = 'pl_a';

SET simjoin.enable_aggregates = on;

-- the leader and the workers
\i test/sql/include/load_queries.sql

-- the workers alone
SET parallel_leader_participation = off;
SELECT pg_temp.parallel_load(:'pairs_ab') AS pairs_ab_inner,
       pg_temp.parallel_load(:'pairs_ab', 'Outer') AS pairs_ab_outer;
SELECT * FROM pg_temp.cs_compare(:'count_a');
SELECT * FROM pg_temp.cs_compare(:'group_a');
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
SELECT * FROM pg_temp.cs_compare(:'points_a');
RESET parallel_leader_participation;

-- no workers where PostgreSQL would start none: below min_parallel_table_scan_size, or none
-- allowed, or a side that is not a plain table scan (a filter)
SET min_parallel_table_scan_size = '8MB';
SELECT pg_temp.parallel_load(:'count_a') AS small_table;
RESET min_parallel_table_scan_size;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 0;
SELECT pg_temp.parallel_load(:'count_a') AS no_workers;
SET max_parallel_workers_per_gather = 2;
\set filtered 'SELECT count(*) FROM pl_a a JOIN (SELECT * FROM pl_a WHERE tag > 0) b ON a.v <-> b.v <= 1'
SELECT pg_temp.parallel_load(:'filtered') AS inner_side,
       pg_temp.parallel_load(:'filtered', 'Outer') AS outer_side,
       (SELECT string_agg(trim(line), '; ') FROM pg_temp.cs_lines(:'filtered') line
        WHERE line LIKE '%Seq Scan%' OR line LIKE '%Filter: (%') AS children;
SELECT * FROM pg_temp.cs_compare(:'filtered');

-- a wild key (a huge coordinate, then a NaN) late in the table: the workers step aside and the
-- side is read serially; the results stay PostgreSQL's
INSERT INTO pl_b VALUES (1501, ARRAY[3, 1e300]::float8[], 1);
SELECT pg_temp.parallel_load(:'pairs_ab') AS huge_key_inner,
       pg_temp.parallel_load(:'pairs_ab', 'Outer') AS huge_key_outer;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
SET parallel_leader_participation = off;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
RESET parallel_leader_participation;
DELETE FROM pl_b WHERE id = 1501;
INSERT INTO pl_b VALUES (1501, ARRAY['NaN', 4]::float8[], 1);
SELECT pg_temp.parallel_load(:'pairs_ab') AS nan_key;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
SET parallel_leader_participation = off;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
RESET parallel_leader_participation;
DELETE FROM pl_b WHERE id = 1501;

-- rows changed in this transaction (not yet committed): the workers see what the leader sees
\set load_table pl_a
\set first_new 3001
\i test/sql/include/load_uncommitted.sql

-- a cursor's plan (no parallel mode for a portal run in steps) and a rescan
BEGIN;
DECLARE c CURSOR FOR SELECT count(*) FROM pl_a a JOIN pl_a b ON a.v <-> b.v <= 1;
FETCH c;
COMMIT;
SELECT * FROM pg_temp.cs_compare('SELECT t.tag, s.count FROM (SELECT DISTINCT tag FROM pl_b) t,
  LATERAL (SELECT count(*) FROM pl_a a JOIN pl_b b ON a.v <-> b.v <= 1 WHERE b.tag = t.tag) s');

DROP TABLE pl_a, pl_b;
