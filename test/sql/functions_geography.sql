-- similarity_join() on a PostGIS geography point column: eps in metres on the spheroid, each
-- engine candidate decided by PostGIS's own ST_DWithin and measured by its ST_Distance, so the
-- rows equal PostGIS's own join (self, unique pairs, two tables, uuid keys, a pair across the
-- antimeridian, NULL geographies skipped); similarity_join_stats, simjoin_dbscan and
-- similarity_knn_join the same way (the k nearest by PostGIS's ST_Distance, ties by key).
-- Refused with a clear error: a geography beside a vector column, a metric, a non-point, mixed
-- SRIDs.
-- Real data: GeoNames places in Switzerland.
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE SCHEMA functions_geography_test;
SET search_path = functions_geography_test, public;
SET simjoin.enable_customscan = off;  -- the reference queries are PostGIS's own plans
\i test/sql/include/places_ch.sql
CREATE TABLE geo (id bigint PRIMARY KEY, g geography);
INSERT INTO geo SELECT geonameid, ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography
  FROM places;
-- Two points 22 m apart across the antimeridian, one on a pole, and a row without a point.
INSERT INTO geo VALUES (1, NULL), (2, 'SRID=4326;POINT(179.9999 0)'),
  (3, 'SRID=4326;POINT(-179.9999 0)'), (4, 'SRID=4326;POINT(0 90)'), (5, 'SRID=4326;POINT(90 90)');
CREATE INDEX ON geo USING gist (g);  -- the reference queries' plans: PostGIS's index joins
ANALYZE geo;
CREATE TABLE towns AS SELECT id AS town, g FROM geo WHERE id % 7 = 0;  -- no key: named below
CREATE TABLE geo_uuid AS
  SELECT md5(id::text)::uuid AS id, g FROM geo WHERE id % 3 = 0 OR id < 10;
ALTER TABLE geo_uuid ADD PRIMARY KEY (id);

\i test/sql/include/rows_differ.sql

SELECT count(*) AS pairs, count(*) FILTER (WHERE left_id <> right_id) AS other
FROM similarity_join('geo', 'geo', 2000);
SELECT rows_differ($$SELECT * FROM similarity_join('geo', 'geo', 2000)$$,
  $$SELECT a.id, b.id, ST_Distance(a.g, b.g) FROM geo a JOIN geo b ON ST_DWithin(a.g, b.g, 2000)$$);
SELECT rows_differ($$SELECT * FROM similarity_join('geo', 'geo', 7500, unique_pairs => true)$$,
  $$SELECT a.id, b.id, ST_Distance(a.g, b.g) FROM geo a JOIN geo b
    ON ST_DWithin(a.g, b.g, 7500) AND a.id < b.id$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('towns', 'geo', 3000, left_key => 'town')$$,
  $$SELECT a.town, b.id, ST_Distance(a.g, b.g) FROM towns a JOIN geo b
    ON ST_DWithin(a.g, b.g, 3000)$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('geo_uuid', 'geo_uuid', 4000, key_type => NULL::uuid)$$,
  $$SELECT a.id, b.id, ST_Distance(a.g, b.g) FROM geo_uuid a JOIN geo_uuid b
    ON ST_DWithin(a.g, b.g, 4000)$$);
-- Across the antimeridian and at the pole (distances as PostGIS gives them).
SELECT left_id, right_id, round(distance::numeric, 3) AS metres
FROM similarity_join('geo', 'geo', 100) WHERE left_id < 10 ORDER BY 1, 2;
-- Nothing within a negative eps; no row at all for a NULL one.
SELECT count(*) FROM similarity_join('geo', 'geo', -1);
SELECT count(*) FROM similarity_join('geo', 'geo', NULL);

-- similarity_join_stats: per row its partners within eps metres, the nearest (ties by key) and
-- its distance, as PostGIS's own LEFT JOIN ... GROUP BY gives them; rows without a point: 0.
SELECT rows_differ(
  $$SELECT * FROM similarity_join_stats('geo', 'geo', 2500)$$,
  $$SELECT a.id, count(b.id), (array_agg(b.id ORDER BY ST_Distance(a.g, b.g), b.id))[1],
           min(ST_Distance(a.g, b.g))
    FROM geo a LEFT JOIN geo b ON ST_DWithin(a.g, b.g, 2500) GROUP BY a.id$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join_stats('towns', 'geo', 4000, left_key => 'town')$$,
  $$SELECT a.town, count(b.id), (array_agg(b.id ORDER BY ST_Distance(a.g, b.g), b.id))[1],
           min(ST_Distance(a.g, b.g))
    FROM towns a LEFT JOIN geo b ON ST_DWithin(a.g, b.g, 4000) GROUP BY a.town$$);
SELECT sum(neighbours) AS partners, count(*) FILTER (WHERE neighbours = 0) AS without
FROM similarity_join_stats('geo', 'geo', 2500);

-- simjoin_dbscan: neighbours within eps metres on the spheroid (PostGIS's ST_DWithin), then
-- DBSCAN's rules (engine/aggregates/dbscan.h); checked against the same rules in SQL: core
-- points with at least min_points neighbours (itself included), clusters the components of
-- core-core neighbours, a border point in the cluster of its core neighbour with the smallest key.
CREATE TABLE nb AS SELECT a.id AS a, b.id AS b FROM geo a JOIN geo b ON ST_DWithin(a.g, b.g, 3000);
CREATE TABLE core AS SELECT a AS id FROM nb GROUP BY a HAVING count(*) >= 4;
CREATE TABLE core_root AS
  WITH RECURSIVE reach(id, root) AS (
    SELECT id, id FROM core
    UNION
    SELECT e.b, r.root FROM reach r JOIN nb e ON e.a = r.id JOIN core c ON c.id = e.b)
  SELECT id, min(root) AS root FROM reach GROUP BY id;
CREATE TABLE expected AS
  SELECT g.id, coalesce(c.root, (SELECT r.root FROM nb JOIN core_root r ON r.id = nb.b
                                 WHERE nb.a = g.id ORDER BY nb.b LIMIT 1)) AS root,
         CASE WHEN c.id IS NOT NULL THEN 'core' WHEN EXISTS (SELECT 1 FROM nb JOIN core k
           ON k.id = nb.b WHERE nb.a = g.id) THEN 'border' ELSE 'noise' END AS kind
  FROM geo g LEFT JOIN core_root c ON c.id = g.id;
CREATE TABLE clustered AS SELECT * FROM simjoin_dbscan('geo', 3000, 4);
SELECT count(*) AS rows, count(*) FILTER (WHERE d.kind <> e.kind) AS kinds_differ,
       count(DISTINCT d.cluster) AS clusters, count(DISTINCT e.root) AS components,
       count(DISTINCT (d.cluster, e.root)) FILTER (WHERE d.cluster IS NOT NULL)
         AS cluster_component_pairs,
       count(*) FILTER (WHERE (d.cluster IS NULL) <> (e.root IS NULL)) AS noise_differs
FROM clustered d JOIN expected e USING (id);

-- similarity_knn_join: per row its k nearest by PostGIS's ST_Distance (metres on the spheroid),
-- ties by the smaller key, as PostGIS's own LATERAL query gives them (every row measured).
CREATE TABLE towns_keyed AS SELECT town AS id, g FROM towns;
ALTER TABLE towns_keyed ADD PRIMARY KEY (id);
-- Five places at one spot and two more at equal distances from it: ties at the k-th distance.
INSERT INTO geo VALUES (11, 'SRID=4326;POINT(8.5 47.3)'), (12, 'SRID=4326;POINT(8.5 47.3)'),
  (13, 'SRID=4326;POINT(8.5 47.3)'), (14, 'SRID=4326;POINT(8.5 47.3)'),
  (15, 'SRID=4326;POINT(8.5 47.3)'), (16, 'SRID=4326;POINT(8.501 47.3)'),
  (17, 'SRID=4326;POINT(8.499 47.3)');
INSERT INTO towns_keyed VALUES (-1, 'SRID=4326;POINT(8.5 47.3)');
SELECT rows_differ(
  $$SELECT * FROM similarity_knn_join('towns_keyed', 'geo', 6)$$,
  $$SELECT a.id, n.id, n.d, n.rank FROM towns_keyed a CROSS JOIN LATERAL (
      SELECT b.id, ST_Distance(a.g, b.g) AS d,
             (row_number() OVER (ORDER BY ST_Distance(a.g, b.g), b.id))::int AS rank
      FROM geo b WHERE ST_Distance(a.g, b.g) <= 'Infinity'
      ORDER BY ST_Distance(a.g, b.g), b.id LIMIT 6) n$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_knn_join('towns_keyed', 'geo', 40, eps => 2500)$$,
  $$SELECT a.id, n.id, n.d, n.rank FROM towns_keyed a CROSS JOIN LATERAL (
      SELECT b.id, ST_Distance(a.g, b.g) AS d,
             (row_number() OVER (ORDER BY ST_Distance(a.g, b.g), b.id))::int AS rank
      FROM geo b WHERE ST_Distance(a.g, b.g) <= 2500
      ORDER BY ST_Distance(a.g, b.g), b.id LIMIT 40) n$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_knn_join('geo_uuid', 'geo_uuid', 3, key_type => NULL::uuid,
                                      include_self => false)$$,
  $$SELECT a.id, n.id, n.d, n.rank FROM geo_uuid a CROSS JOIN LATERAL (
      SELECT b.id, ST_Distance(a.g, b.g) AS d,
             (row_number() OVER (ORDER BY ST_Distance(a.g, b.g), b.id))::int AS rank
      FROM geo_uuid b WHERE ST_Distance(a.g, b.g) <= 'Infinity' AND b.id <> a.id
      ORDER BY ST_Distance(a.g, b.g), b.id LIMIT 3) n$$);
-- The tied spot, the antimeridian and the poles (nearest across them, distances as PostGIS's).
SELECT left_id, right_id, round(distance::numeric, 3) AS metres, rank
FROM similarity_knn_join('geo', 'geo', 2, include_self => false)
WHERE left_id < 20 ORDER BY 1, rank;

-- Refused, with what to do instead.
\set VERBOSITY default
SELECT * FROM simjoin_dbscan('geo', 1000, 3, metric => 'cosine');
SELECT * FROM similarity_join('geo', 'geo', 1000, metric => 'manhattan');
CREATE TABLE vec (id int PRIMARY KEY, v float8[]);
INSERT INTO vec VALUES (1, '{0, 0, 1}');
SELECT * FROM similarity_join('geo', 'vec', 1);
CREATE TABLE mixed (id int PRIMARY KEY, g geography);
INSERT INTO mixed VALUES (1, 'SRID=4326;POINT(0 0)'), (2, 'SRID=4269;POINT(0 0.001)');
SELECT * FROM similarity_join('mixed', 'mixed', 1000);
CREATE TABLE lines (id int PRIMARY KEY, g geography);
INSERT INTO lines VALUES (1, 'SRID=4326;LINESTRING(0 0, 1 1)');
SELECT * FROM similarity_join('lines', 'lines', 1000);
\set VERBOSITY terse

RESET search_path;
DROP SCHEMA functions_geography_test CASCADE;
RESET simjoin.enable_customscan;
\endif
