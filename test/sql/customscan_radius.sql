-- A bound per row: dist(a.v, b.v) <= b.radius (or a.radius, an expression of one side's row,
-- with arithmetic on the distance, ST_DWithin(a.g, b.g, b.r)). The engine joins with the
-- largest finite radius of that side, read while the side is loaded, and every candidate pair is
-- rechecked with the clause; a row with a NULL radius never matches, one with an infinite or NaN
-- radius (or a negative one under ST_DWithin, which raises PostGIS's error) is a wild row, paired
-- with every row and left to the clause. Integer points and radii put many pairs at exactly their
-- bound. Every query is compared with PostgreSQL's own plan (cs_compare: only_custom and
-- only_native must be 0).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.29);
CREATE TABLE rd_a (id int PRIMARY KEY, v float8[], r float8, r4 real);
CREATE TABLE rd_b (id int PRIMARY KEY, v float8[], r float8);
INSERT INTO rd_a SELECT i, ARRAY[floor(random() * 40), floor(random() * 40)],
  floor(random() * 9) / 2, floor(random() * 9) / 2 FROM generate_series(1, 1500) i;
INSERT INTO rd_b SELECT i, ARRAY[floor(random() * 40), floor(random() * 40)],
  floor(random() * 9) / 2 FROM generate_series(1, 1500) i;
-- NULL radii and vectors, radii that are no bound (NaN, infinite, negative), wild vectors
INSERT INTO rd_a VALUES (9001, '{1,1}', NULL, NULL), (9002, NULL, 2, 2), (9003, '{2,2}', 'NaN', 'NaN'),
  (9004, '{3,3}', 'Infinity', 'Infinity'), (9005, '{4,4}', -1, -1), (9006, '{NaN,5}', 3, 3),
  (9007, '{6,6}', '-Infinity', '-Infinity'), (9008, '{7,7}', 0, 0);
INSERT INTO rd_b VALUES (9001, '{1,1}', NULL), (9002, NULL, 2), (9003, '{2,2}', 'NaN'),
  (9004, '{3,3}', 'Infinity'), (9005, '{1e200,5}', 2), (9006, '{8,8}', 0);
CREATE TABLE rd_empty (id int, v float8[], r float8);
ANALYZE rd_a;
ANALYZE rd_b;
ANALYZE rd_empty;

EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= b.r;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= b.r$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= a.r$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON a.r > a.v <+> b.v$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON b.v <-> a.v < b.r$$);
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= b.r',
                          'Wild Rows') AS wild_rows;
-- real radii, an expression of the row, arithmetic on the distance, other clauses
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= a.r4$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= b.r * 2 + 0.5$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON (a.v <-> b.v) * 0.7 <= b.r$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b, a.r FROM rd_a a JOIN rd_b b
  ON chebyshev_distance(a.v, b.v) <= a.r AND a.id % 4 <> b.id % 4$$);
-- a self-join (both sides read: the radius belongs to one of them)
SELECT * FROM pg_temp.cs_compare($$
  SELECT x.id AS x, y.id AS y FROM rd_a x JOIN rd_a y ON x.v <-> y.v <= x.r$$);
-- every radius NULL, or infinite and NaN (every pair of those rows rechecked), an empty side
CREATE TABLE rd_odd AS SELECT id, v, NULL::float8 AS r FROM rd_b WHERE id <= 300;
INSERT INTO rd_odd VALUES (9001, '{5,5}', 'Infinity'), (9002, '{6,6}', 'NaN');
ANALYZE rd_odd;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, o.id AS o FROM rd_a a JOIN rd_odd o ON a.v <-> o.v <= o.r$$);
SET enable_nestloop = off;  -- PostgreSQL's plan is cheaper with an empty side
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, e.id AS e FROM rd_a a JOIN rd_empty e ON a.v <-> e.v <= e.r$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, e.id AS e FROM rd_a a JOIN rd_empty e ON a.v <-> e.v <= a.r$$);
RESET enable_nestloop;

-- Generic plans: a parameter on the distance and in the radius's expression.
SET plan_cache_mode = force_generic_plan;
PREPARE rd_q(float8, float8) AS
  SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON (a.v <-> b.v) * $1 <= b.r + $2;
EXPLAIN (COSTS OFF) EXECUTE rd_q(1, 0);
\i test/sql/include/customscan_prepared.sql
SELECT k, s, r.* FROM (VALUES (1::float8, 0::float8), (0.7, 0.5), (2, -1), (1, NULL), (-1, -50))
  t(k, s), LATERAL pg_temp.cs_compare_prepared(format('EXECUTE rd_q(%L, %L)', k, s),
    format('SELECT a.id AS a, b.id AS b FROM rd_a a JOIN rd_b b ON (a.v <-> b.v) * %L <= b.r + %L',
           k, s)) r;
RESET plan_cache_mode;

-- Rescans: the radius's expression reads the outer query's value (the inner side is read again
-- when it changes), or the outer side holds the radius.
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM generate_series(0, 3) g, LATERAL
    (SELECT count(*) AS n FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= b.r + g) s$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM generate_series(0, 3) g, LATERAL
    (SELECT count(*) AS n FROM rd_a a JOIN rd_b b ON a.v <-> b.v <= a.r + g) s$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM (VALUES (0.5), (2), (1)) t(g), LATERAL
    (SELECT count(*) AS n FROM rd_a a JOIN rd_b b ON (a.v <-> b.v) * g <= b.r) s$$);

-- PostGIS: ST_DWithin with the distance of one side's row.
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE rd_shops (id int, g geometry, r float8);
CREATE TABLE rd_homes (id int, g geometry);
INSERT INTO rd_shops SELECT id, ST_SetSRID(ST_MakePoint(v[1], v[2]), 2056), r FROM rd_b
  WHERE id < 9000 OR id = 9003 OR id = 9004;
INSERT INTO rd_shops VALUES (9010, NULL, 1), (9011, ST_SetSRID('LINESTRING(0 0, 10 10)'::geometry, 2056), 1);
INSERT INTO rd_homes SELECT id, ST_SetSRID(ST_MakePoint(v[1], v[2]), 2056) FROM rd_a WHERE id < 9000;
ANALYZE rd_shops;
ANALYZE rd_homes;
EXPLAIN (COSTS OFF) SELECT h.id, s.id FROM rd_homes h JOIN rd_shops s ON ST_DWithin(h.g, s.g, s.r);
SELECT * FROM pg_temp.cs_compare($$
  SELECT h.id AS h, s.id AS s FROM rd_homes h JOIN rd_shops s ON ST_DWithin(h.g, s.g, s.r)$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT h.id AS h, s.id AS s FROM rd_homes h JOIN rd_shops s ON ST_DWithin(s.g, h.g, s.r / 2)$$);
-- a negative distance: PostGIS raises its error in both plans
INSERT INTO rd_shops VALUES (9012, ST_SetSRID(ST_MakePoint(1, 1), 2056), -1);
SELECT count(*) FROM rd_homes h JOIN rd_shops s ON ST_DWithin(h.g, s.g, s.r);
SET simjoin.enable_customscan = off;
SELECT count(*) FROM rd_homes h JOIN rd_shops s ON ST_DWithin(h.g, s.g, s.r);
RESET simjoin.enable_customscan;
\else
\echo 'note: PostGIS is not installed; its per-row distances were not tested'
\endif
