-- Planner panel: queries a user would write, each timed with the SimilarityJoin custom scan
-- enabled (simjoin.enable_customscan = on, the default) and with PostgreSQL's own best plan
-- (simjoin.enable_customscan = off; GiST indexes exist where a user would create them), in the
-- same session, rounds interleaved (custom first in rounds 0, 2, ..., native first in 1, 3, ...).
--
--   psql -X -v n=200000 -f bench/sql/planner_panel.sql        (bench/planner_panel.sh runs it
--                                                             and prints the table)
-- Options (-v name=value): n (rows of the large tables, default 200000), ncos (rows of the
-- 100-D cosine table, default 20000: PostgreSQL's plan for it is a nested loop over all pairs),
-- rounds (timed runs per plan, default 3), timeout (statement_timeout of every statement,
-- default 300s; a plan that reaches it is not run again and is reported as "> timeout"),
-- only (comma-separated query ids, default all), analyze (EXPLAIN ANALYZE of the custom-scan
-- plan once per query after the timed runs, default on), reuse (keep the tables of an earlier
-- run with the same n, ncos and generator version, default on).
--
-- Settings: the server's (shared_buffers, work_mem, jit, parallel workers: whatever the cluster
-- has; the output's META lines print them). Data are deterministic (setseed). Coordinates of
-- the 2-D tables are multiples of 1/64 in [0, 1000), so real[], float8[], point and geometry
-- hold the very same values and a query on one type can be checked with another type's plan.
--
-- Output: the plans (EXPLAIN, both settings; EXPLAIN ANALYZE of the custom setting) and lines
--   PANEL meta KEY VALUE
--   PANEL query QID TITLE...
--   PANEL chosen QID true|false           (SimilarityJoin in the plan with enable_customscan on)
--   PANEL run QID custom|native ROUND MS ERROR SQLSTATE N H
--   PANEL verify QID N_CUSTOM H_CUSTOM N_REFERENCE H_REFERENCE
-- N and H are the result's columns n and h: a count, and for queries returning many rows the
-- count and sum of hashtext(row::text) of the rows, computed over the user's query as a
-- subquery (what is timed then includes formatting each row as text, as sending it would).
-- "verify" runs only where PostgreSQL's plan reached the timeout: the custom setting's result
-- of a check query (vq) against PostgreSQL's plan for an equivalent indexable query (vo).
\set ON_ERROR_STOP 0
\pset pager off
\if :{?n}
\else
\set n 200000
\endif
\if :{?ncos}
\else
\set ncos 20000
\endif
\if :{?rounds}
\else
\set rounds 3
\endif
\if :{?timeout}
\else
\set timeout 300s
\endif
\if :{?only}
\else
\set only ''
\endif
\if :{?analyze}
\else
\set analyze on
\endif
\if :{?reuse}
\else
\set reuse on
\endif
\set generator 1

SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE EXTENSION IF NOT EXISTS cube;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
-- The cube, point and PostGIS forms need the planner hook loaded in the session.
LOAD 'simjoin';

SELECT :'reuse'::boolean AND EXISTS (
         SELECT FROM pg_class WHERE relname = 'pp_meta' AND relkind = 'r')
       AS may_reuse \gset
\if :may_reuse
SELECT count(*) = 1 AS reuse_data FROM pp_meta
  WHERE n = :n AND ncos = :ncos AND generator = :generator \gset
\else
\set reuse_data false
\endif

\if :reuse_data
\echo 'PANEL meta data reused'
\else
DROP TABLE IF EXISTS pp_meta, pp_places, pp_places_b, pp_set, pp_shops, pp_zones, pp_centres,
  pp_cos, pp_geog, pp_few;
-- Places: n points in [0, 1000)^2 (density 0.2 a unit square: 2.5 others within distance 2),
-- coordinates multiples of 1/64; country = the 50 x 50 cell (400 countries).
CREATE FUNCTION pg_temp.pp_make_places(seed float8, rows int)
  RETURNS TABLE (id int, country text, x float8, y float8, v float8[], vr real[], p point,
                 g geometry)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM setseed(seed);
  RETURN QUERY
    SELECT i, 'C' || (floor(s.x / 50) * 20 + floor(s.y / 50))::int, s.x, s.y,
           ARRAY[s.x, s.y]::float8[], ARRAY[s.x, s.y]::real[], point(s.x, s.y),
           ST_MakePoint(s.x, s.y)
    FROM (SELECT i, floor(random() * 64000) / 64 AS x, floor(random() * 64000) / 64 AS y
          FROM generate_series(1, rows) i) s;
END $$;
CREATE TABLE pp_places AS SELECT * FROM pg_temp.pp_make_places(0.5, :n);
CREATE TABLE pp_places_b AS SELECT * FROM pg_temp.pp_make_places(0.25, :n);
ALTER TABLE pp_places ADD PRIMARY KEY (id);
ALTER TABLE pp_places_b ADD PRIMARY KEY (id);
CREATE INDEX ON pp_places USING gist (g);
CREATE INDEX ON pp_places USING gist (p);
CREATE INDEX ON pp_places_b USING gist (g);
CREATE INDEX ON pp_places_b USING gist (p);
-- A 3-D set: n point cubes in [0, 100)^3 (2.8 others within 1.5).
SELECT setseed(0.75);
CREATE TABLE pp_set AS
  SELECT i AS id, cube(ARRAY[random() * 100, random() * 100, random() * 100]) AS c
  FROM generate_series(1, :n) i;
ALTER TABLE pp_set ADD PRIMARY KEY (id);
CREATE INDEX ON pp_set USING gist (c);
-- 500 shops (1.4 within 30 of a place), 300 zones with a radius in [1, 10), 300 centres.
SELECT setseed(0.1);
CREATE TABLE pp_shops AS
  SELECT i AS id, ARRAY[floor(random() * 64000) / 64, floor(random() * 64000) / 64]::float8[] AS v
  FROM generate_series(1, 500) i;
CREATE TABLE pp_zones AS
  SELECT i AS id, ARRAY[floor(random() * 64000) / 64, floor(random() * 64000) / 64]::float8[] AS v,
         1 + floor(random() * 576) / 64 AS radius
  FROM generate_series(1, 300) i;
CREATE TABLE pp_centres AS
  SELECT i AS id, ST_MakePoint(floor(random() * 64000) / 64, floor(random() * 64000) / 64) AS g
  FROM generate_series(1, 300) i;
ALTER TABLE pp_shops ADD PRIMARY KEY (id);
ALTER TABLE pp_zones ADD PRIMARY KEY (id);
ALTER TABLE pp_centres ADD PRIMARY KEY (id);
-- Embedding-like 100-D vectors (bench/sql/cosine_100d.sql's generator): ncos/100 directions
-- uniform in [-1, 1]^100, about 100 noisy copies of each (+-0.2 per coordinate).
SELECT setseed(0.25);
CREATE TEMP TABLE pp_cos_centres AS
  SELECT c, ARRAY(SELECT random() * 2 - 1 FROM generate_series(1, 100) WHERE c >= 0) AS centre
  FROM generate_series(0, greatest(:ncos / 100, 1) - 1) c;
CREATE TABLE pp_cos AS
  SELECT i AS id,
         ARRAY(SELECT centre[j] + (random() - 0.5) * 0.4 FROM generate_series(1, 100) j
               WHERE i > 0)::float8[] AS v
  FROM generate_series(1, :ncos) i JOIN pp_cos_centres ON c = i % greatest(:ncos / 100, 1);
ALTER TABLE pp_cos ADD PRIMARY KEY (id);
DROP TABLE pp_cos_centres;
VACUUM ANALYZE pp_places;
VACUUM ANALYZE pp_places_b;
VACUUM ANALYZE pp_set;
VACUUM ANALYZE pp_shops;
VACUUM ANALYZE pp_zones;
VACUUM ANALYZE pp_centres;
VACUUM ANALYZE pp_cos;
CREATE TABLE pp_meta AS SELECT :n AS n, :ncos AS ncos, :generator AS generator;
\endif
-- Geography (made here where missing, also next to reused data): pp_places as longitude
-- 5 + x / 100, latitude 45 + y / 100 degrees (about 0.25 places per km^2), a GiST index.
SELECT NOT EXISTS (SELECT FROM pg_class WHERE relname = 'pp_geog' AND relkind = 'r')
       AS make_geog \gset
\if :make_geog
CREATE TABLE pp_geog AS SELECT id, ST_SetSRID(ST_MakePoint(5 + x / 100, 45 + y / 100),
  4326)::geography AS g FROM pp_places;
ALTER TABLE pp_geog ADD PRIMARY KEY (id);
CREATE INDEX ON pp_geog USING gist (g);
VACUUM ANALYZE pp_geog;
\endif
-- A small side (made here where missing): 300 of pp_places_b's rows as every key type (pp_geog's
-- longitude and latitude for geography, a point cube in [0, 100)^3 drawn as pp_set's), for the
-- joins of a small outer side against a large indexed table (q21-q25, q07).
SELECT NOT EXISTS (SELECT FROM pg_class WHERE relname = 'pp_few' AND relkind = 'r')
       AS make_few \gset
\if :make_few
SELECT setseed(0.6);
CREATE TABLE pp_few AS
  SELECT id, v, p, g, ST_SetSRID(ST_MakePoint(5 + x / 100, 45 + y / 100), 4326)::geography AS geog,
         cube(ARRAY[random() * 100, random() * 100, random() * 100]) AS c
  FROM pp_places_b WHERE id % greatest(:n / 300, 1) = 0 ORDER BY id LIMIT 300;
ALTER TABLE pp_few ADD PRIMARY KEY (id);
VACUUM ANALYZE pp_few;
\endif

-- pp_plan(query): the plan's text (EXPLAIN, COSTS OFF) with the session's settings.
CREATE FUNCTION pg_temp.pp_plan(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  line text;
  plan text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN plan;
END $$;

SET statement_timeout = :'timeout';
SET simjoin.explain_machine_details = on;
SELECT current_setting('server_version') AS v_server, current_setting('shared_buffers') AS v_sb,
       current_setting('work_mem') AS v_wm, current_setting('jit') AS v_jit,
       current_setting('max_parallel_workers_per_gather') AS v_par,
       (SELECT extversion FROM pg_extension WHERE extname = 'simjoin') AS v_simjoin,
       (SELECT count(*) FROM pp_places) AS v_n, (SELECT count(*) FROM pp_cos) AS v_ncos \gset
\echo PANEL meta server_version :v_server
\echo PANEL meta shared_buffers :v_sb
\echo PANEL meta work_mem :v_wm
\echo PANEL meta jit :v_jit
\echo PANEL meta max_parallel_workers_per_gather :v_par
\echo PANEL meta simjoin_version :v_simjoin
\echo PANEL meta n :v_n
\echo PANEL meta ncos :v_ncos
\echo PANEL meta rounds :rounds
\echo PANEL meta timeout :timeout

-- ---------------------------------------------------------------------------------------------
-- The queries. q: the timed statement (no trailing semicolon; one row with a column n, and h
-- for row hashes); setup: statements run before each timed run (untimed); vq / vo: the check
-- used where PostgreSQL's plan reaches the timeout.

\set qid q01
\set title 'float8[] self-join count, a.v <-> b.v <= 2 (README form)'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places b ON a.v <-> b.v <= 2'
\set vq :q
\set vo 'SELECT count(*) AS n FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2)'
\ir planner_panel/query.sql

\set qid q02
\set title 'float8[] self-join, all pairs with distances (count + row hashes)'
\set q 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id, a.v <-> b.v AS d FROM pp_places a JOIN pp_places b ON a.v <-> b.v <= 2) r'
\set vq :q
\set vo 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id, ST_Distance(a.g, b.g) AS d FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2)) r'
\ir planner_panel/query.sql

