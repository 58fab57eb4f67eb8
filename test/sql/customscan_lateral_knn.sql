-- The SimJoin Nearest Scan: the k nearest rows of b per outer row,
--   SELECT ... FROM q CROSS JOIN LATERAL (SELECT ... FROM b [WHERE ...]
--                                         ORDER BY q.v <-> b.v LIMIT k) n
-- b's rows and key coordinates are cached once per execution; each outer row orders them by the
-- engine's exact distance. Every query is compared with PostgreSQL's own plan
-- (simjoin.enable_nearest_scan = off): rows only one plan returns must be 0. Where distances
-- can tie at the k-th row, only (outer id, distance) are compared (which tied row is kept is
-- unspecified); the order per outer row is compared through array_agg of the distances.
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0;
SET jit = off;

\i test/sql/include/nn_compare.sql

SELECT setseed(0.37);
-- b: random 3-D float8[] points (no ties), a category, NULL keys, wild keys (NaN, infinite,
-- huge) and a zero vector (cosine distance NaN); q: random points, a NULL key, a NaN key.
CREATE TABLE nn_b (id int PRIMARY KEY, cat int, v float8[]);
CREATE TABLE nn_q (id int PRIMARY KEY, v float8[]);
INSERT INTO nn_b SELECT i, i % 5, ARRAY[random(), random(), random()]
  FROM generate_series(1, 3000) i;
INSERT INTO nn_b VALUES (9001, 3, NULL), (9002, 3, '{NaN,0.5,0.5}'), (9003, 3, '{Infinity,0,0}'),
  (9004, 3, '{1e200,0,0}'), (9005, 3, '{0,0,0}'), (9006, NULL, '{0.5,0.5,0.5}');
INSERT INTO nn_q SELECT i, ARRAY[random(), random(), random()] FROM generate_series(1, 25) i;
INSERT INTO nn_q VALUES (9001, NULL), (9002, '{NaN,0,0}'), (9003, '{0.5,0.5,0.5}');
-- The same points as real[] (1e200 is out of range for real).
CREATE TABLE nn_b4 AS SELECT id, cat, v::real[] AS v FROM nn_b WHERE id <> 9004;
CREATE TABLE nn_q4 AS SELECT id, v::real[] AS v FROM nn_q;
-- Integer grid points: many equal distances.
CREATE TABLE nn_grid (id int PRIMARY KEY, v float8[]);
INSERT INTO nn_grid SELECT x * 10 + y, ARRAY[x, y] FROM generate_series(0, 9) x,
  generate_series(0, 9) y;
CREATE TABLE nn_empty (id int, cat int, v float8[]);
ANALYZE nn_b;
ANALYZE nn_q;
ANALYZE nn_b4;
ANALYZE nn_q4;
ANALYZE nn_grid;
ANALYZE nn_empty;

-- 1. The plans: the scan directly under the Limit, no Sort.
EXPLAIN (COSTS OFF) SELECT q.id, n.id, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.cat = 3 AND b.id <> q.id ORDER BY q.v <-> b.v LIMIT 10) n;
EXPLAIN (COSTS OFF) SELECT q.id, n.id, n.d FROM nn_q q
  LEFT JOIN LATERAL (SELECT b.id, euclidean_distance(b.v, q.v) AS d FROM nn_b b
                     ORDER BY euclidean_distance(b.v, q.v) LIMIT 3) n ON true;
-- EXPLAIN ANALYZE: every row of b cached, all but its 4 special keys (NULL, NaN, infinite, huge)
-- as points the engine orders (the others go to PostgreSQL's operator on every loop).
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT q.id, n.id, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      ORDER BY q.v <-> b.v LIMIT 2) n WHERE q.id <= 3;
-- PostgreSQL's own plan with the setting off.
SET simjoin.enable_nearest_scan = off;
EXPLAIN (COSTS OFF) SELECT q.id, n.id, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.cat = 3 AND b.id <> q.id ORDER BY q.v <-> b.v LIMIT 10) n;
RESET simjoin.enable_nearest_scan;
-- Not taken: a second ORDER BY key, a descending order, no LIMIT.
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b ORDER BY q.v <-> b.v, b.id LIMIT 3) n;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b ORDER BY q.v <-> b.v DESC LIMIT 3) n;

