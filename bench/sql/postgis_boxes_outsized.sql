-- Bounding-box joins with outsized geometries: 20k small polygons (GiST index) against 20k small
-- ones plus one huge polygon (made a wild row: the custom scan keeps a small bound), and
-- against 20k small ones plus 400 large ones (2%: too many for wild rows, every pair a
-- candidate; priced so, PostgreSQL's index plan is chosen). Each: the plan the planner picks,
-- then PostgreSQL's plan; the last query forces the custom scan.
--   psql -X -f bench/sql/postgis_boxes_outsized.sql
LOAD 'simjoin';
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.3);
CREATE TEMP TABLE ha AS SELECT i AS id, ST_Buffer(ST_MakePoint(random()*1000, random()*1000), 1, 2) AS g FROM generate_series(1, 20000) i;
CREATE TEMP TABLE hb AS SELECT i AS id, ST_Buffer(ST_MakePoint(random()*1000, random()*1000), 1, 2) AS g FROM generate_series(1, 20000) i;
INSERT INTO hb VALUES (0, ST_MakeEnvelope(-1000, -1000, -999, 2000));
CREATE TEMP TABLE hc AS SELECT * FROM hb WHERE id > 0;
INSERT INTO hc SELECT 100000 + i, ST_Buffer(ST_MakePoint(random()*1000, random()*1000), 300, 2) FROM generate_series(1, 400) i;
CREATE INDEX ON ha USING gist (g);
ANALYZE ha; ANALYZE hb; ANALYZE hc;
\set q 'SELECT count(*) FROM ha a JOIN hb b ON ST_DWithin(a.g, b.g, 2)'
\ir postgis_boxes_plans.sql
\set q 'SELECT count(*) FROM ha a JOIN hc b ON ST_DWithin(a.g, b.g, 2)'
\ir postgis_boxes_plans.sql
