-- statement_timeout (the same path as a cancel) stops a running join within a second, and the
-- session goes on.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(3);

SELECT setseed(0.25);
CREATE TABLE dense (id int PRIMARY KEY, v float8[]);
-- 200k points in a 10 x 10 square; eps 0.5 gives about 1,500 neighbours each (3e8 pairs):
-- many seconds of work on any machine.
INSERT INTO dense SELECT i, ARRAY[random() * 10, random() * 10] FROM generate_series(1, 200000) i;

-- Seconds from the start of the join until query_canceled arrived (NULL: it never did). The
-- statement_timeout in force is that of the calling statement.
CREATE FUNCTION seconds_until_cancel() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE started timestamptz := clock_timestamp();
BEGIN
  BEGIN
    PERFORM count(*) FROM similarity_join('dense', 'dense', 0.5);
  EXCEPTION WHEN query_canceled THEN
    RETURN extract(epoch FROM clock_timestamp() - started);
  END;
  RETURN NULL;
END $$;

SET LOCAL statement_timeout = '1500ms';
CREATE TEMP TABLE cancel_time AS SELECT seconds_until_cancel() AS seconds;
SET LOCAL statement_timeout = 0;
SELECT isnt((SELECT seconds FROM cancel_time), NULL, 'statement_timeout cancels the join');
SELECT cmp_ok((SELECT seconds FROM cancel_time), '<', 2.5::float8,
  'the join stops within a second of the timeout (1.5 s)');
SELECT cmp_ok((SELECT count(*) FROM similarity_join('dense', 'dense', 0.001)), '>=', 200000::bigint,
  'the session goes on joining after a cancel');

SELECT * FROM finish();
ROLLBACK;