-- Built-in point keys: PostgreSQL's own hypotenuse in the engine (probed); a NaN point is wild.
CREATE TABLE nn_bp AS SELECT id, cat, point(v[1], v[2]) AS p FROM nn_b WHERE id < 9000;
INSERT INTO nn_bp VALUES (9101, 3, point('NaN', 1)), (9102, 3, NULL);
CREATE TABLE nn_qp AS SELECT id, point(v[1], v[2]) AS p FROM nn_q WHERE id < 9000;
ANALYZE nn_bp;
ANALYZE nn_qp;
EXPLAIN (COSTS OFF) SELECT q.id, n.id, n.d FROM nn_qp q
  CROSS JOIN LATERAL (SELECT b.id, q.p <-> b.p AS d FROM nn_bp b ORDER BY q.p <-> b.p LIMIT 5) n;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_qp q
  CROSS JOIN LATERAL (SELECT b.id, q.p <-> b.p AS d FROM nn_bp b ORDER BY q.p <-> b.p LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_qp q
  LEFT JOIN LATERAL (SELECT b.id, b.p <-> q.p AS d FROM nn_bp b WHERE b.cat = 3
                     ORDER BY b.p <-> q.p LIMIT 3000) n ON true$$);
DROP TABLE nn_bp, nn_qp;

-- 2. Every operator and function form of step 1, float8[] and real[].
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b ORDER BY q.v <-> b.v LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <+> b.v AS d FROM nn_b b ORDER BY b.v <+> q.v LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <=> b.v AS d FROM nn_b b ORDER BY q.v <=> b.v LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, chebyshev_distance(q.v, b.v) AS d FROM nn_b b
                      ORDER BY chebyshev_distance(q.v, b.v) LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, euclidean_distance(b.v, q.v) AS d FROM nn_b b
                      ORDER BY euclidean_distance(b.v, q.v) LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q4 q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b4 b ORDER BY q.v <-> b.v LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q4 q
  CROSS JOIN LATERAL (SELECT b.id, manhattan_distance(q.v, b.v) AS d FROM nn_b4 b
                      ORDER BY manhattan_distance(q.v, b.v) LIMIT 10) n$$);

-- 3. The order per outer row (array_agg keeps its input's order), NULL and NaN distances last:
-- k larger than b (every row, the NULL keys at the end).
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, (SELECT array_agg(d) FROM
  (SELECT q.v <-> b.v AS d FROM nn_b b ORDER BY q.v <-> b.v LIMIT 12) s) AS ds FROM nn_q q$$);
-- (The planner prefers a full sort for k beyond b's rows: enable_sort off takes the scan.)
SET enable_sort = off;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, (SELECT array_agg(d) FROM
  (SELECT q.v <=> b.v AS d FROM nn_b b WHERE b.cat = 3 ORDER BY q.v <=> b.v LIMIT 5000) s) AS ds
  FROM nn_q q$$);
RESET enable_sort;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat IS NULL OR b.id > 9000
                      ORDER BY q.v <-> b.v LIMIT 100) n$$);
SELECT q.id, n.id, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.id > 9000
                      ORDER BY q.v <-> b.v LIMIT 10) n WHERE q.id = 9003;

-- 4. Extra quals: a constant one (checked while caching), one on the outer row, both.
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.cat = 3 AND b.id <> q.id ORDER BY q.v <-> b.v LIMIT 10) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_b q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.id <> q.id ORDER BY q.v <-> b.v LIMIT 5) n WHERE q.id <= 40$$);
-- Quals rejecting most of the nearest rows: several chunks per outer row.
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.id % 97 = q.id % 97 ORDER BY q.v <-> b.v LIMIT 10) n$$);

-- 5. LEFT JOIN LATERAL ... ON true: an empty inner, an inner filtered to nothing (the last one
-- by b's primary key: PostgreSQL's index scan is cheaper there, and taken).
SET enable_sort = off;  -- an empty table: no cost tells the plans apart
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  LEFT JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_empty b
                     ORDER BY q.v <-> b.v LIMIT 3) n ON true$$);
