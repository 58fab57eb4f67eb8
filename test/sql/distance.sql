-- The distance functions and operators on real[] and float8[] (pgvector's convention: <->
-- Euclidean, <+> taxicab, <=> cosine distance, <#> negative inner product; Chebyshev is a function).
SELECT ARRAY[0,0]::float8[] <-> ARRAY[3,4]::float8[] AS euclidean,
       ARRAY[0,0]::float8[] <+> ARRAY[3,4]::float8[] AS manhattan,
       chebyshev_distance(ARRAY[0,0]::float8[], ARRAY[3,-4]::float8[]) AS chebyshev,
       ARRAY[1,0]::float8[] <=> ARRAY[0,1]::float8[] AS cosine,
       ARRAY[1,2]::float8[] <#> ARRAY[3,4]::float8[] AS negative_inner_product,
       inner_product(ARRAY[1,2]::float8[], ARRAY[3,4]::float8[]) AS inner_product;
SELECT ARRAY[0,0]::real[] <-> ARRAY[3,4]::real[] AS euclidean,
       ARRAY[0,0]::real[] <+> ARRAY[3,4]::real[] AS manhattan,
       chebyshev_distance(ARRAY[0,0]::real[], ARRAY[3,-4]::real[]) AS chebyshev,
       ARRAY[1,1]::real[] <=> ARRAY[-2,-2]::real[] AS cosine,
       ARRAY[1,2]::real[] <#> ARRAY[3,4]::real[] AS negative_inner_product,
       negative_inner_product(ARRAY[1,2]::real[], ARRAY[3,4]::real[]) AS function;
-- The operators call the functions.
SELECT o.oprname, o.oprleft::regtype, p.proname FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
  WHERE o.oprname IN ('<->', '<+>', '<=>', '<#>')
    AND o.oprleft IN ('float8[]'::regtype, 'real[]'::regtype) ORDER BY 1, 2;
-- Cosine: 1 - cos of the angle, in [0, 2] whatever the lengths; NaN without a direction.
SELECT ARRAY[1,2,3]::float8[] <=> ARRAY[2,4,6]::float8[] AS parallel,
       ARRAY[1,2,3]::float8[] <=> ARRAY[-1e300,-2e300,-3e300]::float8[] AS antiparallel_huge,
       ARRAY[2 ^ (-1060), 0]::float8[] <=> ARRAY[2 ^ (-1060), 2 ^ (-1060)]::float8[] =
         ARRAY[1,0]::float8[] <=> ARRAY[1,1]::float8[] AS subnormal_as_unit,
       abs((ARRAY[1e-300,0]::float8[] <=> ARRAY[1e-300,1e-300]::float8[]) - (1 - sqrt(0.5))) < 1e-15 AS tiny,
       ARRAY[0,0]::float8[] <=> ARRAY[0,0]::float8[] AS zero,
       ARRAY['Infinity',0]::float8[] <=> ARRAY[1,0]::float8[] AS infinite;
SELECT ARRAY[1.5,2.5]::real[] <-> ARRAY[1.5,2.5]::real[] AS same_point,
       euclidean_distance(ARRAY[0.1]::real[], ARRAY[0.2]::real[]) =
         euclidean_distance(ARRAY[0.1::real]::float8[], ARRAY[0.2::real]::float8[]) AS float4_widens_exactly;
-- Summed in stored order in double precision, as sqrt(sum of squares):
SELECT ARRAY[0.1,0.2,0.3]::float8[] <-> ARRAY[0.4,0.5,0.6]::float8[] =
       sqrt((0.1::float8-0.4)^2 + (0.2::float8-0.5)^2 + (0.3::float8-0.6)^2) AS same_as_sql;
-- NULL vectors give NULL; NaN gives NaN; infinity gives infinity.
SELECT NULL::float8[] <-> ARRAY[1]::float8[] AS null_vector,
       ARRAY['NaN']::float8[] <-> ARRAY[1]::float8[] AS nan,
       chebyshev_distance(ARRAY['NaN', 5]::float8[], ARRAY[1, 1]::float8[]) AS chebyshev_nan,
       ARRAY['Infinity']::float8[] <-> ARRAY[1]::float8[] AS inf;
-- Bad vectors are errors.
SELECT ARRAY[1,2]::float8[] <-> ARRAY[1,2,3]::float8[];
SELECT ARRAY[1,NULL]::float8[] <-> ARRAY[1,2]::float8[];
SELECT ARRAY[[1,2],[3,4]]::float8[] <-> ARRAY[1,2]::float8[];
SELECT '{}'::float8[] <-> '{}'::float8[];
-- Integer arrays (1.7): no longer ambiguous, each function equal to its float8[] form, bigint
-- beyond 2^53 rounded to the nearest double.
SELECT ARRAY[1,2] <-> ARRAY[2,4] AS l2, ARRAY[1,2] <+> ARRAY[2,4] AS l1,
       ARRAY[1,2] <=> ARRAY[2,4] AS cosine, ARRAY[1,2] <#> ARRAY[2,4] AS negative_dot,
       chebyshev_distance(ARRAY[1,2], ARRAY[2,5]) AS chebyshev;
SELECT t, bool_and(a <-> b = a::float8[] <-> b::float8[]
                   AND a <+> b = a::float8[] <+> b::float8[]
                   AND a <=> b IS NOT DISTINCT FROM a::float8[] <=> b::float8[]
                   AND a <#> b = a::float8[] <#> b::float8[]
                   AND inner_product(a, b) = inner_product(a::float8[], b::float8[])
                   AND chebyshev_distance(a, b) = chebyshev_distance(a::float8[], b::float8[]))
          AS same_as_float8
FROM (SELECT 'int2' AS t, ARRAY[i, -3 * i, 7]::int2[] AS a, ARRAY[5, i % 7, -i]::int2[] AS b
        FROM generate_series(-50, 50) i
      UNION ALL
      SELECT 'int4', ARRAY[i * 40000, -i, 0]::int4[], ARRAY[7, i * i, 3]::int4[]
        FROM generate_series(-50, 50) i
      UNION ALL
      SELECT 'int8', ARRAY[i * 9007199254740993, 1, -i]::int8[], ARRAY[2, i, 9]::int8[]
        FROM generate_series(-50, 50) i) v
GROUP BY t ORDER BY t;
SELECT ARRAY[9007199254740993]::bigint[] <-> ARRAY[0]::bigint[] AS rounded_to_2_pow_53;
SELECT ARRAY[1,NULL]::int4[] <-> ARRAY[1,2];
SELECT ARRAY[1,2]::int4[] <-> ARRAY[1,2,3];
