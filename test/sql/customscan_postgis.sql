-- The SimilarityJoin custom scan on PostGIS: ST_DWithin(geometry, geometry, eps) on points.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

\i test/sql/include/postgis.sql
\if :has_postgis
SELECT setseed(0.31);
CREATE TABLE cs_places (id int, g geometry);
CREATE TABLE cs_shops (id int, g geometry);
INSERT INTO cs_places SELECT i, ST_SetSRID(ST_MakePoint(round(random() * 300) / 10,
  round(random() * 300) / 10), 3857) FROM generate_series(1, 1500) i;
INSERT INTO cs_shops SELECT i, ST_SetSRID(ST_MakePoint(round(random() * 300) / 10,
  round(random() * 300) / 10), 3857) FROM generate_series(1, 1500) i;
-- not points (few among points: wild rows; customscan_postgis_boxes joins their boxes), an
-- empty point (never matches), a 3-D point, NULL
INSERT INTO cs_places VALUES
  (9001, ST_SetSRID('LINESTRING(0 0, 10 10)'::geometry, 3857)),
  (9002, ST_SetSRID('POINT EMPTY'::geometry, 3857)),
  (9003, ST_SetSRID(ST_MakePoint(1, 1, 5), 3857)),
  (9004, NULL);
INSERT INTO cs_shops VALUES (9001, ST_SetSRID('POLYGON((0 0, 0 1, 1 1, 1 0, 0 0))'::geometry, 3857));
ANALYZE cs_places;
ANALYZE cs_shops;
EXPLAIN (COSTS OFF) SELECT p.id, s.id FROM cs_places p JOIN cs_shops s ON ST_DWithin(p.g, s.g, 1);
SELECT * FROM pg_temp.cs_compare(
  'SELECT p.id AS a, s.id AS b FROM cs_places p JOIN cs_shops s ON ST_DWithin(p.g, s.g, 1)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT p.id AS a, s.id AS b FROM cs_places p JOIN cs_shops s ON ST_DWithin(s.g, p.g, 0.5)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_places x JOIN cs_places y ON ST_DWithin(x.g, y.g, 0.3)');
SELECT pg_temp.cs_explain('SELECT p.id, s.id FROM cs_places p JOIN cs_shops s
                           ON ST_DWithin(p.g, s.g, 1)', 'Wild Rows') AS wild_rows;
-- Where the installed PostGIS computes a point distance as simjoin does (the arithmetic
-- probe, src/engine/bounds/arithmetic_probe.h: sqrt(dx * dx + dy * dy), no fused multiply-add), the
-- engine decides ST_DWithin on two points itself; lattice pairs at exactly eps (3-4-5 and
-- 0.1-steps) and random points at small and large scales agree with PostGIS's own plan.
SELECT pg_temp.cs_explain('SELECT p.id, s.id FROM cs_places p JOIN cs_shops s
                           ON ST_DWithin(p.g, s.g, 1)', 'Distance Clause') AS distance_clause;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM cs_places x JOIN cs_shops y ON ST_DWithin(x.g, y.g, 0.5)
     AND x.id % 3 <> y.id % 3');
CREATE TABLE cs_scaled (id int, s float8, g geometry);
INSERT INTO cs_scaled SELECT i, s, ST_SetSRID(ST_MakePoint(random() * s, random() * s), 3857)
  FROM generate_series(1, 1200) i, (VALUES (1e-3::float8), (1e6)) AS t(s);
ANALYZE cs_scaled;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM (SELECT * FROM cs_scaled WHERE s < 1) x
     JOIN (SELECT * FROM cs_scaled WHERE s < 1) y ON ST_DWithin(x.g, y.g, 3e-5)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM (SELECT * FROM cs_scaled WHERE s > 1) x
     JOIN (SELECT * FROM cs_scaled WHERE s > 1) y ON ST_DWithin(x.g, y.g, 3e4)');
DROP TABLE cs_scaled;
-- A negative eps is PostGIS's error in both plans.
SELECT count(*) FROM cs_places p JOIN cs_shops s ON ST_DWithin(p.g, s.g, -1);
SET simjoin.enable_customscan = off;
SELECT count(*) FROM cs_places p JOIN cs_shops s ON ST_DWithin(p.g, s.g, -1);
RESET simjoin.enable_customscan;
-- A small outer side and a GiST index: PostgreSQL's index nested loop stays.
CREATE TABLE cs_big AS SELECT i AS id, ST_SetSRID(ST_MakePoint(random() * 100, random() * 100),
  3857) AS g FROM generate_series(1, 20000) i;
CREATE INDEX ON cs_big USING gist (g);
CREATE TABLE cs_ten AS SELECT id, g FROM cs_places WHERE id <= 10;
ANALYZE cs_big;
ANALYZE cs_ten;
EXPLAIN (COSTS OFF) SELECT t.id, b.id FROM cs_ten t JOIN cs_big b ON ST_DWithin(t.g, b.g, 1);
SELECT * FROM pg_temp.cs_compare(
  'SELECT t.id AS a, b.id AS b FROM cs_ten t JOIN cs_big b ON ST_DWithin(t.g, b.g, 1)');
DROP TABLE cs_places, cs_shops, cs_big, cs_ten;
\else
\echo 'PostGIS is not available: PostGIS tests skipped'
\endif
