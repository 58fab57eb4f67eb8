-- The k nearest places on PostGIS geography (GeoNames, 199,568 places; metres on the spheroid):
--  1. similarity_knn_join() on every place against PostGIS's KNN LATERAL on a GiST index
--     (ORDER BY a.g <-> b.g: PostGIS's index order, distances on its sphere);
--  2. the LATERAL query ordered by ST_Distance (the spheroid, which no index serves) for q query
--     places: the SimJoin Nearest Scan against PostgreSQL's own plan (simjoin.enable_nearest_scan
--     off: a sequential scan and a sort per query place), the same rows;
--  3. the nearest other place within a radius: the function against PostGIS's KNN LATERAL.
--   psql -X -f bench/sql/knn_geography.sql     (from the repository's root; needs postgis)
-- Optional: -v k=K (default 5), -v q=Q (query places of 2., default 100), -v radius=R (metres
-- of 3., default 50000).
\set ON_ERROR_STOP 1
\if :{?k}
\else
\set k 5
\endif
\if :{?q}
\else
\set q 100
\endif
\if :{?radius}
\else
\set radius 50000
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS simjoin;
RESET client_min_messages;
SET jit = off;
LOAD 'simjoin';
DROP TABLE IF EXISTS kg_cities, kg_places, kg_queries;
CREATE TABLE kg_cities (geonameid int, name text, country text, latitude float8,
                        longitude float8, elevation_m int, population bigint);
\copy kg_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
CREATE TABLE kg_places AS
  SELECT geonameid AS id, ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS g
  FROM kg_cities;
DROP TABLE kg_cities;
ALTER TABLE kg_places ADD PRIMARY KEY (id);
CREATE INDEX ON kg_places USING gist (g);
CREATE TABLE kg_queries AS SELECT id, g FROM kg_places ORDER BY md5(id::text) LIMIT :q;
VACUUM ANALYZE kg_places;
ANALYZE kg_queries;
SELECT (SELECT count(*) FROM kg_places) AS places, (SELECT count(*) FROM kg_queries) AS queries,
       :k AS k, :radius AS radius_m;

\timing on
\echo 1. similarity_knn_join: the k nearest of every place (itself first, at 0), three runs
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kg_places', 'kg_places', :k);
DROP TABLE fn_k;
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kg_places', 'kg_places', :k);
DROP TABLE fn_k;
CREATE TEMP TABLE fn_k AS SELECT * FROM similarity_knn_join('kg_places', 'kg_places', :k);
\echo 1. PostGIS: KNN LATERAL on the GiST index (<->: its sphere)
CREATE TEMP TABLE gis_k AS
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance,
         (row_number() OVER (PARTITION BY a.id ORDER BY n.d, n.id))::int AS rank
  FROM kg_places a CROSS JOIN LATERAL (
    SELECT b.id, a.g <-> b.g AS d FROM kg_places b ORDER BY a.g <-> b.g LIMIT :k) n;
\echo 2. LATERAL ORDER BY ST_Distance for the query places: the Nearest Scan, three runs
-- (its cache, 199,568 x (3 x 8 + 24) bytes, is offered within work_mem only)
SET work_mem = '64MB';
\timing off
EXPLAIN (COSTS OFF) SELECT q.id, n.id FROM kg_queries q
  CROSS JOIN LATERAL (SELECT b.id, ST_Distance(q.g, b.g) AS d FROM kg_places b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT :k) n;
\timing on
CREATE TEMP TABLE ns_on AS SELECT q.id AS left_id, n.id AS right_id, n.d FROM kg_queries q
  CROSS JOIN LATERAL (SELECT b.id, ST_Distance(q.g, b.g) AS d FROM kg_places b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT :k) n;
DROP TABLE ns_on;
CREATE TEMP TABLE ns_on AS SELECT q.id AS left_id, n.id AS right_id, n.d FROM kg_queries q
  CROSS JOIN LATERAL (SELECT b.id, ST_Distance(q.g, b.g) AS d FROM kg_places b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT :k) n;
DROP TABLE ns_on;
CREATE TEMP TABLE ns_on AS SELECT q.id AS left_id, n.id AS right_id, n.d FROM kg_queries q
  CROSS JOIN LATERAL (SELECT b.id, ST_Distance(q.g, b.g) AS d FROM kg_places b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT :k) n;
\echo 2. the same with simjoin.enable_nearest_scan off: the plan of PostgreSQL
SET simjoin.enable_nearest_scan = off;
CREATE TEMP TABLE ns_off AS SELECT q.id AS left_id, n.id AS right_id, n.d FROM kg_queries q
  CROSS JOIN LATERAL (SELECT b.id, ST_Distance(q.g, b.g) AS d FROM kg_places b
                      ORDER BY ST_Distance(q.g, b.g) LIMIT :k) n;
RESET simjoin.enable_nearest_scan;
RESET work_mem;
\echo 3. similarity_knn_join: the nearest other place within the radius, three runs
CREATE TEMP TABLE fn_1 AS SELECT * FROM
  similarity_knn_join('kg_places', 'kg_places', 1, :radius, include_self => false);
DROP TABLE fn_1;
CREATE TEMP TABLE fn_1 AS SELECT * FROM
  similarity_knn_join('kg_places', 'kg_places', 1, :radius, include_self => false);
DROP TABLE fn_1;
CREATE TEMP TABLE fn_1 AS SELECT * FROM
  similarity_knn_join('kg_places', 'kg_places', 1, :radius, include_self => false);
\echo 3. PostGIS: KNN LATERAL with ST_DWithin on the GiST index
CREATE TEMP TABLE gis_1 AS
  SELECT a.id AS left_id, n.id AS right_id, n.d AS distance
  FROM kg_places a CROSS JOIN LATERAL (
    SELECT b.id, ST_Distance(a.g, b.g) AS d FROM kg_places b
    WHERE b.id <> a.id AND ST_DWithin(a.g, b.g, :radius)
    ORDER BY a.g <-> b.g LIMIT 1) n;
\timing off
-- 1: PostGIS orders by its sphere, the function by the spheroid (ST_Distance): the pairs differ
-- where the two orders differ; each function row's distance is checked against ST_Distance.
\echo 1. rows, pairs in one result only, function distances unequal to ST_Distance
SELECT (SELECT count(*) FROM fn_k) AS function_rows, (SELECT count(*) FROM gis_k) AS postgis_rows,
       (SELECT count(*) FROM (SELECT left_id, right_id FROM fn_k EXCEPT ALL
                              SELECT left_id, right_id FROM gis_k) x) AS pairs_only_function,
       (SELECT count(*) FROM fn_k f JOIN kg_places a ON a.id = f.left_id
          JOIN kg_places b ON b.id = f.right_id
        WHERE ST_Distance(a.g, b.g) <> f.distance) AS distances_unequal;
-- 2: the same query (ties: which tied place is kept is open), so (place, distance) are compared.
\echo 2. rows, (query, distance) in one plan only
SELECT (SELECT count(*) FROM ns_on) AS rows_scan, (SELECT count(*) FROM ns_off) AS rows_native,
       (SELECT count(*) FROM (SELECT left_id, d FROM ns_on EXCEPT ALL
                              SELECT left_id, d FROM ns_off) x) AS only_scan,
       (SELECT count(*) FROM (SELECT left_id, d FROM ns_off EXCEPT ALL
                              SELECT left_id, d FROM ns_on) x) AS only_native;
\echo 3. rows, (place, distance) in one result only
SELECT (SELECT count(*) FROM fn_1) AS function_rows, (SELECT count(*) FROM gis_1) AS postgis_rows,
       (SELECT count(*) FROM (SELECT left_id, distance FROM fn_1 EXCEPT ALL
                              SELECT left_id, distance FROM gis_1) x) AS only_function,
       (SELECT count(*) FROM (SELECT left_id, distance FROM gis_1 EXCEPT ALL
                              SELECT left_id, distance FROM fn_1) x) AS only_postgis;
DROP TABLE kg_places, kg_queries;
