-- similarity_join_stats, simjoin_dbscan and simjoin_cluster_dbscan (1.5): signatures, defaults,
-- EXECUTE for every role (as similarity_join), and tables read with the caller's privileges and
-- row-level security, exactly as the user's own SELECT would read them.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(41);

SELECT has_function('similarity_join_stats',
  ARRAY['regclass', 'regclass', 'double precision', 'text', 'name', 'name', 'name', 'name', 'text'],
  'similarity_join_stats(left_table, right_table, eps, metric, columns, keys, algorithm) exists');
SELECT has_function('simjoin_dbscan',
  ARRAY['regclass', 'double precision', 'integer', 'name', 'name', 'text', 'text'],
  'simjoin_dbscan(table_name, eps, min_points, column_name, key, metric, algorithm) exists');
SELECT has_function('simjoin_cluster_dbscan',
  ARRAY['regclass', 'name', 'double precision', 'integer', 'name'],
  'simjoin_cluster_dbscan(table_name, geom_column, eps, min_points, key) exists');
SELECT has_function('simjoin_cluster_dbscan',
  ARRAY['regclass', 'double precision', 'integer', 'name', 'name'],
  'simjoin_cluster_dbscan(table_name, eps, min_points, geom_column, key) exists');
SELECT function_returns(f, 'setof record', f || ' returns a set of rows')
  FROM unnest(ARRAY['similarity_join_stats', 'simjoin_dbscan', 'simjoin_cluster_dbscan']) f;
SELECT volatility_is(f, 'volatile', f || ' is volatile (it reads tables)')
  FROM unnest(ARRAY['similarity_join_stats', 'simjoin_dbscan', 'simjoin_cluster_dbscan']) f;