\set qid q03
\set title 'two tables, same country and a.v <-> b.v <= 2, count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON a.country = b.country AND a.v <-> b.v <= 2'
\ir planner_panel/query.sql

\set qid q04
\set title 'cube self-join, b.c <@ cube_enlarge(a.c, 1.5, 3) AND a.c <-> b.c <= 1.5 (GiST), count'
\set q 'SELECT count(*) AS n FROM pp_set a JOIN pp_set b ON b.c <@ cube_enlarge(a.c, 1.5, 3) AND a.c <-> b.c <= 1.5'
\ir planner_panel/query.sql

\set qid q05
\set title 'point, two tables, b.p <@ circle(a.p, 2) AND a.p <-> b.p <= 2 (GiST), count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON b.p <@ circle(a.p, 2) AND a.p <-> b.p <= 2'
\ir planner_panel/query.sql

\set qid q06
\set title 'PostGIS self-join, ST_DWithin(a.g, b.g, 2) (GiST), count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2)'
\ir planner_panel/query.sql

\set qid q07
\set title '300 centres x places, ST_DWithin(ST_Buffer(c.g, 3), p.g, 2) (GiST), count'
\set q 'SELECT count(*) AS n FROM pp_centres c JOIN pp_places p ON ST_DWithin(ST_Buffer(c.g, 3), p.g, 2)'
\ir planner_panel/query.sql

