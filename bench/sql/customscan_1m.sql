-- SimilarityJoin custom scan vs PostgreSQL's best native plan on large tables.
--   psql -v set=places   -f bench/sql/customscan_1m.sql   2-D places: GeoNames cities500 x 5
--   psql -v set=uniform3 -f bench/sql/customscan_1m.sql   3-D uniform points, cube
--   psql -v set=cluster16 -f bench/sql/customscan_1m.sql  16-D clustered points, cube
-- Run from the repository's root (places reads demo/data/cities500.csv.gz with \copy).
-- Optional: -v n=N (rows; places: copies of each place instead, default 5), -v eps=E,
-- -v native=off (skip PostgreSQL's own plan), -v custom=off, -v keep=on (keep the table),
-- -v pairs=off (count(*) only, no "all pairs" queries), -v analyze=on (EXPLAIN ANALYZE of the
-- custom scan's count(*) queries with the engine's phases, after the timed runs).
-- Needs: simjoin, cube, postgis (places only). Every query runs with work_mem 256MB and no JIT;
-- PostgreSQL may use its default 2 parallel workers (its best plan here). Native queries stop
-- at statement_timeout 600 s. The custom scan's queries run three times, the native ones once.
-- count(*) and "all pairs" (every pair with both rows' columns, COPY ... TO '/dev/null' on the
-- server) are timed; the counts of both plans are printed side by side.
\set ON_ERROR_STOP 0
\if :{?set}
\else
\set set places
\endif
\if :{?native}
\else
\set native on
\endif
\if :{?custom}
\else
\set custom on
\endif
\if :{?keep}
\else
\set keep off
\endif
\if :{?pairs}
\else
\set pairs on
\endif
\if :{?analyze}
\else
\set analyze off
\endif
SELECT :'set' = 'places' AS is_places, :'set' = 'uniform3' AS is_uniform3,
       :'set' = 'cluster16' AS is_cluster16,
       :'set' IN ('places', 'uniform3', 'cluster16') AS known_set,
       CASE :'set' WHEN 'places' THEN 5 ELSE 1000000 END AS default_n,
       CASE :'set' WHEN 'cluster16' THEN 0.4 ELSE 1 END AS default_eps,
       CASE :'set' WHEN 'places' THEN 2 WHEN 'uniform3' THEN 3 ELSE 16 END AS dim \gset
\if :known_set
\else
  \echo 'set must be places, uniform3 or cluster16'
  \quit
\endif
\if :{?n}
\else
  \set n :default_n
\endif
\if :{?eps}
\else
  \set eps :default_eps
\endif

LOAD 'simjoin';
SET jit = off;
SET work_mem = '256MB';
SET maintenance_work_mem = '1GB';
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE EXTENSION IF NOT EXISTS cube;
SELECT setseed(0.5);

\if :is_places
\i bench/sql/include/places_data.sql
\elif :is_uniform3
-- Uniform points in [0,100]^3 (about 4/3 pi eps^3 other points within eps of each).
DROP TABLE IF EXISTS bm_data;
CREATE TABLE bm_data AS
  SELECT i AS id, cube(p) AS c, p AS v
  FROM (SELECT i, ARRAY[random() * 100, random() * 100, random() * 100]::float8[] AS p
        FROM generate_series(1, :n) i) s;
CREATE INDEX ON bm_data USING gist (c);
\else
-- Clusters of 100 points in 16-D: centres uniform in [0,100]^16, each coordinate of a point its
-- centre's plus a normal deviate of sd 0.1 (Box-Muller). Within a cluster d^2 = 0.02 chi^2_16,
-- so about 4% of a point's cluster lies within eps 0.4; clusters are far apart.
DROP TABLE IF EXISTS bm_centres, bm_data;
CREATE TABLE bm_centres AS
  SELECT j, ARRAY(SELECT random() * 100 FROM generate_series(1, :dim) WHERE j >= 0)::float8[] AS m
  FROM generate_series(0, (:n - 1) / 100) j;
CREATE TABLE bm_data AS
  SELECT i AS id, cube(p) AS c, p AS v
  FROM (SELECT i, ARRAY(SELECT m[d] + 0.1 * sqrt(-2 * ln(1 - random()))
                                          * cos(2 * pi() * random())
                        FROM generate_series(1, :dim) d)::float8[] AS p
        FROM generate_series(1, :n) i JOIN bm_centres ON j = (i - 1) / 100) s;
DROP TABLE bm_centres;
CREATE INDEX ON bm_data USING gist (c);
\endif
VACUUM ANALYZE bm_data;
SELECT count(*) AS rows, :dim AS dim, :eps AS eps FROM bm_data;

-- The join condition: PostGIS ST_DWithin for places, cube's <-> with the GiST-indexable
-- cube_enlarge clause for the cube sets; also simjoin's float8[] <-> (custom scan only: without
-- an index PostgreSQL has only a nested loop over all pairs).
\if :is_places
\set cond 'ST_DWithin(a.g, b.g, ' :eps ')'
\else
\set cond 'cube_enlarge(a.c, ' :eps ', ' :dim ') @> b.c AND a.c <-> b.c <= ' :eps
\endif
\set cond_v 'a.v <-> b.v <= ' :eps

