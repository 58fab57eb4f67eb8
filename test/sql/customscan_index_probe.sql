-- A small inner side against a large indexed outer table: the SimilarityJoin reads the outer
-- side through the table's index, one index scan per inner row with the conditions PostgreSQL
-- derives for its own nested loop (EXPLAIN: Outer Rows Read Through Index), each row fetched
-- once. Results against PostgreSQL's own plan for geometry, geography and cube keys, a
-- semi-join, a filter on the outer table, rows updated and deleted in the transaction, NULL
-- keys, overlapping probes; LEFT joins and simjoin.enable_index_probe = off read the side whole;
-- more inner rows than planned make the scan read it whole too.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
-- ip_compare(query): cs_compare's counts, and the index the outer side was read through.
CREATE FUNCTION pg_temp.ip_compare(query text, OUT custom_scan boolean, OUT rows_custom bigint,
    OUT only_custom bigint, OUT only_native bigint, OUT read_through text)
LANGUAGE sql AS $$
  SELECT c.custom_scan, c.rows_custom, c.only_custom, c.only_native,
         pg_temp.cs_explain(query, 'Outer Rows Read Through Index')
  FROM pg_temp.cs_compare(query) c $$;

SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS cube;
RESET client_min_messages;
SELECT setseed(0.31);
CREATE TABLE ip_big (id int PRIMARY KEY, g geometry, geog geography, c cube, tag int);
INSERT INTO ip_big
  SELECT i, ST_MakePoint(x, y), ST_MakePoint(x, y)::geography, cube(ARRAY[x, y, (i % 7)::float8]), i % 5
  FROM (SELECT i, round(random() * 2000) / 100 AS x, round(random() * 2000) / 100 AS y
        FROM generate_series(1, 20000) i) p;
INSERT INTO ip_big VALUES (20001, NULL, NULL, NULL, 0);
CREATE INDEX ON ip_big USING gist (g);
CREATE INDEX ON ip_big USING gist (geog);
CREATE INDEX ON ip_big USING gist (c);
CREATE TABLE ip_small (id int PRIMARY KEY, g geometry, geog geography, c cube);
INSERT INTO ip_small SELECT id, g, geog, c FROM ip_big WHERE id % 1000 = 0;
INSERT INTO ip_small VALUES (-1, NULL, NULL, NULL),  -- a NULL key probes nothing
  (-2, 'POINT(5 5)', 'POINT(5 5)', '(5, 5, 1)'), (-3, 'POINT(5 5.1)', 'POINT(5 5.1)', '(5, 5.1, 1)');
ANALYZE ip_big;
ANALYZE ip_small;
SET enable_nestloop = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;

-- A buffered polygon against points, through the index of the outer table.
EXPLAIN (COSTS OFF)
  SELECT a.id, b.id FROM ip_small a JOIN ip_big b ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3);
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b FROM ip_small a JOIN ip_big b ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3)');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM ip_small a JOIN ip_big b ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3)',
                          key) AS value, key
  FROM unnest(ARRAY['Outer Rows Read Through Index', 'Index Probes']) key;
-- Points within a distance (the engine decides; the probes pay PostGIS's declared cost of the
-- clause on each row they read, so reading a row is made dearer here for them to be taken),
-- and the probes of -2 and -3 overlap: rows returned by both are read once.
SET simjoin.customscan_row_cost = 5;
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b FROM ip_small a JOIN ip_big b ON ST_DWithin(a.g, b.g, 0.5)');
SELECT (pg_temp.cs_explain(q, 'Index Rows')::int > pg_temp.cs_explain(q, 'Outer Rows Read')::int) AS repeats_read_once
  FROM (VALUES ('SELECT a.id, b.id FROM ip_small a JOIN ip_big b ON ST_DWithin(a.g, b.g, 0.5)')) v(q);
-- geography (metres) and cube with its enlarged box beside the distance
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b FROM ip_small a JOIN ip_big b ON ST_DWithin(a.geog, b.geog, 40000)');
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b FROM ip_small a JOIN ip_big b
     ON cube_enlarge(a.c, 0.4, 3) @> b.c AND a.c <-> b.c <= 0.4');
-- A semi-join, and a filter and computed columns on the outer table.
SELECT * FROM pg_temp.ip_compare(
  'SELECT b.id FROM ip_big b WHERE EXISTS (SELECT FROM ip_small a WHERE ST_DWithin(a.g, b.g, 0.4))');
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b, b.tag * 10 AS t, ST_AsText(b.g) AS p FROM ip_small a JOIN ip_big b
     ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3) WHERE b.tag <> 2');
-- Rescanned with a new inner side for each row of s: the probes are made again.
EXPLAIN (COSTS OFF) SELECT s.id, (SELECT count(*) FROM ip_small a JOIN ip_big b
    ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3) WHERE a.id = s.id) AS n FROM ip_small s;
SELECT * FROM pg_temp.ip_compare('SELECT s.id, (SELECT count(*) FROM ip_small a JOIN ip_big b
    ON ST_DWithin(ST_Buffer(a.g, 0.2), b.g, 0.3) WHERE a.id = s.id) AS n FROM ip_small s');
-- Rows updated (in place and moved) and deleted in this transaction: the versions it sees.
BEGIN;
UPDATE ip_big SET tag = tag + 10 WHERE id % 3 = 0;  -- no indexed column changed
UPDATE ip_big SET g = ST_Translate(g, 0.05, 0) WHERE id % 4 = 0;
DELETE FROM ip_big WHERE id % 11 = 0;
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b, b.tag FROM ip_small a JOIN ip_big b ON ST_DWithin(a.g, b.g, 0.5)');
ROLLBACK;
-- LEFT joins keep the outer rows without a pair: the side is read whole.
EXPLAIN (COSTS OFF)
  SELECT b.id, a.id FROM ip_big b LEFT JOIN ip_small a ON ST_DWithin(a.g, b.g, 0.5);
-- Off: the side is read whole, the same rows.
SET simjoin.enable_index_probe = off;
EXPLAIN (COSTS OFF)
  SELECT a.id, b.id FROM ip_small a JOIN ip_big b ON ST_DWithin(a.g, b.g, 0.5);
RESET simjoin.enable_index_probe;
RESET simjoin.customscan_row_cost;
-- More inner rows than the plan expected (statistics from before the rows above id 100000 came):
-- the scan reads the outer side whole instead of probing once per row; the rows are the same.
CREATE TABLE ip_grown (id int PRIMARY KEY, g geometry);
INSERT INTO ip_grown SELECT id, g FROM ip_small WHERE id > 0;
ANALYZE ip_grown;
INSERT INTO ip_grown SELECT id + 100000, g FROM ip_big WHERE id <= 6000;
SELECT pg_temp.cs_explain(q, 'Outer Rows Read Through Index') AS planned,
       pg_temp.cs_explain(q, 'Index Probes') AS probes
  FROM (VALUES ('SELECT a.id, b.id FROM ip_grown a JOIN ip_big b ON ST_DWithin(ST_Buffer(a.g, 0.1), b.g, 0.1) WHERE a.id > 50000')) v(q);
SELECT * FROM pg_temp.ip_compare(
  'SELECT a.id AS a, b.id AS b FROM ip_grown a JOIN ip_big b ON ST_DWithin(ST_Buffer(a.g, 0.1), b.g, 0.1) WHERE a.id > 50000');

DROP TABLE ip_big, ip_small, ip_grown;
DROP EXTENSION cube;