RESET enable_sort;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  LEFT JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat = 7
                     ORDER BY q.v <-> b.v LIMIT 3) n ON true$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  LEFT JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.id = q.id + 8990
                     ORDER BY q.v <-> b.v LIMIT 3) n ON true$$);

-- 6. Ties: grid points at equal distances; the distances per outer row, in order.
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, (SELECT array_agg(d) FROM
  (SELECT q.v <-> b.v AS d FROM nn_grid b ORDER BY q.v <-> b.v LIMIT 7) s) AS ds
  FROM nn_grid q WHERE q.id % 7 = 0$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM nn_grid q
  CROSS JOIN LATERAL (SELECT q.v <+> b.v AS d FROM nn_grid b WHERE b.id <> q.id
                      ORDER BY q.v <+> b.v LIMIT 6) n$$);
-- Ties come out in physical order (OFFSET 0 keeps q's key a parameter, not a constant).
EXPLAIN (COSTS OFF) SELECT n.id, n.d FROM (SELECT '{4.5,4.5}'::float8[] AS v OFFSET 0) q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_grid b
                      ORDER BY q.v <-> b.v LIMIT 4) n;
SELECT n.id, n.d FROM (SELECT '{4.5,4.5}'::float8[] AS v OFFSET 0) q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_grid b
                      ORDER BY q.v <-> b.v LIMIT 4) n;
SELECT ctid, id FROM nn_grid WHERE id IN (44, 45, 54, 55) ORDER BY ctid;

-- 7. A prepared statement (generic plan: k and the category are parameters), executed twice.
SET plan_cache_mode = force_generic_plan;
PREPARE nn_p(int, int) AS SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat = $2
                      ORDER BY q.v <-> b.v LIMIT $1) n;
EXPLAIN (COSTS OFF) EXECUTE nn_p(4, 2);
CREATE TEMP TABLE nn_prepared AS EXECUTE nn_p(4, 2);
CREATE TEMP TABLE nn_prepared_2 AS EXECUTE nn_p(6, 1);
INSERT INTO nn_prepared TABLE nn_prepared_2;
SET simjoin.enable_nearest_scan = off;
CREATE TEMP TABLE nn_native AS SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat = 2
                      ORDER BY q.v <-> b.v LIMIT 4) n;
INSERT INTO nn_native SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat = 1
                      ORDER BY q.v <-> b.v LIMIT 6) n;
RESET simjoin.enable_nearest_scan;
RESET plan_cache_mode;
SELECT count(*) AS rows_prepared,
  (SELECT count(*) FROM (TABLE nn_prepared EXCEPT ALL TABLE nn_native) d) AS only_prepared,
  (SELECT count(*) FROM (TABLE nn_native EXCEPT ALL TABLE nn_prepared) d) AS only_native
  FROM nn_prepared;
DEALLOCATE nn_p;

-- 8. Rescans within one query: the lateral subquery under another join's inner side, and the
-- outer rows repeated.
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  JOIN generate_series(1, 3) g ON true
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b
                      WHERE b.id % 3 = g ORDER BY q.v <-> b.v LIMIT 4) n$$);

-- 9. A key of another dimension: PostgreSQL's operator raises the same error in both plans;
-- filtered out by a qual, no error.
INSERT INTO nn_b VALUES (9100, 4, '{1,2}');
SELECT q.id, n.id FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b ORDER BY q.v <-> b.v LIMIT 2) n;
SET simjoin.enable_nearest_scan = off;
SELECT q.id, n.id FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b ORDER BY q.v <-> b.v LIMIT 2) n;
RESET simjoin.enable_nearest_scan;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id, q.v <-> b.v AS d FROM nn_b b WHERE b.cat <> 4
                      ORDER BY q.v <-> b.v LIMIT 5) n$$);
