-- The SimilarityJoin custom scan on PostGIS geography points: ST_DWithin(a, b, d), with
-- use_spheroid true or false, ST_Distance(a, b) <= d and a <-> b <= d. The engine joins the
-- points' unit normals within d over the spheroid's smallest radius of curvature (widened,
-- src/engine/bounds/geodetic_bound.h): candidates; those within d over the largest radius (narrowed,
-- src/engine/bounds/certain_bound.h) are within d for sure, PostGIS decides the others
-- (customscan_certain tests that bound). Rows that are not points are paired with every row.
-- Each query is compared with PostgreSQL's own plan.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- PostGIS is installed by scripts/setup.sh: without it this test fails rather than skips.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
CREATE TEMP TABLE gg_places (geonameid int, name text, country text, latitude float8,
  longitude float8, elevation_m int, population int);
\copy gg_places FROM 'test/data/places_ch.csv' WITH (FORMAT csv, HEADER)
-- Swiss places (GeoNames; one in four, for the nested loop's time), and places near the equator on one meridian (where the normals turn
-- fastest: the bound is tightest there), across the antimeridian and at the poles.
CREATE TABLE gg_a (id int PRIMARY KEY, g geography);
INSERT INTO gg_a SELECT geonameid, ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography
  FROM gg_places WHERE geonameid % 4 = 0;
INSERT INTO gg_a SELECT 10000 + i, ST_SetSRID(ST_MakePoint(10, i / 1000.0), 4326)::geography
  FROM generate_series(-50, 50) i;
INSERT INTO gg_a VALUES
  (20001, 'SRID=4326;POINT(179.99 10)'), (20002, 'SRID=4326;POINT(-179.99 10)'),
  (20003, 'SRID=4326;POINT(180 -20)'), (20004, 'SRID=4326;POINT(-180 -20)'),
  (20005, 'SRID=4326;POINT(0 90)'), (20006, 'SRID=4326;POINT(123 90)'),
  (20007, 'SRID=4326;POINT(-45 89.99)'), (20008, 'SRID=4326;POINT(0 -90)'),
  (20009, 'SRID=4326;POINT(77 -89.995)'),
  -- duplicates, a 3-D point
  (20010, 'SRID=4326;POINT(8.54 47.37)'), (20011, 'SRID=4326;POINT(8.54 47.37)'),
  (20012, 'SRID=4326;POINT Z (8.54 47.37 500)');
-- Not points (left to PostGIS), an empty point, NULL.
CREATE TABLE gg_b AS SELECT * FROM gg_a WHERE id % 3 <> 0 OR id > 10000;
INSERT INTO gg_b VALUES (30001, 'SRID=4326;LINESTRING(8 46, 9 47)'),
  (30002, 'SRID=4326;POINT EMPTY'), (30003, NULL),
  (30004, 'SRID=4326;POLYGON((179 9, -179 9, -179 11, 179 11, 179 9))');
ANALYZE gg_a;
ANALYZE gg_b;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 5000);
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 5000, false);
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM gg_a a JOIN gg_b b ON ST_Distance(a.g, b.g) <= 5000;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM gg_a a JOIN gg_b b ON a.g <-> b.g <= 5000;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 5000)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_DWithin(b.g, a.g, 5000, false)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_Distance(a.g, b.g) <= 12000');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_Distance(a.g, b.g, false) < 12000');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON a.g <-> b.g <= 3000');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM gg_a a JOIN gg_b b
                           ON ST_DWithin(a.g, b.g, 5000)', 'Wild Rows') AS wild_rows;
-- d = 0 (the duplicates, each point with itself) and d = 20,000 km (every pair of points, nearly
-- all within the certain bound: the engine decides them, so the custom scan wins over a nested
-- loop there too).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 0)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 0, false)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 2e7)');
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 2e7)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, 2e7, false)');
RESET enable_nestloop;

