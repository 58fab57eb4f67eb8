-- Aggregates over a similarity join computed in the engine (the SimilarityJoinAggregate scan):
-- count(*) of the join, and GROUP BY a column of one side with count(*), count(<NOT NULL
-- column>), min and max of the join's own distance. Every query is compared with PostgreSQL's
-- own plan (enable_customscan = off), multisets both ways: integer lattices put pairs exactly at
-- eps and many ties in the smallest distance; NULL, NaN and infinite vectors, NULL and repeated
-- group keys, an empty side, self-joins, generic plans and rescans. Other shapes get no path.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET simjoin.enable_aggregates = on;

-- whether the plan of a query has the aggregate scan
CREATE FUNCTION pg_temp.agg_planned(query text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%SimilarityJoinAggregate%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

-- agg_compare(query): whether the aggregate scan plans it, and cs_compare's row counts with and
-- without the custom scans and rows only one of the two plans returns.
CREATE FUNCTION pg_temp.agg_compare(query text,
    OUT aggregate_scan boolean, OUT rows_custom bigint, OUT rows_native bigint,
    OUT only_custom bigint, OUT only_native bigint)
LANGUAGE sql AS $$
  SELECT pg_temp.agg_planned(query), c.rows_custom, c.rows_native, c.only_custom, c.only_native
  FROM pg_temp.cs_compare(query) c
$$;

-- EXPLAIN ANALYZE of a query, as JSON
CREATE FUNCTION pg_temp.agg_explain_json(query text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
  RETURN plan;
END $$;

SELECT setseed(0.17);
-- p: a 2-D integer lattice (pairs at exactly 1, 2, sqrt 2, ...; duplicates), g a repeated group
-- key with NULLs; q: another lattice, k repeated, and wild or keyless rows on both sides.
CREATE TABLE agg_p (id int PRIMARY KEY, g int, v float8[]);
CREATE TABLE agg_q (id int PRIMARY KEY, k int, v float8[]);
CREATE TABLE agg_empty (id int PRIMARY KEY, v float8[]);
INSERT INTO agg_p SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 13 END,
                         ARRAY[floor(random() * 30), floor(random() * 30)]
  FROM generate_series(1, 1200) i;
INSERT INTO agg_q SELECT i, i % 17, ARRAY[floor(random() * 30), floor(random() * 30)]
  FROM generate_series(1, 900) i;
-- (wild rows: NaN and infinite coordinates never match; 1e300 is beyond what the engine reads
-- faithfully and is left to the operator, which pairs it with itself and its copy in q)
INSERT INTO agg_p VALUES (5001, 1, NULL), (5002, NULL, NULL), (5003, 2, ARRAY['NaN'::float8, 3]),
  (5004, 3, ARRAY['Infinity'::float8, 3]), (5005, NULL, ARRAY[3, 3]), (5006, 4, ARRAY[1e300, 3]),
  (5007, 4, ARRAY[1e300, 3]);
INSERT INTO agg_q VALUES (5001, 1, NULL), (5003, 2, ARRAY['NaN'::float8, 3]),
  (5004, 3, ARRAY['-Infinity'::float8, 3]), (5005, NULL, ARRAY[3, 4]), (5006, 4, ARRAY[1e300, 3]);
ANALYZE agg_p;
ANALYZE agg_q;

-- count(*) of the join, two inputs and a self-join (every row its own partner)
EXPLAIN (COSTS OFF) SELECT count(*) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2;
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2');
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_p a JOIN agg_p b ON a.v <-> b.v < 1');
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_p a JOIN agg_p b ON a.v <+> b.v <= 3');
SELECT * FROM pg_temp.agg_compare(
  'SELECT count(*) FROM agg_p a JOIN agg_q b ON b.v <-> a.v <= 2 WHERE a.g > 3 AND b.k < 9');
-- an empty side: one row, 0
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_p a JOIN agg_empty b ON a.v <-> b.v <= 2');
SELECT count(*) FROM agg_p a JOIN agg_empty b ON a.v <-> b.v <= 2;

-- GROUP BY a unique key: ties in the smallest distance, pairs at exactly eps
EXPLAIN (COSTS OFF) SELECT a.id, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.id;
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.id');
-- the other side's key (the grouped side becomes the outer one), a NOT NULL column counted
SELECT * FROM pg_temp.agg_compare('SELECT b.id, count(a.id), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY b.id');
-- a repeated key with NULLs (one group): per-row results combined per group value
EXPLAIN (COSTS OFF) SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5 GROUP BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5 GROUP BY a.g');
SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5 GROUP BY a.g ORDER BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT b.k, count(*), min(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 3 GROUP BY b.k');
-- a unique key without wild rows: each point its own group, read in place; NULLs of a unique
-- column (u) still form one group
ALTER TABLE agg_p ADD COLUMN u int UNIQUE;
UPDATE agg_p SET u = CASE WHEN id % 7 = 0 THEN NULL ELSE id END;
ANALYZE agg_p;
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 WHERE a.id <= 1200 AND b.id <= 900 GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT a.u, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 WHERE a.id <= 1200 AND b.id <= 900 GROUP BY a.u');
SELECT * FROM pg_temp.agg_compare('SELECT a.u, count(*), min(a.v <-> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1 WHERE a.id <= 1200 AND b.id <= 1200 GROUP BY a.u');
SELECT a.u IS NULL AS null_key, count(*) AS groups, sum(c) AS pairs FROM (SELECT a.u, count(*) AS c
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 WHERE a.id <= 1200 AND b.id <= 900 GROUP BY a.u) a
  GROUP BY 1 ORDER BY 1;
-- self-joins: identity pairs at distance 0 count, grouped by a unique and a repeated key
-- (the table read once for both sides: the inner input returns the outer one's columns)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT a.id, count(*), min(a.v <-> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1 GROUP BY a.id;
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1 GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT b.g, count(*), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 2 GROUP BY b.g');
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.v <+> b.v), max(a.v <+> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <+> b.v <= 2 GROUP BY a.g');
-- expressions over the key and the aggregates, ORDER BY and LIMIT above
SELECT * FROM pg_temp.agg_compare('SELECT a.g + 1 AS g1, count(*) * 2 AS c2,
  max(a.v <-> b.v) - min(a.v <-> b.v) AS spread
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.g');
SELECT a.g, count(*) AS c FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2
  GROUP BY a.g ORDER BY c DESC, a.g LIMIT 3;
SET simjoin.enable_customscan = off;
SELECT a.g, count(*) AS c FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2
  GROUP BY a.g ORDER BY c DESC, a.g LIMIT 3;
RESET simjoin.enable_customscan;
-- a side empty when run (the planner expects a third of q): no group
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 WHERE b.k + 0 > 100 GROUP BY a.id');

-- a left join: count(<NOT NULL column of the inner side>) per row of the kept side, 0 (and NULL
-- distances) for rows without a partner (NULL vectors, NaN, no neighbour, an empty inner side)
EXPLAIN (COSTS OFF) SELECT a.id, count(b.id), min(a.v <-> b.v) FROM agg_p a LEFT JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.id;
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(b.id), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a LEFT JOIN agg_q b ON a.v <-> b.v <= 1 GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(b.id), min(a.v <-> b.v)
  FROM agg_p a LEFT JOIN agg_q b ON a.v <-> b.v <= 1 GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT b.k, count(a.id) FROM agg_q b LEFT JOIN agg_p a
  ON a.v <-> b.v <= 0.5 GROUP BY b.k');
SELECT * FROM pg_temp.agg_compare('SELECT a.u, count(b.id) FROM agg_p a LEFT JOIN agg_p b
  ON a.v <-> b.v <= 1 GROUP BY a.u');
SELECT * FROM pg_temp.agg_compare('SELECT count(b.id) FROM agg_p a LEFT JOIN agg_q b
  ON a.v <-> b.v <= 2');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(b.id), max(a.v <-> b.v) FROM agg_p a
  LEFT JOIN (SELECT * FROM agg_q WHERE k + 0 > 100) b ON a.v <-> b.v <= 2 GROUP BY a.id');
SELECT count(*) FILTER (WHERE c = 0) AS without_partner, count(*) AS groups FROM (SELECT a.id,
  count(b.id) AS c FROM agg_p a LEFT JOIN agg_q b ON a.v <-> b.v <= 1 GROUP BY a.id) s;

-- GROUP BY or DISTINCT of one column without aggregates: the keys with a partner (a left join:
-- every key of the kept side), NULL keys one group, a side empty when run no group
EXPLAIN (COSTS OFF) SELECT DISTINCT a.g FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5;
SELECT * FROM pg_temp.agg_compare('SELECT a.g FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5
  GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT a.id FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1
  GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT a.g FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 1.5');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT b.id FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 0.5');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT a.id FROM agg_p a JOIN agg_p b
  ON a.v <-> b.v <= 0.5 WHERE a.id <= 1200 AND b.id > 600');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT a.id FROM agg_p a JOIN agg_p b
  ON a.v <+> b.v <= 1');
SELECT * FROM pg_temp.agg_compare('SELECT a.id FROM agg_p a LEFT JOIN agg_q b ON a.v <-> b.v <= 0.5
  GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT b.k FROM agg_q b LEFT JOIN agg_p a
  ON a.v <-> b.v <= 0.5');
SELECT * FROM pg_temp.agg_compare('SELECT DISTINCT a.id FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 WHERE b.k + 0 > 100');
SELECT count(*) AS keys_with_partner, count(*) FILTER (WHERE g IS NULL) AS null_groups
  FROM (SELECT DISTINCT a.g FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 1.5) s;
-- no path: DISTINCT of two columns, of an expression, DISTINCT over a GROUP BY's groups (its
-- GROUP BY has the path)
SELECT pg_temp.agg_planned('SELECT DISTINCT a.g, b.k FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 1') AS two_columns,
       pg_temp.agg_planned('SELECT DISTINCT a.g + 1 FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 1') AS expression,
       pg_temp.agg_planned('SELECT DISTINCT count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 1 GROUP BY a.g') AS over_groups;

-- generic plans: eps a parameter
SET plan_cache_mode = force_generic_plan;
PREPARE agg_by_g(float8) AS SELECT a.g, count(*) AS c, min(a.v <-> b.v) AS mn, max(a.v <-> b.v) AS mx
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= $1 GROUP BY a.g;
PREPARE agg_total(float8) AS SELECT count(*) FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= $1;
EXPLAIN (COSTS OFF) EXECUTE agg_by_g(2);
CREATE TEMP TABLE agg_generic AS EXECUTE agg_by_g(2);
SET simjoin.enable_customscan = off;
SELECT count(*) AS only_generic FROM (TABLE agg_generic EXCEPT ALL
  SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.g) d;
SELECT count(*) AS only_native FROM (SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.g EXCEPT ALL TABLE agg_generic) d;
SELECT count(*) FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1.5;
RESET simjoin.enable_customscan;
EXECUTE agg_total(1.5);
EXECUTE agg_total(NULL);
EXECUTE agg_total(-1);
DEALLOCATE agg_by_g;
DEALLOCATE agg_total;
RESET plan_cache_mode;

-- rescans: the join's bound from the outer query (a LATERAL subquery, a subquery per row)
EXPLAIN (COSTS OFF) SELECT e, s.c FROM (VALUES (0.5), (1), (2), (NULL)) x(e),
  LATERAL (SELECT count(*) AS c FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= x.e) s;
SELECT * FROM pg_temp.agg_compare('SELECT e, s.c FROM (VALUES (0.5), (1), (2), (NULL)) x(e),
  LATERAL (SELECT count(*) AS c FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= x.e) s');
SELECT * FROM pg_temp.agg_compare('SELECT e, (SELECT max(c) FROM (SELECT a.g, count(*) AS c
  FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= x.e GROUP BY a.g) s) FROM (VALUES (1), (2), (3)) x(e)');
-- min and max of the distance without GROUP BY: one group of every pair, per rescan; a NaN bound
-- takes every pair, those of NaN vectors included (NaN sorts above every number in min and max)
SELECT * FROM pg_temp.agg_compare('SELECT count(*), min(a.v <-> b.v), max(a.v <-> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2');
SELECT * FROM pg_temp.agg_compare('SELECT count(*), min(a.v <+> b.v), max(a.v <+> b.v)
  FROM agg_p a JOIN agg_p b ON a.v <+> b.v <= 2');
SELECT * FROM pg_temp.agg_compare('SELECT e, s.* FROM (VALUES (0.5::float8), (1), (2.5), (NULL),
  (''NaN'')) x(e), LATERAL (SELECT count(*), min(a.v <-> b.v), max(a.v <-> b.v) FROM agg_p a
  JOIN agg_q b ON a.v <-> b.v <= x.e) s');
SELECT * FROM pg_temp.agg_compare('SELECT e, (SELECT max(a.v <+> b.v) FROM agg_p a JOIN agg_p b
  ON a.v <+> b.v <= x.e * 2) FROM (VALUES (0.5::float8), (1), (''NaN'')) x(e)');
SELECT a.g, count(*), min(a.v <-> b.v), max(a.v <-> b.v) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 'NaN' WHERE a.g = 2 GROUP BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT e, (SELECT max(a.v <+> b.v) FROM (SELECT * FROM agg_p
  WHERE agg_p.id % 3 <> 0) a JOIN agg_p b ON (x.e * 2) >= a.v <+> b.v) FROM (VALUES (0::float8),
  (1.5)) x(e)');

-- no path: HAVING, count(DISTINCT), FILTER, a second join clause, another aggregate, two
-- distances, a LEFT JOIN, a key of both sides, an expression key, a nullable column
-- counted; nor with simjoin.enable_aggregates off
SELECT pg_temp.agg_planned('SELECT a.g, count(*) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2
  GROUP BY a.g HAVING count(*) > 10') AS having_clause,
       pg_temp.agg_planned('SELECT count(DISTINCT a.g) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2') AS distinct_count,
       pg_temp.agg_planned('SELECT count(*) FILTER (WHERE a.g > 2) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2') AS filter,
       pg_temp.agg_planned('SELECT count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 AND a.g < b.k') AS second_qual,
       pg_temp.agg_planned('SELECT a.g, sum(b.k) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2
  GROUP BY a.g') AS sum_aggregate,
       pg_temp.agg_planned('SELECT a.g, min(a.v <-> b.v), max(a.v <+> b.v) FROM agg_p a
  JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.g') AS two_distances,
       pg_temp.agg_planned('SELECT a.id, count(*) FROM agg_p a LEFT JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.id') AS left_join_count_star,
       pg_temp.agg_planned('SELECT a.id, count(b.k) FROM agg_p a LEFT JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.id') AS left_join_nullable,
       pg_temp.agg_planned('SELECT a.g, b.k, count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.g, b.k') AS two_keys,
       pg_temp.agg_planned('SELECT a.g % 3, count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.g % 3') AS expression_key,
       pg_temp.agg_planned('SELECT a.id, count(b.k) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.id') AS nullable_count;
SELECT pg_temp.agg_planned('SELECT count(*) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2')
  AS accepted;
SET simjoin.enable_aggregates = off;
SELECT pg_temp.agg_planned('SELECT count(*) FROM agg_p a JOIN agg_q b ON a.v <-> b.v <= 2')
  AS aggregates_off;
RESET simjoin.enable_aggregates;
-- the rejected shapes still give PostgreSQL's answer
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.g HAVING count(*) > 10');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(b.k) FROM agg_p a JOIN agg_q b
  ON a.v <-> b.v <= 2 GROUP BY a.id');

-- EXPLAIN ANALYZE: the engine's pairs and the groups
SELECT p ->> 'Engine Aggregates' AS aggregates, p ->> 'Engine Pairs' AS engine_pairs,
       p ->> 'Pairs With Wild Rows' AS wild_pairs, p ->> 'Groups' AS groups
  FROM (SELECT (plan -> 0 -> 'Plan') AS p FROM (SELECT pg_temp.agg_explain_json(
    'SELECT a.g, count(*), min(a.v <-> b.v) FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1 GROUP BY a.g')
    AS plan) j) x;
-- with simjoin.explain_machine_details: the engine's device, algorithm and phases, as the
-- SimilarityJoin's EXPLAIN ANALYZE shows them
SET simjoin.explain_machine_details = on;
SELECT p ->> 'Engine' ~ '^device=.+ algorithm=\S+ indexed_dims=\d+ batches=\d+ candidates=\d+ pairs=\d+ .*time: \S+=' AS engine_line
  FROM (SELECT (plan -> 0 -> 'Plan') AS p FROM (SELECT pg_temp.agg_explain_json(
    'SELECT a.g, count(*), min(a.v <-> b.v) FROM agg_p a JOIN agg_p b ON a.v <-> b.v <= 1 GROUP BY a.g')
    AS plan) j) x;
SET simjoin.explain_machine_details = off;

-- real[] keys (read as doubles by both the operator and the engine) and a real eps
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.v::real[] <-> b.v::real[]),
  max(a.v::real[] <-> b.v::real[]) FROM agg_p a JOIN agg_q b
  ON a.v::real[] <-> b.v::real[] <= 1.5::real WHERE a.id <= 1200 AND b.id <= 900 GROUP BY a.g');

-- the distance's arguments the other way round: the same value bit for bit; another distance
-- than the clause's, evaluated by PostgreSQL on each pair
SELECT * FROM pg_temp.agg_compare('SELECT a.g, min(b.v <-> a.v), max(b.v <-> a.v) FROM agg_p a
  JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), max(a.v <+> b.v) FROM agg_p a
  JOIN agg_q b ON a.v <-> b.v <= 2 GROUP BY a.id');

-- point <-> point: PostgreSQL's own hypotenuse (pg_hypot), which the engine reproduces (probed)
-- on its candidates; a lattice of tenths puts pairs at eps, where it and sqrt(dx^2 + dy^2)
-- round differently; wild points (NaN, infinite, huge), NULL keys, per group, per unique key,
-- in all, two tables, a LEFT JOIN
CREATE TABLE agg_pt AS SELECT id, g, CASE WHEN v IS NULL THEN NULL
  ELSE point(v[1] / 10, v[2] / 10) END AS p FROM agg_p;
ALTER TABLE agg_pt ADD PRIMARY KEY (id);
CREATE TABLE agg_qpt AS SELECT id, k, CASE WHEN v IS NULL THEN NULL
  ELSE point(v[1] / 10, v[2] / 10) END AS p FROM agg_q;
ALTER TABLE agg_qpt ADD PRIMARY KEY (id);
ANALYZE agg_pt;
ANALYZE agg_qpt;
EXPLAIN (COSTS OFF) SELECT a.g, count(*), max(a.p <-> b.p) FROM agg_pt a JOIN agg_pt b
  ON a.p <-> b.p <= 0.5 GROUP BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.p <-> b.p), max(a.p <-> b.p)
  FROM agg_pt a JOIN agg_pt b ON a.p <-> b.p <= 0.5 GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), max(b.p <-> a.p) FROM agg_pt a
  JOIN agg_pt b ON a.p <-> b.p < 0.5 GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT count(*), min(a.p <-> b.p), max(a.p <-> b.p)
  FROM agg_pt a JOIN agg_qpt b ON b.p <-> a.p <= 0.3');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(b.id), max(a.p <-> b.p) FROM agg_pt a
  LEFT JOIN agg_qpt b ON a.p <-> b.p <= 0.2 GROUP BY a.id');
-- the distance under arithmetic: the clause's operator rechecks, PostgreSQL evaluates the value
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), max(a.p <-> b.p) FROM agg_pt a
  JOIN agg_qpt b ON (a.p <-> b.p) * 2 <= 0.9 GROUP BY a.g');
-- the cosine distance on arrays: the engine decides, PostgreSQL evaluates the value
EXPLAIN (COSTS OFF) SELECT a.g, min(a.v <=> b.v) FROM agg_p a JOIN agg_q b
  ON a.v <=> b.v <= 0.001 GROUP BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.v <=> b.v), max(a.v <=> b.v)
  FROM agg_p a JOIN agg_q b ON a.v <=> b.v <= 0.001 GROUP BY a.g');
DROP TABLE agg_pt, agg_qpt;

-- contrib cube: point cubes decided by the engine where the installed cube passes the probe
SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*) FROM agg_p a JOIN agg_q b
  ON cube(a.v) <-> cube(b.v) <= 2 GROUP BY a.g');
-- cube's distances are the engine's bit for bit (probed): min and max too, with the box clause
-- for cube's GiST index decided on each engine pair, per group, per unique key and in all
CREATE TABLE agg_cube AS SELECT id, g, cube(v) AS c FROM agg_p WHERE id <= 1500 OR id > 5000;
ALTER TABLE agg_cube ADD PRIMARY KEY (id);
ANALYZE agg_cube;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(a.c <-> b.c), max(a.c <-> b.c)
  FROM agg_cube a JOIN agg_cube b ON cube_enlarge(a.c, 1, 3) @> b.c AND a.c <-> b.c <= 1
  GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*), min(a.c <-> b.c), max(a.c <-> b.c)
  FROM agg_cube a JOIN agg_cube b ON cube_enlarge(a.c, 0.5, 3) @> b.c AND a.c <-> b.c <= 0.5
  GROUP BY a.id');
SELECT * FROM pg_temp.agg_compare('SELECT count(*), max(a.c <#> b.c) FROM agg_cube a
  JOIN agg_cube b ON b.c <@ cube_enlarge(a.c, 0.7, 3) AND a.c <#> b.c < 1');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, min(a.c <=> b.c), count(*) FROM agg_cube a
  JOIN agg_cube b ON a.c <=> b.c <= 0.4 GROUP BY a.id');
-- the box narrower than the distance: it decides
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), max(a.c <-> b.c) FROM agg_cube a
  JOIN agg_cube b ON cube_enlarge(a.c, 0.3, 3) @> b.c AND a.c <-> b.c <= 1 GROUP BY a.g');
DROP TABLE agg_cube;
DROP EXTENSION cube;  -- as the other tests expect to find the database
\endif

-- PostGIS: ST_DWithin on points is decided by the engine exactly where the installed PostGIS
-- passes the arithmetic probe, and ST_Distance of two points is the engine's distance where it
-- passes its own: counts, min and max per group and in all; a polygon among the points is a wild
-- row, its pairs' distances PostGIS's
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE agg_geo AS SELECT id, g, CASE WHEN v IS NULL THEN NULL
  ELSE ST_MakePoint(v[1], v[2]) END AS pt FROM agg_p WHERE id <= 1200 OR id = 5001;
ANALYZE agg_geo;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*) FROM agg_geo a JOIN agg_geo b
  ON ST_DWithin(a.pt, b.pt, 2) GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT count(*) FROM agg_geo a JOIN agg_geo b
  ON ST_DWithin(a.pt, b.pt, 1)');
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(ST_Distance(a.pt, b.pt)),
  max(ST_Distance(a.pt, b.pt)) FROM agg_geo a JOIN agg_geo b ON ST_DWithin(a.pt, b.pt, 2) GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT count(*), max(ST_Distance(a.pt, b.pt)) FROM agg_geo a
  JOIN agg_geo b ON ST_DWithin(a.pt, b.pt, 1.5)');
INSERT INTO agg_geo VALUES (9001, 1, ST_Buffer(ST_MakePoint(5, 5), 1.5));
SELECT * FROM pg_temp.agg_compare('SELECT a.g, min(ST_Distance(a.pt, b.pt)), count(*),
  max(ST_Distance(a.pt, b.pt)) FROM agg_geo a JOIN agg_geo b ON ST_DWithin(a.pt, b.pt, 1) GROUP BY a.g');
DELETE FROM agg_geo WHERE id = 9001;
-- the arguments the other way round
SELECT * FROM pg_temp.agg_compare('SELECT a.g, min(ST_Distance(b.pt, a.pt)) FROM agg_geo a
  JOIN agg_geo b ON ST_DWithin(a.pt, b.pt, 2) GROUP BY a.g');
-- geography (rechecked: the engine decides within its certain bound, PostGIS beyond it, and
-- evaluates ST_Distance): spheroid and sphere, per group and in all, a line among the points
CREATE TABLE agg_geog AS SELECT id, g, ST_SetSRID(ST_MakePoint(10 + v[1] / 1000,
  50 + v[2] / 1000), 4326)::geography AS gg FROM agg_p WHERE id <= 1200 OR id = 5001;
INSERT INTO agg_geog VALUES (9001, 1, 'SRID=4326;LINESTRING(10 50, 10.01 50.01)');
ALTER TABLE agg_geog ADD PRIMARY KEY (id);
ANALYZE agg_geog;
EXPLAIN (COSTS OFF) SELECT a.g, count(*) FROM agg_geog a JOIN agg_geog b
  ON ST_DWithin(a.gg, b.gg, 300) GROUP BY a.g;
SELECT * FROM pg_temp.agg_compare('SELECT a.g, count(*), min(ST_Distance(a.gg, b.gg)),
  max(ST_Distance(a.gg, b.gg)) FROM agg_geog a JOIN agg_geog b ON ST_DWithin(a.gg, b.gg, 300)
  GROUP BY a.g');
SELECT * FROM pg_temp.agg_compare('SELECT count(*), max(ST_Distance(b.gg, a.gg, false))
  FROM agg_geog a JOIN agg_geog b ON ST_DWithin(a.gg, b.gg, 250, false)');
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(b.id) FROM agg_geog a
  LEFT JOIN agg_geog b ON ST_DWithin(a.gg, b.gg, 120) GROUP BY a.id');
DROP TABLE agg_geog;
-- where the engine cannot help (a few outer rows, PostGIS's GiST index), PostgreSQL's plan wins
CREATE INDEX ON agg_geo USING gist (pt);
CREATE UNIQUE INDEX ON agg_geo (id);
ANALYZE agg_geo;
EXPLAIN (COSTS OFF) SELECT a.id, count(*) FROM agg_geo a JOIN agg_geo b
  ON ST_DWithin(a.pt, b.pt, 2) WHERE a.id IN (5, 7) GROUP BY a.id;
SELECT * FROM pg_temp.agg_compare('SELECT a.id, count(*) FROM agg_geo a JOIN agg_geo b
  ON ST_DWithin(a.pt, b.pt, 2) WHERE a.id IN (5, 7) GROUP BY a.id');
DROP TABLE agg_geo;
\endif

DROP TABLE agg_p, agg_q, agg_empty;
