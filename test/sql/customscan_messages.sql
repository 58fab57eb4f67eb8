-- What the custom scan tells: its errors name the table and the row (by a unique column the
-- query reads, else by its key), the planner says at DEBUG1 why a clause that computes a distance
-- between the two sides is not taken, and EXPLAIN shows the join's clauses with their sides.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

CREATE TABLE msg_a (id int PRIMARY KEY, x float8, embedding float8[]);
CREATE TABLE msg_b (id int PRIMARY KEY, x float8, embedding float8[]);
INSERT INTO msg_a SELECT i, i % 7, ARRAY[i % 40, i / 40] FROM generate_series(1, 1200) i;
INSERT INTO msg_b SELECT i, i % 5, ARRAY[i % 30, i / 30] FROM generate_series(1, 1200) i;
ANALYZE msg_a;
ANALYZE msg_b;

-- 1. Errors. Vectors of another dimension: simjoin's error names the table and the row.
INSERT INTO msg_b VALUES (7001, 1, '{1,2,3}');
SELECT a.id, b.id FROM msg_a a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
SELECT count(*) FROM msg_a a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
SELECT a.id, b.x FROM msg_a a JOIN msg_b b ON b.embedding <+> a.embedding < 0.5;
-- the row on the outer side; a self-join; an input that is no table's scan
SELECT a.id FROM msg_b a JOIN msg_a b ON a.embedding <-> b.embedding <= 0.5;
SELECT a.id, b.id FROM msg_b a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
SELECT count(*) FROM msg_a a JOIN (SELECT DISTINCT embedding FROM msg_b) b
  ON a.embedding <-> b.embedding <= 0.5;
-- PostgreSQL's own plan raises the operator's error
SET simjoin.enable_customscan = off;
SELECT a.id, b.id FROM msg_a a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
RESET simjoin.enable_customscan;
DELETE FROM msg_b WHERE id = 7001;
-- Other errors: a key expression's (CONTEXT: the row being read) and the operator's on a wild
-- row (CONTEXT: the pair), where the query reads a unique column.
INSERT INTO msg_a VALUES (7002, 0, '{1,NULL}');
SELECT a.id, b.id FROM msg_a a JOIN msg_b b ON ARRAY[1 / a.x] <-> ARRAY[b.x] <= 0.5;
SELECT a.id, b.id FROM msg_a a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
SELECT count(*) FROM msg_a a JOIN msg_b b ON a.embedding <-> b.embedding <= 0.5;
DELETE FROM msg_a WHERE id = 7002;

-- 2. DEBUG1: why a distance between the two sides is not taken (one line per clause).
SET client_min_messages = debug1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= 0.5 OR a.id = b.id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding > 0.5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding = 0.5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= a.x + b.x;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= random();
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= (SELECT max(x) FROM msg_b);
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON (a.embedding <-> b.embedding) * a.x <= 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON (a.embedding <-> b.embedding) * 0 <= 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <#> b.embedding <= 0.5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> (b.embedding || a.x) <= 0.5;
-- a FULL join (which PostgreSQL cannot run on a distance either); an outer join where rows
-- are locked (LEFT joins are taken otherwise)
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM msg_a a FULL JOIN msg_b b
  ON a.embedding <-> b.embedding <= 0.5;
EXPLAIN (COSTS OFF) SELECT a.id FROM msg_a a LEFT JOIN msg_b b
  ON a.embedding <-> b.embedding <= 0.5 FOR UPDATE OF a;
-- taken (keys that are expressions, a second distance clause): no line
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON point(a.x, a.id) <-> point(b.x, b.id) <= 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= 0.5 AND a.embedding <-> b.embedding > 0.1;
RESET client_min_messages;

-- 3. EXPLAIN: the clauses with their sides (as PostgreSQL shows a join's), Rows Removed by
-- Filter under ANALYZE, in every format.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= 0.05 AND a.x < b.x;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= 1.5 AND a.x < b.x;
CREATE FUNCTION pg_temp.cs_plan_json(query text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
  RETURN plan;
END $$;
SELECT e -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Filter' AS filter,
       e -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Rows Removed by Filter' AS removed
FROM pg_temp.cs_plan_json($$SELECT count(*) FROM msg_a a JOIN msg_b b
  ON a.embedding <-> b.embedding <= 1.5 AND a.x < b.x$$) e;
