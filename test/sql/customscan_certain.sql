-- The certain bound of the rechecked forms (src/engine/bounds/certain_bound.h): an engine pair within
-- it satisfies the distance clause for sure and skips PostGIS's or point_dt's recheck; the pairs
-- between it and the candidate bound are rechecked. Each query is compared with PostgreSQL's own
-- plan, with pairs right at and around the bounds: geography pairs at d = PostGIS's own distance
-- times 1 -+ 1e-9, 1e-7, 1e-5, 1e-4 (near the poles the geodesic is longest for the angle of the
-- normals, a^2 / b times it: a radius 1% too small there accepts pairs beyond d); points whose
-- pg_hypot and sqrt(dx^2 + dy^2) differ in the last bits, joined at exactly r (no margin below
-- r accepts pairs point_dt puts above it).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
SET enable_nestloop = off;  -- PostgreSQL's plan for these small tables would be a nested loop

-- Points: 3 centres, each with 2000 points at about 1 around it (pg_hypot and the engine's
-- sqrt differ on about a third of them), NULL and a far point.
SELECT setseed(0.25);
CREATE TABLE ct_a (id int, p point);
INSERT INTO ct_a VALUES (1, point(0, 0)), (2, point(0.5, 0.25)), (3, point(1e6, -3e5)),
  (4, NULL), (5, point(1e9, 1e9));
CREATE TABLE ct_b (id int, p point);
INSERT INTO ct_b SELECT c * 10000 + i, point(a.p[0] + cos(t), a.p[1] + sin(t))
  FROM (SELECT i, random() * 6.283185307179586 AS t FROM generate_series(1, 2000) i) s,
       generate_series(1, 3) c JOIN ct_a a ON a.id = c;
INSERT INTO ct_b VALUES (1, NULL), (2, point(0, 0)), (3, point(1e6, -3e5));
ANALYZE ct_a;
ANALYZE ct_b;
SELECT count(*) FILTER (WHERE a.p <-> b.p <> sqrt((a.p[0] - b.p[0]) ^ 2 + (a.p[1] - b.p[1]) ^ 2))
         > 500 AS pg_hypot_differs,
       count(*) FILTER (WHERE sqrt((a.p[0] - b.p[0]) ^ 2 + (a.p[1] - b.p[1]) ^ 2) <= 1
                          AND a.p <-> b.p > 1) > 100 AS engine_within_point_dt_beyond
  FROM ct_a a JOIN ct_b b ON b.id / 10000 = a.id;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM ct_a a JOIN ct_b b ON a.p <-> b.p <= 1;
-- The Distance Clause line of EXPLAIN ANALYZE, the candidates decided and those rechecked.
CREATE FUNCTION pg_temp.ct_decided(query text, OUT distance_clause text, OUT decided int,
    OUT rechecked int)
LANGUAGE sql AS $$
  SELECT pg_temp.cs_explain(query, 'Distance Clause'),
         pg_temp.cs_explain(query, 'Candidates Decided by Engine')::int,
         pg_temp.cs_explain(query, 'Candidates Rechecked')::int $$;
SELECT r, c.* FROM (VALUES (1::float8), (1 - 1.1102230246251565e-16), (1 + 2.220446049250313e-16),
                           (0.99999999), (0), (1e-300)) v(r),
  LATERAL pg_temp.cs_compare(format(
    'SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b ON a.p <-> b.p <= %s', r)) c;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b ON b.p <-> a.p < 1');
-- Another clause still runs on every pair; LEFT and anti-joins.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b ON a.p <-> b.p <= 1 AND b.id % 3 = 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ct_a a LEFT JOIN ct_b b ON a.p <-> b.p <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT b.id FROM ct_b b WHERE NOT EXISTS (SELECT FROM ct_a a WHERE a.p <-> b.p <= 1)');
-- A circle on the keys with eps as its radius (point_dt(centre, p) <= radius in PostgreSQL 15)
-- is decided with the distance clause; one with another radius runs on every pair.
SELECT q, c.* FROM (VALUES
  ('b.p <@ circle(a.p, 1) AND a.p <-> b.p <= 1'),
  ('circle(a.p, 1) @> b.p AND a.p <-> b.p <= 1'),
  ('circle(b.p, 1::int) @> a.p AND a.p <-> b.p < 1'),
  ('b.p <@ circle(a.p, 0.9999999999999999) AND a.p <-> b.p <= 1'),
  ('b.p <@ circle(a.p, 0.9) AND a.p <-> b.p <= 1'),
  ('b.p <@ circle(a.p, 1) AND a.p <-> b.p <= 0.9999999999999999'),
  ('b.p <@ circle(a.p, b.id / 10000) AND a.p <-> b.p <= 1')) v(q),
  LATERAL pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b ON ' || q) c;
