-- simjoin 1.7 -> 1.8: the library in every new session of the database
-- (simjoin_session_preload(), run here), and the progress of every running join
-- (simjoin_progress).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.8'" to load this file. \quit

CREATE FUNCTION @extschema@.simjoin_session_preload(enable pg_catalog.bool DEFAULT true)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'simjoin_session_preload'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simjoin_session_preload(pg_catalog.bool)
IS 'adds simjoin to (false: takes it out of) the current database''s session_preload_libraries, keeping its other entries, so that every new session plans distance joins on cube, point, PostGIS and pgvector columns with the custom scans; returns the new value (superuser; CREATE EXTENSION runs it, DROP EXTENSION undoes it)';

-- Every new session of this database loads the library (the session that runs this has it).
SELECT @extschema@.simjoin_session_preload(true);

-- 1.8: the progress of every running join, in the backends' own progress fields (no preload).
CREATE FUNCTION @extschema@.simjoin_progress_info(OUT pid pg_catalog.int4,
                                             OUT datid pg_catalog.oid,
                                             OUT relid pg_catalog.oid,
                                             OUT command pg_catalog.text,
                                             OUT phase pg_catalog.text,
                                             OUT rows_loaded pg_catalog.int8,
                                             OUT work_done pg_catalog.int8,
                                             OUT work_total pg_catalog.int8,
                                             OUT pairs pg_catalog.int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_progress_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_progress_info()
IS 'one row per backend running a simjoin join: what it runs, its phase and its work (the simjoin_progress view)';

CREATE VIEW @extschema@.simjoin_progress AS
  SELECT p.pid, p.datid, d.datname, p.relid, p.command, p.phase, p.rows_loaded, p.work_done,
         p.work_total, p.pairs
  FROM @extschema@.simjoin_progress_info() p
  LEFT JOIN pg_catalog.pg_database d ON d.oid = p.datid;
COMMENT ON VIEW @extschema@.simjoin_progress
IS 'the progress of every running simjoin join (functions and custom scans), like pg_stat_progress_*: phase (loading, joining), rows loaded, candidate pairs done out of the sampled estimate (work_total, NULL until known), pairs returned';
GRANT SELECT ON @extschema@.simjoin_progress TO PUBLIC;

-- 1.8: keys of any type with a btree ordering (uuid, text, numeric, ...), returned in their own
-- type: each function over tables has a form with key_type anyelement (a value of the key's type,
-- e.g. NULL::uuid) after its required arguments. The integer-keyed forms are unchanged. (k is
-- bigint in similarity_knn_join's: a call whose fourth argument is a string literal, eps as
-- '0.5', then matches the integer form's int4 k exactly and stays with it.)
CREATE FUNCTION @extschema@.similarity_join(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    eps pg_catalog.float8,
    key_type anyelement,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    unique_pairs pg_catalog.bool DEFAULT false,
    algorithm pg_catalog.text DEFAULT NULL,
    OUT left_id anyelement,
    OUT right_id anyelement,
    OUT distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join_keyed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, anyelement, pg_catalog.text, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.name, pg_catalog.bool, pg_catalog.text)
IS 'all pairs of rows whose vectors lie within eps, keyed by a column of key_type''s type (any type with a btree ordering)';

CREATE FUNCTION @extschema@.similarity_join_stats(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    eps pg_catalog.float8,
    key_type anyelement,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    algorithm pg_catalog.text DEFAULT NULL,
    OUT left_id anyelement,
    OUT neighbours pg_catalog.int8,
    OUT nearest_id anyelement,
    OUT nearest_distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join_stats_keyed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.similarity_join_stats(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, anyelement, pg_catalog.text, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.name, pg_catalog.text)
IS 'per left row: its partners within eps (count, nearest key, nearest distance), keyed by a column of key_type''s type';

CREATE FUNCTION @extschema@.similarity_knn_join(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    k pg_catalog.int8,
    key_type anyelement,
    eps pg_catalog.float8 DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    algorithm pg_catalog.text DEFAULT NULL,
    include_self pg_catalog.bool DEFAULT true,
    OUT left_id anyelement,
    OUT right_id anyelement,
    OUT distance pg_catalog.float8,
    OUT rank pg_catalog.int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_knn_join_keyed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.similarity_knn_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.int8, anyelement, pg_catalog.float8, pg_catalog.text, pg_catalog.name,
  pg_catalog.name, pg_catalog.name, pg_catalog.name, pg_catalog.text, pg_catalog.bool)
IS 'per left row: its k nearest right rows within eps (ties to the smaller key), ranked 1..k, keyed by a column of key_type''s type';

CREATE FUNCTION @extschema@.simjoin_dbscan(
    table_name pg_catalog.regclass,
    eps pg_catalog.float8,
    min_points pg_catalog.int4,
    key_type anyelement,
    column_name pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    algorithm pg_catalog.text DEFAULT NULL,
    OUT id anyelement,
    OUT cluster pg_catalog.int4,
    OUT kind pg_catalog.text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_dbscan_keyed'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.simjoin_dbscan(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.int4, anyelement, pg_catalog.name, pg_catalog.name, pg_catalog.text,
  pg_catalog.text)
IS 'DBSCAN clusters of a table''s vectors or PostGIS points: (id, cluster, kind core | border | noise), keyed by a column of key_type''s type';

-- 1.8: simjoin_cluster_dbscan in simjoin_dbscan's argument order (table_name, eps, min_points,
-- then the column and key by name); 1.5's order (table_name, geom_column, eps, min_points, key)
-- keeps working.
CREATE FUNCTION @extschema@.simjoin_cluster_dbscan(
    table_name pg_catalog.regclass,
    eps pg_catalog.float8,
    min_points pg_catalog.int4,
    geom_column pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    OUT id pg_catalog.int8,
    OUT cluster pg_catalog.int4,
    OUT kind pg_catalog.text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_cluster_dbscan_ordered'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.simjoin_cluster_dbscan(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.int4, pg_catalog.name, pg_catalog.name)
IS 'DBSCAN clusters of a table''s PostGIS points, as ST_ClusterDBSCAN, in simjoin_dbscan''s argument order (geom_column NULL: the table''s only geometry column): (id, cluster, kind)';