\if :custom
\echo '== custom scan, count(*), ' :cond
SET simjoin.enable_customscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bm_data a JOIN bm_data b ON :cond;
\timing on
SELECT count(*) AS custom_count FROM bm_data a JOIN bm_data b ON :cond;
SELECT count(*) AS custom_count FROM bm_data a JOIN bm_data b ON :cond;
SELECT count(*) AS custom_count FROM bm_data a JOIN bm_data b ON :cond \gset
\timing off
\if :pairs
\echo '== custom scan, all pairs with both rows'' columns'
\timing on
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond) TO '/dev/null';
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond) TO '/dev/null';
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond) TO '/dev/null';
\timing off
\endif
\echo '== custom scan, count(*), ' :cond_v
EXPLAIN (COSTS OFF) SELECT count(*) FROM bm_data a JOIN bm_data b ON :cond_v;
\timing on
SELECT count(*) AS custom_v_count FROM bm_data a JOIN bm_data b ON :cond_v;
SELECT count(*) AS custom_v_count FROM bm_data a JOIN bm_data b ON :cond_v;
SELECT count(*) AS custom_v_count FROM bm_data a JOIN bm_data b ON :cond_v \gset
\if :pairs
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond_v) TO '/dev/null';
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond_v) TO '/dev/null';
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond_v) TO '/dev/null';
\endif
\timing off
\if :analyze
SET simjoin.explain_machine_details = on;
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM bm_data a JOIN bm_data b ON :cond;
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM bm_data a JOIN bm_data b ON :cond_v;
RESET simjoin.explain_machine_details;
\endif
RESET simjoin.enable_customscan;
\endif

\if :native
\echo '== PostgreSQL''s own plan, count(*), ' :cond
SET simjoin.enable_customscan = off;
SET statement_timeout = '600s';
EXPLAIN (COSTS OFF) SELECT count(*) FROM bm_data a JOIN bm_data b ON :cond;
\timing on
SELECT count(*) AS native_count FROM bm_data a JOIN bm_data b ON :cond \gset
\timing off
\if :pairs
\echo '== PostgreSQL''s own plan, all pairs with both rows'' columns'
EXPLAIN (COSTS OFF) SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond;
\timing on
COPY (SELECT a.*, b.* FROM bm_data a JOIN bm_data b ON :cond) TO '/dev/null';
\timing off
\endif
RESET statement_timeout;
RESET simjoin.enable_customscan;
\endif

\if :custom
\if :native
SELECT :custom_count AS custom_count, :custom_v_count AS custom_v_count,
       :native_count AS native_count,
       :custom_count = :native_count AND :custom_v_count = :native_count AS counts_equal;
\endif
\endif
\if :keep
\else
DROP TABLE bm_data;
\endif