SELECT distance_clause, decided > 1000 AS decided, rechecked FROM pg_temp.ct_decided(
  'SELECT a.id, b.id FROM ct_a a JOIN ct_b b ON b.p <@ circle(a.p, 0.9) AND a.p <-> b.p <= 0.9');
SELECT decided, rechecked > 1000 AS rechecked FROM pg_temp.ct_decided(
  'SELECT a.id, b.id FROM ct_a a JOIN ct_b b ON b.p <@ circle(a.p, 0.8) AND a.p <-> b.p <= 0.9');
-- Points computed by the children (in their per-row memory): the values kept for the pairs are
-- copies, read by the output and by the rechecked circle clause.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.p::text AS b
     FROM (SELECT id, point(p[0] * 1, p[1]) AS p FROM ct_b OFFSET 0) a
     JOIN (SELECT id, point(p[0], p[1] * 1) AS p FROM ct_b OFFSET 0) b
       ON b.p <@ circle(a.p, 0.04) AND a.p <-> b.p <= 0.05');
-- The inner side on disk (its pairs in inner row order, their distances moved along): its rows
-- are kept because the output reads a text column of them.
CREATE TABLE ct_d AS SELECT id, p, id::text AS t FROM ct_b;
SET work_mem = '64kB';
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.t AS b FROM ct_d a JOIN ct_d b ON a.p <-> b.p <= 0.05');
SELECT pg_temp.cs_explain('SELECT a.id, b.t FROM ct_d a JOIN ct_d b ON a.p <-> b.p <= 0.05',
                          'Inner Storage') AS inner_storage,
       decided > 1000 AS decided, rechecked FROM pg_temp.ct_decided(
  'SELECT a.id, b.t FROM ct_d a JOIN ct_d b ON a.p <-> b.p <= 0.05');
RESET work_mem;
-- Empty side.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM ct_a a JOIN (SELECT * FROM ct_b WHERE id < 0) b
   ON a.p <-> b.p <= 1');
-- EXPLAIN: the candidates decided by the engine and those rechecked.
-- At r = 1 (the points are at about 1) a third is in the band; at 0.9 none.
SELECT distance_clause, decided > 1000 AS decided, rechecked FROM pg_temp.ct_decided(
  'SELECT a.id, b.id FROM ct_a a JOIN ct_b b ON a.p <-> b.p <= 0.9');
SELECT decided > 1000 AS decided, rechecked > 1000 AS rechecked FROM pg_temp.ct_decided(
  'SELECT a.id, b.id FROM ct_a a JOIN ct_b b ON a.p <-> b.p <= 1');
