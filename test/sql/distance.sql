-- The distance functions and operators on real[] and float8[].
SELECT ARRAY[0,0]::float8[] <-> ARRAY[3,4]::float8[] AS euclidean,
       ARRAY[0,0]::float8[] <#> ARRAY[3,4]::float8[] AS manhattan,
       ARRAY[0,0]::float8[] <=> ARRAY[3,-4]::float8[] AS chebyshev;
SELECT ARRAY[1.5,2.5]::real[] <-> ARRAY[1.5,2.5]::real[] AS same_point,
       euclidean_distance(ARRAY[0.1]::real[], ARRAY[0.2]::real[]) =
         euclidean_distance(ARRAY[0.1::real]::float8[], ARRAY[0.2::real]::float8[]) AS float4_widens_exactly;
-- Summed in stored order in double precision, as sqrt(sum of squares):
SELECT ARRAY[0.1,0.2,0.3]::float8[] <-> ARRAY[0.4,0.5,0.6]::float8[] =
       sqrt((0.1::float8-0.4)^2 + (0.2::float8-0.5)^2 + (0.3::float8-0.6)^2) AS same_as_sql;
-- NULL vectors give NULL; NaN gives NaN; infinity gives infinity.
SELECT NULL::float8[] <-> ARRAY[1]::float8[] AS null_vector,
       ARRAY['NaN']::float8[] <-> ARRAY[1]::float8[] AS nan,
       ARRAY['NaN', 5]::float8[] <=> ARRAY[1, 1]::float8[] AS chebyshev_nan,
       ARRAY['Infinity']::float8[] <-> ARRAY[1]::float8[] AS inf;
-- Bad vectors are errors.
SELECT ARRAY[1,2]::float8[] <-> ARRAY[1,2,3]::float8[];
SELECT ARRAY[1,NULL]::float8[] <-> ARRAY[1,2]::float8[];
SELECT ARRAY[[1,2],[3,4]]::float8[] <-> ARRAY[1,2]::float8[];
SELECT '{}'::float8[] <-> '{}'::float8[];