-- An outer key of another dimension (every row evaluated by PostgreSQL's operator).
EXPLAIN (COSTS OFF) SELECT n.id FROM (SELECT '{1,2}'::float8[] AS v OFFSET 0) q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b WHERE b.cat = 3 ORDER BY q.v <-> b.v LIMIT 2) n;
SELECT n.id FROM (SELECT '{1,2}'::float8[] AS v OFFSET 0) q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b WHERE b.cat = 3 ORDER BY q.v <-> b.v LIMIT 2) n;
SET simjoin.enable_nearest_scan = off;
SELECT n.id FROM (SELECT '{1,2}'::float8[] AS v OFFSET 0) q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_b b WHERE b.cat = 3 ORDER BY q.v <-> b.v LIMIT 2) n;
RESET simjoin.enable_nearest_scan;
DELETE FROM nn_b WHERE id = 9100;

-- 10. Row-level security: not taken.
ALTER TABLE nn_grid ENABLE ROW LEVEL SECURITY;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_q q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_grid b ORDER BY q.v <-> b.v LIMIT 3) n;
ALTER TABLE nn_grid DISABLE ROW LEVEL SECURITY;

-- 11. contrib cube (exact where its arithmetic probe passes): <->, <#>, <=>.
SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
CREATE TABLE nn_cb AS SELECT id, cat, cube(v) AS c FROM nn_b WHERE id < 9000 OR id = 9001;
INSERT INTO nn_cb VALUES (9100, 3, '(0,0),(1,1)');  -- a box: PostgreSQL's operator decides
CREATE TABLE nn_cq AS SELECT id, cube(v) AS c FROM nn_q WHERE id < 9002;
ANALYZE nn_cb;
ANALYZE nn_cq;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_cq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_cb b ORDER BY q.c <-> b.c LIMIT 3) n;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_cq q
  CROSS JOIN LATERAL (SELECT b.id, q.c <-> b.c AS d FROM nn_cb b ORDER BY q.c <-> b.c LIMIT 8) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_cq q
  CROSS JOIN LATERAL (SELECT b.id, q.c <#> b.c AS d FROM nn_cb b WHERE b.cat = 3
                      ORDER BY q.c <#> b.c LIMIT 8) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_cq q
  CROSS JOIN LATERAL (SELECT b.id, q.c <=> b.c AS d FROM nn_cb b
                      ORDER BY distance_chebyshev(q.c, b.c) LIMIT 8) n$$);
DROP TABLE nn_cb;
DROP TABLE nn_cq;
DROP EXTENSION cube;
\endif

-- 12. PostGIS geometry points (exact where PostGIS's distance probes pass): <-> and
-- ST_Distance; a polygon, an empty point and a row of another SRID are wild rows, which PostGIS
-- decides (the other SRID raising its own error, as in PostgreSQL's plan).
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE nn_gb AS SELECT id, cat, ST_MakePoint(v[1], v[2]) AS g FROM nn_b
  WHERE id < 9000 OR id = 9001;
INSERT INTO nn_gb VALUES (9100, 3, 'POLYGON((0 0, 0.1 0, 0.1 0.1, 0 0.1, 0 0))'),
  (9101, 3, 'POINT EMPTY');
CREATE TABLE nn_gq AS SELECT id, ST_MakePoint(v[1], v[2]) AS g FROM nn_q WHERE id < 9002;
ANALYZE nn_gb;
ANALYZE nn_gq;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_gq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_gb b ORDER BY q.g <-> b.g LIMIT 3) n;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_gq q
  CROSS JOIN LATERAL (SELECT b.id, q.g <-> b.g AS d FROM nn_gb b ORDER BY q.g <-> b.g LIMIT 8) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.id AS nid, n.d FROM nn_gq q
  LEFT JOIN LATERAL (SELECT b.id, ST_Distance(b.g, q.g) AS d FROM nn_gb b WHERE b.cat = 3
                     ORDER BY ST_Distance(q.g, b.g) LIMIT 5) n ON true$$);
INSERT INTO nn_gb VALUES (9102, 3, 'SRID=4326;POINT(0.5 0.5)');
SELECT q.id, n.id FROM nn_gq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_gb b ORDER BY q.g <-> b.g LIMIT 3) n;
DROP TABLE nn_gb, nn_gq;

