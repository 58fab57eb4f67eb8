-- A small outer side with a computed polygon key against a large GiST-indexed side:
--   SELECT count(*) FROM centres a JOIN pts b ON ST_DWithin(ST_Buffer(a.g, r), b.g, d)
-- 299 centres (random places) against GeoNames places as lon/lat points. The planner's choice
-- beside both plans forced: the SimilarityJoin (enable_nestloop off) and PostgreSQL's index
-- nested loop (simjoin.enable_customscan off), three timings each, same counts.
--   psql -X -f bench/sql/polygon_small_outer.sql                     sparse: every place, r 0.05, d 0.02
--   psql -X -v dense=on -f bench/sql/polygon_small_outer.sql         dense: Europe, r 0.3, d 0.2
-- (from the repository's root; needs postgis)
\set ON_ERROR_STOP 1
\if :{?dense}
\else
\set dense off
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
\ir include/cities.sql
DROP TABLE IF EXISTS po_pts, po_centres;
\if :dense
CREATE TABLE po_pts AS SELECT geonameid AS id, ST_MakePoint(longitude, latitude) AS g
  FROM bench_cities WHERE longitude BETWEEN -10 AND 30 AND latitude BETWEEN 35 AND 60;
\set r 0.3
\set d 0.2
\else
CREATE TABLE po_pts AS SELECT geonameid AS id, ST_MakePoint(longitude, latitude) AS g FROM bench_cities;
\set r 0.05
\set d 0.02
\endif
DROP TABLE bench_cities;
CREATE INDEX ON po_pts USING gist (g);
SELECT setseed(0.4);
CREATE TABLE po_centres AS SELECT id, g FROM po_pts ORDER BY random() LIMIT 299;
VACUUM ANALYZE po_pts;
VACUUM ANALYZE po_centres;
SELECT (SELECT count(*) FROM po_pts) AS points, (SELECT count(*) FROM po_centres) AS centres;
\set q 'SELECT count(*) FROM po_centres a JOIN po_pts b ON ST_DWithin(ST_Buffer(a.g, ' :r '), b.g, ' :d ')'
\echo '== the planner''s choice'
EXPLAIN :q;
\echo '== the SimilarityJoin (enable_nestloop = off)'
SET enable_nestloop = off;
EXPLAIN :q;
\timing on
:q; :q; :q;
\timing off
RESET enable_nestloop;
\echo '== PostgreSQL''s plan (simjoin.enable_customscan = off)'
SET simjoin.enable_customscan = off;
EXPLAIN :q;
\timing on
:q; :q; :q;
\timing off
DROP TABLE po_pts, po_centres;
