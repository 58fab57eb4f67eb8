-- The SQL API: objects, signatures, defaults, settings, and a hostile search_path.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(62);

SELECT has_function('similarity_join',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'boolean', 'text'],
  'similarity_join(left_table, right_table, eps, metric, columns, keys, unique_pairs, algorithm) exists');
SELECT hasnt_function('similarity_join',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'boolean'],
  'the 1.3 signature (without algorithm) is gone: one function, no ambiguous calls');
SELECT function_returns('similarity_join',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'boolean', 'text'],
  'setof record', 'similarity_join returns a set of rows');
SELECT is(
  (SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'similarity_join'
    AND NOT 'anyelement'::regtype = ANY (proargtypes)),
  '''euclidean''::text, NULL::name, NULL::name, NULL::name, NULL::name, false, NULL::text',
  'its defaults: metric euclidean, columns and keys found, unique_pairs off, algorithm the setting');
SELECT is(
  (SELECT array_agg(p ORDER BY n) FROM pg_proc, unnest(proargnames) WITH ORDINALITY AS a(p, n)
    WHERE proname = 'similarity_join'
    AND NOT 'anyelement'::regtype = ANY (proargtypes) AND proargmodes[n] = 'o'),
  ARRAY['left_id', 'right_id', 'distance'], 'its columns are left_id, right_id, distance');
SELECT has_operator('double precision[]', '<->', 'double precision[]', 'double precision', 'float8[] <-> float8[]');
SELECT has_operator('real[]', '<->', 'real[]', 'double precision', 'real[] <-> real[]');
-- pgvector's convention: <-> Euclidean, <+> taxicab, <=> cosine distance, <#> negative inner product.
SELECT has_operator('double precision[]', '<+>', 'double precision[]', 'double precision', 'float8[] <+> float8[] (taxicab)');
SELECT has_operator('real[]', '<+>', 'real[]', 'double precision', 'real[] <+> real[] (taxicab)');
SELECT has_operator('double precision[]', '<=>', 'double precision[]', 'double precision', 'float8[] <=> float8[] (cosine)');
SELECT has_operator('real[]', '<=>', 'real[]', 'double precision', 'real[] <=> real[] (cosine)');
SELECT has_operator('double precision[]', '<#>', 'double precision[]', 'double precision', 'float8[] <#> float8[] (negative inner product)');
SELECT has_operator('real[]', '<#>', 'real[]', 'double precision', 'real[] <#> real[] (negative inner product)');
SELECT is(
  (SELECT array_agg(x ORDER BY x COLLATE "C") FROM
     (SELECT o.oprname || ' ' || o.oprleft::regtype || ' ' || p.proname AS x
        FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
       WHERE o.oprleft IN ('float8[]'::regtype, 'real[]'::regtype) AND o.oprleft = o.oprright
         AND o.oprnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'simjoin')) s),
  ARRAY['<#> double precision[] negative_inner_product', '<#> real[] negative_inner_product',
        '<+> double precision[] manhattan_distance', '<+> real[] manhattan_distance',
        '<-> double precision[] euclidean_distance', '<-> real[] euclidean_distance',
        '<=> double precision[] cosine_distance', '<=> real[] cosine_distance'],
  'the operators on arrays and the functions they call (no Chebyshev operator)');
SELECT is(
  (SELECT array_agg(x ORDER BY x COLLATE "C") FROM
     (SELECT o.oprcom::regoperator::text AS x FROM pg_operator o
       WHERE o.oprleft = 'float8[]'::regtype AND o.oprright = 'float8[]'::regtype
         AND o.oprname IN ('<->', '<+>', '<=>', '<#>')) s),
  ARRAY['<#>(double precision[],double precision[])', '<+>(double precision[],double precision[])',
        '<->(double precision[],double precision[])', '<=>(double precision[],double precision[])'],
  'each operator is its own commutator');
SELECT has_function(f, ARRAY[t, t], f || '(' || t || ', ' || t || ') exists')
  FROM unnest(ARRAY['euclidean_distance', 'manhattan_distance', 'chebyshev_distance', 'cosine_distance',
                    'inner_product', 'negative_inner_product']) f,
       unnest(ARRAY['double precision[]', 'real[]']) t;
SELECT function_returns(f, ARRAY[t, t], 'double precision', f || '(' || t || ', ' || t || ') returns float8')
  FROM unnest(ARRAY['cosine_distance', 'inner_product', 'negative_inner_product']) f,
       unnest(ARRAY['double precision[]', 'real[]']) t;
SELECT volatility_is(f, ARRAY[t, t], 'immutable', f || '(' || t || ', ' || t || ') is immutable')
  FROM unnest(ARRAY['cosine_distance', 'inner_product', 'negative_inner_product']) f,
       unnest(ARRAY['double precision[]', 'real[]']) t;
SELECT is(ARRAY[1,0]::float8[] <=> ARRAY[1,1]::float8[], 1 - 1 / sqrt(2::float8),
  'float8[] <=> float8[] is the cosine distance 1 - a.b / (|a| |b|)');
SELECT is(ARRAY[3,4]::float8[] <=> ARRAY[-6,-8]::float8[], 2::float8, '<=> of antiparallel vectors is 2');
SELECT is(ARRAY[1,2,3]::float8[] <=> ARRAY[2,4,6]::float8[], 0::float8, '<=> of parallel vectors is 0');
SELECT is(ARRAY[0,0]::float8[] <=> ARRAY[1,1]::float8[], 'NaN'::float8, '<=> with a zero vector is NaN');
SELECT is(ARRAY[1,2,2]::float8[] <=> ARRAY[2,-1,7]::float8[], cosine_distance(ARRAY[1,2,2]::float8[], ARRAY[2,-1,7]::float8[]),
  '<=> is cosine_distance()');
SELECT is(ARRAY[1,2,2]::real[] <=> ARRAY[2,-1,7]::real[], ARRAY[1,2,2]::float8[] <=> ARRAY[2,-1,7]::float8[],
  'real[] <=> real[] is the distance of the vectors widened to float8');
SELECT is(ARRAY[1,2]::float8[] <+> ARRAY[4,-2]::float8[], 7::float8, '<+> is the taxicab distance');
SELECT is(ARRAY[1,2]::float8[] <#> ARRAY[3,4]::float8[], -11::float8, '<#> is the negative inner product');
SELECT is(inner_product(ARRAY[1,2]::real[], ARRAY[3,4]::real[]), 11::float8, 'inner_product()');
SELECT is(chebyshev_distance(ARRAY[1,2]::float8[], ARRAY[4,-2]::float8[]), 4::float8, 'chebyshev_distance()');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'simjoin.device'), 'auto',
  'simjoin.device defaults to auto');
SELECT throws_ok($$SET simjoin.device = 'tpu'$$, '22023', NULL, 'simjoin.device rejects unknown devices');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'simjoin.algorithm'), 'auto',
  'simjoin.algorithm defaults to auto');
SELECT is((SELECT enumvals FROM pg_settings WHERE name = 'simjoin.algorithm'),
  ARRAY['auto', 'grid', 'szl', 'bruteforce'], 'simjoin.algorithm: auto, grid, szl, bruteforce');
SELECT throws_ok($$SET simjoin.algorithm = 'quadtree'$$, '22023', NULL,
  'simjoin.algorithm rejects unknown algorithms');
SELECT throws_ok($$SET simjoin.no_such_setting = 1$$, '42602', NULL, 'the simjoin prefix is reserved');

CREATE TABLE pts (id bigint PRIMARY KEY, v float8[]);
INSERT INTO pts VALUES (1, '{0,0}'), (2, '{0,1}'), (3, '{5,5}');
SELECT results_eq(
  $$SELECT left_id, right_id, distance FROM similarity_join('pts', 'pts', 1) ORDER BY 1, 2$$,
  $$VALUES (1::bigint, 1::bigint, 0::float8), (1, 2, 1), (2, 1, 1), (2, 2, 0), (3, 3, 0)$$,
  'a self-join returns both orders and each row with itself');
SELECT results_eq(
  $$SELECT left_id, right_id FROM similarity_join('pts', 'pts', 1, unique_pairs => true)$$,
  $$VALUES (1::bigint, 2::bigint)$$,
  'unique_pairs returns each unordered pair once');
SELECT results_eq(
  $$SELECT left_id, right_id FROM similarity_join('pts', 'pts', 1.5, metric => 'chebyshev') WHERE left_id < right_id$$,
  $$VALUES (1::bigint, 2::bigint)$$, 'metric by name');
SELECT results_eq(
  $$SELECT left_id, right_id FROM similarity_join('pts', 'pts', 0.3, metric => 'cosine') WHERE left_id <> right_id ORDER BY 1, 2$$,
  $$VALUES (2::bigint, 3::bigint), (3::bigint, 2::bigint)$$, 'metric cosine (the zero vector matches nothing)');

-- A hostile search_path cannot redirect the function's internals.
CREATE SCHEMA evil;
CREATE FUNCTION evil.int8(bigint) RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint';
CREATE TABLE evil.pts (id bigint PRIMARY KEY, v float8[]);
SET LOCAL search_path = evil;
CREATE TEMP TABLE under_evil AS
  SELECT count(*) AS n, sum(left_id) AS s FROM public.similarity_join('public.pts', 'public.pts', 1);
SET LOCAL search_path = '';
CREATE TEMP TABLE under_empty AS
  SELECT count(*) AS n FROM public.similarity_join('public.pts', 'public.pts', 1);
SET LOCAL search_path = public;
SELECT is((SELECT n FROM under_evil), 5::bigint,
  'the function reads the named table whatever the search_path');
SELECT is((SELECT s FROM under_evil), 9::numeric,
  'keys are read with pg_catalog casts, not the search_path''s');
SELECT is((SELECT n FROM under_empty), 5::bigint, 'works with an empty search_path');

SELECT * FROM finish();
ROLLBACK;
