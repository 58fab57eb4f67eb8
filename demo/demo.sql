-- The demo: every pair of GeoNames places (cities500: 199,568 places with 500+ inhabitants)
-- that lie within 2 km of each other, found by similarity_join on 3-D positions in km.
\set ON_ERROR_STOP on
\pset footer off
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE TABLE places (geonameid bigint PRIMARY KEY, name text, country text, latitude float8,
                     longitude float8, elevation_m int, population bigint);
\copy places FROM PROGRAM 'gzip -dc demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
-- Earth-centred coordinates in km: the straight-line (chord) distance, within 0.01% of the
-- great-circle distance at these scales.
ALTER TABLE places ADD COLUMN position float8[];
UPDATE places SET position = ARRAY[
  6371.0 * cosd(latitude) * cosd(longitude),
  6371.0 * cosd(latitude) * sind(longitude),
  6371.0 * sind(latitude)];
SELECT count(*) AS places FROM places;
SELECT gpu_available, detail FROM simjoin_device_info();

\echo
\echo 'Pairs of distinct places within 2 km (each pair once), with simjoin.explain on:'
SET simjoin.explain = on;
\timing on
CREATE TABLE close_pairs AS
  SELECT * FROM similarity_join('places', 'places', 2.0, unique_pairs => true);
\timing off
RESET simjoin.explain;
SELECT count(*) AS pairs_within_2_km FROM close_pairs;

\echo
\echo 'The closest pairs of places in different countries:'
SELECT a.name || ' (' || a.country || ')' AS place, b.name || ' (' || b.country || ')' AS neighbour,
       round(p.distance::numeric * 1000) AS metres
FROM close_pairs p JOIN places a ON a.geonameid = p.left_id JOIN places b ON b.geonameid = p.right_id
WHERE a.country <> b.country
ORDER BY p.distance, 1 LIMIT 8;

\echo
\echo 'Places with the most neighbours within 2 km:'
SELECT a.name, a.country, count(*) AS neighbours
FROM (SELECT left_id AS id FROM close_pairs UNION ALL SELECT right_id FROM close_pairs) n
JOIN places a ON a.geonameid = n.id
GROUP BY a.geonameid, a.name, a.country ORDER BY neighbours DESC, a.name LIMIT 5;
