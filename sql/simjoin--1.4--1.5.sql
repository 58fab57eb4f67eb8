-- simjoin 1.4 -> 1.5: similarity_join_stats() (per left row: partner count, nearest partner and
-- its distance, computed while the join runs), simjoin_dbscan() and simjoin_cluster_dbscan()
-- (DBSCAN on vectors and on PostGIS points); simjoin_jobs() gains the job's kind.
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.5'" to load this file. \quit

-- 1.5: aggregates of the join computed while it runs, and DBSCAN clustering.
-- Per row of left_table: its partners within eps in right_table (how many, the nearest with
-- ties to the smaller key, and its distance), without producing the pairs. The rows of
--   SELECT a.key, count(b.key), (the b.key of the smallest (d, b.key)), min(d)
--   FROM left_table a LEFT JOIN right_table b ON d(a.v, b.v) <= eps GROUP BY a.key
-- (a left row without partners, a NULL vector or eps NULL: 0, NULL, NULL), with the privileges
-- and row-level security of that query. Columns, keys, metric and algorithm as similarity_join;
-- a self-join counts each row as its own neighbour, as SQL's t a JOIN t b does.
CREATE FUNCTION @extschema@.similarity_join_stats(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    algorithm pg_catalog.text DEFAULT NULL,
    OUT left_id pg_catalog.int8,
    OUT neighbours pg_catalog.int8,
    OUT nearest_id pg_catalog.int8,
    OUT nearest_distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join_stats'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.similarity_join_stats(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.text)
IS 'per left row: its partners within eps (count, nearest key, nearest distance), without pairs';

-- DBSCAN (as PostGIS's ST_ClusterDBSCAN defines it) on a table's vectors: a row is core when at
-- least min_points rows (itself included) lie within eps; clusters are connected core rows; a
-- border row joins the cluster of its core neighbour with the smallest key; the rest is noise
-- (cluster NULL), rows with a NULL vector included. Clusters are numbered 0, 1, ... by their
-- smallest key. eps or min_points NULL or negative: ERROR (min_points 0 means 1).
CREATE FUNCTION @extschema@.simjoin_dbscan(
    table_name pg_catalog.regclass,
    eps pg_catalog.float8,
    min_points pg_catalog.int4,
    column_name pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    algorithm pg_catalog.text DEFAULT NULL,
    OUT id pg_catalog.int8,
    OUT cluster pg_catalog.int4,
    OUT kind pg_catalog.text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_dbscan'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.simjoin_dbscan(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.int4, pg_catalog.name, pg_catalog.name, pg_catalog.text, pg_catalog.text)
IS 'DBSCAN clusters of a table''s vectors: (id, cluster, kind core | border | noise)';

-- The same on a column of PostGIS point geometries, with the planar distance ST_ClusterDBSCAN
-- uses (simjoin does not need PostGIS: it reads the geometries' serialized form). ERROR on a
-- geometry that is not a point (EMPTY included) and on mixed SRIDs; NULL geometries are noise.
CREATE FUNCTION @extschema@.simjoin_cluster_dbscan(
    table_name pg_catalog.regclass,
    geom_column pg_catalog.name,
    eps pg_catalog.float8,
    min_points pg_catalog.int4,
    key pg_catalog.name DEFAULT NULL,
    OUT id pg_catalog.int8,
    OUT cluster pg_catalog.int4,
    OUT kind pg_catalog.text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_cluster_dbscan'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.simjoin_cluster_dbscan(pg_catalog.regclass, pg_catalog.name,
  pg_catalog.float8, pg_catalog.int4, pg_catalog.name)
IS 'DBSCAN clusters of a table''s PostGIS points, as ST_ClusterDBSCAN: (id, cluster, kind)';

-- 1.5: simjoin_jobs() says each job's kind: a join, or an aggregate the service computes itself.
DROP FUNCTION @extschema@.simjoin_jobs();
CREATE FUNCTION @extschema@.simjoin_jobs(OUT job_id pg_catalog.int8,
                                         OUT pid pg_catalog.int4,
                                         OUT state pg_catalog.text,
                                         OUT device pg_catalog.int4,
                                         OUT wanted_bytes pg_catalog.int8,
                                         OUT reserved_bytes pg_catalog.int8,
                                         OUT pairs pg_catalog.int8,
                                         OUT candidates_done pg_catalog.int8,
                                         OUT candidates_estimate pg_catalog.int8,
                                         OUT submitted_at pg_catalog.timestamptz,
                                         OUT queued_seconds pg_catalog.float8,
                                         OUT running_seconds pg_catalog.float8,
                                         OUT kind pg_catalog.text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_jobs'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_jobs()
IS 'the GPU service''s jobs: session, state (queued, running, streaming, done, failed), device, memory, progress (candidates done out of the sampled estimate) and kind (join, neighbour stats, dbscan)';
