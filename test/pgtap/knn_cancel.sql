-- statement_timeout (the same path as a cancel) stops similarity_knn_join within a second, and
-- the session goes on (as test/pgtap/aggregates_cancel.sql for the aggregates).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(3);

SELECT setseed(0.25);
-- 60k uniform 32-D points: the self-join scans 3.6e9 candidates (tens of seconds on two cores).
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
  seconds_until_cancel($$SELECT count(*) FROM similarity_knn_join('knn_wide', 'knn_wide', 10)$$) AS knn;
SET LOCAL statement_timeout = 0;
SELECT isnt((SELECT knn FROM cancel_time), NULL, 'statement_timeout cancels similarity_knn_join');
SELECT cmp_ok((SELECT knn FROM cancel_time), '<', 2.5::float8,
  'it stops within a second of the timeout (1.5 s)');
SELECT is((SELECT count(*) FROM similarity_knn_join('knn_wide', 'knn_wide', 1, 0.0)), 60000::bigint,
  'the session goes on: similarity_knn_join after a cancel (each row its own nearest)');

SELECT * FROM finish();
ROLLBACK;
