-- The SimilarityJoin custom scan on PostGIS geometries that are not points: each one is the
-- centre of its 2-D bounding box with a radius (half the box diagonal); the engine joins the
-- centres within d plus both sides' largest radius, a box-to-box distance filter drops the
-- candidates whose boxes are farther than d, and PostGIS's own function decides the rest.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
SELECT setseed(0.17);
-- Unit squares on a lattice of 2: neighbours' edges at exactly distance 1, corners at sqrt(2),
-- and linestrings, multipoints, points and a few polygons on the other side.
CREATE TABLE bx_a (id int PRIMARY KEY, g geometry);
CREATE TABLE bx_b (id int PRIMARY KEY, g geometry);
INSERT INTO bx_a SELECT i * 100 + j, ST_MakeEnvelope(2 * i, 2 * j, 2 * i + 1, 2 * j + 1)
  FROM generate_series(0, 19) i, generate_series(0, 19) j;
INSERT INTO bx_b SELECT k, CASE k % 4
    WHEN 0 THEN ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10)
    WHEN 1 THEN ST_MakeLine(ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10),
                            ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10))
    WHEN 2 THEN ST_Collect(ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10),
                           ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10))
    ELSE ST_Buffer(ST_MakePoint(round(random() * 400) / 10, round(random() * 400) / 10), 0.5) END
  FROM generate_series(1, 500) k;
-- NULL, EMPTY geometries, a collection holding an EMPTY member, and a square among points
INSERT INTO bx_b VALUES (9001, NULL), (9002, 'POLYGON EMPTY'), (9003, 'POINT EMPTY'),
  (9004, 'GEOMETRYCOLLECTION(POINT EMPTY, POINT(1 1))'), (9005, 'MULTIPOINT EMPTY');
INSERT INTO bx_a VALUES (9001, NULL), (9002, 'LINESTRING EMPTY'), (9003, 'POINT(3.5 3.5)');
ANALYZE bx_a;
ANALYZE bx_b;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1);
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1)',
                          'Distance Clause') AS distance_clause,
       pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1)',
                          'Wild Rows') AS wild_rows;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_DWithin(b.g, a.g, 0)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_Distance(a.g, b.g) <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_Distance(a.g, b.g) < 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON a.g <-> b.g <= 1.5 AND a.id % 3 = b.id % 3');
-- squares against squares: edges at exactly 1, corners at exactly sqrt(2) (ST_Distance's own)
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_a b ON ST_DWithin(a.g, b.g, 1)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_a b ON ST_DWithin(a.g, b.g, sqrt(2))');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_a b ON ST_DWithin(a.g, b.g, 0)');
-- a self-join with a key order
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_b a JOIN bx_b b ON ST_DWithin(a.g, b.g, 0.7) AND a.id < b.id');
-- buffers as expression keys, on both sides, and a per-row bound
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_DWithin(ST_Buffer(a.g, 0.25), b.g, 0.5)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b
     ON ST_DWithin(ST_Buffer(a.g, 0.25), ST_Buffer(b.g, 0.1), (a.id % 5) / 4.0)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON ST_Distance(a.g, b.g) * 2 <= 1');
-- LEFT and anti-joins
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a LEFT JOIN bx_b b ON ST_DWithin(a.g, b.g, 0.3)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, 0 AS b FROM bx_a a WHERE NOT EXISTS
     (SELECT FROM bx_b b WHERE ST_DWithin(a.g, b.g, 0.3))');
-- rescans with another bound (a correlated subquery): the inner side's boxes are kept
CREATE TABLE bx_d (d float8);
INSERT INTO bx_d VALUES (0), (0.5), (1), (NULL);
SELECT * FROM pg_temp.cs_compare($$
  SELECT d AS a, (SELECT count(*) FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, bx_d.d)) AS b
  FROM bx_d$$);
-- a polygon with a NaN vertex (wild: PostGIS decides it against every row), one with a
-- coordinate beyond 1e150 (wild), 3-D and measured geometries (their 2-D boxes)
CREATE TABLE bx_odd AS SELECT * FROM bx_b WHERE id < 100;
INSERT INTO bx_odd VALUES
  (9301, ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(3, 3), ST_MakePoint('NaN', 4),
                                          ST_MakePoint(4, 4), ST_MakePoint(3, 3)]))),
  (9302, ST_MakeEnvelope(5, 5, 6, 1e200)),
  (9303, 'POLYGON Z ((7 7 1, 7 8 2, 8 8 3, 7 7 1))'),
  (9304, 'LINESTRING M (9 9 1, 11 12 2)');
