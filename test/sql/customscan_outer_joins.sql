-- LEFT JOIN (the outer side's rows kept, null-extended where they have no match), EXISTS
-- (semi-join: each outer row with a match once) and NOT EXISTS (anti-join: the outer rows
-- without one) on a distance clause. The custom scan records which outer rows matched; a semi- or
-- anti-join skips the other candidates of a row with its match; after the pairs, LEFT emits the
-- unmatched rows (those with a NULL key too), ANTI only those. Clauses of WHERE pushed down to
-- an outer join filter its rows, null-extended ones included. Every query is compared with
-- PostgreSQL's own plan (cs_compare: only_custom and only_native must be 0).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.61);
CREATE TABLE oj_a (id int PRIMARY KEY, grp int, r float8, v float8[]);
CREATE TABLE oj_b (id int PRIMARY KEY, grp int, v float8[]);
INSERT INTO oj_a SELECT i, i % 4, floor(random() * 5) / 10,
  ARRAY[round(random() * 60) / 10, round(random() * 60) / 10] FROM generate_series(1, 1500) i;
INSERT INTO oj_b SELECT i, i % 3, ARRAY[round(random() * 60) / 10, round(random() * 60) / 10]
  FROM generate_series(1, 1500) i;
-- NULL vectors and radii, wild rows (NaN, infinite, huge), duplicates
INSERT INTO oj_a VALUES (9001, 1, 0.3, NULL), (9002, 2, 0.3, '{NaN,1}'), (9003, 3, NULL, '{1,1}'),
  (9004, 0, 0.3, '{Infinity,1}'), (9005, 1, 'NaN', '{2,2}'), (9006, 2, 0.3, '{1e200,1}');
INSERT INTO oj_a SELECT 3000 + id, grp, r, v FROM oj_a WHERE id <= 40;
INSERT INTO oj_b VALUES (9001, 1, NULL), (9002, 2, '{1,NaN}'), (9003, 0, '{1,1}');
CREATE TABLE oj_empty (id int PRIMARY KEY, grp int, v float8[]);
ANALYZE oj_a;
ANALYZE oj_b;
ANALYZE oj_empty;

-- LEFT JOIN
EXPLAIN (COSTS OFF) SELECT a.id, count(b.id) FROM oj_a a LEFT JOIN oj_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.id;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id, count(b.id) AS neighbours FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3
  GROUP BY a.id$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b, b.grp FROM oj_a a LEFT JOIN oj_b b
  ON a.v <+> b.v < 0.4 AND a.grp <> b.grp$$);
-- clauses of WHERE: one that a null-extended row passes (a filter after the join), and one that
-- makes it an anti-join (b.id IS NULL)
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3
  WHERE coalesce(b.grp, -1) < a.grp;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3
  WHERE coalesce(b.grp, -1) < a.grp$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3 WHERE b.id IS NULL$$);
-- a per-row radius, arithmetic on the distance, an expression key, a self-join
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= a.r$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON (a.v <-> b.v) * 10 <= 3$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b
  ON CASE WHEN a.v IS NOT NULL THEN ARRAY[a.v[1] + 0.1, a.v[2]] END <-> b.v <= 0.2$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT x.id AS x, y.id AS y FROM oj_a x LEFT JOIN oj_a y ON x.v <-> y.v <= 0.2 AND x.id <> y.id$$);
-- an empty inner side (every row null-extended), an empty outer side
SET enable_nestloop = off;  -- PostgreSQL's plan is cheaper with an empty side
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, e.id AS e FROM oj_a a LEFT JOIN oj_empty e ON a.v <-> e.v <= 0.3$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT e.id AS e, a.id AS a FROM oj_empty e LEFT JOIN oj_a a ON a.v <-> e.v <= 0.3$$);
RESET enable_nestloop;

-- EXISTS and NOT EXISTS
EXPLAIN (COSTS OFF) SELECT a.id FROM oj_a a WHERE EXISTS
  (SELECT FROM oj_b b WHERE a.v <-> b.v <= 0.3);
