-- similarity_join(), similarity_join_stats(), similarity_knn_join() and simjoin_dbscan() on a
-- PostGIS point column (read as (x, y)): each equal to PostGIS's own query on the same points
-- (ST_DWithin, ST_Distance, <->), pairs at exactly eps included, NULL geometries skipped, other
-- geometries and mixed SRIDs refused. Real data: GeoNames places in Switzerland, in km.
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE SCHEMA functions_geometry_test;
SET search_path = functions_geometry_test, public;
SET simjoin.enable_customscan = off;  -- the reference queries are PostGIS's own plans
\i test/sql/include/places_ch.sql
CREATE TABLE pts (id bigint PRIMARY KEY, g geometry);
INSERT INTO pts SELECT geonameid, ST_SetSRID(ST_MakePoint(
    6371 * radians(longitude) * cos(radians(latitude)), 6371 * radians(latitude)), 0) FROM places;
-- A lattice of 0.5 km steps (pairs at exactly 0.5 and 1) and a row without a geometry.
INSERT INTO pts SELECT 10000000 + i * 100 + j, ST_MakePoint(1000 + i * 0.5, j * 0.5)
  FROM generate_series(0, 9) i, generate_series(0, 9) j;
INSERT INTO pts VALUES (1, NULL);
CREATE TABLE towns AS SELECT id AS town, g FROM pts WHERE id % 5 = 0;  -- no key: named below

\i test/sql/include/rows_differ.sql

SELECT count(*) AS pairs, count(*) FILTER (WHERE distance = 1) AS at_eps
FROM similarity_join('pts', 'pts', 1);
SELECT rows_differ($$SELECT * FROM similarity_join('pts', 'pts', 1)$$,
  $$SELECT a.id, b.id, ST_Distance(a.g, b.g) FROM pts a JOIN pts b ON ST_DWithin(a.g, b.g, 1)$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('towns', 'pts', 3, left_key => 'town', unique_pairs => false)$$,
  $$SELECT a.town, b.id, ST_Distance(a.g, b.g) FROM towns a JOIN pts b ON ST_DWithin(a.g, b.g, 3)$$);
SELECT rows_differ($$SELECT * FROM similarity_join_stats('pts', 'pts', 2)$$,
  $$SELECT a.id, count(*), (array_agg(b.id ORDER BY ST_Distance(a.g, b.g), b.id))[1],
           min(ST_Distance(a.g, b.g))
    FROM pts a JOIN pts b ON ST_DWithin(a.g, b.g, 2) GROUP BY a.id
    UNION ALL SELECT 1, 0, NULL, NULL$$);
SELECT rows_differ(
  $$SELECT left_id, right_id, distance, rank
    FROM similarity_knn_join('towns', 'pts', 3, left_key => 'town')$$,
  $$SELECT a.town, n.id, n.d, n.rank FROM towns a CROSS JOIN LATERAL (
      SELECT b.id, ST_Distance(a.g, b.g) AS d,
             row_number() OVER (ORDER BY ST_Distance(a.g, b.g), b.id) AS rank
      FROM pts b WHERE b.g IS NOT NULL ORDER BY a.g <-> b.g, b.id LIMIT 3) n
    WHERE a.g IS NOT NULL$$);
SELECT rows_differ($$SELECT * FROM simjoin_dbscan('pts', 2, 4)$$,
  $$SELECT * FROM simjoin_cluster_dbscan('pts', 'g', 2, 4)$$);

-- A table with a float8[] column and a geometry column: the vectors, unless the geometry is named.
CREATE TABLE both_kinds (id int PRIMARY KEY, v float8[], g geometry);
INSERT INTO both_kinds VALUES (1, '{0, 0}', 'POINT(0 0)'), (2, '{3, 4}', 'POINT(30 40)');
SELECT * FROM similarity_join('both_kinds', 'both_kinds', 5, unique_pairs => true);
SELECT * FROM similarity_join('both_kinds', 'both_kinds', 50, left_column => 'g',
                              unique_pairs => true);
-- Points against vectors of two dimensions.
SELECT * FROM similarity_join('both_kinds', 'both_kinds', 50, left_column => 'g',
                              right_column => 'v');
-- Refused: another SRID between the tables, a geometry that is not a point, a column of another
-- type.
CREATE TABLE other_srid (id int PRIMARY KEY, g geometry);
INSERT INTO other_srid VALUES (1, ST_SetSRID(ST_MakePoint(1, 1), 4326));
SELECT * FROM similarity_join('both_kinds', 'other_srid', 5, left_column => 'g');
CREATE TABLE lines (id int PRIMARY KEY, g geometry);
INSERT INTO lines VALUES (7, 'LINESTRING(0 0, 1 1)');
SELECT * FROM similarity_join('lines', 'lines', 5);
SELECT * FROM similarity_join('both_kinds', 'both_kinds', 5, left_column => 'g',
                              right_column => 'id');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA functions_geometry_test CASCADE;
\endif
