-- simjoin 1.0 -> 1.1: the operators on real[] and float8[] follow pgvector's convention
-- (<-> Euclidean, <+> taxicab, <=> cosine distance, <#> negative inner product; in 1.0 <#> was
-- taxicab and <=> Chebyshev, cube's convention), the cosine distance and the inner products are
-- new, and every object has a comment. A view or function that uses 1.0's <#> or <=> on arrays
-- makes this update fail (DROP OPERATOR): rewrite it with manhattan_distance() or
-- chebyshev_distance() first.
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.1'" to load this file. \quit

DROP OPERATOR @extschema@.<#> (pg_catalog.float8[], pg_catalog.float8[]);
DROP OPERATOR @extschema@.<=> (pg_catalog.float8[], pg_catalog.float8[]);
DROP OPERATOR @extschema@.<#> (pg_catalog.float4[], pg_catalog.float4[]);
DROP OPERATOR @extschema@.<=> (pg_catalog.float4[], pg_catalog.float4[]);

COMMENT ON FUNCTION @extschema@.simjoin_planner_support(pg_catalog.internal)
IS 'planner support of the distance functions: loads simjoin so that its custom scan can plan joins';
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.float8[], pg_catalog.float8[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
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
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.float4[], pg_catalog.float4[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
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
COMMENT ON FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.bool)
IS 'all pairs of rows whose vectors lie within eps (euclidean, manhattan, chebyshev or cosine)';
COMMENT ON FUNCTION @extschema@.simjoin_device_info()
IS 'whether a GPU is usable by the join engine, and if not, why';
