-- The nearest row of the other side within the bound, per outer row:
--   SELECT DISTINCT ON (a.k) ... FROM a JOIN b ON a.v <-> b.v <= eps ORDER BY a.k, a.v <-> b.v[, b.k]
-- (and ON ST_DWithin(a.g, b.g, eps) ... ORDER BY a.k, ST_Distance(a.g, b.g) on PostGIS points)
-- The SimilarityJoin keeps only each outer row's nearest engine pair ("Engine Keeps"), its
-- outer input sorted on the DISTINCT ON keys and its inner input on the ORDER BY's keys after
-- the distance (the tie-break); an Incremental Sort and PostgreSQL's Unique go on top. Each query
-- is compared with PostgreSQL's own plan (cs_compare: rows only one plan returns must be 0);
-- where the ORDER BY ends with the distance, ties are unspecified, and only the key and the
-- distance are compared.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
-- The setup turns the engine's aggregates off for the join scan's tests; this test needs them.
SET simjoin.enable_aggregates = on;

-- dn_plan(query): whether the plan keeps the nearest pair in the engine.
CREATE FUNCTION pg_temp.dn_plan(query text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Engine Keeps: %nearest%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

SELECT setseed(0.21);
-- Coordinates on a 0.1 grid (many ties in distance), a non-unique key with NULLs, NULL vectors,
-- wild rows (NaN, infinite, huge), duplicated vectors in b.
CREATE TABLE dn_a (id int PRIMARY KEY, k int, v float8[], note text);
CREATE TABLE dn_b (id int PRIMARY KEY, v float8[], tag text);
INSERT INTO dn_a SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 97 END,
  ARRAY[round(random() * 40) / 10, round(random() * 40) / 10], 'a' || i
  FROM generate_series(1, 1500) i;
INSERT INTO dn_b SELECT i, ARRAY[round(random() * 40) / 10, round(random() * 40) / 10], 'b' || i
  FROM generate_series(1, 1200) i;
INSERT INTO dn_b SELECT 5000 + id, v, 'dup' || id FROM dn_b WHERE id % 3 = 0;
INSERT INTO dn_a VALUES (9001, 1, NULL, 'null'), (9002, 2, '{NaN,1}', 'nan'),
  (9003, NULL, '{Infinity,1}', 'inf'), (9004, 3, '{1e200,1}', 'huge'), (9005, 4, '{1,1}', 'x');
INSERT INTO dn_b VALUES (9001, NULL, 'null'), (9002, '{1,NaN}', 'nan'), (9003, '{1,1}', 'x'),
  (9004, '{1e200,1}', 'huge');
-- A lattice at exactly the bound: each a point halfway between two b points 0.5 away (and
-- duplicates of them), eps 0.5.
CREATE TABLE dn_la (id int PRIMARY KEY, v float8[]);
CREATE TABLE dn_lb (id int PRIMARY KEY, v float8[]);
INSERT INTO dn_la SELECT x * 10 + y, ARRAY[x + 0.5, y] FROM generate_series(0, 9) x,
  generate_series(0, 9) y;
INSERT INTO dn_lb SELECT x * 10 + y, ARRAY[x, y] FROM generate_series(0, 10) x,
  generate_series(0, 9) y;
INSERT INTO dn_lb SELECT 1000 + id, v FROM dn_lb WHERE id % 2 = 0;
CREATE TABLE dn_empty (id int PRIMARY KEY, v float8[]);
ANALYZE dn_a;
ANALYZE dn_b;
ANALYZE dn_la;
ANALYZE dn_lb;
ANALYZE dn_empty;

-- The nearest b per a row, ties by the smaller b.id.
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$);
-- ties by the larger b.id
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id DESC$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id DESC$$);
-- without b's key in the ORDER BY: ties unspecified, the key and the distance compared
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
SELECT * FROM pg_temp.cs_compare($$SELECT id, d FROM (SELECT DISTINCT ON (a.id) a.id,
  b.id AS b, a.v <-> b.v AS d FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3
  ORDER BY a.id, a.v <-> b.v) q$$);