-- 13. PostGIS geography points: the rows taken in the chord order of their unit normals and
-- measured by the ORDER BY's own expression (ST_Distance on the spheroid or the sphere, <->)
-- until the nearest is certain (Rows Measured: about the LIMIT's rows per loop, not all); a line
-- and an empty point are wild rows; a row of another SRID raises PostGIS's error in both plans.
-- Distances tie (two places at one spot), so only (outer id, distance) are compared.
\i test/sql/include/places_ch.sql
CREATE TABLE nn_geo AS SELECT geonameid AS id, (geonameid % 4)::int AS cat,
  ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS g FROM places;
INSERT INTO nn_geo VALUES (1, 3, 'SRID=4326;LINESTRING(8 47, 8.1 47.1)'),
  (2, 3, 'SRID=4326;POINT EMPTY'), (3, 3, NULL), (4, 3, 'SRID=4326;POINT(8.5 47.3)'),
  (5, 3, 'SRID=4326;POINT(8.5 47.3)'), (6, 3, 'SRID=4326;POINT(179.9999 0)'),
  (7, 3, 'SRID=4326;POINT(-179.9999 0)');
CREATE TABLE nn_geoq AS SELECT id, g FROM nn_geo WHERE id % 13 = 0 OR id < 8;
ANALYZE nn_geo;
ANALYZE nn_geoq;
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_geo b ORDER BY ST_Distance(q.g, b.g) LIMIT 3) n;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT q.id, n.id FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_geo b ORDER BY ST_Distance(q.g, b.g) LIMIT 3) n;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT ST_Distance(q.g, b.g) AS d FROM nn_geo b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT 5) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT ST_Distance(b.g, q.g, false) AS d FROM nn_geo b
                      ORDER BY ST_Distance(b.g, q.g, false) LIMIT 7) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT q.g <-> b.g AS d FROM nn_geo b ORDER BY q.g <-> b.g LIMIT 4) n$$);
-- The order per outer row, quals (a constant one, one on the outer row), LEFT JOIN, and k
-- beyond b's rows (every row, the wild ones measured, NULL distances last).
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.ds FROM nn_geoq q CROSS JOIN LATERAL (
  SELECT array_agg(d) AS ds FROM (SELECT ST_Distance(q.g, b.g) AS d FROM nn_geo b
    WHERE b.cat = 3 AND b.id <> q.id ORDER BY ST_Distance(q.g, b.g) LIMIT 12) s) n$$);
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.d FROM nn_geoq q
  LEFT JOIN LATERAL (SELECT ST_Distance(q.g, b.g) AS d FROM nn_geo b WHERE b.id < 0
                     ORDER BY ST_Distance(q.g, b.g) LIMIT 2) n ON true$$);
SET enable_sort = off;
SELECT * FROM pg_temp.nn_compare($$SELECT q.id, n.ds FROM nn_geoq q CROSS JOIN LATERAL (
  SELECT array_agg(d) AS ds FROM (SELECT ST_Distance(q.g, b.g) AS d FROM nn_geo b
    ORDER BY ST_Distance(q.g, b.g) LIMIT 5000) s) n WHERE q.id < 8$$);
RESET enable_sort;
-- Across the antimeridian: the nearest of 6 is 7, 22 m away.
SELECT q.id, n.id, round(n.d::numeric, 3) AS metres FROM nn_geoq q CROSS JOIN LATERAL (
  SELECT b.id, ST_Distance(q.g, b.g) AS d FROM nn_geo b WHERE b.id <> q.id
  ORDER BY ST_Distance(q.g, b.g) LIMIT 1) n WHERE q.id IN (6, 7) ORDER BY 1;
INSERT INTO nn_geo VALUES (8, 3, 'SRID=4269;POINT(8 47)');
SELECT q.id, n.id FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_geo b ORDER BY ST_Distance(q.g, b.g) LIMIT 3) n;
SET simjoin.enable_nearest_scan = off;
SELECT q.id, n.id FROM nn_geoq q
  CROSS JOIN LATERAL (SELECT b.id FROM nn_geo b ORDER BY ST_Distance(q.g, b.g) LIMIT 3) n;
RESET simjoin.enable_nearest_scan;
DROP TABLE nn_geo, nn_geoq, places;
\endif
DROP TABLE nn_b, nn_q, nn_b4, nn_q4, nn_grid, nn_empty;
