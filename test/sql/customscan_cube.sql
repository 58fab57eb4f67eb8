-- contrib cube's clauses decided by simjoin itself: where the installed cube computes what
-- simjoin computes (the arithmetic probe, src/engine/bounds/arithmetic_probe.h), the engine's pairs of
-- point cubes skip cube's distance function, and the box clause users add for cube's GiST index,
-- cube_enlarge(x, r, n) @> y, is decided natively (in_enlarged_box). Every query is compared with
-- PostgreSQL's own plan (enable_customscan = off): lattice coordinates put pairs exactly at eps
-- and exactly on the box's rounded bounds; wild rows (boxes, other dimensions, NaN, NULL) go to
-- cube's own functions.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
SELECT setseed(0.31);
CREATE TABLE cb_a (id int, c cube);
CREATE TABLE cb_b (id int, c cube);
-- a lattice of step 0.1 in [0, 2]^3 (many pairs at exactly 0.3, and on a +- r exactly) ...
INSERT INTO cb_a SELECT i, cube(ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
                                      round(random() * 20) / 10]) FROM generate_series(1, 1500) i;
INSERT INTO cb_b SELECT i, cube(ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
                                      round(random() * 20) / 10]) FROM generate_series(1, 1500) i;
-- ... random points at all scales, duplicates, and wild rows left to cube
INSERT INTO cb_a SELECT 2000 + i, cube(ARRAY[random() * 2, random() * 2, random() * 2])
  FROM generate_series(1, 500) i;
INSERT INTO cb_b SELECT 2000 + i, c FROM cb_a WHERE id BETWEEN 2001 AND 2100;
INSERT INTO cb_a VALUES (9001, '(0,0,0),(0.5,0.5,0.5)'), (9002, '(1,1)'), (9003, NULL),
  (9004, cube(ARRAY['NaN'::float8, 1, 1])), (9005, '(1,1,1),(1,1,1)');
INSERT INTO cb_b VALUES (9001, '(1,1,1),(1.2,1.2,1.2)'), (9002, '(0.3,0.4,0,0)'),
  (9003, cube(ARRAY[1, 'Infinity'::float8, 1]));
ANALYZE cb_a;
ANALYZE cb_b;

-- the usual form: the box for the index, the distance for the answer
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.3, 3) @> b.c AND a.c <-> b.c <= 0.3;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.3, 3) @> b.c AND a.c <-> b.c <= 0.3');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.3, 3) @> b.c AND a.c <-> b.c <= 0.3', 'Distance Clause') AS distance,
       pg_temp.cs_explain('SELECT a.id, b.id FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.3, 3) @> b.c AND a.c <-> b.c <= 0.3', 'Box Clauses Decided Natively')
       AS native_boxes;
-- the other spellings: <@, the functions, the inner key enlarged, strict distance
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON b.c <@ cube_enlarge(a.c, 0.3, 3) AND a.c <-> b.c < 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_contains(cube_enlarge(b.c, 0.3, 3), a.c) AND cube_distance(b.c, a.c) <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_contained(a.c, cube_enlarge(b.c, 0.3, 3)) AND a.c <-> b.c <= 0.3');
-- the box decides: r below eps, r = 0, r < 0 (cube's midpoint), n below and above the dimension
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.2, 3) @> b.c AND a.c <-> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0, 0) @> b.c AND a.c <-> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, -0.1, 2) @> b.c AND a.c <-> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.25, 7) @> b.c AND a.c <-> b.c <= 0.3');
-- two boxes, taxicab and Chebyshev, a self-join, columns and distances in the output
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, 0.3, 3) @> b.c AND b.c <@ cube_enlarge(a.c, 0.2, 3)
     AND a.c <#> b.c <= 0.4');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(b.c, 0.2, 3) @> a.c AND a.c <=> b.c <= 0.2');
SELECT * FROM pg_temp.cs_compare('SELECT x.id AS a, y.id AS b, x.c <-> y.c AS d, y.c AS c
  FROM cb_a x JOIN cb_a y ON cube_enlarge(x.c, 0.3, 3) @> y.c AND x.c <-> y.c <= 0.3');
-- not decided natively (still correct): r reads a row, the box of another key
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, a.id / 10000.0, 3) @> b.c AND a.c <-> b.c <= 0.3',
  'Box Clauses Decided Natively') AS row_dependent_r;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, a.id / 10000.0, 3) @> b.c AND a.c <-> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM cb_a a JOIN cb_b b
  ON cube_enlarge(cube(1, 1), 0.3, 3) @> cube(1, 1) AND a.c <-> b.c <= 0.3');

-- parameters in a generic plan: r and eps change between executions, NULL r or n match nothing
SET plan_cache_mode = force_generic_plan;
PREPARE cb_q(float8, float8, int) AS SELECT count(*) FROM cb_a a JOIN cb_b b
  ON cube_enlarge(a.c, $1, $3) @> b.c AND a.c <-> b.c <= $2;
CREATE TEMP TABLE cb_params (r float8, eps float8, n int);
INSERT INTO cb_params VALUES (0.3, 0.3, 3), (0.1, 0.3, 3), (0.3, 0.1, 3), (-0.2, 0.2, 3),
  (NULL, 0.3, 3), (0.3, 0.3, NULL), (0.3, NULL, 3), ('Infinity', 0.3, 3), ('NaN', 0.3, 3);
CREATE FUNCTION pg_temp.cb_native(r float8, eps float8, n int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE result bigint;
BEGIN
  SET LOCAL simjoin.enable_customscan = off;
  SELECT count(*) INTO result FROM cb_a a JOIN cb_b b
    ON cube_enlarge(a.c, r, n) @> b.c AND a.c <-> b.c <= eps;
  RETURN result;
END $$;
CREATE FUNCTION pg_temp.cb_custom(r float8, eps float8, n int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE result bigint;
BEGIN
  EXECUTE format('EXECUTE cb_q(%L, %L, %L)', r, eps, n) INTO result;
  RETURN result;
END $$;
EXPLAIN (COSTS OFF) EXECUTE cb_q(0.3, 0.3, 3);
SELECT r, eps, n, pg_temp.cb_custom(r, eps, n) AS custom, pg_temp.cb_native(r, eps, n) AS native
  FROM cb_params;
RESET plan_cache_mode;

-- random points at other scales and dimensions, against the native plan
CREATE TABLE cb_r (id int, c cube);
INSERT INTO cb_r SELECT i, cube(ARRAY(SELECT (random() - 0.5) * 1e-3 FROM generate_series(1, 6)
                                      WHERE i > 0)) FROM generate_series(1, 1500) i;
ANALYZE cb_r;
SELECT * FROM pg_temp.cs_compare('SELECT x.id AS a, y.id AS b FROM cb_r x JOIN cb_r y
  ON cube_enlarge(x.c, 5e-4, 6) @> y.c AND x.c <-> y.c <= 5e-4');
SELECT * FROM pg_temp.cs_compare('SELECT x.id AS a, y.id AS b FROM cb_r x JOIN cb_r y
  ON cube_enlarge(x.c, 3e-4, 6) @> y.c AND x.c <#> y.c <= 9e-4');
DROP TABLE cb_a, cb_b, cb_r;
DROP EXTENSION cube;  -- as the other tests expect to find the database
\else
\echo 'cube is not available: cube tests skipped'
\endif
