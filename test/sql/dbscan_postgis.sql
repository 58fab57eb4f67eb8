-- simjoin_cluster_dbscan() compared with PostGIS's ST_ClusterDBSCAN on real points (GeoNames
-- places in Switzerland on a sinusoidal projection in km) and on lattices with pairs at exactly
-- eps. ST_ClusterDBSCAN numbers its clusters its own way and gives no kinds, so the comparison is:
-- the same noise rows (cluster NULL), the same core rows (computed here: at least min_points
-- rows within eps, ST_DWithin, itself included), the same partition of the core rows, and every
-- border row, in both results, in the cluster of one of its core neighbours.
\i test/sql/include/postgis.sql
\if :has_postgis
CREATE SCHEMA dbscan_postgis_test;
SET search_path = dbscan_postgis_test, public;
SET simjoin.enable_customscan = off;  -- the reference joins are PostgreSQL's (PostGIS's) own plans

\i test/sql/include/places_ch.sql
CREATE TABLE pts (id bigint PRIMARY KEY, g geometry);
INSERT INTO pts SELECT geonameid, ST_SetSRID(ST_MakePoint(
    6371 * radians(longitude) * cos(radians(latitude)), 6371 * radians(latitude)), 0) FROM places;
-- Lattices far away: 0.5 km steps (eps 1: pairs at exactly 0.5 and 1, and at sqrt(0.5) ...) and
-- 3-4-5 triangles (eps 5: pairs at exactly 5).
INSERT INTO pts SELECT 10000000 + i * 100 + j, ST_MakePoint(1000 + i * 0.5, j * 0.5)
  FROM generate_series(0, 14) i, generate_series(0, 14) j WHERE (i * 7 + j * 3) % 5 <> 0;
INSERT INTO pts SELECT 20000000 + i, ST_MakePoint(2000 + 3 * (i / 4) + 4 * (i % 2), 4 * (i / 4) + 3 * (i % 3))
  FROM generate_series(0, 60) i;
INSERT INTO pts VALUES (30000001, NULL), (30000002, NULL);
SELECT count(*) AS rows, count(g) AS points, count(DISTINCT g) AS distinct_points FROM pts;

CREATE FUNCTION compare_dbscan(eps float8, min_points int) RETURNS TABLE (
  rows bigint, core bigint, border bigint, noise bigint, clusters bigint,
  same_noise boolean, same_core boolean, same_core_partition boolean,
  borders_ok_simjoin boolean, borders_ok_postgis boolean)
LANGUAGE plpgsql AS $$
BEGIN
  DROP TABLE IF EXISTS c_ours, c_theirs, c_counts;
  CREATE TEMP TABLE c_ours AS SELECT * FROM simjoin_cluster_dbscan('pts', 'g', eps, min_points);
  CREATE TEMP TABLE c_theirs AS SELECT id, ST_ClusterDBSCAN(g, eps, min_points) OVER () AS cluster FROM pts;
  CREATE TEMP TABLE c_counts AS
    SELECT a.id, count(b.id) AS neighbours FROM pts a LEFT JOIN pts b ON ST_DWithin(a.g, b.g, eps) GROUP BY a.id;
  RETURN QUERY SELECT
    (SELECT count(*) FROM c_ours),
    (SELECT count(*) FROM c_ours WHERE kind = 'core'),
    (SELECT count(*) FROM c_ours WHERE kind = 'border'),
    (SELECT count(*) FROM c_ours WHERE kind = 'noise'),
    (SELECT count(DISTINCT cluster) FROM c_ours),
    (SELECT array_agg(id ORDER BY id) FROM c_ours WHERE cluster IS NULL) IS NOT DISTINCT FROM
      (SELECT array_agg(id ORDER BY id) FROM c_theirs WHERE cluster IS NULL),
    (SELECT array_agg(id ORDER BY id) FROM c_ours WHERE kind = 'core') IS NOT DISTINCT FROM
      (SELECT array_agg(id ORDER BY id) FROM c_counts WHERE neighbours >= min_points),
    (SELECT count(DISTINCT o.cluster) = count(DISTINCT t.cluster)
        AND count(DISTINCT (o.cluster, t.cluster)) = count(DISTINCT o.cluster)
     FROM c_ours o JOIN c_theirs t USING (id) WHERE o.kind = 'core'),
    NOT EXISTS (SELECT FROM c_ours b WHERE b.kind = 'border' AND NOT EXISTS (
      SELECT FROM pts pb JOIN pts pc ON ST_DWithin(pb.g, pc.g, eps) JOIN c_ours c ON c.id = pc.id
      WHERE pb.id = b.id AND c.kind = 'core' AND c.cluster = b.cluster)),
    NOT EXISTS (SELECT FROM c_ours b JOIN c_theirs tb USING (id) WHERE b.kind = 'border' AND NOT EXISTS (
      SELECT FROM pts pb JOIN pts pc ON ST_DWithin(pb.g, pc.g, eps) JOIN c_ours c ON c.id = pc.id
      JOIN c_theirs tc ON tc.id = pc.id
      WHERE pb.id = b.id AND c.kind = 'core' AND tc.cluster = tb.cluster));