\set qid q08
\set title 'real[] x float8[] (implicit cast), a.vr <-> b.v <= 2, count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON a.vr <-> b.v <= 2'
\set vq :q
\set vo 'SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON ST_DWithin(a.g, b.g, 2)'
\ir planner_panel/query.sql

\set qid q09
\set title 'nearest shop per home within 30: DISTINCT ON (h.id) ... ORDER BY h.id, d (rows + hashes)'
\set q 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT DISTINCT ON (h.id) h.id AS home, s.id AS shop, h.v <-> s.v AS d FROM pp_places h JOIN pp_shops s ON h.v <-> s.v <= 30 ORDER BY h.id, d, s.id) r'
\ir planner_panel/query.sql

\set qid q10
\set title 'PostGIS self-join, each pair once: ST_DWithin(a.g, b.g, 2) AND a.id < b.id (pairs + hashes)'
\set q 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2) AND a.id < b.id) r'
\ir planner_panel/query.sql

\set qid q11
\set title 'generic plan: PREPARE ... ST_DWithin(a.g, b.g, $1), force_generic_plan, EXECUTE (2), count'
\set setup 'SET plan_cache_mode = force_generic_plan; DEALLOCATE ALL; PREPARE pp_generic(float8) AS SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON ST_DWithin(a.g, b.g, $1);'
\set q 'EXECUTE pp_generic(2)'
\ir planner_panel/query.sql
RESET plan_cache_mode;
DEALLOCATE ALL;

