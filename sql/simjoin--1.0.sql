-- simjoin 1.0: exact epsilon similarity joins.
-- Every object lives in the extension's own schema, and every reference inside is
-- schema-qualified, so a hostile search_path cannot redirect anything.
\echo Use "CREATE EXTENSION simjoin" to load this file. \quit

-- Planner support for the distance functions. It does nothing but its first call loads the
-- library while a query using the distances is planned, so that the SimilarityJoin custom scan's
-- planner hook is in place without shared_preload_libraries.
CREATE FUNCTION @extschema@.simjoin_planner_support(pg_catalog.internal)
RETURNS pg_catalog.internal AS 'MODULE_PATHNAME', 'simjoin_planner_support'
LANGUAGE C STRICT;

-- Distances between vectors stored as real[] or float8[] (one-dimensional, no NULL elements,
-- equal lengths). Computed in double precision, dimensions summed in order: the same definition
-- the join engines use, so a plain SQL join and similarity_join() agree exactly.
CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.float8[], pg_catalog.float8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;

CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.float4[], pg_catalog.float4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.simjoin_planner_support;

-- Operators, after the cube extension's convention: <-> Euclidean, <#> taxicab, <=> Chebyshev.
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<#>));
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.float8[], RIGHTARG = pg_catalog.float8[],
  FUNCTION = @extschema@.chebyshev_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<#>));
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.float4[], RIGHTARG = pg_catalog.float4[],
  FUNCTION = @extschema@.chebyshev_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));

-- All pairs (l, r) of rows of left_table and right_table whose vectors lie within eps:
-- the rows of  SELECT l.key, r.key, d(l.v, r.v) FROM left_table l JOIN right_table r
--              ON d(l.v, r.v) <= eps
-- with the privileges and row-level security of that query. Vector columns default to the
-- table's only real[]/float8[] column, keys to its single-column integer primary key; when both
-- tables are the same relation, a column or key named on one side only serves both.
-- A self-join (same table, column and key) returns both orders and each row with itself;
-- unique_pairs => true returns each unordered pair of distinct rows once, left_id < right_id.
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
    OUT left_id pg_catalog.int8,
    OUT right_id pg_catalog.int8,
    OUT distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.bool)
IS 'all pairs of rows whose vectors lie within eps (euclidean, manhattan or chebyshev)';

-- What the engine can use here: the device chosen now and why a GPU is not.
CREATE FUNCTION @extschema@.simjoin_device_info(OUT gpu_available pg_catalog.bool,
                                              OUT detail pg_catalog.text)
AS 'MODULE_PATHNAME', 'simjoin_device_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
