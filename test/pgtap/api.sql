-- The SQL API: objects, signatures, defaults, settings, and a hostile search_path.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(16);

SELECT has_function('similarity_join',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'boolean'],
  'similarity_join(left_table, right_table, eps, metric, columns, keys, unique_pairs) exists');
SELECT function_returns('similarity_join',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'boolean'],
  'setof record', 'similarity_join returns a set of rows');
SELECT is(
  (SELECT array_agg(p ORDER BY n) FROM pg_proc, unnest(proargnames) WITH ORDINALITY AS a(p, n)
    WHERE proname = 'similarity_join' AND proargmodes[n] = 'o'),
  ARRAY['left_id', 'right_id', 'distance'], 'its columns are left_id, right_id, distance');
SELECT has_operator('double precision[]', '<->', 'double precision[]', 'double precision', 'float8[] <-> float8[]');
SELECT has_operator('real[]', '<->', 'real[]', 'double precision', 'real[] <-> real[]');
SELECT has_operator('double precision[]', '<#>', 'double precision[]', 'double precision', 'float8[] <#> float8[] (taxicab)');
SELECT has_operator('double precision[]', '<=>', 'double precision[]', 'double precision', 'float8[] <=> float8[] (Chebyshev)');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'simjoin.device'), 'auto',
  'simjoin.device defaults to auto');
SELECT throws_ok($$SET simjoin.device = 'tpu'$$, '22023', NULL, 'simjoin.device rejects unknown devices');
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