\set qid q12
\set title 'LEFT JOIN neighbour count per place, ST_DWithin(a.g, b.g, 2) (rows + hashes)'
\set q 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id, count(b.id) AS neighbours FROM pp_places a LEFT JOIN pp_places_b b ON ST_DWithin(a.g, b.g, 2) GROUP BY a.id) r'
\ir planner_panel/query.sql

\set qid q13
\set title 'EXISTS (semi-join): places with a neighbour in the other table within 2, count'
\set q 'SELECT count(*) AS n FROM pp_places a WHERE EXISTS (SELECT FROM pp_places_b b WHERE ST_DWithin(a.g, b.g, 2))'
\ir planner_panel/query.sql

\set qid q14
\set title 'NOT EXISTS (anti-join): places without a neighbour in the other table within 2, count'
\set q 'SELECT count(*) AS n FROM pp_places a WHERE NOT EXISTS (SELECT FROM pp_places_b b WHERE ST_DWithin(a.g, b.g, 2))'
\ir planner_panel/query.sql

\set qid q15
\set title 'per-row radius: 300 zones x places, p.v <-> z.v <= z.radius, count'
\set q 'SELECT count(*) AS n FROM pp_zones z JOIN pp_places p ON p.v <-> z.v <= z.radius'
\ir planner_panel/query.sql

