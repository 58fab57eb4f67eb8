-- The queries of the load tests (customscan_parallel_load, customscan_threaded_load) over the
-- tables :load_a and :load_b (id, v float8[], p point, tag): how each side was read, and each
-- compared with PostgreSQL's plan.
\set count_a 'SELECT count(*) FROM ' :"load_a" ' a JOIN ' :"load_a" ' b ON a.v <-> b.v <= 1'
\set group_a 'SELECT a.id, count(*) FROM ' :"load_a" ' a JOIN ' :"load_a" ' b ON a.v <-> b.v <= 1 GROUP BY a.id'
\set pairs_ab 'SELECT a.id AS a, b.id AS b, a.tag AS a_tag, b.tag AS b_tag FROM ' :"load_a" ' a JOIN ' :"load_b" ' b ON a.v <-> b.v <= 1.2'
-- (a point key is rechecked by PostgreSQL's operator, which reads each row's point: serial)
\set points_a 'SELECT a.id AS a, b.id AS b FROM ' :"load_a" ' a JOIN ' :"load_a" ' b ON a.p <-> b.p <= 1'
-- (a self-join reads its table once: the inner side)
SELECT pg_temp.parallel_load(:'count_a') AS count_a, pg_temp.parallel_load(:'group_a') AS group_a;
SELECT pg_temp.parallel_load(:'pairs_ab') AS pairs_ab_inner,
       pg_temp.parallel_load(:'pairs_ab', 'Outer') AS pairs_ab_outer;
SELECT pg_temp.parallel_load(:'points_a') AS points_a;
SELECT * FROM pg_temp.cs_compare(:'count_a');
SELECT * FROM pg_temp.cs_compare(:'group_a');
SELECT * FROM pg_temp.cs_compare(:'pairs_ab');
SELECT * FROM pg_temp.cs_compare(:'points_a');