EXPLAIN (COSTS OFF) SELECT a.id FROM oj_a a WHERE NOT EXISTS
  (SELECT FROM oj_b b WHERE a.v <-> b.v <= 0.3);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a WHERE EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= 0.3)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= 0.3)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, a.grp FROM oj_a a WHERE EXISTS
  (SELECT FROM oj_b b WHERE b.v <-> a.v < 0.25 AND b.grp <> a.grp % 3)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS
  (SELECT FROM oj_b b WHERE chebyshev_distance(a.v, b.v) <= a.r AND b.grp <> a.grp)$$);
-- the usual dedup: the rows without an earlier row close by
SELECT * FROM pg_temp.cs_compare($$
  SELECT x.id AS x FROM oj_a x WHERE NOT EXISTS
  (SELECT FROM oj_a y WHERE x.v <-> y.v <= 0.1 AND y.id < x.id)$$);
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a WHERE EXISTS (SELECT FROM oj_empty e WHERE a.v <-> e.v <= 0.3)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS (SELECT FROM oj_empty e WHERE a.v <-> e.v <= 0.3)$$);
RESET enable_nestloop;

-- Generic plans: eps a parameter (NULL: no pair matches, every outer row kept by LEFT and ANTI).
SET plan_cache_mode = force_generic_plan;
\i test/sql/include/customscan_prepared.sql
PREPARE oj_left(float8) AS
  SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= $1;
PREPARE oj_semi(float8) AS
  SELECT a.id AS a FROM oj_a a WHERE EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= $1);
PREPARE oj_anti(float8) AS
  SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= $1);
EXPLAIN (COSTS OFF) EXECUTE oj_anti(0.3);
SELECT eps, l.only_custom + l.only_native AS left_differ, l.rows_custom AS left_rows,
       s.only_custom + s.only_native AS semi_differ, s.rows_custom AS semi_rows,
       t.only_custom + t.only_native AS anti_differ, t.rows_custom AS anti_rows
FROM (VALUES (0.3::float8), (0), (NULL), (0.05), (1)) v(eps),
  LATERAL pg_temp.cs_compare_prepared(format('EXECUTE oj_left(%L)', eps), format(
    'SELECT a.id AS a, b.id AS b FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= %L', eps)) l,
  LATERAL pg_temp.cs_compare_prepared(format('EXECUTE oj_semi(%L)', eps), format(
    'SELECT a.id AS a FROM oj_a a WHERE EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= %L)',
    eps)) s,
  LATERAL pg_temp.cs_compare_prepared(format('EXECUTE oj_anti(%L)', eps), format(
    'SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS (SELECT FROM oj_b b WHERE a.v <-> b.v <= %L)',
    eps)) t;
RESET plan_cache_mode;

-- Rescans: eps from the outer query, the join run once per outer row.
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM generate_series(0, 3) g, LATERAL
    (SELECT count(*) AS n FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= g / 10.0) s$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, x.* FROM generate_series(0, 3) g, LATERAL
    (SELECT a.id AS a FROM oj_a a WHERE NOT EXISTS
     (SELECT FROM oj_b b WHERE a.v <-> b.v <= g / 10.0) AND a.id % 4 = g) x$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, (SELECT count(*) FROM oj_a a WHERE EXISTS
    (SELECT FROM oj_b b WHERE a.v <-> b.v <= g / 10.0)) FROM generate_series(0, 3) g$$);

-- Not taken where rows are updated or locked (EvalPlanQual rechecks the join as an inner join).
EXPLAIN (COSTS OFF) UPDATE oj_a SET grp = grp WHERE NOT EXISTS
  (SELECT FROM oj_b b WHERE oj_a.v <-> b.v <= 0.3);
EXPLAIN (COSTS OFF) SELECT a.id FROM oj_a a LEFT JOIN oj_b b ON a.v <-> b.v <= 0.3 FOR UPDATE OF a;
