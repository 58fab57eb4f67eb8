-- The k nearest places of every place (GeoNames, 199,568 places) as 3-D points on the sphere in
-- km: similarity_knn_join() against PostGIS's KNN LATERAL query on an n-D GiST index, the same
-- rows (pairs and ranks; distances to the last bits, see below).
--   psql -X -f bench/sql/knn_places.sql        (from the repository's root; needs postgis)
-- Optional: -v k=K (default 5), -v radius=R (km, default 50: the nearest other place within R).
-- x, y, z = 6371 (cos lat cos lon, cos lat sin lon, sin lat): the chord distance in km.
\set ON_ERROR_STOP 1
\if :{?k}
\else
\set k 5
\endif
\if :{?radius}
\else
\set radius 50
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS simjoin;
RESET client_min_messages;
SET jit = off;
DROP TABLE IF EXISTS kp_cities, kp_places;
CREATE TABLE kp_cities (geonameid int, name text, country text, latitude float8,
                        longitude float8, elevation_m int, population bigint);
\copy kp_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
CREATE TABLE kp_places AS
  SELECT geonameid AS id, ARRAY[x, y, z] AS v, ST_MakePoint(x, y, z) AS g
  FROM (SELECT geonameid, 6371 * cos(radians(latitude)) * cos(radians(longitude)) AS x,
               6371 * cos(radians(latitude)) * sin(radians(longitude)) AS y,
               6371 * sin(radians(latitude)) AS z FROM kp_cities) s;
DROP TABLE kp_cities;
ALTER TABLE kp_places ADD PRIMARY KEY (id);
CREATE INDEX ON kp_places USING gist (g gist_geometry_ops_nd);
VACUUM ANALYZE kp_places;
SELECT count(*) AS places, :k AS k, :radius AS radius_km FROM kp_places;

\timing on
\echo similarity_knn_join: the k nearest of every place (itself first, at 0), three runs
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kp_places', 'kp_places', :k);
DROP TABLE fn_k;
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kp_places', 'kp_places', :k);
DROP TABLE fn_k;
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kp_places', 'kp_places', :k);
\echo PostGIS: KNN LATERAL on the n-D GiST index
CREATE TEMP TABLE gis_k AS
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance,
         (row_number() OVER (PARTITION BY a.id ORDER BY n.d, n.id))::int AS rank
  FROM kp_places a CROSS JOIN LATERAL (
    SELECT b.id, a.g <<->> b.g AS d FROM kp_places b ORDER BY a.g <<->> b.g LIMIT :k) n;
\echo similarity_knn_join: the nearest other place within the radius, three runs
CREATE TEMP TABLE fn_1 AS
  SELECT * FROM similarity_knn_join('kp_places', 'kp_places', 1, :radius, include_self => false);
DROP TABLE fn_1;
CREATE TEMP TABLE fn_1 AS
  SELECT * FROM similarity_knn_join('kp_places', 'kp_places', 1, :radius, include_self => false);
DROP TABLE fn_1;
CREATE TEMP TABLE fn_1 AS
  SELECT * FROM similarity_knn_join('kp_places', 'kp_places', 1, :radius, include_self => false);
\echo PostGIS: KNN LATERAL, the nearest other place within the radius
CREATE TEMP TABLE gis_1 AS
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance, 1 AS rank
  FROM kp_places a CROSS JOIN LATERAL (
    SELECT b.id, a.g <<->> b.g AS d FROM kp_places b
    WHERE b.id <> a.id AND ST_3DDWithin(a.g, b.g, :radius)
    ORDER BY a.g <<->> b.g LIMIT 1) n;
\timing off
-- Pairs and ranks: the same except where PostGIS's order is not fixed (equal distances: its
-- LIMIT keeps any of them, the function the smaller key), so each left row's distances by rank
-- are compared too (to 1e-6 km: PostGIS computes the 3-D distance in its own code, the function
-- as simjoin's <-> does; the largest difference is shown).
\echo k nearest: pairs in one result only, (rank, distance) in one only, max |distance difference|
SELECT (SELECT count(*) FROM (SELECT left_id, right_id, rank FROM fn_k EXCEPT ALL
                              SELECT left_id, right_id, rank FROM gis_k) x) AS pairs_only_function,
       (SELECT count(*) FROM (SELECT left_id, right_id, rank FROM gis_k EXCEPT ALL
                              SELECT left_id, right_id, rank FROM fn_k) x) AS pairs_only_postgis,
       (SELECT count(*) FROM (SELECT left_id, rank, round(distance::numeric, 6) FROM fn_k EXCEPT ALL
                              SELECT left_id, rank, round(distance::numeric, 6) FROM gis_k) x) AS distances_only_function,
       (SELECT count(*) FROM (SELECT left_id, rank, round(distance::numeric, 6) FROM gis_k EXCEPT ALL
                              SELECT left_id, rank, round(distance::numeric, 6) FROM fn_k) x) AS distances_only_postgis,
       (SELECT max(abs(f.distance - g.distance)) FROM fn_k f JOIN gis_k g USING (left_id, rank)) AS max_difference,
       (SELECT count(*) FROM fn_k) AS function_rows, (SELECT count(*) FROM gis_k) AS postgis_rows;
\echo nearest other within the radius: the same
SELECT (SELECT count(*) FROM (SELECT left_id, right_id FROM fn_1 EXCEPT ALL
                              SELECT left_id, right_id FROM gis_1) x) AS pairs_only_function,
       (SELECT count(*) FROM (SELECT left_id, right_id FROM gis_1 EXCEPT ALL
                              SELECT left_id, right_id FROM fn_1) x) AS pairs_only_postgis,
       (SELECT count(*) FROM (SELECT left_id, round(distance::numeric, 6) FROM fn_1 EXCEPT ALL
                              SELECT left_id, round(distance::numeric, 6) FROM gis_1) x) AS distances_only_function,
       (SELECT count(*) FROM (SELECT left_id, round(distance::numeric, 6) FROM gis_1 EXCEPT ALL
                              SELECT left_id, round(distance::numeric, 6) FROM fn_1) x) AS distances_only_postgis,
       (SELECT count(*) FROM fn_1) AS function_rows, (SELECT count(*) FROM gis_1) AS postgis_rows;
DROP TABLE kp_places;
