-- The SimilarityJoin's output grouped by outer row, in the outer input's order: on an outer
-- input with useful pathkeys (an index scan on the GROUP BY or ORDER BY column) the join
-- declares them ("Output Order"), so that a GroupAggregate or ORDER BY above needs no sort and no
-- hash table. Each query is compared with PostgreSQL's own plan as a multiset (cs_compare) and,
-- where the plan has no Sort or HashAggregate above the join, as the sequence of the ordering
-- key (cs_order: the custom plan's output order against the sorted keys of PostgreSQL's plan).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- cs_order(query, key[, direction]): whether the custom plan has the ordered join and no Sort
-- or HashAggregate, and whether the sequence of `key` it returns is that of PostgreSQL's plan
-- sorted by key.
CREATE FUNCTION pg_temp.cs_order(query text, key text, direction text DEFAULT '',
    OUT ordered_join boolean, OUT sort_above boolean, OUT same_sequence boolean)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
  custom_keys text;
  native_keys text;
BEGIN
  ordered_join := false;
  sort_above := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Output Order:%' THEN ordered_join := true; END IF;
    IF line LIKE '%Sort%' OR line LIKE '%HashAggregate%' THEN sort_above := true; END IF;
  END LOOP;
  EXECUTE format('SELECT array_agg(%s)::text FROM (%s) q', key, query) INTO custom_keys;
  PERFORM set_config('simjoin.enable_customscan', 'off', true);
  EXECUTE format('SELECT array_agg(%s ORDER BY %s %s)::text FROM (%s) q', key, key, direction,
    query)
    INTO native_keys;
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
  same_sequence := custom_keys IS NOT DISTINCT FROM native_keys;
END $$;

SELECT setseed(0.37);
CREATE TABLE og_a (id int PRIMARY KEY, grp int, v float8[]);
CREATE TABLE og_b (id int PRIMARY KEY, grp int, v float8[]);
INSERT INTO og_a SELECT i, i % 7, ARRAY[round(random() * 60) / 10, round(random() * 60) / 10]
  FROM generate_series(1, 2000) i;
INSERT INTO og_b SELECT i, i % 5, ARRAY[round(random() * 60) / 10, round(random() * 60) / 10]
  FROM generate_series(1, 2000) i;
-- NULL vectors, wild rows (NaN, infinite, huge), a NULL and duplicated ordering key (grp)
INSERT INTO og_a VALUES (9001, 1, NULL), (9002, 2, '{NaN,1}'), (9003, NULL, '{Infinity,1}'),
  (9004, 1, '{1e200,1}'), (9005, NULL, '{1,1}');
INSERT INTO og_b VALUES (9001, 1, NULL), (9002, 2, '{1,NaN}'), (9003, 0, '{1,1}');
CREATE INDEX og_a_grp ON og_a (grp);
CREATE TABLE og_empty (id int PRIMARY KEY, v float8[]);
ANALYZE og_a;
ANALYZE og_b;
ANALYZE og_empty;

-- An inner join ORDER BY the outer input's primary key: no Sort above the join.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id;
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id AS a, b.id AS b FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id$$, 'a');
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id$$);

-- Where a sort or a hash table above would be cheaper at this size, the planner takes them: the
-- ordered join is shown with both turned off.
SET enable_hashagg = off;
SET enable_sort = off;

-- LEFT JOIN grouped by the outer key: a GroupAggregate straight on the join (the unmatched rows,
-- those with a NULL vector too, null-extended in their place).
EXPLAIN (COSTS OFF) SELECT a.id, count(b.id) FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.id;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.3 GROUP BY a.id$$);
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.3
  GROUP BY a.id$$, 'id');
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id AS a, b.id AS b FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.3 AND b.grp <> 1
  ORDER BY a.id$$, 'a');
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.3 AND b.grp <> 1
  ORDER BY a.id$$);
-- a clause of WHERE on the null-extended rows
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id AS a, b.id AS b FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.3
  WHERE coalesce(b.grp, -1) < a.grp ORDER BY a.id$$, 'a');

-- Duplicates and NULLs in the outer key (an index on grp): the rows of equal keys together.
EXPLAIN (COSTS OFF) SELECT a.grp, count(b.id) FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.grp;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.grp, count(b.id) AS n, sum(b.id) AS s FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.grp$$);
SELECT * FROM pg_temp.cs_order($$
  SELECT a.grp AS g, b.id AS b FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.25
  ORDER BY a.grp$$, 'g');
SELECT * FROM pg_temp.cs_order($$
  SELECT a.grp AS g, a.id AS a, b.id AS b FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= 0.25
  ORDER BY a.grp DESC$$, 'g', 'DESC');

-- EXISTS and NOT EXISTS in the outer order.
EXPLAIN (COSTS OFF) SELECT a.id FROM og_a a WHERE EXISTS
  (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.3) ORDER BY a.id;
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id FROM og_a a WHERE EXISTS (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.3)
  ORDER BY a.id$$, 'id');
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id FROM og_a a WHERE EXISTS (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.3)
  ORDER BY a.id$$);
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id FROM og_a a WHERE NOT EXISTS (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.3)
  ORDER BY a.id$$, 'id');
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id FROM og_a a WHERE NOT EXISTS (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.3)
  ORDER BY a.id$$);
SELECT * FROM pg_temp.cs_order($$
  SELECT a.grp AS g, a.id FROM og_a a WHERE NOT EXISTS
  (SELECT FROM og_b b WHERE a.v <-> b.v <= 0.2 AND b.grp <> a.grp % 5) ORDER BY a.grp$$, 'g');

