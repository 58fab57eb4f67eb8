-- Monotone arithmetic on the distance: d * k, k * d, d / k (k > 0), d + s, d - s, nested, on
-- either side of the comparison. The engine joins with the bound on d that the clause implies in
-- double arithmetic (inverse_bound in src/engine/bounds/clause_bound.h: fl(d * k) <= c admits d up to
-- c's successor divided by k), and every candidate pair is rechecked with the clause itself.
-- Integer points put many pairs at distances whose scaled value rounds onto the bound: at
-- d = 3, 3 * 0.7 = 2.0999999999999996 and 2.0999999999999996 / 0.7 = 2.9999999999999996 < 3, so a
-- bound of c / k alone would lose them. Every query is compared with PostgreSQL's own plan
-- (cs_compare: only_custom and only_native must be 0).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.17);
CREATE TABLE sc_a (id int PRIMARY KEY, v float8[], p point, w float8);
CREATE TABLE sc_b (id int PRIMARY KEY, v float8[], p point);
INSERT INTO sc_a SELECT i, ARRAY[floor(random() * 40), floor(random() * 40)], NULL, random()
  FROM generate_series(1, 1500) i;
INSERT INTO sc_b SELECT i, ARRAY[floor(random() * 40), floor(random() * 40)], NULL
  FROM generate_series(1, 1500) i;
UPDATE sc_a SET p = point(v[1], v[2]);
UPDATE sc_b SET p = point(v[1], v[2]);
-- NULL vectors, wild rows (NaN, infinite, huge, another dimension is left out: it raises an error)
INSERT INTO sc_a VALUES (9001, NULL, NULL, 1), (9002, '{NaN,1}', point('NaN', 1), 1),
  (9003, '{Infinity,1}', point('Infinity', 1), 1), (9004, '{1e200,1}', point(1e200, 1), 1);
INSERT INTO sc_b VALUES (9001, NULL, NULL), (9002, '{1,NaN}', point(1, 'NaN')),
  (9003, '{1,-Infinity}', point(1, '-Infinity'));
CREATE TABLE sc_empty (id int, v float8[]);
ANALYZE sc_a;
ANALYZE sc_b;
ANALYZE sc_empty;

EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 0.7 <= 2.0999999999999996;

-- pairs at d = 3 kept: the scaled distance rounds onto the bound
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 0.7 <= 2.0999999999999996$$);
SELECT count(*) FILTER (WHERE a.v <-> b.v = 3) AS at_three
  FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 0.7 <= 2.0999999999999996;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON 0.7 * (a.v <-> b.v) < 2.1$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) / 0.7 <= 4.2857142857142856$$);
-- strict at exactly the bound: 5 * 10 < 50 is false (the engine's candidates at d = 5 go)
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 10 < 50$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON 50 > 10 * (b.v <-> a.v)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON 2.5 >= (a.v <+> b.v) / 2$$);
-- sums and differences, nested steps, the bound an expression of constants
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) + 1 <= 4$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) - 0.5 < 2.5$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON ((a.v <-> b.v) * 10) / 2 + 1 <= 16$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 1000 <= 6000 / 2.0$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON chebyshev_distance(a.v, b.v) * 0.3 <= 0.9$$);
-- a real factor (float8 * float4) and a float4 bound
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * 0.7::real <= 2.1::real$$);
-- the built-in point (a form rechecked anyway) with another clause
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.p <-> b.p) * 0.7 <= 2.0999999999999996
  AND a.id % 3 <> b.id % 3$$);
-- an empty side (the custom scan costed as free: PostgreSQL's plan is cheaper for it)
SET simjoin.customscan_startup_cost = 0;
SET simjoin.customscan_row_cost = 0;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, e.id AS e FROM sc_a a JOIN sc_empty e ON (a.v <-> e.v) * 2 <= 4$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT e.id AS e, a.id AS a FROM sc_empty e JOIN sc_a a ON (a.v <-> e.v) * 2 <= 4$$);
RESET simjoin.customscan_startup_cost;
RESET simjoin.customscan_row_cost;

-- Not taken: a factor from a row, a factor that is not positive, a decreasing function.
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * a.w <= 1 AND b.id < 50$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * -2 <= -4 AND b.id < 50$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM sc_a a JOIN sc_b b ON 6 / ((a.v <-> b.v) + 1) >= 2 AND b.id < 50$$);

-- Generic plans: the factor and the bound are parameters, checked on each execution; a factor
-- that is not positive (every pair rechecked), NULL (no row) or infinite.
CREATE TABLE sc_small AS SELECT * FROM sc_a WHERE id <= 120 OR id > 9000;
ANALYZE sc_small;
SET plan_cache_mode = force_generic_plan;
PREPARE sc_q(float8, float8) AS
  SELECT a.id AS a, b.id AS b FROM sc_small a JOIN sc_b b ON (a.v <-> b.v) * $1 <= $2;
EXPLAIN (COSTS OFF) EXECUTE sc_q(0.7, 2.0999999999999996);
\i test/sql/include/customscan_prepared.sql
SELECT k, c, r.* FROM (VALUES (0.7::float8, 2.0999999999999996::float8), (0.1, 0.5), (3, 9),
    (-1, 5), (0, 0), ('Infinity', 1e300), (NULL, 5), (2, NULL), (1, 'NaN')) t(k, c),
  LATERAL pg_temp.cs_compare_prepared(format('EXECUTE sc_q(%L, %L)', k, c),
    format('SELECT a.id AS a, b.id AS b FROM sc_small a JOIN sc_b b ON (a.v <-> b.v) * %L <= %L',
           k, c)) r;
RESET plan_cache_mode;

-- Rescans: the factor from the outer query, the join run once per outer row.
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM generate_series(1, 4) g, LATERAL
    (SELECT count(*) AS n FROM sc_a a JOIN sc_b b ON (a.v <-> b.v) * (0.7 * g) <= 2.1 * g) s$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM (VALUES (0.5), (-1), (2)) t(g), LATERAL
    (SELECT count(*) AS n FROM sc_small a JOIN sc_b b ON (a.v <-> b.v) * g <= 3) s$$);