-- Pairs at exactly d: d set to a pair's own distance (spheroid and sphere), for neighbours on the
-- equator's meridian (where a radius 1% too large loses them), Swiss places, across the
-- antimeridian (one pair at distance 0) and near the poles; joined within the places near
-- Zurich and the other added points.
CREATE TABLE gg_edge AS SELECT * FROM gg_a WHERE id > 10000 OR
  ST_DWithin(g, 'SRID=4326;POINT(8.55 47.36667)', 25000);
CREATE TABLE gg_pairs (x int, y int);
-- (Zurich and Duebendorf: 2657896, 6294252)
INSERT INTO gg_pairs VALUES (10000, 10001), (10000, 10037), (2657896, 6294252), (20001, 20002),
  (20003, 20004), (20006, 20007), (20008, 20009), (20012, 2657896);
CREATE TABLE gg_boundary AS
  SELECT p.x, p.y, ST_Distance(a.g, b.g) AS spheroid, ST_Distance(a.g, b.g, false) AS sphere
  FROM gg_pairs p JOIN gg_a a ON a.id = p.x JOIN gg_a b ON b.id = p.y;
SELECT x, y, round(spheroid::numeric, 3) AS spheroid, round(sphere::numeric, 3) AS sphere
  FROM gg_boundary ORDER BY x, y;
