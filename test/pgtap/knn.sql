-- similarity_knn_join (1.6): signature, defaults, comment, answers on a small table, errors,
-- privileges and row-level security.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(12);

SELECT has_function('similarity_knn_join',
  ARRAY['regclass', 'regclass', 'integer', 'double precision', 'text', 'name', 'name', 'name',
        'name', 'text', 'boolean'],
  'similarity_knn_join(left, right, k, eps, metric, columns, keys, algorithm, include_self) exists');
SELECT function_returns('similarity_knn_join',
  ARRAY['regclass', 'regclass', 'integer', 'double precision', 'text', 'name', 'name', 'name',
        'name', 'text', 'boolean'], 'setof record', 'it returns a set of rows');
SELECT is((SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'similarity_knn_join'
    AND NOT 'anyelement'::regtype = ANY (proargtypes)),
  'NULL::double precision, ''euclidean''::text, NULL::name, NULL::name, NULL::name, NULL::name, NULL::text, true',
  'eps defaults to NULL (no limit), include_self to true');
SELECT isnt(obj_description('similarity_knn_join(regclass, regclass, int4, float8, text, name,
                              name, name, name, text, bool)'::regprocedure, 'pg_proc'), NULL,
            'it has a comment');

CREATE TABLE knn_pts (id int PRIMARY KEY, v float8[]);
INSERT INTO knn_pts VALUES (1, '{0, 0}'), (2, '{1, 0}'), (3, '{0, 1}'), (4, '{5, 5}'), (5, NULL);
SELECT results_eq(
  $$SELECT left_id, right_id, distance, rank FROM similarity_knn_join('knn_pts', 'knn_pts', 2) ORDER BY 1, 4$$,
  $$VALUES (1::bigint, 1::bigint, 0::float8, 1), (1, 2, 1, 2), (2, 2, 0, 1), (2, 1, 1, 2),
           (3, 3, 0, 1), (3, 1, 1, 2), (4, 4, 0, 1), (4, 2, sqrt(41), 2)$$,
  'a row is its own nearest neighbour; ties go to the smaller key');
SELECT results_eq(
  $$SELECT left_id, right_id, rank FROM similarity_knn_join('knn_pts', 'knn_pts', 1, include_self => false) ORDER BY 1$$,
  $$VALUES (1::bigint, 2::bigint, 1), (2, 1, 1), (3, 1, 1), (4, 2, 1)$$,
  'include_self => false: the nearest other row');
SELECT is((SELECT count(*) FROM similarity_knn_join('knn_pts', 'knn_pts', 3, 1.0)), 8::bigint,
  'eps limits the partners (fewer than k where there are fewer)');
SELECT is((SELECT count(*) FROM similarity_knn_join('knn_pts', 'knn_pts', 0)), 0::bigint, 'k = 0: no rows');
SELECT throws_ok($$SELECT * FROM similarity_knn_join('knn_pts', 'knn_pts', NULL)$$,
  'simjoin: k must not be NULL', 'k NULL: ERROR');
SELECT throws_ok($$SELECT * FROM similarity_knn_join('knn_pts', 'knn_pts', -2)$$,
  'simjoin: k must not be negative (it is -2)', 'k < 0: ERROR');

CREATE ROLE simjoin_tap_knn NOLOGIN;
GRANT USAGE ON SCHEMA public TO simjoin_tap_knn;
SET LOCAL ROLE simjoin_tap_knn;
SELECT throws_ok($$SELECT * FROM similarity_knn_join('knn_pts', 'knn_pts', 1)$$,
  'permission denied for table knn_pts', 'no SELECT privilege: the same error as SELECT');
RESET ROLE;
GRANT SELECT ON knn_pts TO simjoin_tap_knn;
ALTER TABLE knn_pts ENABLE ROW LEVEL SECURITY;
CREATE POLICY knn_small ON knn_pts FOR SELECT TO simjoin_tap_knn USING (id <= 2);
SET LOCAL ROLE simjoin_tap_knn;
SELECT is((SELECT count(*) FROM similarity_knn_join('knn_pts', 'knn_pts', 5)), 4::bigint,
  'row-level security: only the visible rows, on both sides');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
