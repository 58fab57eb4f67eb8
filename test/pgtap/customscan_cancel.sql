-- The SimilarityJoin custom scan streams its result from an engine on a producer thread:
-- statement_timeout (the same path as a cancel) stops a long join within a second, an ERROR in the
-- middle of the stream stops the engine too, and either way the producer thread is gone (joined)
-- before the statement returns; LIMIT returns at once; the session goes on.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(8);
SET LOCAL max_parallel_workers_per_gather = 0;
SET LOCAL jit = off;
-- The streaming join is under test: count(*) over it would otherwise be folded in the engine
-- (SimilarityJoinAggregate), which finishes these 3e8 pairs in about a second on a fast machine.
SET LOCAL simjoin.enable_aggregates = off;

SELECT setseed(0.25);
CREATE TABLE cs_dense (id int PRIMARY KEY, v float8[]);
-- 200k points in a 10 x 10 square; eps 0.5 gives about 1,500 neighbours each (3e8 pairs):
-- many seconds of work on any machine.
INSERT INTO cs_dense SELECT i, ARRAY[random() * 10, random() * 10] FROM generate_series(1, 200000) i;
ANALYZE cs_dense;

-- Threads of this backend.
CREATE FUNCTION backend_threads() RETURNS int LANGUAGE sql AS $$
  SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'),
                       'Threads:\s+(\d+)'))[1]::int $$;

-- Seconds from the start of the join until query_canceled arrived (NULL: it never did).
CREATE FUNCTION seconds_until_cancel() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE started timestamptz := clock_timestamp();
BEGIN
  BEGIN
    PERFORM count(*) FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 0.5;
  EXCEPTION WHEN query_canceled THEN
    RETURN extract(epoch FROM clock_timestamp() - started);
  END;
  RETURN NULL;
END $$;

CREATE FUNCTION uses_custom_scan(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Custom Scan (SimilarityJoin)%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

SELECT ok(uses_custom_scan('SELECT count(*) FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 0.5'),
  'the long join is planned as SimilarityJoin');

SET LOCAL statement_timeout = '1500ms';
CREATE TEMP TABLE cancel_time AS SELECT seconds_until_cancel() AS seconds;
SET LOCAL statement_timeout = 0;
-- The thread count after one cancelled join: on the GPU the CUDA runtime keeps threads of its
-- own for the life of the backend. A second cancelled join must leave no thread beyond these.
CREATE TEMP TABLE baseline AS SELECT backend_threads() AS threads;
SET LOCAL statement_timeout = '1500ms';
CREATE TEMP TABLE cancel_time_again AS SELECT seconds_until_cancel() AS seconds;
SET LOCAL statement_timeout = 0;
SELECT isnt((SELECT seconds FROM cancel_time), NULL, 'statement_timeout cancels the streaming join');
SELECT cmp_ok((SELECT seconds FROM cancel_time), '<', 2.5::float8,
  'the join stops within a second of the timeout (1.5 s)');
SELECT is(backend_threads(), (SELECT threads FROM baseline), 'no engine thread is left after the cancel');

-- An ERROR raised by the recheck in the middle of the stream (division by zero on the pairs of
-- row 150000) stops the engine as well.
SELECT throws_ok(
  'SELECT count(*) FROM cs_dense a JOIN cs_dense b
     ON a.v <-> b.v <= 0.5 AND 1 / (a.id - 150000) > -10',
  '22012', 'division by zero', 'an ERROR in the middle of the stream is PostgreSQL''s own');
SELECT is(backend_threads(), (SELECT threads FROM baseline), 'no engine thread is left after the ERROR');

-- LIMIT: the first rows come while the engine has produced a few batches only. (PostgreSQL's
-- nested loop is rightly cheaper for LIMIT 5: turned off to get the custom scan.)
SET LOCAL enable_nestloop = off;
CREATE TEMP TABLE limit_time AS
  SELECT clock_timestamp() AS started,
         (SELECT count(*) FROM (SELECT a.id FROM cs_dense a JOIN cs_dense b
                                  ON a.v <-> b.v <= 0.5 LIMIT 5) l) AS n,
         clock_timestamp() AS finished;
RESET enable_nestloop;
SELECT ok((SELECT n = 5 AND finished - started < interval '3 s' FROM limit_time),
  'LIMIT 5 on a join of 3e8 pairs returns within seconds');

SELECT cmp_ok((SELECT count(*) FROM cs_dense a JOIN cs_dense b ON a.v <-> b.v <= 0.001),
  '>=', 200000::bigint, 'the session goes on joining after a cancel and an ERROR');

SELECT * FROM finish();
ROLLBACK;