-- the lattice: two b rows (and their duplicates) at exactly eps from each a row
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= 0.5 ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= 0.5 ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= 0.5 ORDER BY a.id, a.v <-> b.v, b.id DESC$$);
-- and the nearest a per b row (b outer), ties by the smaller a.id
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (b.id) b.id, a.id AS a, a.v <-> b.v AS d
  FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= 0.5 ORDER BY b.id, a.v <-> b.v, a.id$$);

-- A non-unique key with NULLs: the rows sharing a key give PostgreSQL's first row over all of
-- them (the Incremental Sort orders them by distance, then b.id); either direction of the key.
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.k, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.k) a.k, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.k, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.k) a.k, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.k DESC NULLS LAST, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT k, d FROM (SELECT DISTINCT ON (a.k) a.k, b.id AS b,
  a.v <-> b.v AS d FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.k, a.v <-> b.v) q$$);
-- keys of two columns, and an expression of the outer row
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.k, a.id % 3) a.k, a.id % 3 AS m,
  b.id AS b, a.v <-> b.v AS d FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3
  ORDER BY a.k, a.id % 3, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id / 10) a.id / 10 AS g, b.id AS b,
  a.v <-> b.v AS d FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.3
  ORDER BY a.id / 10, a.v <-> b.v, b.id$$);
-- the output in the order of the ORDER BY, as PostgreSQL's
SELECT (SELECT array_agg(k ORDER BY n) FROM (SELECT k, row_number() OVER () AS n FROM (
    SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d FROM dn_a a JOIN dn_b b
    ON a.v <-> b.v <= 0.3 ORDER BY a.k DESC, a.v <-> b.v, b.id) q) r)::text
  = (SELECT array_agg(k ORDER BY k DESC) FROM (SELECT DISTINCT k FROM dn_a a
    WHERE EXISTS (SELECT FROM dn_b b WHERE a.v <-> b.v <= 0.3)) s)::text AS same_order;

-- More columns of both sides, a Manhattan distance, a strict bound, a filter on one side.
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, a.note, a.v, b.tag, b.v AS bv,
  a.v <+> b.v AS d FROM dn_a a JOIN dn_b b ON a.v <+> b.v < 0.4 WHERE b.id > 100
  ORDER BY a.id, a.v <+> b.v, b.id$$);
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, a.note, b.tag
  FROM dn_a a JOIN dn_b b ON a.v <+> b.v < 0.4 WHERE b.id > 100
  ORDER BY a.id, a.v <+> b.v, b.id$$);

-- LEFT JOIN: the rows without a partner (NULL vectors, far away, an empty side) null-extended,
-- their NULL distance first or last among the rows of their key.
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_b b ON a.v <-> b.v <= 0.05 ORDER BY a.k, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.k) a.k, b.id AS b,
  a.v <-> b.v AS d FROM dn_a a LEFT JOIN dn_b b ON a.v <-> b.v <= 0.05
  ORDER BY a.k, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_b b ON a.v <-> b.v <= 0.05 ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_b b ON a.v <-> b.v <= 0.05 ORDER BY a.k, a.v <-> b.v NULLS FIRST$$);
SELECT * FROM pg_temp.cs_compare($$SELECT k, d FROM (SELECT DISTINCT ON (a.k) a.k, b.id,
  a.v <-> b.v AS d FROM dn_a a LEFT JOIN dn_b b ON a.v <-> b.v <= 0.05
  ORDER BY a.k, a.v <-> b.v NULLS FIRST) q$$);
SET enable_sort = off;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_empty b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_empty b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
RESET enable_sort;

