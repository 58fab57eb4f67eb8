-- Rescans: what the custom scan keeps from one scan to the next and what it must redo. A
-- correlated subquery or LATERAL runs the join once per outer row; the inner side is kept when
-- nothing it depends on changed, the outer side is read again, and a self-join read once shares
-- the inner side's rows, points and deformed values. Each query is compared with PostgreSQL's
-- own plan (cs_compare: only_custom and only_native must be 0).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
-- Tables small enough for PostgreSQL's nested loop, and the custom scan planned at any size.
SET simjoin.customscan_startup_cost = 0;
SET simjoin.customscan_row_cost = 0;
SET simjoin.customscan_pair_cost = 0;

-- 1. A self-join read once, rescanned with another eps: by-value columns beside the key.
CREATE TABLE rs_sv1 (id int PRIMARY KEY, c1 int, c2 int, v float8[]);
INSERT INTO rs_sv1 SELECT g, g % 7, g % 11, ARRAY[g]::float8[] FROM generate_series(1, 3000) g;
ANALYZE rs_sv1;
CREATE TABLE rs_radii (r float8);
INSERT INTO rs_radii VALUES (1), (2), (0), (1);
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, (SELECT count(*) FILTER (WHERE a.c1 = b.c1 AND a.c2 = b.c2)
             FROM rs_sv1 a JOIN rs_sv1 b ON a.v <-> b.v <= rs_radii.r) FROM rs_radii$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, (SELECT sum(a.c1 * 1000 + a.c2 * 100 + b.c1 * 10 + b.c2)
             FROM rs_sv1 a JOIN rs_sv1 b ON a.v <-> b.v <= rs_radii.r) FROM rs_radii$$);
-- the outer side reads a column the inner side does not need, and the other way round
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, (SELECT sum(a.c1 * 100 + b.c2) FROM rs_sv1 a JOIN rs_sv1 b ON a.v <-> b.v <= rs_radii.r)
  FROM rs_radii$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, x.* FROM rs_radii, LATERAL (SELECT a.id AS a, b.id AS b, a.c1, b.c2 FROM rs_sv1 a JOIN rs_sv1 b
    ON a.v <-> b.v <= rs_radii.r WHERE a.id % 100 = 1 OFFSET 0) x$$);

-- 2. The same with a varlena column checked on each pair (this crashed the backend).
CREATE TABLE rs_places (id int PRIMARY KEY, name text, pos float8[]);
INSERT INTO rs_places SELECT g, 'place ' || g, ARRAY[g % 100, g / 100]::float8[]
  FROM generate_series(1, 3000) g;
ANALYZE rs_places;
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, (SELECT count(*) FROM rs_places a JOIN rs_places b
             ON a.pos <-> b.pos <= rs_radii.r AND a.name < b.name) FROM rs_radii$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT r, (SELECT string_agg(a.name || '/' || b.name, ',' ORDER BY a.id, b.id)
             FROM rs_places a JOIN rs_places b ON a.pos <-> b.pos <= rs_radii.r AND a.id < 30
             AND b.name LIKE 'place 1%') FROM rs_radii$$);
-- the plan is the shared self-join: the outer scan never runs, the inner one once for 4 loops
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT r, (SELECT count(*) FROM rs_places a JOIN rs_places b
           ON a.pos <-> b.pos <= rs_radii.r AND a.name < b.name) FROM rs_radii;

-- The same self-join without a rescan, the two sides needing different columns of the shared
-- scan (the outer side the name, the inner side the name and the vector; this crashed too).
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.name AS a_name, b.name AS b_name, b.pos FROM rs_places a JOIN rs_places b ON a.pos <-> b.pos <= 1
  AND a.name < b.name$$);
SELECT pg_temp.cs_explain($$SELECT a.name, b.name, b.pos FROM rs_places a JOIN rs_places b
  ON a.pos <-> b.pos <= 1 AND a.name < b.name$$, 'Outer Storage');
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a_id, b.id AS b_id, b.v FROM rs_sv1 a JOIN rs_sv1 b ON a.v <-> b.v <= 2 AND a.id <> b.id$$);
SELECT pg_temp.cs_explain($$SELECT a.id, b.id, b.v FROM rs_sv1 a JOIN rs_sv1 b
  ON a.v <-> b.v <= 2 AND a.id <> b.id$$, 'Outer Storage');

-- 3. Two distance clauses, the same eps on both rescans (this crashed too).
CREATE TABLE rs_lat (id int, v float8[], r float8[]);
INSERT INTO rs_lat SELECT g, ARRAY[(g % 10) * 0.5, (g / 10) * 0.5], ARRAY[(g % 3) * 0.1]
  FROM generate_series(1, 300) g;
ANALYZE rs_lat;
SELECT * FROM pg_temp.cs_compare($$
  SELECT o, (SELECT sum(a.id * 3 + b.id) FROM rs_lat a JOIN rs_lat b
             ON a.v <+> b.v < x.e AND a.r <-> b.r <= 0.2)
  FROM (VALUES (0.5::float8, 1), (0.5::float8, 2), (1.0::float8, 3)) x(e, o)$$);

-- 4. A key that reads an outer value: the inner side is computed again when it changes.
CREATE TABLE rs_p1 (id int PRIMARY KEY, x float8);
CREATE TABLE rs_p2 (id int PRIMARY KEY, x float8);
INSERT INTO rs_p1 SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO rs_p2 SELECT g, g + 0.25 FROM generate_series(1, 1000) g;
ANALYZE rs_p1;
ANALYZE rs_p2;
CREATE TABLE rs_shifts (s float8);
INSERT INTO rs_shifts VALUES (0), (100), (500.5), (5), (5);
SELECT s, (SELECT count(*) FROM rs_p1 a JOIN rs_p2 b ON array[a.x] <-> array[b.x + rs_shifts.s] <= 0.5)
FROM rs_shifts;
SELECT * FROM pg_temp.cs_compare($$
  SELECT s, (SELECT count(*) FROM rs_p1 a JOIN rs_p2 b
             ON array[a.x] <-> array[b.x + rs_shifts.s] <= 0.5) FROM rs_shifts$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT s, n FROM rs_shifts, LATERAL (SELECT count(*) AS n FROM rs_p1 a JOIN rs_p2 b
    ON array[a.x, 0] <-> array[b.x, rs_shifts.s] <= 0.5) x$$);
-- the outer key reads it
SELECT * FROM pg_temp.cs_compare($$
  SELECT s, (SELECT count(*) FROM rs_p1 a JOIN rs_p2 b
             ON array[a.x + rs_shifts.s] <-> array[b.x] <= 0.5) FROM rs_shifts$$);
-- both keys and eps
SELECT * FROM pg_temp.cs_compare($$
  SELECT s, (SELECT count(*) FROM rs_p1 a JOIN rs_p2 b
             ON array[a.x - rs_shifts.s] <-> array[b.x + rs_shifts.s] <= rs_shifts.s / 10) FROM rs_shifts$$);
-- the plan keeps the key in the custom scan
EXPLAIN (COSTS OFF)
SELECT s, (SELECT count(*) FROM rs_p1 a JOIN rs_p2 b ON array[a.x] <-> array[b.x + rs_shifts.s] <= 0.5)
FROM rs_shifts;