END $$;
SET client_min_messages = warning;
SELECT eps, min_points, c.*
FROM (VALUES (0::float8, 2), (0.5, 1), (0.5, 2), (1, 3), (2, 5), (5, 4), (3, 10), (10, 40)) p(eps, min_points),
     compare_dbscan(eps, min_points) c ORDER BY 1, 2;
RESET client_min_messages;

-- By hand: a border point at exactly eps from two clusters' core points joins the cluster of the
-- smaller key; NULL geometries are noise (ST_ClusterDBSCAN gives them NULL); SRID kept.
CREATE TABLE hand (gid int PRIMARY KEY, label text, geom geometry, other geometry);
INSERT INTO hand VALUES (50, 'a', 'SRID=3857;POINT(0 0)', NULL), (45, 'a', 'SRID=3857;POINT(0 0)', NULL),
  (44, 'a', 'SRID=3857;POINT(0 0)', NULL), (40, 'a', 'SRID=3857;POINT(3 4)', NULL),
  (60, 'between', 'SRID=3857;POINT(6 8)', NULL), (10, 'b', 'SRID=3857;POINT(9 12)', NULL),
  (20, 'b', 'SRID=3857;POINT(12 16)', NULL), (21, 'b', 'SRID=3857;POINT(12 16)', NULL),
  (22, 'b', 'SRID=3857;POINT(12 16)', 'LINESTRING(0 0, 1 1)'), (70, 'null', NULL, NULL),
  (80, 'far', 'SRID=3857;POINT Z (100 100 7)', NULL);
SELECT h.gid, h.label, s.cluster, s.kind, ST_ClusterDBSCAN(h.geom, 5, 4) OVER (ORDER BY h.gid) AS postgis
FROM hand h JOIN simjoin_cluster_dbscan('hand', 'geom', 5, 4) s ON s.id = h.gid ORDER BY h.gid;
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 4.999999, 4) ORDER BY id;
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 5, 1, key => 'gid') ORDER BY id;
-- simjoin_dbscan's argument order (table_name, eps, min_points, geom_column, key): the same rows;
-- without geom_column the table's only geometry column (hand has two)
SELECT count(*) AS rows_not_in_1_5_order FROM (
  (SELECT * FROM simjoin_cluster_dbscan('hand', 5, 4, 'geom'))
  EXCEPT ALL (SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 5, 4))) d;
SELECT * FROM simjoin_cluster_dbscan('hand', 5, 1, geom_column => 'geom', key => 'gid')
ORDER BY id;
SELECT * FROM simjoin_cluster_dbscan('hand', 5, 4);

-- Any finite coordinates, as simjoin_dbscan takes them from float8[] and ST_ClusterDBSCAN does:
-- points at 1e200 (whose squared distances overflow to infinity) cluster among themselves only.
CREATE TABLE huge (gid int PRIMARY KEY, geom geometry);
INSERT INTO huge VALUES (1, 'POINT(1e200 0)'), (2, 'POINT(1e200 0)'), (3, 'POINT(1e200 1)'),
  (4, 'POINT(0 0)'), (5, 'POINT(1 0)'), (6, 'POINT(-1.7e308 1e308)'), (7, 'POINT(-1.7e308 1e308)');
SELECT gid, CASE WHEN cluster IS NOT NULL THEN min(gid) OVER (PARTITION BY cluster) END AS simjoin_first,
       CASE WHEN postgis IS NOT NULL THEN min(gid) OVER (PARTITION BY postgis) END AS postgis_first
FROM (SELECT h.gid, s.cluster, ST_ClusterDBSCAN(h.geom, 1.5, 2) OVER () AS postgis
      FROM huge h JOIN simjoin_cluster_dbscan('huge', 'geom', 1.5, 2) s ON s.id = h.gid) c ORDER BY gid;
SELECT count(*) AS rows_not_in_1_5_order FROM (
  (SELECT * FROM simjoin_cluster_dbscan('huge', 1.5, 2))
  EXCEPT ALL (SELECT * FROM simjoin_cluster_dbscan('huge', 'geom', 1.5, 2))) d;

-- Errors: a geometry that is not a point, an empty point, mixed SRIDs, no such column, a column
-- that is not a geometry, eps and min_points as ST_ClusterDBSCAN refuses them.
SELECT * FROM simjoin_cluster_dbscan('hand', 'other', 5, 2);
UPDATE hand SET geom = 'SRID=3857;POINT EMPTY' WHERE gid = 80;
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 5, 2);
UPDATE hand SET geom = 'SRID=4326;POINT(1 1)' WHERE gid = 80;
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 5, 2);
SELECT * FROM simjoin_cluster_dbscan('hand', 'nope', 5, 2);
SELECT * FROM simjoin_cluster_dbscan('hand', 'label', 5, 2);
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', -5, 2);
SELECT * FROM simjoin_cluster_dbscan('hand', 'geom', 5, -2);
SELECT * FROM simjoin_cluster_dbscan('hand', NULL, 5, 2);

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA dbscan_postgis_test CASCADE;
\endif
