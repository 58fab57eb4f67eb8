-- simjoin 1.6 -> 1.7: the distance functions and operators on smallint[], integer[] and bigint[]
-- (`ARRAY[1,2] <-> ARRAY[2,3]` was ambiguous between real[] and float8[]). The elements are
-- converted to double precision (exactly, up to 2^53 in magnitude) and the distances computed
-- as for float8[].
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.7'" to load this file. \quit


-- int2[]
CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.int2[], pg_catalog.int2[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.int2[], pg_catalog.int2[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chebyshev_distance(pg_catalog.int2[], pg_catalog.int2[])
IS 'Chebyshev (L-infinity) distance: largest absolute difference';
CREATE FUNCTION @extschema@.cosine_distance(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_cosine_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.cosine_distance(pg_catalog.int2[], pg_catalog.int2[])
IS 'cosine distance 1 - a.b / (|a| |b|) in [0, 2], in double precision; NaN for a zero vector';
CREATE FUNCTION @extschema@.inner_product(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.inner_product(pg_catalog.int2[], pg_catalog.int2[])
IS 'inner product: sum of a[i] * b[i], in double precision';
CREATE FUNCTION @extschema@.negative_inner_product(pg_catalog.int2[], pg_catalog.int2[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_negative_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.negative_inner_product(pg_catalog.int2[], pg_catalog.int2[])
IS 'negative inner product -(a.b), the <#> operator (pgvector''s convention)';
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.int2[], RIGHTARG = pg_catalog.int2[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (pg_catalog.int2[], pg_catalog.int2[]) IS 'Euclidean (L2) distance';
CREATE OPERATOR @extschema@.<+> (LEFTARG = pg_catalog.int2[], RIGHTARG = pg_catalog.int2[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<+>));
COMMENT ON OPERATOR @extschema@.<+> (pg_catalog.int2[], pg_catalog.int2[]) IS 'taxicab (L1) distance';
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.int2[], RIGHTARG = pg_catalog.int2[],
  FUNCTION = @extschema@.cosine_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
COMMENT ON OPERATOR @extschema@.<=> (pg_catalog.int2[], pg_catalog.int2[]) IS 'cosine distance';
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.int2[], RIGHTARG = pg_catalog.int2[],
  FUNCTION = @extschema@.negative_inner_product, COMMUTATOR = OPERATOR(@extschema@.<#>));
COMMENT ON OPERATOR @extschema@.<#> (pg_catalog.int2[], pg_catalog.int2[]) IS 'negative inner product';

-- int4[]
CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.int4[], pg_catalog.int4[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.int4[], pg_catalog.int4[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chebyshev_distance(pg_catalog.int4[], pg_catalog.int4[])
IS 'Chebyshev (L-infinity) distance: largest absolute difference';
CREATE FUNCTION @extschema@.cosine_distance(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_cosine_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.cosine_distance(pg_catalog.int4[], pg_catalog.int4[])
IS 'cosine distance 1 - a.b / (|a| |b|) in [0, 2], in double precision; NaN for a zero vector';
CREATE FUNCTION @extschema@.inner_product(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.inner_product(pg_catalog.int4[], pg_catalog.int4[])
IS 'inner product: sum of a[i] * b[i], in double precision';
CREATE FUNCTION @extschema@.negative_inner_product(pg_catalog.int4[], pg_catalog.int4[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_negative_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.negative_inner_product(pg_catalog.int4[], pg_catalog.int4[])
IS 'negative inner product -(a.b), the <#> operator (pgvector''s convention)';
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.int4[], RIGHTARG = pg_catalog.int4[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (pg_catalog.int4[], pg_catalog.int4[]) IS 'Euclidean (L2) distance';
CREATE OPERATOR @extschema@.<+> (LEFTARG = pg_catalog.int4[], RIGHTARG = pg_catalog.int4[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<+>));
COMMENT ON OPERATOR @extschema@.<+> (pg_catalog.int4[], pg_catalog.int4[]) IS 'taxicab (L1) distance';
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.int4[], RIGHTARG = pg_catalog.int4[],
  FUNCTION = @extschema@.cosine_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
COMMENT ON OPERATOR @extschema@.<=> (pg_catalog.int4[], pg_catalog.int4[]) IS 'cosine distance';
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.int4[], RIGHTARG = pg_catalog.int4[],
  FUNCTION = @extschema@.negative_inner_product, COMMUTATOR = OPERATOR(@extschema@.<#>));
COMMENT ON OPERATOR @extschema@.<#> (pg_catalog.int4[], pg_catalog.int4[]) IS 'negative inner product';

-- int8[]
CREATE FUNCTION @extschema@.euclidean_distance(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_euclidean_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.euclidean_distance(pg_catalog.int8[], pg_catalog.int8[])
IS 'Euclidean (L2) distance: sqrt of the sum of squared differences, in double precision';
CREATE FUNCTION @extschema@.manhattan_distance(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_manhattan_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.manhattan_distance(pg_catalog.int8[], pg_catalog.int8[])
IS 'taxicab (L1) distance: sum of absolute differences, in double precision';
CREATE FUNCTION @extschema@.chebyshev_distance(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_chebyshev_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.chebyshev_distance(pg_catalog.int8[], pg_catalog.int8[])
IS 'Chebyshev (L-infinity) distance: largest absolute difference';
CREATE FUNCTION @extschema@.cosine_distance(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_cosine_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.cosine_distance(pg_catalog.int8[], pg_catalog.int8[])
IS 'cosine distance 1 - a.b / (|a| |b|) in [0, 2], in double precision; NaN for a zero vector';
CREATE FUNCTION @extschema@.inner_product(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.inner_product(pg_catalog.int8[], pg_catalog.int8[])
IS 'inner product: sum of a[i] * b[i], in double precision';
CREATE FUNCTION @extschema@.negative_inner_product(pg_catalog.int8[], pg_catalog.int8[])
RETURNS pg_catalog.float8 AS 'MODULE_PATHNAME', 'simjoin_negative_inner_product'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.negative_inner_product(pg_catalog.int8[], pg_catalog.int8[])
IS 'negative inner product -(a.b), the <#> operator (pgvector''s convention)';
CREATE OPERATOR @extschema@.<-> (LEFTARG = pg_catalog.int8[], RIGHTARG = pg_catalog.int8[],
  FUNCTION = @extschema@.euclidean_distance, COMMUTATOR = OPERATOR(@extschema@.<->));
COMMENT ON OPERATOR @extschema@.<-> (pg_catalog.int8[], pg_catalog.int8[]) IS 'Euclidean (L2) distance';
CREATE OPERATOR @extschema@.<+> (LEFTARG = pg_catalog.int8[], RIGHTARG = pg_catalog.int8[],
  FUNCTION = @extschema@.manhattan_distance, COMMUTATOR = OPERATOR(@extschema@.<+>));
COMMENT ON OPERATOR @extschema@.<+> (pg_catalog.int8[], pg_catalog.int8[]) IS 'taxicab (L1) distance';
CREATE OPERATOR @extschema@.<=> (LEFTARG = pg_catalog.int8[], RIGHTARG = pg_catalog.int8[],
  FUNCTION = @extschema@.cosine_distance, COMMUTATOR = OPERATOR(@extschema@.<=>));
COMMENT ON OPERATOR @extschema@.<=> (pg_catalog.int8[], pg_catalog.int8[]) IS 'cosine distance';
CREATE OPERATOR @extschema@.<#> (LEFTARG = pg_catalog.int8[], RIGHTARG = pg_catalog.int8[],
  FUNCTION = @extschema@.negative_inner_product, COMMUTATOR = OPERATOR(@extschema@.<#>));
COMMENT ON OPERATOR @extschema@.<#> (pg_catalog.int8[], pg_catalog.int8[]) IS 'negative inner product';
