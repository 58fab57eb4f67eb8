-- statement_timeout (the same path as a cancel) stops similarity_join_stats, simjoin_dbscan and
-- similarity_knn_join within a second, and the session goes on (as test/pgtap/cancel.sql for similarity_join).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(6);

SELECT setseed(0.25);
CREATE TABLE dense (id int PRIMARY KEY, v float8[]);
-- 200k points in a 10 x 10 square; eps 1.5 gives about 14,000 neighbours each (2.8e9 pairs: at
-- eps 0.5, 3e8 pairs, the stats take 1.7 s on two cores, too close to the timeout).
INSERT INTO dense SELECT i, ARRAY[random() * 10, random() * 10] FROM generate_series(1, 200000) i;
-- DBSCAN in 1-3 dimensions runs on a grid without enumerating pairs and finishes these in well
-- under a second: its cancel runs on 4-D points (two self-joins), 200k in [0, 2]^4, eps 0.5 gives
-- about 3,800 neighbours each.
CREATE TABLE dense4 (id int PRIMARY KEY, v float8[]);
INSERT INTO dense4 SELECT i, ARRAY[random() * 2, random() * 2, random() * 2, random() * 2]
  FROM generate_series(1, 200000) i;
-- 60k uniform 32-D points: the kNN self-join scans 3.6e9 candidates (tens of seconds on two cores).
CREATE TABLE knn_wide (id int PRIMARY KEY, v float8[]);
INSERT INTO knn_wide SELECT i, ARRAY(SELECT random() FROM generate_series(1, 32) WHERE i > 0)
  FROM generate_series(1, 60000) i;

-- Seconds from the start of the statement until query_canceled arrived (NULL: it never did).
CREATE FUNCTION seconds_until_cancel(statement text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE started timestamptz := clock_timestamp();
BEGIN
  BEGIN
    EXECUTE statement;
  EXCEPTION WHEN query_canceled THEN
    RETURN extract(epoch FROM clock_timestamp() - started);
  END;
  RETURN NULL;
END $$;

SET LOCAL statement_timeout = '1500ms';
CREATE TEMP TABLE cancel_time AS SELECT
  seconds_until_cancel($$SELECT count(*) FROM similarity_join_stats('dense', 'dense', 1.5)$$) AS stats;
SET LOCAL statement_timeout = '1500ms';
INSERT INTO cancel_time SELECT seconds_until_cancel($$SELECT count(*) FROM simjoin_dbscan('dense4', 0.5, 5)$$);
SET LOCAL statement_timeout = '1500ms';
INSERT INTO cancel_time SELECT seconds_until_cancel($$SELECT count(*) FROM similarity_knn_join('knn_wide', 'knn_wide', 10)$$);
SET LOCAL statement_timeout = 0;
SELECT is((SELECT count(*) FROM cancel_time WHERE stats IS NOT NULL), 3::bigint,
  'statement_timeout cancels similarity_join_stats, simjoin_dbscan and similarity_knn_join');
SELECT cmp_ok((SELECT max(stats) FROM cancel_time), '<', 2.5::float8,
  'all three stop within a second of the timeout (1.5 s)');
SELECT cmp_ok((SELECT sum(neighbours) FROM similarity_join_stats('dense', 'dense', 0.001)), '>=', 200000::numeric,
  'the session goes on: similarity_join_stats after a cancel');
SELECT is((SELECT count(*) FROM simjoin_dbscan('dense', 0.001, 1)), 200000::bigint,
  'the session goes on: simjoin_dbscan after a cancel');
SELECT is((SELECT count(*) FROM simjoin_dbscan('dense', 0.001, 1) WHERE kind = 'core'), 200000::bigint,
  'min_points 1: every point is core');
SELECT is((SELECT count(*) FROM similarity_knn_join('knn_wide', 'knn_wide', 1, 0.0)), 60000::bigint,
  'the session goes on: similarity_knn_join after a cancel (each row its own nearest)');

SELECT * FROM finish();
ROLLBACK;