-- A third table joined to the outer side (the outer input is a join, sorted on the key).
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, l.id AS l, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_la l ON l.id = a.id % 100 JOIN dn_b b ON a.v <-> b.v <= 0.3
  ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, l.id AS l, b.id AS b,
  a.v <-> b.v AS d FROM dn_a a JOIN dn_la l ON l.id = a.id % 100 JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$);

-- A self-join: each row's nearest other row or itself (distance 0 first).
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (x.id) x.id, y.id, x.v <-> y.v AS d
  FROM dn_b x JOIN dn_b y ON x.v <-> y.v <= 0.2 ORDER BY x.id, x.v <-> y.v, y.id DESC$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (x.id) x.id, y.id AS y, x.v <-> y.v AS d
  FROM dn_b x JOIN dn_b y ON x.v <-> y.v <= 0.2 ORDER BY x.id, x.v <-> y.v, y.id DESC$$);

-- Empty sides (a nested loop is cheaper on an empty table: sorts turned off, the path shown).
SET enable_sort = off;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_empty b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_empty b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_empty a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, a.v <-> b.v AS d
  FROM dn_empty a JOIN dn_b b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v$$);
RESET enable_sort;

-- A generic plan (eps a parameter) and a custom one.
SET plan_cache_mode = force_generic_plan;
PREPARE dn_near(float8) AS SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= $1 ORDER BY a.k, a.v <-> b.v, b.id;
SELECT pg_temp.dn_plan('EXECUTE dn_near(0.25)');
CREATE TEMP TABLE dn_generic AS EXECUTE dn_near(0.25);
RESET plan_cache_mode;
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE dn_native AS SELECT DISTINCT ON (a.k) a.k, b.id, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_b b ON a.v <-> b.v <= 0.25 ORDER BY a.k, a.v <-> b.v, b.id;
RESET simjoin.enable_customscan;
SELECT (SELECT count(*) FROM dn_generic) AS rows_generic,
  (SELECT count(*) FROM (SELECT * FROM dn_generic EXCEPT ALL SELECT * FROM dn_native) d) AS only_generic,
  (SELECT count(*) FROM (SELECT * FROM dn_native EXCEPT ALL SELECT * FROM dn_generic) d) AS only_native;
DEALLOCATE dn_near;

-- Rescans: the join in a subquery run once per eps (a changed parameter reads the sides again).
SELECT pg_temp.dn_plan($$SELECT e.eps, (SELECT sum(b) FROM (SELECT DISTINCT ON (a.id)
  a.id, b.id AS b FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= e.eps
  ORDER BY a.id, a.v <-> b.v, b.id) q) AS s FROM (VALUES (0.4), (0.5), (1.0), (2.0)) e(eps)$$);
SELECT * FROM pg_temp.cs_compare($$SELECT e.eps, (SELECT sum(b) FROM (SELECT DISTINCT ON (a.id)
  a.id, b.id AS b FROM dn_la a JOIN dn_lb b ON a.v <-> b.v <= e.eps
  ORDER BY a.id, a.v <-> b.v, b.id) q) AS s FROM (VALUES (0.4), (0.5), (1.0), (2.0)) e(eps)$$);

-- contrib cube, with the box clause for cube's GiST index (decided natively on the engine's
-- pairs: the nearest pair inside the box is kept, also where the box is smaller than the
-- bound); point cubes with wild rows (boxes, another dimension, NaN, NULL).
SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
CREATE TABLE dn_ca (id int PRIMARY KEY, c cube);
CREATE TABLE dn_cb (id int PRIMARY KEY, c cube);
INSERT INTO dn_ca SELECT id, cube(v) FROM dn_a WHERE id < 9000;
INSERT INTO dn_cb SELECT id, cube(v) FROM dn_b WHERE id < 9000;
INSERT INTO dn_ca VALUES (9001, '(0,0),(0.5,0.5)'), (9002, '(1,1,1)'), (9003, NULL),
  (9004, cube(ARRAY['NaN'::float8, 1]));
