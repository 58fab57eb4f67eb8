-- The SimilarityJoin custom scan on other types: built-in point <-> point, and contrib cube's
-- <->, <#>, <=> (when cube is available). Same rows as PostgreSQL's own plan.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- point <-> point: PostgreSQL computes hypot(), the engine sqrt(dx*dx + dy*dy); the recheck
-- keeps the answer PostgreSQL's.
SELECT setseed(0.77);
CREATE TABLE cs_p (id int, p point);
INSERT INTO cs_p SELECT i, point(round(random() * 30) / 10, round(random() * 30) / 10)
  FROM generate_series(1, 1500) i;
INSERT INTO cs_p VALUES (5001, NULL), (5002, point('NaN', 1)), (5003, point('Infinity', 0)),
  (5004, point(1e300, 1e300)), (5005, point(0.3, 0.4)), (5006, point(0, 0));
ANALYZE cs_p;
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM cs_p x JOIN cs_p y ON x.p <-> y.p <= 0.5;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_p x JOIN cs_p y ON x.p <-> y.p <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_p x JOIN cs_p y ON x.p <-> y.p < 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_p x JOIN cs_p y ON 0.1 >= y.p <-> x.p');
DROP TABLE cs_p;

SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
SELECT setseed(0.55);
CREATE TABLE cs_cube_a (id int, c cube);
CREATE TABLE cs_cube_b (id int, c cube);
INSERT INTO cs_cube_a SELECT i, cube(ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
  round(random() * 20) / 10]) FROM generate_series(1, 1200) i;
INSERT INTO cs_cube_b SELECT i, cube(ARRAY[round(random() * 20) / 10, round(random() * 20) / 10,
  round(random() * 20) / 10]) FROM generate_series(1, 1300) i;
-- boxes, a degenerate box, other dimensions (cube pads with zeros), NULL, NaN: left to cube
INSERT INTO cs_cube_a VALUES (9001, '(0,0,0),(0.5,0.5,0.5)'), (9002, '(1,1,1),(1,1,1)'),
  (9003, '(1,1)'), (9004, NULL), (9005, cube(ARRAY['NaN'::float8, 1, 1]));
INSERT INTO cs_cube_b VALUES (9001, '(1,1,1),(2,2,1)'), (9002, '(0.3,0.4,0,0)'),
  (9003, cube(ARRAY[1, 'Infinity'::float8, 1]));
ANALYZE cs_cube_a;
ANALYZE cs_cube_b;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM cs_cube_a a JOIN cs_cube_b b ON a.c <-> b.c <= 0.3;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_cube_a a JOIN cs_cube_b b ON a.c <-> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_cube_a a JOIN cs_cube_b b ON a.c <#> b.c <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_cube_a a JOIN cs_cube_b b ON a.c <=> b.c < 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cs_cube_a a JOIN cs_cube_b b
     ON cube_distance(b.c, a.c) <= 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_cube_a x JOIN cs_cube_a y ON x.c <-> y.c <= 0.2');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM cs_cube_a a JOIN cs_cube_b b
                           ON a.c <-> b.c <= 0.3', 'Wild Rows') AS wild_rows;
DROP TABLE cs_cube_a, cs_cube_b;
\else
\echo 'cube is not available: cube tests skipped'
\endif