SELECT is(
  (SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'similarity_join_stats'
    AND NOT 'anyelement'::regtype = ANY (proargtypes)),
  '''euclidean''::text, NULL::name, NULL::name, NULL::name, NULL::name, NULL::text',
  'similarity_join_stats''s defaults: metric euclidean, columns and keys found, algorithm the setting');
SELECT is(
  (SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'simjoin_dbscan'
    AND NOT 'anyelement'::regtype = ANY (proargtypes)),
  'NULL::name, NULL::name, ''euclidean''::text, NULL::text',
  'simjoin_dbscan''s defaults: column and key found, metric euclidean, algorithm the setting');
SELECT is(
  (SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'simjoin_cluster_dbscan'
     AND proargtypes[1] = 'name'::regtype),
  'NULL::name', 'simjoin_cluster_dbscan''s default: the key is the primary key');
SELECT is(
  (SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'simjoin_cluster_dbscan'
     AND proargtypes[1] = 'float8'::regtype),
  'NULL::name, NULL::name',
  'simjoin_cluster_dbscan in simjoin_dbscan''s order: the only geometry column, the primary key');
SELECT is(
  (SELECT array_agg(p ORDER BY n) FROM pg_proc, unnest(proargnames) WITH ORDINALITY AS a(p, n)
    WHERE proname = f AND NOT 'anyelement'::regtype = ANY (proargtypes)
      AND NOT (f = 'simjoin_cluster_dbscan' AND proargtypes[1] = 'float8'::regtype)
      AND proargmodes[n] = 'o'), c, f || '''s columns')
  FROM (VALUES ('similarity_join_stats', ARRAY['left_id', 'neighbours', 'nearest_id', 'nearest_distance']),
               ('simjoin_dbscan', ARRAY['id', 'cluster', 'kind']),
               ('simjoin_cluster_dbscan', ARRAY['id', 'cluster', 'kind'])) v(f, c);
SELECT is(
  (SELECT array_agg(format_type(t, NULL) ORDER BY n) FROM pg_proc, unnest(proallargtypes) WITH ORDINALITY AS a(t, n)
    WHERE proname = f AND NOT 'anyelement'::regtype = ANY (proargtypes)
      AND NOT (f = 'simjoin_cluster_dbscan' AND proargtypes[1] = 'float8'::regtype)
      AND proargmodes[n] = 'o'), c, f || '''s column types')
  FROM (VALUES ('similarity_join_stats', ARRAY['bigint', 'bigint', 'bigint', 'double precision']),
               ('simjoin_dbscan', ARRAY['bigint', 'integer', 'text']),
               ('simjoin_cluster_dbscan', ARRAY['bigint', 'integer', 'text'])) v(f, c);

CREATE TABLE secret (id int PRIMARY KEY, v float8[], owner_name text);
INSERT INTO secret VALUES (1, '{0,0}', 'alice'), (2, '{0,1}', 'bob'), (3, '{1,0}', 'alice'), (4, '{1,1}', 'bob');
CREATE ROLE simjoin_tap_reader NOLOGIN;
GRANT USAGE ON SCHEMA public TO simjoin_tap_reader;
SELECT ok(has_function_privilege('simjoin_tap_reader', p.oid, 'EXECUTE'),
          p.proname || ': EXECUTE for every role, as similarity_join (each form)')
  FROM pg_proc p WHERE p.proname IN ('similarity_join', 'similarity_join_stats', 'simjoin_dbscan', 'simjoin_cluster_dbscan');

SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM similarity_join_stats('secret', 'secret', 1)$$, '42501',
  'permission denied for table secret', 'similarity_join_stats: no SELECT privilege, the same error as SELECT');
SELECT throws_ok($$SELECT * FROM simjoin_dbscan('secret', 1, 2)$$, '42501',
  'permission denied for table secret', 'simjoin_dbscan: no SELECT privilege, the same error as SELECT');
RESET ROLE;
CREATE TABLE other (id int PRIMARY KEY, v float8[]);
INSERT INTO other VALUES (1, '{0,0}');
GRANT SELECT (id, v) ON secret TO simjoin_tap_reader;
SET LOCAL ROLE simjoin_tap_reader;
SELECT is((SELECT sum(neighbours) FROM similarity_join_stats('secret', 'secret', 1)), 12::numeric,
  'similarity_join_stats: column privileges on the key and vector columns suffice');
SELECT throws_ok($$SELECT * FROM similarity_join_stats('secret', 'other', 1)$$, '42501',
  'permission denied for table other', 'similarity_join_stats: the right table is checked too');
SELECT is((SELECT count(*) FROM simjoin_dbscan('secret', 1, 2) WHERE kind = 'core'), 4::bigint,
  'simjoin_dbscan: column privileges suffice');
RESET ROLE;

ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
CREATE POLICY alice_rows ON secret FOR SELECT TO simjoin_tap_reader USING (owner_name = 'alice');
GRANT SELECT ON secret TO simjoin_tap_reader;
SET LOCAL ROLE simjoin_tap_reader;
SELECT results_eq(
  $$SELECT left_id, neighbours, nearest_id FROM similarity_join_stats('secret', 'secret', 1) ORDER BY 1$$,
  $$SELECT a.id::bigint, count(b.id), (array_agg(b.id::bigint ORDER BY a.v <-> b.v, b.id))[1]
    FROM secret a LEFT JOIN secret b ON a.v <-> b.v <= 1
    GROUP BY a.id ORDER BY 1$$,
  'similarity_join_stats under row-level security: the visible rows only, as the user''s own join');
SELECT results_eq(
  $$SELECT id, kind FROM simjoin_dbscan('secret', 1, 2) ORDER BY 1$$,
  $$VALUES (1::bigint, 'core'), (3::bigint, 'core')$$,
  'simjoin_dbscan under row-level security: the hidden rows neither appear nor count as neighbours');
SELECT results_eq(
  $$SELECT id, kind FROM simjoin_dbscan('secret', 1, 3) ORDER BY 1$$,
  $$VALUES (1::bigint, 'noise'), (3::bigint, 'noise')$$,
  'simjoin_dbscan under row-level security: min_points 3 finds no core among the two visible rows');
RESET ROLE;
SELECT is((SELECT count(*) FROM simjoin_dbscan('secret', 1, 3) WHERE kind = 'core'), 4::bigint,
  'the table owner still sees every row');
SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM simjoin_dbscan('pg_authid', 1, 2, 'rolname', 'oid')$$, '42501',
  'permission denied for table pg_authid', 'a catalog without privilege stays closed');
RESET ROLE;

-- simjoin_cluster_dbscan, where PostGIS is installed (it is not required by simjoin).
SELECT CASE WHEN EXISTS (SELECT FROM pg_available_extensions WHERE name = 'postgis')
  THEN 'yes' ELSE 'no' END AS has_postgis \gset
\if :has_postgis
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
CREATE TABLE secret_places (id int PRIMARY KEY, g geometry, owner_name text);
INSERT INTO secret_places VALUES (1, 'POINT(0 0)', 'alice'), (2, 'POINT(0 1)', 'bob'), (3, 'POINT(1 0)', 'alice');
SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM simjoin_cluster_dbscan('secret_places', 'g', 1, 2)$$, '42501',
  'permission denied for table secret_places', 'simjoin_cluster_dbscan: no SELECT privilege, the same error as SELECT');
RESET ROLE;
ALTER TABLE secret_places ENABLE ROW LEVEL SECURITY;
CREATE POLICY alice_places ON secret_places FOR SELECT TO simjoin_tap_reader USING (owner_name = 'alice');
GRANT SELECT ON secret_places TO simjoin_tap_reader;
SET LOCAL ROLE simjoin_tap_reader;
SELECT results_eq($$SELECT id, kind FROM simjoin_cluster_dbscan('secret_places', 'g', 1, 2) ORDER BY 1$$,
  $$VALUES (1::bigint, 'core'), (3::bigint, 'core')$$,
  'simjoin_cluster_dbscan under row-level security: the visible rows only');
RESET ROLE;
SELECT is((SELECT count(*) FROM simjoin_cluster_dbscan('secret_places', 'g', 1, 3) WHERE kind = 'core'),
  1::bigint, 'the table owner sees every row (only (0 0) has 3 neighbours)');
\else
SELECT skip('PostGIS is not installed', 3);
\endif

SELECT * FROM finish();
ROLLBACK;