INSERT INTO dn_cb VALUES (9001, '(1,1),(1.2,1.2)'), (9002, '(0.3,0.4,0)');
-- far away: each a point's nearest b point (0.2 away) outside the box of half-side 0.15, the
-- next (0.15, 0.15 away) on its edge
INSERT INTO dn_ca SELECT 10000 + x * 10 + y, cube(ARRAY[100 + x, y]) FROM generate_series(0, 9) x,
  generate_series(0, 9) y;
INSERT INTO dn_cb SELECT 10000 + x * 10 + y, cube(ARRAY[100 + x + 0.2, y])
  FROM generate_series(0, 9) x, generate_series(0, 9) y;
INSERT INTO dn_cb SELECT 20000 + x * 10 + y, cube(ARRAY[100 + x + 0.15, y + 0.15])
  FROM generate_series(0, 9) x, generate_series(0, 9) y;
ANALYZE dn_ca;
ANALYZE dn_cb;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.c <-> b.c AS d
  FROM dn_ca a JOIN dn_cb b ON a.c <-> b.c <= 0.3 AND cube_enlarge(a.c, 0.3, 2) @> b.c
  ORDER BY a.id, a.c <-> b.c, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.c <-> b.c AS d
  FROM dn_ca a JOIN dn_cb b ON a.c <-> b.c <= 0.3 AND cube_enlarge(a.c, 0.3, 2) @> b.c
  ORDER BY a.id, a.c <-> b.c, b.id$$);
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.c <-> b.c AS d
  FROM dn_ca a JOIN dn_cb b ON a.c <-> b.c <= 0.3 AND cube_enlarge(a.c, 0.15, 2) @> b.c
  ORDER BY a.id, a.c <-> b.c, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.c <-> b.c AS d
  FROM dn_ca a JOIN dn_cb b ON a.c <-> b.c <= 0.3 AND cube_enlarge(a.c, 0.15, 2) @> b.c
  ORDER BY a.id, a.c <-> b.c, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.c <#> b.c AS d
  FROM dn_ca a JOIN dn_cb b ON a.c <#> b.c <= 0.3 ORDER BY a.id, a.c <#> b.c, b.id DESC$$);
DROP TABLE dn_ca, dn_cb;
DROP EXTENSION cube;  -- as the other tests expect to find the database
\endif

-- real[] keys (the engine's distance is the operator's on them too); built-in point keys, whose
-- operator's arithmetic (pg_hypot) the fold reproduces, probed: each candidate measured and
-- decided with it. Tenths put many pairs at the bound and many ties; a NaN point and a NULL are
-- wild rows; the nearest, a LEFT JOIN, the nearest other row.
CREATE TABLE dn_ra AS SELECT id, v::real[] AS v, point(v[1], v[2]) AS p FROM dn_a WHERE id < 9000;
CREATE TABLE dn_rb AS SELECT id, v::real[] AS v, point(v[1], v[2]) AS p FROM dn_b WHERE id < 9000;
INSERT INTO dn_rb VALUES (9101, NULL, point('NaN', 1)), (9102, NULL, NULL);
ALTER TABLE dn_ra ADD PRIMARY KEY (id);
ANALYZE dn_ra;
ANALYZE dn_rb;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.v <-> b.v AS d
  FROM dn_ra a JOIN dn_rb b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$) AS real_keys;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_ra a JOIN dn_rb b ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id, a.p <-> b.p AS d
  FROM dn_ra a JOIN dn_rb b ON a.p <-> b.p <= 0.3 ORDER BY a.id, a.p <-> b.p, b.id$$) AS point_keys;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.p <-> b.p AS d
  FROM dn_ra a JOIN dn_rb b ON a.p <-> b.p <= 0.5 ORDER BY a.id, a.p <-> b.p, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.p <-> b.p AS d
  FROM dn_ra a LEFT JOIN dn_rb b ON a.p <-> b.p < 0.3 ORDER BY a.id, a.p <-> b.p, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.p <-> b.p AS d
  FROM dn_ra a JOIN dn_ra b ON a.p <-> b.p <= 0.5 AND a.id <> b.id
  ORDER BY a.id, a.p <-> b.p, b.id$$);
