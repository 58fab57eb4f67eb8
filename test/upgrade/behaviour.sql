-- What the extension does, as rows "check | t": the operators on real[] and float8[] with
-- pgvector's convention, the distance functions, similarity_join (cosine included) and the
-- SimilarityJoin custom scan on <=>, similarity_join_stats and the DBSCAN functions (1.5).
-- test/upgrade/upgrade_test.sh runs it in the updated and in the fresh database: every row must
-- say t, and both outputs must be the same.
\set ON_ERROR_STOP on
\pset footer off
\pset tuples_only on
\pset format unaligned
\pset fieldsep ' | '
SET client_min_messages = warning;

SELECT '<-> is Euclidean on float8[]', '{1,2}'::float8[] <-> '{4,6}'::float8[] = 5;
SELECT '<-> is Euclidean on real[]', '{1,2}'::real[] <-> '{4,6}'::real[] = 5;
SELECT '<+> is taxicab on float8[]', '{1,2}'::float8[] <+> '{4,6}'::float8[] = 7;
SELECT '<+> is taxicab on real[]', '{1,2}'::real[] <+> '{4,6}'::real[] = 7;
SELECT '<=> is the cosine distance on float8[]', '{1,0}'::float8[] <=> '{0,1}'::float8[] = 1;
SELECT '<=> is the cosine distance on real[]', '{1,0}'::real[] <=> '{0,1}'::real[] = 1;
SELECT '<=> of opposite vectors is 2', '{1,1}'::float8[] <=> '{-3,-3}'::float8[] = 2;
SELECT '<#> is the negative inner product on float8[]', '{1,2}'::float8[] <#> '{4,6}'::float8[] = -16;
SELECT '<#> is the negative inner product on real[]', '{1,2}'::real[] <#> '{4,6}'::real[] = -16;
SELECT 'euclidean_distance', euclidean_distance('{1,2}'::float8[], '{4,6}') = 5;
SELECT 'manhattan_distance', manhattan_distance('{1,2}'::real[], '{4,6}') = 7;
SELECT 'chebyshev_distance', chebyshev_distance('{1,2}'::float8[], '{4,6}') = 4;
SELECT 'cosine_distance', cosine_distance('{1,0}'::real[], '{0,1}') = 1;
SELECT 'inner_product', inner_product('{1,2}'::float8[], '{4,6}') = 16;
SELECT 'negative_inner_product', negative_inner_product('{1,2}'::real[], '{4,6}') = -16;
SELECT 'cosine of a zero vector is NaN', cosine_distance('{0,0}'::float8[], '{1,1}') = 'NaN';

-- Points at angles i/10 on circles of radius 1, 2 and 3: cosine distance 1 - cos(angle).
CREATE TEMP TABLE upgrade_pts (id int PRIMARY KEY, v float8[]);
INSERT INTO upgrade_pts
  SELECT i, ARRAY[(1 + i % 3) * cos(i / 10.0), (1 + i % 3) * sin(i / 10.0)]
  FROM generate_series(1, 300) i;
ANALYZE upgrade_pts;
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE upgrade_expected AS
  SELECT a.id AS l, b.id AS r FROM upgrade_pts a JOIN upgrade_pts b ON a.v <=> b.v <= 0.02;
SELECT 'the plain join on <=> finds pairs', count(*) > 300 FROM upgrade_expected;
SELECT 'similarity_join(metric => cosine) returns the rows of the join on <=>', NOT EXISTS (
  (SELECT left_id, right_id FROM similarity_join('upgrade_pts', 'upgrade_pts', 0.02, metric => 'cosine')
   EXCEPT ALL SELECT l, r FROM upgrade_expected)
  UNION ALL
  (SELECT l, r FROM upgrade_expected EXCEPT ALL
   SELECT left_id, right_id FROM similarity_join('upgrade_pts', 'upgrade_pts', 0.02, metric => 'cosine')));

-- 1.5: similarity_join_stats returns the rows of the LEFT JOIN ... GROUP BY; simjoin_dbscan the
-- DBSCAN of the points (core, border, noise).
SELECT 'similarity_join_stats returns the rows of LEFT JOIN ... GROUP BY', NOT EXISTS (
  (SELECT * FROM similarity_join_stats('upgrade_pts', 'upgrade_pts', 0.02, metric => 'cosine')
   EXCEPT ALL
   SELECT a.id, count(b.id), (array_agg(b.id::bigint ORDER BY a.v <=> b.v, b.id))[1], min(a.v <=> b.v)
   FROM upgrade_pts a LEFT JOIN upgrade_pts b ON a.v <=> b.v <= 0.02 GROUP BY a.id)
  UNION ALL
  (SELECT a.id, count(b.id), (array_agg(b.id::bigint ORDER BY a.v <=> b.v, b.id))[1], min(a.v <=> b.v)
   FROM upgrade_pts a LEFT JOIN upgrade_pts b ON a.v <=> b.v <= 0.02 GROUP BY a.id
   EXCEPT ALL
   SELECT * FROM similarity_join_stats('upgrade_pts', 'upgrade_pts', 0.02, metric => 'cosine')));
CREATE TEMP TABLE upgrade_line (id int PRIMARY KEY, v float8[]);
INSERT INTO upgrade_line VALUES (1, '{0}'), (2, '{1}'), (3, '{2}'), (4, '{3}'), (5, '{10}'), (6, NULL);
SELECT 'simjoin_dbscan gives core, border and noise rows', array_agg(row(id, cluster, kind)::text ORDER BY id)
  = ARRAY['(1,0,border)', '(2,0,core)', '(3,0,core)', '(4,0,border)', '(5,,noise)', '(6,,noise)']
FROM simjoin_dbscan('upgrade_line', 1, 3);
SELECT 'simjoin_cluster_dbscan exists with its arguments',
  to_regprocedure('simjoin_cluster_dbscan(regclass, name, float8, int4, name)') IS NOT NULL;

RESET simjoin.enable_customscan;
-- cs_compare() and cs_explain(), the custom scan tests' helpers.
\i test/sql/include/customscan_setup.sql
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT 'the join on <=> is planned as the SimilarityJoin custom scan and returns PostgreSQL''s rows',
  custom_scan AND rows_custom = (SELECT count(*) FROM upgrade_expected) AND rows_custom = rows_native
  AND only_custom = 0 AND only_native = 0
FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM upgrade_pts a JOIN upgrade_pts b ON a.v <=> b.v <= 0.02');
SELECT 'the custom scan decides <=> as the cosine distance', pg_temp.cs_explain(
  'SELECT a.id AS a, b.id AS b FROM upgrade_pts a JOIN upgrade_pts b ON a.v <=> b.v <= 0.02', 'Distance') = 'cosine';
