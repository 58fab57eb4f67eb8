-- A side read by the leader with parse threads (pg/scan/load/threaded_load.cpp, forced here with
-- simjoin.load_threads): the leader scans the table and threads deform its rows and parse their
-- keys. Every query is compared with PostgreSQL's own plan: float8[], point and PostGIS keys,
-- an integer lattice (pairs exactly at eps), duplicates and NULL keys and columns; rows written
-- before a column was added (the leader reads them), keys stored compressed or out of line (the
-- leader detoasts them), a wild key (the load steps aside for the serial one), rows changed in
-- the reading transaction, and a statement cancelled while the threads run.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET simjoin.load_threads = 2;

-- How a side of the join was read (Inner or Outer), from EXPLAIN ANALYZE.
CREATE FUNCTION pg_temp.parallel_load(query text, side text DEFAULT 'Inner') RETURNS text
LANGUAGE sql AS $$ SELECT coalesce(pg_temp.cs_explain(query, side || ' Parallel Load'), 'serial') $$;

-- 6,000 points on a 20 x 50 lattice, each three times; 4,500 on a second one (load_tables.sql)
\set load_a tl_a
\set load_b tl_b
\set n_a 6000
\set n_b 4500
\i test/sql/include/load_tables.sql
\i test/sql/include/load_queries.sql
-- one thread, and off (PostgreSQL's parallel workers, or none: serial)
SET simjoin.load_threads = 1;
SELECT pg_temp.parallel_load(:'pairs_ab') AS one_thread;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
SET simjoin.load_threads = 0;
SET max_parallel_workers_per_gather = 0;
SELECT pg_temp.parallel_load(:'pairs_ab') AS off;
RESET max_parallel_workers_per_gather;
SET simjoin.load_threads = 2;

-- rows written before a column was added have fewer columns than the table: the leader reads
-- them (the added column's default); the rows written after, the threads
ALTER TABLE tl_b ADD COLUMN w int DEFAULT 7;
INSERT INTO tl_b SELECT i, ARRAY[(i % 20) + 0.5, (i / 20) % 50]::float8[], i % 5, i % 3
FROM generate_series(4501, 5000) i;
\set added 'SELECT a.id AS a, b.id AS b, b.w FROM tl_a a JOIN tl_b b ON a.v <-> b.v <= 1.2'
SELECT pg_temp.parallel_load(:'added') AS added_inner, pg_temp.parallel_load(:'added', 'Outer') AS added_outer;
SELECT * FROM pg_temp.cs_compare(:'added');
SELECT b.w, count(*) FROM tl_a a JOIN tl_b b ON a.v <-> b.v <= 1.2 GROUP BY b.w ORDER BY b.w;

-- 300-dimensional keys: repetitive ones stored compressed, the others (too large for the row)
-- out of line; the leader detoasts both
CREATE TABLE tl_wide (id int PRIMARY KEY, v float8[]);
INSERT INTO tl_wide
SELECT i, CASE WHEN i % 3 = 0 THEN array_fill((i % 4)::float8, ARRAY[300])
               ELSE ARRAY(SELECT (i % 4) + (j * 0.0001) + (i % 5) * 0.25 FROM generate_series(1, 300) j) END
FROM generate_series(1, 600) i;
ANALYZE tl_wide;
SELECT count(*) FILTER (WHERE pg_column_compression(v) IS NOT NULL) > 0 AS some_compressed,
       count(*) FILTER (WHERE pg_column_size(v) < 300 * 8) > 0 AS some_small
FROM tl_wide;
\set wide 'SELECT a.id AS a, b.id AS b FROM tl_wide a JOIN tl_wide b ON a.v <-> b.v <= 5'
SELECT pg_temp.parallel_load(:'wide') AS wide;
SELECT * FROM pg_temp.cs_compare(:'wide');

-- a wild key (a huge coordinate, then a NaN) late in the table: the load steps aside for the
-- serial one; the results stay PostgreSQL's
INSERT INTO tl_b VALUES (9001, ARRAY[3, 1e300]::float8[], 1);
SELECT pg_temp.parallel_load(:'pairs_ab') AS huge_key_inner;
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
DELETE FROM tl_b WHERE id = 9001;
INSERT INTO tl_b VALUES (9001, ARRAY['NaN', 4]::float8[], 1);
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
DELETE FROM tl_b WHERE id = 9001;
-- a key of another dimension: the serial load names the row (terse: the error's context names
-- the session's temporary schema)
INSERT INTO tl_a VALUES (9002, ARRAY[1, 2, 3]::float8[], NULL, 1);
\set VERBOSITY terse
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
\set VERBOSITY default
DELETE FROM tl_a WHERE id = 9002;

-- rows changed in this transaction (not yet committed): the leader's scan sees them
\set load_table tl_a
\set first_new 7001
\i test/sql/include/load_uncommitted.sql

-- PostGIS points
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE tl_places (id int, g geometry);
INSERT INTO tl_places SELECT i, CASE WHEN i % 53 = 0 THEN NULL
  ELSE ST_SetSRID(ST_MakePoint((i * 7919 % 3001) / 100.0, (i * 104729 % 2999) / 100.0), 3857) END
FROM generate_series(1, 5000) i;
ANALYZE tl_places;
\set places 'SELECT a.id, count(*) FROM tl_places a JOIN tl_places b ON ST_DWithin(a.g, b.g, 0.5) GROUP BY a.id'
SELECT pg_temp.parallel_load(:'places') AS places;
SELECT * FROM pg_temp.cs_compare(:'places');
DROP TABLE tl_places;
\endif

-- a statement cancelled while the threads parse: an ERROR, and the session reads on
CREATE TABLE tl_big (id int, v float8[]);
INSERT INTO tl_big SELECT i, ARRAY[i % 1000, i / 1000]::float8[] FROM generate_series(1, 300000) i;
SET statement_timeout = '20ms';
SELECT count(*) FROM tl_big a JOIN tl_big b ON a.v <-> b.v <= 1;
RESET statement_timeout;
SELECT count(*) FROM tl_big a JOIN tl_big b ON a.v <-> b.v <= 1;
SELECT pg_temp.parallel_load('SELECT count(*) FROM tl_big a JOIN tl_big b ON a.v <-> b.v <= 1') AS big;

DROP TABLE tl_a, tl_b, tl_wide, tl_big;