-- a multipolygon of 40 squares (its box: not wild)
INSERT INTO bx_odd SELECT 9305, ST_Collect(ARRAY(SELECT ST_MakeEnvelope(j, 30, j + 0.5, 30.5)
                                               FROM generate_series(1, 40) j));
ANALYZE bx_odd;
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_odd b ON ST_DWithin(a.g, b.g, 1)',
                          'Wild Rows') AS wild_rows;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_odd b ON ST_DWithin(a.g, b.g, 1)');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_odd b ON ST_Distance(a.g, b.g) <= 1');
-- a generic plan: the bound is a parameter
SET plan_cache_mode = force_generic_plan;
PREPARE bx_q(float8) AS SELECT count(*) FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, $1);
EXPLAIN (COSTS OFF) EXECUTE bx_q(1);
EXECUTE bx_q(1);
EXECUTE bx_q(0);
SET simjoin.enable_customscan = off;
EXECUTE bx_q(1);
EXECUTE bx_q(0);
RESET simjoin.enable_customscan;
DEALLOCATE bx_q;
RESET plan_cache_mode;
-- One huge polygon would make the largest radius span the whole plane, every pair a candidate:
-- the executor makes it a wild row instead (and the planner's estimate does the same), so the
-- custom scan keeps its small bound and is taken.
CREATE TABLE bx_huge AS SELECT * FROM bx_b;
INSERT INTO bx_huge VALUES (9100, ST_MakeEnvelope(-1000, -1000, -999, 1000));
ANALYZE bx_huge;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_huge b ON ST_DWithin(a.g, b.g, 0.5)');
-- Many large polygons (2% of the rows, too many to be wild rows) against indexed small ones:
-- the sampled radii make nearly every pair a candidate, and PostgreSQL's index plan wins.
CREATE TABLE bx_small AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 1000, random() * 1000), 1, 2) AS g
  FROM generate_series(1, 4000) i;
CREATE INDEX ON bx_small USING gist (g);
CREATE TABLE bx_large AS SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 1000, random() * 1000), 1, 2) AS g
  FROM generate_series(1, 4000) i;
INSERT INTO bx_large SELECT 10000 + i, ST_Buffer(ST_MakePoint(random() * 1000, random() * 1000), 300, 2)
  FROM generate_series(1, 80) i;
ANALYZE bx_small;
ANALYZE bx_large;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_small a JOIN bx_large b ON ST_DWithin(a.g, b.g, 2)');
SET simjoin.customscan_pair_cost = 0;
SET simjoin.customscan_row_cost = 0;
SET simjoin.customscan_startup_cost = 0;
SET enable_nestloop = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_huge b ON ST_DWithin(a.g, b.g, 0.5)');
-- the executor makes the outsized polygon a wild row: the engine's pairs are those without it
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_huge b ON ST_DWithin(a.g, b.g, 0.5)',
                          'Wild Rows') AS wild_rows,
       pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_huge b ON ST_DWithin(a.g, b.g, 0.5)',
                          'Engine Pairs') =
       pg_temp.cs_explain('SELECT a.id, b.id FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 0.5)',
                          'Engine Pairs') AS same_engine_pairs;
-- (forced as well: a key-ordered self-join and <-> with another clause)
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_b a JOIN bx_b b ON ST_DWithin(a.g, b.g, 0.7) AND a.id < b.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM bx_a a JOIN bx_b b ON a.g <-> b.g <= 1.5 AND a.id % 3 = b.id % 3');
RESET ALL;
LOAD 'simjoin';
SET simjoin.explain_machine_details = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- Mixed SRIDs: PostGIS's error in both plans (the row of another SRID is wild: paired with
-- every row and decided by PostGIS).
INSERT INTO bx_b VALUES (9200, 'SRID=3857;POLYGON((0 0, 0 1, 1 1, 0 0))');
SELECT count(*) FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1);
SET simjoin.enable_customscan = off;
SELECT count(*) FROM bx_a a JOIN bx_b b ON ST_DWithin(a.g, b.g, 1);
RESET simjoin.enable_customscan;
DROP TABLE bx_a, bx_b, bx_huge, bx_d, bx_odd, bx_small, bx_large;