DROP TABLE dn_ra, dn_rb;

-- Not taken: the farthest first, a key reading both sides or the distance, an ORDER BY going on
-- with the outer side after the distance, another distance in the ORDER BY, another join clause,
-- a LEFT JOIN, an aggregate below the DISTINCT, and with simjoin.enable_aggregates off.
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v DESC, b.id$$) AS farthest;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id + b.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id + b.id, a.v <-> b.v$$) AS both_sides_key;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.v <-> b.v) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.v <-> b.v, a.id$$) AS distance_key;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.k) a.k, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.k, a.v <-> b.v, a.id$$) AS outer_after_distance;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <+> b.v, b.id$$) AS other_distance;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 AND a.id <> b.id ORDER BY a.id, a.v <-> b.v, b.id$$) AS other_clause;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a LEFT JOIN dn_b b
  ON a.v <-> b.v <= 0.3 WHERE b.id IS DISTINCT FROM 7 ORDER BY a.id, a.v <-> b.v, b.id$$)
  AS left_join_where;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, count(*) FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 GROUP BY a.id ORDER BY a.id, count(*)$$) AS aggregate;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b FROM dn_a a
  JOIN dn_b b ON a.v <-> b.v <= 0.3 AND a.id <> b.id ORDER BY a.id, a.v <-> b.v, b.id$$);

-- The nearest OTHER row of a self-join: a.id <> b.id on the primary key rejects one partner per
-- outer row (the row itself), so the engine keeps two and the scan checks the clause on them.
-- Duplicated vectors make ties at distance 0 between a row and its copies; a LEFT JOIN keeps the
-- rows whose only partner is themselves. a.id < b.id can reject any number: not taken.
INSERT INTO dn_a SELECT 30000 + id, NULL, v, 'copy' FROM dn_a WHERE id BETWEEN 1 AND 40;
ANALYZE dn_a;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_a b
  ON a.v <-> b.v <= 0.3 AND a.id <> b.id ORDER BY a.id, a.v <-> b.v, b.id$$) AS nearest_other,
       pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_a b
  ON a.v <-> b.v <= 0.3 AND a.id < b.id ORDER BY a.id, a.v <-> b.v, b.id$$) AS key_less_than;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a JOIN dn_a b ON a.v <-> b.v <= 0.3 AND a.id <> b.id ORDER BY a.id, a.v <-> b.v, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.v <-> b.v AS d
  FROM dn_a a LEFT JOIN dn_a b ON a.v <-> b.v <= 0.05 AND a.id <> b.id
  ORDER BY a.id, a.v <-> b.v, b.id$$);
DELETE FROM dn_a WHERE id > 30000;