-- Generic plan: r a parameter (NULL too).
PREPARE ct_q(float8) AS SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b
  ON a.p <-> b.p <= $1 AND b.p <@ circle(a.p, $1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE ct_q(1);
CREATE TEMP TABLE ct_generic AS EXECUTE ct_q(1);
CREATE TEMP TABLE ct_null AS EXECUTE ct_q(NULL);
SELECT count(*) AS rows_null FROM ct_null;
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE ct_native AS SELECT a.id AS a, b.id AS b FROM ct_a a JOIN ct_b b
  ON a.p <-> b.p <= 1;
RESET simjoin.enable_customscan;
SELECT (SELECT count(*) FROM ct_generic) AS rows_generic,
       (SELECT count(*) FROM ct_native) AS rows_native,
       (SELECT count(*) FROM (SELECT * FROM ct_generic EXCEPT ALL SELECT * FROM ct_native) d)
         AS only_generic,
       (SELECT count(*) FROM (SELECT * FROM ct_native EXCEPT ALL SELECT * FROM ct_generic) d)
         AS only_native;
DEALLOCATE ct_q;
RESET plan_cache_mode;

-- Geography: meridian neighbours 0.01 degrees apart near both poles and at the equator, equator
-- neighbours, Swiss places, and random points; NULL, an empty point and a line.
CREATE TABLE cg_a (id int PRIMARY KEY, g geography);
INSERT INTO cg_a SELECT 100 + i, ST_SetSRID(ST_MakePoint(30, 89.9 + i / 100.0), 4326)::geography
  FROM generate_series(0, 9) i;
INSERT INTO cg_a SELECT 200 + i, ST_SetSRID(ST_MakePoint(-120, -89.95 - i / 100.0), 4326)::geography
  FROM generate_series(0, 4) i;
INSERT INTO cg_a SELECT 300 + i, ST_SetSRID(ST_MakePoint(10, i / 100.0), 4326)::geography
  FROM generate_series(-3, 3) i;
INSERT INTO cg_a SELECT 400 + i, ST_SetSRID(ST_MakePoint(i / 100.0, 0), 4326)::geography
  FROM generate_series(0, 3) i;
INSERT INTO cg_a VALUES (501, 'SRID=4326;POINT(8.54 47.37)'), (502, 'SRID=4326;POINT(8.62 47.40)'),
  (503, 'SRID=4326;POINT(179.995 -30)'), (504, 'SRID=4326;POINT(-179.995 -30)');
INSERT INTO cg_a SELECT 1000 + i, ST_SetSRID(ST_MakePoint(random() * 360 - 180,
  degrees(asin(random() * 2 - 1))), 4326)::geography FROM generate_series(1, 100) i;
CREATE TABLE cg_b AS SELECT * FROM cg_a;
INSERT INTO cg_b VALUES (2001, NULL), (2002, 'SRID=4326;POINT EMPTY'),
  (2003, 'SRID=4326;LINESTRING(29 89.95, 31 89.95)');
ANALYZE cg_a;
ANALYZE cg_b;
CREATE TABLE cg_pairs (x int, y int);
INSERT INTO cg_pairs VALUES (100, 101), (104, 105), (108, 109), (100, 109), (200, 201),
  (203, 204), (300, 301), (400, 401), (501, 502), (503, 504);
CREATE TABLE cg_boundary AS
  SELECT p.x, p.y, ST_Distance(a.g, b.g) AS spheroid, ST_Distance(a.g, b.g, false) AS sphere
  FROM cg_pairs p JOIN cg_a a ON a.id = p.x JOIN cg_a b ON b.id = p.y;
-- Each pair's own distance times each factor, in ST_DWithin (spheroid and sphere) and
-- ST_Distance <= d: the number of joins and those where the plans differ.
CREATE FUNCTION pg_temp.cg_compare(clause text,
    OUT joins bigint, OUT mismatches bigint, OUT rows_native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  c record;
  f float8;
  q text;
BEGIN
  joins := 0; mismatches := 0; rows_native := 0;
  FOR r IN SELECT * FROM cg_boundary LOOP
    FOREACH f IN ARRAY ARRAY[1 - 1e-4, 1 - 1e-5, 1 - 1e-7, 1 - 1e-9, 1, 1 + 1e-9, 1 + 1e-7, 1 + 1e-5]
    LOOP
      FOREACH q IN ARRAY ARRAY[format(clause, r.spheroid * f, 'true'),
                               format(clause, r.sphere * f, 'false')] LOOP
        SELECT * INTO c FROM pg_temp.cs_compare(
          'SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b ON ' || q);
        joins := joins + 1;
        rows_native := rows_native + c.rows_native;
        IF NOT c.custom_scan OR c.only_custom + c.only_native > 0 THEN
          mismatches := mismatches + 1;
          RAISE NOTICE 'mismatch: % (% only custom, % only native)', q, c.only_custom, c.only_native;
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM pg_temp.cg_compare('ST_DWithin(a.g, b.g, %s, %s)');
SELECT * FROM pg_temp.cg_compare('ST_Distance(a.g, b.g, %2$s) <= %1$s');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b ON a.g <-> b.g < 1200');
-- use_spheroid NULL: the clause is NULL, no pair is certain.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b ON ST_DWithin(a.g, b.g, 5000, NULL)');
-- Another clause, LEFT and anti-joins, every pair (d = 20,000 km).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b ON ST_DWithin(a.g, b.g, 3000)
   AND a.id <> b.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM cg_b a LEFT JOIN cg_b b ON ST_DWithin(a.g, b.g, 1500)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id FROM cg_b a WHERE NOT EXISTS (SELECT FROM cg_a b WHERE ST_DWithin(a.g, b.g, 1000))');
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) FROM cg_a a JOIN cg_b b ON ST_DWithin(a.g, b.g, 2e7)');
SELECT distance_clause, decided > 20 * rechecked AS mostly_decided FROM pg_temp.ct_decided(
  'SELECT a.id, b.id FROM cg_a a JOIN cg_a b ON ST_DWithin(a.g, b.g, 2e6)');
-- Generic plan.
PREPARE cg_q(float8) AS SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b
  ON ST_DWithin(a.g, b.g, $1);
SET plan_cache_mode = force_generic_plan;
CREATE TEMP TABLE cg_generic AS EXECUTE cg_q(1500000);
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE cg_native AS SELECT a.id AS a, b.id AS b FROM cg_a a JOIN cg_b b
  ON ST_DWithin(a.g, b.g, 1500000);
RESET simjoin.enable_customscan;
SELECT (SELECT count(*) FROM cg_generic) AS rows_generic,
       (SELECT count(*) FROM cg_native) AS rows_native,
       (SELECT count(*) FROM (SELECT * FROM cg_generic EXCEPT ALL SELECT * FROM cg_native) d)
         AS only_generic,
       (SELECT count(*) FROM (SELECT * FROM cg_native EXCEPT ALL SELECT * FROM cg_generic) d)
         AS only_native;
DEALLOCATE cg_q;
RESET plan_cache_mode;
RESET enable_nestloop;