\set qid q16
\set title 'cosine a.v <=> b.v <= 0.05, 100-D, ncos rows (self-join count)'
\set q 'SELECT count(*) AS n FROM pp_cos a JOIN pp_cos b ON a.v <=> b.v <= 0.05'
-- the check: the pairs of the first 500 rows with all rows, both plans
\set vq 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id, a.v <=> b.v AS d FROM pp_cos a JOIN pp_cos b ON a.v <=> b.v <= 0.05 WHERE a.id <= 500) r'
\set vo :vq
\ir planner_panel/query.sql

\set qid q17
\set title 'scaled distance: (a.v <-> b.v) * 1000 <= 2000, float8[] self-join, count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places b ON (a.v <-> b.v) * 1000 <= 2000'
\set vq :q
\set vo 'SELECT count(*) AS n FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2)'
\ir planner_panel/query.sql

\set qid q18
\set title 'float8[] self-join, each pair once: a.v <-> b.v <= 2 AND a.id < b.id (pairs + hashes)'
\set q 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id FROM pp_places a JOIN pp_places b ON a.v <-> b.v <= 2 AND a.id < b.id) r'
\set vq :q
\set vo 'SELECT count(*) AS n, sum(hashtext(r::text)) AS h FROM (SELECT a.id AS a_id, b.id AS b_id FROM pp_places a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2) AND a.id < b.id) r'
\ir planner_panel/query.sql

\set qid q19
\set title 'PostGIS geography self-join, ST_DWithin(a.g, b.g, 1000) (GiST, metres on WGS84), count'
\set q 'SELECT count(*) AS n FROM pp_geog a JOIN pp_geog b ON ST_DWithin(a.g, b.g, 1000)'
\ir planner_panel/query.sql

\set qid q20
\set title 'polygons x points: ST_DWithin(ST_Buffer(a.g, 0.5, 2), b.g, 1) (bounding boxes; GiST on b.g), count'
\set q 'SELECT count(*) AS n FROM pp_places a JOIN pp_places_b b ON ST_DWithin(ST_Buffer(a.g, 0.5, 2), b.g, 1)'
\ir planner_panel/query.sql

-- A small outer side against a large indexed table, every key type (q07: buffered polygons).
\set qid q21
\set title 'small side: 300 points x n, ST_DWithin(a.g, b.g, 2) (GiST on b.g), count'
\set q 'SELECT count(*) AS n FROM pp_few a JOIN pp_places b ON ST_DWithin(a.g, b.g, 2)'
\ir planner_panel/query.sql

\set qid q22
\set title 'small side: 300 points x n, b.p <@ circle(a.p, 2) AND a.p <-> b.p <= 2 (GiST on b.p), count'
\set q 'SELECT count(*) AS n FROM pp_few a JOIN pp_places b ON b.p <@ circle(a.p, 2) AND a.p <-> b.p <= 2'
\ir planner_panel/query.sql

\set qid q23
\set title 'small side: 300 cubes x n, b.c <@ cube_enlarge(a.c, 1.5, 3) AND a.c <-> b.c <= 1.5 (GiST on b.c), count'
\set q 'SELECT count(*) AS n FROM pp_few a JOIN pp_set b ON b.c <@ cube_enlarge(a.c, 1.5, 3) AND a.c <-> b.c <= 1.5'
\ir planner_panel/query.sql

\set qid q24
\set title 'small side: 300 x n geography, ST_DWithin(a.geog, b.g, 1000) (GiST on b.g), count'
\set q 'SELECT count(*) AS n FROM pp_few a JOIN pp_geog b ON ST_DWithin(a.geog, b.g, 1000)'
\ir planner_panel/query.sql

\set qid q25
\set title 'small side: 300 x n float8[], a.v <-> b.v <= 2 (no index), count'
\set q 'SELECT count(*) AS n FROM pp_few a JOIN pp_places b ON a.v <-> b.v <= 2'
\ir planner_panel/query.sql

RESET statement_timeout;
\echo PANEL done
