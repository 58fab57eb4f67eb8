-- simjoin_cluster_dbscan vs PostGIS's ST_ClusterDBSCAN(g, eps, min_points) OVER () on real 2-D
-- points: GeoNames cities500 (demo/data/cities500.csv.gz, 199,568 places) n times (copy 0 as
-- is, the others moved by uniform jitter in [-0.5, 0.5] km in x and y), on a sinusoidal
-- projection in km (x = R lon cos(lat), y = R lat, R = 6371), as bench/sql/customscan_1m.sql
-- makes its places.
--   psql -v n=2 -v eps=1 -v min_points=5 -f bench/sql/dbscan_postgis.sql
-- Run from the repository's root. Defaults: n 2 (399,136 points), eps 1 (km), min_points 5;
-- -v native=off skips ST_ClusterDBSCAN (it stops at statement_timeout, -v timeout=600000 ms).
-- Both run in this one session, on the same table; simjoin three times (the median counts),
-- ST_ClusterDBSCAN once. Then the results are compared as test/sql/dbscan_postgis.sql does: the
-- same noise rows, the same core rows (at least min_points rows within eps by ST_DWithin,
-- counted with PostgreSQL's own plan), the same partition of the core rows, and each border row,
-- in both results, in the cluster of one of its core neighbours.
\set ON_ERROR_STOP 0
\if :{?n}
\else
\set n 2
\endif
\if :{?eps}
\else
\set eps 1
\endif
\if :{?min_points}
\else
\set min_points 5
\endif
\if :{?native}
\else
\set native on
\endif
\if :{?timeout}
\else
\set timeout 600000
\endif
SET jit = off;
SET work_mem = '256MB';
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
SELECT setseed(0.5);
DROP TABLE IF EXISTS bm_cities, bm_dbscan, bm_ours, bm_theirs, bm_counts, bm_border_cores;
CREATE TABLE bm_cities (geonameid int, name text, country text, latitude float8,
                        longitude float8, elevation_m int, population bigint);
\copy bm_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
CREATE TABLE bm_dbscan AS
  SELECT row_number() OVER () AS id, ST_MakePoint(x, y) AS g
  FROM (SELECT 6371 * radians(longitude) * cos(radians(latitude))
                 + CASE WHEN k = 0 THEN 0 ELSE random() - 0.5 END AS x,
               6371 * radians(latitude) + CASE WHEN k = 0 THEN 0 ELSE random() - 0.5 END AS y
        FROM bm_cities, generate_series(0, :n - 1) k ORDER BY k, geonameid) s;
DROP TABLE bm_cities;
ALTER TABLE bm_dbscan ADD PRIMARY KEY (id);
CREATE INDEX ON bm_dbscan USING gist (g);
VACUUM ANALYZE bm_dbscan;
SELECT count(*) AS points, :eps AS eps_km, :min_points AS min_points FROM bm_dbscan;

-- Seconds of one statement, measured on the server.
CREATE OR REPLACE FUNCTION pg_temp.seconds_of(statement text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE statement;
  RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric, 3);
END $$;
CREATE TEMP TABLE bm_times (plan text, run int, seconds float8);
-- Both write their rows into a temporary table.
INSERT INTO bm_times SELECT 'simjoin_cluster_dbscan', r, pg_temp.seconds_of(format(
  'DROP TABLE IF EXISTS bm_ours; '
  'CREATE TEMP TABLE bm_ours AS SELECT * FROM simjoin_cluster_dbscan(%L, %L, %s, %s)',
  'bm_dbscan', 'g', :eps, :min_points))
FROM generate_series(1, 3) r;
\if :native
SET statement_timeout = :timeout;
INSERT INTO bm_times SELECT 'ST_ClusterDBSCAN', 1, pg_temp.seconds_of(format(
  'CREATE TEMP TABLE bm_theirs AS SELECT id, ST_ClusterDBSCAN(g, %s, %s) OVER () AS cluster FROM bm_dbscan',
  :eps, :min_points));
RESET statement_timeout;
\endif
SELECT plan, count(*) AS runs, percentile_disc(0.5) WITHIN GROUP (ORDER BY seconds) AS median_s,
       min(seconds) AS min_s, max(seconds) AS max_s FROM bm_times GROUP BY plan ORDER BY plan;
SELECT round(((SELECT seconds FROM bm_times WHERE plan = 'ST_ClusterDBSCAN') /
        (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY seconds) FROM bm_times
         WHERE plan = 'simjoin_cluster_dbscan'))::numeric, 1) AS speedup;
SELECT kind, count(*) AS rows, count(DISTINCT cluster) AS clusters FROM bm_ours GROUP BY kind ORDER BY kind;

\if :native
-- The comparison (PostgreSQL's own plans: the custom scan off).
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE bm_counts AS
  SELECT a.id, count(*) AS neighbours FROM bm_dbscan a JOIN bm_dbscan b ON ST_DWithin(a.g, b.g, :eps)
  GROUP BY a.id;
-- Each border row (of simjoin's result) with its core neighbours.
CREATE TEMP TABLE bm_border_cores AS
  SELECT b.id AS border, c.id AS core
  FROM bm_ours b JOIN bm_dbscan pb USING (id) JOIN bm_dbscan pc ON ST_DWithin(pb.g, pc.g, :eps)
  JOIN bm_ours c ON c.id = pc.id
  WHERE b.kind = 'border' AND c.kind = 'core';
SELECT
  (SELECT count(*) FROM bm_ours o JOIN bm_theirs t USING (id)
    WHERE (o.cluster IS NULL) <> (t.cluster IS NULL)) AS noise_differences,
  (SELECT count(*) FROM bm_ours o JOIN bm_counts c USING (id)
    WHERE (o.kind = 'core') <> (c.neighbours >= :min_points)) AS core_differences,
  (SELECT count(DISTINCT o.cluster) = count(DISTINCT t.cluster)
      AND count(DISTINCT (o.cluster, t.cluster)) = count(DISTINCT o.cluster)
   FROM bm_ours o JOIN bm_theirs t USING (id) WHERE o.kind = 'core') AS same_core_partition,
  (SELECT count(*) FROM bm_ours b WHERE b.kind = 'border' AND b.id NOT IN (
     SELECT n.border FROM bm_border_cores n JOIN bm_ours c ON c.id = n.core JOIN bm_ours bb ON bb.id = n.border
     WHERE c.cluster = bb.cluster)) AS bad_borders_simjoin,
  (SELECT count(*) FROM bm_ours b WHERE b.kind = 'border' AND b.id NOT IN (
     SELECT n.border FROM bm_border_cores n JOIN bm_theirs c ON c.id = n.core JOIN bm_theirs bb ON bb.id = n.border
     WHERE c.cluster = bb.cluster)) AS bad_borders_postgis;
RESET simjoin.enable_customscan;
\endif
DROP TABLE IF EXISTS bm_dbscan, bm_ours, bm_theirs, bm_counts, bm_border_cores;
