-- The places set of the 1M-row benchmarks (customscan_1m.sql, aggregates_group_by.sql), in
-- bm_data: columns id, name, country, x, y, v (float8[] {x, y}) and g (PostGIS point, GiST index).
-- Needs postgis and psql's variable n (copies of each place). Run from the repository's root.
-- Places: every GeoNames place n times (copy 0 as is, the others moved by up to 0.5 km in x
-- and y), on a sinusoidal projection in km (x = R lon cos(lat), y = R lat, R = 6371).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
DROP TABLE IF EXISTS bm_cities, bm_data;
CREATE TABLE bm_cities (geonameid int, name text, country text, latitude float8,
                        longitude float8, elevation_m int, population bigint);
\copy bm_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
CREATE TABLE bm_data AS
  SELECT row_number() OVER () AS id, name, country, x, y, ARRAY[x, y]::float8[] AS v,
         ST_MakePoint(x, y) AS g
  FROM (SELECT name, country,
               6371 * radians(longitude) * cos(radians(latitude))
                 + CASE WHEN k = 0 THEN 0 ELSE random() - 0.5 END AS x,
               6371 * radians(latitude) + CASE WHEN k = 0 THEN 0 ELSE random() - 0.5 END AS y
        FROM bm_cities, generate_series(0, :n - 1) k ORDER BY k, geonameid) s;
DROP TABLE bm_cities;
CREATE INDEX ON bm_data USING gist (g);