-- A self-join with a key order clause: each outer row's pairs in the outer order.
SELECT * FROM pg_temp.cs_order($$
  SELECT x.id, count(*) AS n FROM og_a x JOIN og_a y ON x.v <-> y.v <= 0.3 AND x.id < y.id
  GROUP BY x.id$$, 'id');
SELECT * FROM pg_temp.cs_compare($$
  SELECT x.id, count(*) AS n FROM og_a x JOIN og_a y ON x.v <-> y.v <= 0.3 AND x.id < y.id
  GROUP BY x.id$$);

-- Empty sides: every outer row null-extended, or no row (PostgreSQL's nested loop is cheaper).
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_order($$
  SELECT a.id, count(e.id) AS n FROM og_a a LEFT JOIN og_empty e ON a.v <-> e.v <= 0.3
  GROUP BY a.id$$, 'id');
SELECT * FROM pg_temp.cs_order($$
  SELECT e.id, count(a.id) AS n FROM og_empty e LEFT JOIN og_a a ON a.v <-> e.v <= 0.3
  GROUP BY e.id$$, 'id');
RESET enable_nestloop;

-- Rescans: the ordered join under a nested loop, its eps a parameter of each outer row (a NULL
-- eps: no pair matches, every outer row null-extended in order). Rows out of their group would
-- make the GroupAggregate return an id twice for one eps.
EXPLAIN (COSTS OFF) SELECT e.eps, x.* FROM (VALUES (0.1), (NULL), (0.3), (0.25)) e(eps),
  LATERAL (SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= e.eps
  GROUP BY a.id) x;
SELECT * FROM pg_temp.cs_compare($$
  SELECT e.eps, x.* FROM (VALUES (0.1), (NULL), (0.3), (0.25)) e(eps),
  LATERAL (SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b ON a.v <-> b.v <= e.eps
  GROUP BY a.id) x$$);

-- A generic plan: eps a parameter of the prepared statement.
SET plan_cache_mode = force_generic_plan;
PREPARE og_left(float8) AS SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= $1 GROUP BY a.id;
EXPLAIN (COSTS OFF) EXECUTE og_left(0.3);
CREATE TEMP TABLE og_generic AS EXECUTE og_left(0.3);
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE og_native AS SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.id;
RESET simjoin.enable_customscan;
SELECT (SELECT count(*) FROM og_generic) AS rows_generic,
  (SELECT count(*) FROM (TABLE og_generic EXCEPT ALL TABLE og_native) d) AS only_generic,
  (SELECT count(*) FROM (TABLE og_native EXCEPT ALL TABLE og_generic) d) AS only_native;
DEALLOCATE og_left;
-- More pairs than hash_mem (work_mem 64kB times 4): a generic plan assumes 10 pairs per row
-- (20,000 pairs of 12 bytes: 240kB), eps 0.5 finds about 80,000 (960kB). The pairs go through
-- a sort that spills to disk, and each row's pairs are read back from it in turn.
SET work_mem = '64kB';
SET hash_mem_multiplier = 4;
PREPARE og_spill(float8) AS SELECT a.id, count(b.id) AS n FROM og_a a LEFT JOIN og_b b
  ON a.v <-> b.v <= $1 GROUP BY a.id;
PREPARE og_inner(float8) AS SELECT a.id AS a, b.id AS b FROM og_a a JOIN og_b b
  ON a.v <-> b.v <= $1 ORDER BY a.id;
EXPLAIN (COSTS OFF) EXECUTE og_spill(0.5);
EXPLAIN (COSTS OFF) EXECUTE og_inner(0.5);
SELECT pg_temp.cs_explain('EXECUTE og_spill(0.5)', 'Grouped Pairs Storage') AS storage,
  pg_temp.cs_explain('EXECUTE og_inner(0.5)', 'Grouped Pairs Storage') AS storage_inner;
CREATE TEMP TABLE og_spilled AS EXECUTE og_spill(0.5);
-- (a new temporary table is read back in the order its rows were written)
CREATE TEMP TABLE og_spilled_inner AS EXECUTE og_inner(0.5);
RESET work_mem;
RESET hash_mem_multiplier;
SET simjoin.enable_customscan = off;
SELECT (SELECT count(*) FROM og_spilled) AS rows_spilled,
  (SELECT count(*) FROM (TABLE og_spilled EXCEPT ALL SELECT a.id, count(b.id) FROM og_a a
   LEFT JOIN og_b b ON a.v <-> b.v <= 0.5 GROUP BY a.id) d) AS only_spilled,
  (SELECT count(*) FROM (SELECT a.id, count(b.id) FROM og_a a LEFT JOIN og_b b
   ON a.v <-> b.v <= 0.5 GROUP BY a.id EXCEPT ALL TABLE og_spilled) d) AS only_native;
SELECT (SELECT count(*) FROM og_spilled_inner) AS rows_spilled,
  (SELECT array_agg(a) FROM og_spilled_inner)
  = (SELECT array_agg(a.id ORDER BY a.id) FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.5)
  AS same_sequence,
  (SELECT count(*) FROM (TABLE og_spilled_inner EXCEPT ALL SELECT a.id, b.id FROM og_a a
   JOIN og_b b ON a.v <-> b.v <= 0.5) d) AS only_spilled,
  (SELECT count(*) FROM (SELECT a.id, b.id FROM og_a a JOIN og_b b ON a.v <-> b.v <= 0.5
   EXCEPT ALL TABLE og_spilled_inner) d) AS only_native;
RESET simjoin.enable_customscan;
DEALLOCATE og_spill;
DEALLOCATE og_inner;
RESET plan_cache_mode;
RESET enable_sort;
RESET enable_hashagg;