CREATE FUNCTION pg_temp.gg_boundary_compare(clause text,
    OUT pairs_checked bigint, OUT mismatches bigint, OUT boundary_pairs_found bigint,
    OUT boundary_pairs_native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  c record;
  q text;
BEGIN
  pairs_checked := 0; mismatches := 0; boundary_pairs_found := 0; boundary_pairs_native := 0;
  FOR r IN SELECT * FROM gg_boundary LOOP
    FOREACH q IN ARRAY ARRAY[format(clause, r.spheroid, 'true'), format(clause, r.sphere, 'false')]
    LOOP
      SELECT * INTO c FROM pg_temp.cs_compare(
        'SELECT a.id AS a, b.id AS b FROM gg_edge a JOIN gg_edge b ON ' || q);
      pairs_checked := pairs_checked + c.rows_native;
      IF NOT c.custom_scan OR c.only_custom + c.only_native > 0 THEN
        mismatches := mismatches + 1;
      END IF;
    END LOOP;
    -- the pair itself at its own distance, in both plans (PostGIS computes a distance in a join
    -- otherwise than alone at times: its caches of a repeated argument)
    q := 'SELECT count(*) FROM gg_edge a JOIN gg_edge b ON ' || format(clause, r.spheroid, 'true')
      || format(' WHERE a.id = %s AND b.id = %s', r.x, r.y);
    EXECUTE q INTO c;
    boundary_pairs_found := boundary_pairs_found + c.count;
    PERFORM set_config('simjoin.enable_customscan', 'off', true);
    EXECUTE q INTO c;
    PERFORM set_config('simjoin.enable_customscan', 'on', true);
    boundary_pairs_native := boundary_pairs_native + c.count;
  END LOOP;
END $$;
SELECT * FROM pg_temp.gg_boundary_compare('ST_DWithin(a.g, b.g, %s, %s)');
SELECT * FROM pg_temp.gg_boundary_compare('ST_Distance(a.g, b.g, %2$s) <= %1$s');

-- Generic plan: d a parameter.
PREPARE gg_q(float8) AS SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b
  ON ST_DWithin(a.g, b.g, $1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE gg_q(5000);
CREATE TEMP TABLE gg_generic AS EXECUTE gg_q(5000);
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE gg_native AS SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b
  ON ST_DWithin(a.g, b.g, 5000);
RESET simjoin.enable_customscan;
SELECT (SELECT count(*) FROM gg_generic) AS rows_generic,
       (SELECT count(*) FROM gg_native) AS rows_native,
       (SELECT count(*) FROM (SELECT * FROM gg_generic EXCEPT ALL SELECT * FROM gg_native) d)
         AS only_generic,
       (SELECT count(*) FROM (SELECT * FROM gg_native EXCEPT ALL SELECT * FROM gg_generic) d)
         AS only_native;
DEALLOCATE gg_q;
RESET plan_cache_mode;

-- Rescans: d from the outer query (LATERAL), one scan per value.
EXPLAIN (COSTS OFF) SELECT v.d, c.n FROM (VALUES (1000::float8), (5000), (0)) v(d),
  LATERAL (SELECT count(*) AS n FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, v.d)) c;
SELECT * FROM pg_temp.cs_compare(
  'SELECT v.d, c.n FROM (VALUES (1000::float8), (5000), (0), (NULL)) v(d),
   LATERAL (SELECT count(*) AS n FROM gg_a a JOIN gg_b b ON ST_DWithin(a.g, b.g, v.d, false)) c');

-- Arithmetic on the distance (kilometres) and a per-row bound (the inner row's radius, NULL and
-- negative ones included: a negative one is a wild row, PostGIS says false).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_b b ON ST_Distance(a.g, b.g) / 1000 <= 4.5');
CREATE TABLE gg_r AS SELECT id, g, CASE WHEN id % 11 = 0 THEN NULL ELSE (id % 7) * 1000.0 END AS r
  FROM gg_b;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_r b ON ST_DWithin(a.g, b.g, b.r, false)');
INSERT INTO gg_r VALUES (40001, 'SRID=4326;POINT(8 46)', -1);
SET simjoin.enable_customscan = off;
SELECT count(*) FROM gg_a a JOIN gg_r b ON ST_DWithin(a.g, b.g, b.r);
RESET simjoin.enable_customscan;
SELECT count(*) FROM gg_a a JOIN gg_r b ON ST_DWithin(a.g, b.g, b.r);

-- Self-join (one shared scan) with a key order, and a LEFT JOIN.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_a a JOIN gg_a b ON ST_DWithin(a.g, b.g, 8000)
   AND a.id < b.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_b a LEFT JOIN gg_b b ON ST_DWithin(a.g, b.g, 2000, false)');
-- Another SRID on one side: PostGIS raises its mixed-SRID error in both plans.
CREATE TABLE gg_other AS SELECT id, ST_SetSRID(g::geometry, 4269)::geography AS g FROM gg_a
  WHERE id < 10000 LIMIT 3;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM gg_a a JOIN gg_other b ON ST_DWithin(a.g, b.g, 5000);
RESET simjoin.enable_customscan;
SELECT count(*) FROM gg_a a JOIN gg_other b ON ST_DWithin(a.g, b.g, 5000);
-- Another spheroid (NAD27's Clarke 1866, a sphere): its own radius, measured with PostGIS.
CREATE TABLE gg_c AS SELECT id, ST_SetSRID(g::geometry, 4267)::geography AS g FROM gg_a;
CREATE TABLE gg_s AS SELECT id, ST_SetSRID(g::geometry, 4035)::geography AS g FROM gg_a;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_c a JOIN gg_c b ON ST_DWithin(a.g, b.g, 11119.5)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_s a JOIN gg_s b ON ST_DWithin(a.g, b.g, 11119.5)');
-- An infinite eps: every pair goes to PostGIS (the engine can prune nothing), in the outer rows'
-- order; PostGIS's own answer for such an eps depends on its per-call cache (a pair evaluated
-- right after itself can come out false), so a nested loop's order of calls is kept. Points on a
-- lattice, a line, an EMPTY point and a point whose infinite longitude PostGIS coerces.
CREATE TABLE gg_inf AS
  SELECT i AS id, ST_MakePoint((i % 6) * 0.25, ((i / 6) % 6) * 0.25)::geography AS g
  FROM generate_series(1, 70) i;
INSERT INTO gg_inf VALUES (100, 'LINESTRING(0 0,1 1)'::geography), (101, 'POINT EMPTY'::geography);
SET client_min_messages = warning;  -- PostGIS's notice on the coerced longitude
INSERT INTO gg_inf VALUES (102, ST_MakePoint('-Infinity'::float8, 0)::geography);
RESET client_min_messages;
ANALYZE gg_inf;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_inf a JOIN gg_inf b ON ST_DWithin(b.g, a.g, ''Infinity'')');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM gg_inf a JOIN gg_inf b ON ST_DWithin(a.g, b.g, ''Infinity'')');