-- PostGIS points: ST_DWithin is decided by the engine and ST_Distance is its distance (each
-- where its probe passes): the nearest b per a, a LEFT JOIN, the nearest other a; a polygon among
-- the b rows is a wild row, its distances PostGIS's.
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE dn_ga AS SELECT id, ST_MakePoint(v[1], v[2]) AS g FROM dn_a WHERE id < 9000;
CREATE TABLE dn_gb AS SELECT id, ST_MakePoint(v[1], v[2]) AS g FROM dn_b WHERE id < 9000;
INSERT INTO dn_ga SELECT 30000 + id, g FROM dn_ga WHERE id BETWEEN 1 AND 40;
INSERT INTO dn_gb VALUES (9100, ST_Buffer(ST_MakePoint(2, 2), 0.2));
ALTER TABLE dn_ga ADD PRIMARY KEY (id);
ALTER TABLE dn_gb ADD PRIMARY KEY (id);
ANALYZE dn_ga;
ANALYZE dn_gb;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_ga a JOIN dn_gb b
  ON ST_DWithin(a.g, b.g, 0.3) ORDER BY a.id, ST_Distance(a.g, b.g), b.id$$) AS postgis_nearest,
       pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_ga a JOIN dn_ga b
  ON ST_DWithin(a.g, b.g, 0.3) AND a.id <> b.id ORDER BY a.id, ST_Distance(a.g, b.g), b.id$$)
         AS postgis_nearest_other;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b,
  ST_Distance(a.g, b.g) AS d FROM dn_ga a JOIN dn_gb b ON ST_DWithin(a.g, b.g, 0.3)
  ORDER BY a.id, ST_Distance(a.g, b.g), b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b,
  ST_Distance(a.g, b.g) AS d FROM dn_ga a LEFT JOIN dn_gb b ON ST_DWithin(a.g, b.g, 0.1)
  ORDER BY a.id, ST_Distance(a.g, b.g), b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b,
  ST_Distance(a.g, b.g) AS d FROM dn_ga a JOIN dn_ga b ON ST_DWithin(a.g, b.g, 0.3) AND a.id <> b.id
  ORDER BY a.id, ST_Distance(a.g, b.g), b.id$$);
-- geography (rechecked): each candidate checked with ST_DWithin beyond the certain bound and the
-- ORDER BY's distance evaluated by PostGIS on it (Nearest By); geography's <-> (PostGIS prices
-- it low enough for the path to win), the nearest, a LEFT JOIN, the nearest other; ST_Distance on
-- the sphere with the keys swapped (the sort plan may win there: the same rows either way)
CREATE TABLE dn_gg AS SELECT id, ST_SetSRID(g, 4326)::geography AS gg FROM dn_ga;
INSERT INTO dn_gg VALUES (9200, 'SRID=4326;LINESTRING(1 1, 1.2 1.3)'), (9201, NULL);
ALTER TABLE dn_gg ADD PRIMARY KEY (id);
ANALYZE dn_gg;
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_gg a JOIN dn_gg b
  ON ST_DWithin(a.gg, b.gg, 20000) ORDER BY a.id, a.gg <-> b.gg, b.id;
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.gg <-> b.gg AS d
  FROM dn_gg a JOIN dn_gg b ON ST_DWithin(a.gg, b.gg, 20000) ORDER BY a.id, a.gg <-> b.gg, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.gg <-> b.gg AS d
  FROM dn_gg a LEFT JOIN dn_gg b ON ST_DWithin(a.gg, b.gg, 5000) AND a.id <> b.id
  ORDER BY a.id, a.gg <-> b.gg, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.gg <-> b.gg AS d
  FROM dn_gg a JOIN dn_gg b ON ST_DWithin(a.gg, b.gg, 30000) AND a.id <> b.id
  ORDER BY a.id, a.gg <-> b.gg, b.id$$);
SELECT * FROM pg_temp.cs_compare($$SELECT DISTINCT ON (a.id) a.id, b.id AS b
  FROM dn_gg a JOIN dn_gg b ON ST_DWithin(a.gg, b.gg, 25000, false)
  ORDER BY a.id, ST_Distance(b.gg, a.gg, false), b.id$$);
DROP TABLE dn_ga, dn_gb, dn_gg;
\endif

SET simjoin.enable_aggregates = off;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$) AS aggregates_off;
RESET simjoin.enable_aggregates;
SET simjoin.enable_customscan = off;
SELECT pg_temp.dn_plan($$SELECT DISTINCT ON (a.id) a.id, b.id FROM dn_a a JOIN dn_b b
  ON a.v <-> b.v <= 0.3 ORDER BY a.id, a.v <-> b.v, b.id$$) AS customscan_off;
RESET simjoin.enable_customscan;

DROP TABLE dn_a, dn_b, dn_la, dn_lb, dn_empty;
