-- simjoin 1.5: exact epsilon similarity joins.
-- Every object lives in the extension's own schema, and every reference inside is
-- schema-qualified, so a hostile search_path cannot redirect anything.
\echo Use "CREATE EXTENSION simjoin" to load this file. \quit

-- Planner support for the distance functions. It does nothing but its first call loads the
-- library while a query using the distances is planned, so that the SimilarityJoin custom scan's
-- planner hook is in place without shared_preload_libraries.
CREATE FUNCTION @extschema@.simjoin_planner_support(pg_catalog.internal)
RETURNS pg_catalog.internal AS 'MODULE_PATHNAME', 'simjoin_planner_support'
LANGUAGE C STRICT;
COMMENT ON FUNCTION @extschema@.simjoin_planner_support(pg_catalog.internal)
IS 'planner support of the distance functions: loads simjoin so that its custom scan can plan joins';

-- Distances between vectors stored as real[] or float8[] (one-dimensional, no NULL elements,
-- equal lengths). Computed in double precision, dimensions summed in order: the same definitions
-- the join engines use, so a plain SQL join and similarity_join() agree exactly. The cosine
-- distance scales each vector by a power of two first (so huge and tiny vectors neither overflow
-- nor underflow) and is NaN when either vector is zero or not finite: it never matches.
CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.chebyshev_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'Chebyshev (L-infinity) distance: largest absolute difference';
CREATE FUNCTION @extschema@.cosine_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_cosine_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.cosine_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'cosine distance 1 - a.b / (|a| |b|) in [0, 2], in double precision; NaN for a zero vector';
CREATE FUNCTION @extschema@.inner_product(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.inner_product(pg_catalog.float8[], pg_catalog.float8[])
IS 'inner product: sum of a[i] * b[i], in double precision';
CREATE FUNCTION @extschema@.negative_inner_product(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_negative_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.negative_inner_product(pg_catalog.float8[], pg_catalog.float8[])
IS 'negative inner product -(a.b), the <#> operator (pgvector''s convention)';

CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.chebyshev_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'Chebyshev (L-infinity) distance: largest absolute difference';
CREATE FUNCTION @extschema@.cosine_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_cosine_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
COMMENT ON FUNCTION @extschema@.cosine_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'cosine distance 1 - a.b / (|a| |b|) in [0, 2], in double precision; NaN for a zero vector';
CREATE FUNCTION @extschema@.inner_product(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.inner_product(pg_catalog.float4[], pg_catalog.float4[])
IS 'inner product: sum of a[i] * b[i], in double precision';
CREATE FUNCTION @extschema@.negative_inner_product(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_negative_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.negative_inner_product(pg_catalog.float4[], pg_catalog.float4[])
IS 'negative inner product -(a.b), the <#> operator (pgvector''s convention)';

-- Operators, after pgvector's convention: <-> Euclidean, <+> taxicab, <=> cosine distance,
-- <#> negative inner product. Chebyshev has no operator (chebyshev_distance()). The custom scan
-- runs joins on <->, <+> and <=> (and on the distance functions); <#> is left to PostgreSQL.
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (pg_catalog.float8[], pg_catalog.float8[]) IS 'Euclidean (L2) distance';
CREATE OPERATOR @extschema@.<+> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<+>));
COMMENT ON OPERATOR @extschema@.<+> (pg_catalog.float8[], pg_catalog.float8[]) IS 'taxicab (L1) distance';
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.cosine_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
COMMENT ON OPERATOR @extschema@.<=> (pg_catalog.float8[], pg_catalog.float8[]) IS 'cosine distance';
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.negative_inner_product, COMMUTATOR = OPERATOR(@extschema@.<#>));
COMMENT ON OPERATOR @extschema@.<#> (pg_catalog.float8[], pg_catalog.float8[]) IS 'negative inner product';

CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (pg_catalog.float4[], pg_catalog.float4[]) IS 'Euclidean (L2) distance';
CREATE OPERATOR @extschema@.<+> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<+>));
COMMENT ON OPERATOR @extschema@.<+> (pg_catalog.float4[], pg_catalog.float4[]) IS 'taxicab (L1) distance';
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.cosine_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
COMMENT ON OPERATOR @extschema@.<=> (pg_catalog.float4[], pg_catalog.float4[]) IS 'cosine distance';
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.negative_inner_product, COMMUTATOR = OPERATOR(@extschema@.<#>));
COMMENT ON OPERATOR @extschema@.<#> (pg_catalog.float4[], pg_catalog.float4[]) IS 'negative inner product';

-- All pairs (l, r) of rows of left_table and right_table whose vectors lie within eps:
-- the rows of  SELECT l.key, r.key, d(l.v, r.v) FROM left_table l JOIN right_table r
--              ON d(l.v, r.v) <= eps
-- with the privileges and row-level security of that query. Vector columns default to the
-- table's only real[]/float8[] column, keys to its single-column integer primary key; when both
-- tables are the same relation, a column or key named on one side only serves both.
-- A self-join (same table, column and key) returns both orders and each row with itself;
-- unique_pairs => true returns each unordered pair of distinct rows once, left_id < right_id.
-- 1.4: algorithm => auto | grid | szl | bruteforce (NULL: the simjoin.algorithm setting).
CREATE FUNCTION @extschema@.similarity_join(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    unique_pairs pg_catalog.bool DEFAULT false,
    algorithm pg_catalog.text DEFAULT NULL,
    OUT left_id pg_catalog.int8,
    OUT right_id pg_catalog.int8,
    OUT distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.bool, pg_catalog.text)
IS 'all pairs of rows whose vectors lie within eps (euclidean, manhattan, chebyshev or cosine)';

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

-- What the engine can use here: the device chosen now and why a GPU is not.
CREATE FUNCTION @extschema@.simjoin_device_info(OUT gpu_available pg_catalog.bool,
                                              OUT detail pg_catalog.text)
AS 'MODULE_PATHNAME', 'simjoin_device_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_device_info()
IS 'whether a GPU is usable by the join engine, and if not, why';

-- 1.2: the GPU service (shared_preload_libraries = 'simjoin'): its devices and its jobs.
CREATE FUNCTION @extschema@.simjoin_devices(OUT device pg_catalog.int4,
                                            OUT name pg_catalog.text,
                                            OUT memory_bytes pg_catalog.int8,
                                            OUT ledger_limit_bytes pg_catalog.int8,
                                            OUT reserved_bytes pg_catalog.int8,
                                            OUT running_jobs pg_catalog.int4,
                                            OUT queued_jobs pg_catalog.int4,
                                            OUT jobs_done pg_catalog.int8,
                                            OUT jobs_failed pg_catalog.int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_devices'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_devices()
IS 'the GPU service''s devices with their memory ledgers and load (no rows without the service)';

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
