-- similarity_join_stats() compared with PostgreSQL's own evaluation of
--   SELECT a.key, count(b.key), (the b.key of the smallest (d, b.key)), min(d)
--   FROM l a LEFT JOIN r b ON d(a.v, b.v) <= eps GROUP BY a.key
-- on integer lattices (many pairs at exactly eps, many ties for the nearest partner), with
-- duplicates, NULL vectors, empty sides, every metric, self-joins and two tables, and each
-- algorithm forced. Keys are given in random order, so that reading order is not key order.
-- Its own schema: the suite's tests share one database.
CREATE SCHEMA aggregate_functions_test;
SET search_path = aggregate_functions_test, public;
SET simjoin.enable_customscan = off;  -- the reference joins are PostgreSQL's own plans
SELECT setseed(0.42);

-- The function's rows against the SQL's: 'equal (rows, left rows with partners, partners)' or
-- the differences both ways.
CREATE FUNCTION stats_check(l text, r text, eps float8, metric text DEFAULT 'euclidean',
                            algorithm text DEFAULT NULL, lcol text DEFAULT 'v', rcol text DEFAULT 'v')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text := CASE metric WHEN 'euclidean' THEN 'euclidean_distance' WHEN 'manhattan' THEN 'manhattan_distance'
                        WHEN 'chebyshev' THEN 'chebyshev_distance' WHEN 'cosine' THEN 'cosine_distance' END;
  got text := format('SELECT * FROM similarity_join_stats(%L, %L, %L::float8, %L, left_column => %L,
                        right_column => %L, algorithm => %L)', l, r, eps, metric, lcol, rcol, algorithm);
  want text := format('SELECT a.id::bigint, count(b.id),
      (array_agg(b.id::bigint ORDER BY %1$s(a.%3$I, b.%4$I), b.id) FILTER (WHERE b.id IS NOT NULL))[1],
      min(%1$s(a.%3$I, b.%4$I))
    FROM %5$I a LEFT JOIN %6$I b ON %1$s(a.%3$I, b.%4$I) <= %2$L::float8 GROUP BY a.id',
    d, eps, lcol, rcol, l, r);
  only_got bigint; only_want bigint; n bigint; matched bigint; partners numeric;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', got, want) INTO only_got;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', want, got) INTO only_want;
  EXECUTE format('SELECT count(*), count(*) FILTER (WHERE neighbours > 0), coalesce(sum(neighbours), 0) FROM (%s) x', got)
    INTO n, matched, partners;
  IF only_got = 0 AND only_want = 0 THEN
    RETURN format('equal (%s rows, %s with partners, %s partners)', n, matched, partners);
  END IF;
  RETURN format('DIFFERENT: %s only in the function, %s only in SQL', only_got, only_want);
END $$;

\i test/sql/include/lattice.sql
SELECT lattice('l2a', 300, 2, 12, 3);
SELECT lattice('l2b', 250, 2, 12, 3);
SELECT lattice('l3a', 300, 3, 6, 3);
SELECT lattice('l3b', 200, 3, 6, 3);
SELECT lattice('l16a', 200, 16, 2, 3);
SELECT lattice('l16b', 150, 16, 2, 3);
CREATE TABLE empty_side (id int PRIMARY KEY, v float8[], vr real[]);
CREATE TABLE all_null (id int PRIMARY KEY, v float8[], vr real[]);
INSERT INTO all_null VALUES (5, NULL, NULL), (2, NULL, NULL);
SELECT count(*) AS rows, count(DISTINCT v) AS distinct_vectors, count(*) - count(v) AS null_vectors FROM l2a;

-- Self-joins (a row is its own neighbour) and two tables, eps at lattice distances (pairs at
-- exactly eps), each metric.
SELECT t, eps, stats_check(t, t, eps) AS self_join
FROM unnest(ARRAY['l2a', 'l3a', 'l16a']) t, unnest(ARRAY[0, 1, 2, 5]::float8[]) eps ORDER BY 1, 2;
SELECT l, r, eps, stats_check(l, r, eps) AS two_tables
FROM (VALUES ('l2a', 'l2b'), ('l2b', 'l2a'), ('l3a', 'l3b'), ('l16a', 'l16b')) p(l, r),
     unnest(ARRAY[0, 1, 3]::float8[]) eps ORDER BY 1, 2, 3;
SELECT metric, stats_check('l2a', 'l2a', 2, metric) AS self_join, stats_check('l3a', 'l3b', 2, metric) AS two_tables
FROM unnest(ARRAY['manhattan', 'chebyshev']) metric ORDER BY 1;
SELECT eps, stats_check('l3a', 'l3a', eps, 'cosine') AS self_join, stats_check('l2a', 'l2b', eps, 'cosine') AS two_tables
FROM unnest(ARRAY[0, 1e-3, 0.05]::float8[]) eps ORDER BY 1;
-- Each algorithm forced.
SELECT algorithm, stats_check('l2a', 'l2a', 1, 'euclidean', algorithm) AS self_join,
       stats_check('l3a', 'l3b', 2, 'euclidean', algorithm) AS two_tables,
       stats_check('l16a', 'l16b', 6, 'manhattan', algorithm) AS sixteen_d
FROM unnest(ARRAY['grid', 'szl', 'bruteforce', 'auto']) algorithm ORDER BY 1;
-- real[] vectors, on one side and on both.
SELECT stats_check('l2a', 'l2b', 2, 'euclidean', NULL, 'vr', 'v') AS real_left,
       stats_check('l3a', 'l3a', 1, 'euclidean', NULL, 'vr', 'vr') AS real_self_join;
-- Empty sides, sides with NULL vectors only, eps NULL (d <= NULL is never true: every left row,
-- no partner) and negative.
SELECT stats_check('l2a', 'empty_side', 1) AS right_empty, stats_check('empty_side', 'l2a', 1) AS left_empty,
       stats_check('l2a', 'all_null', 1) AS right_all_null, stats_check('all_null', 'l2a', 1) AS left_all_null;
SELECT stats_check('l2a', 'l2b', NULL) AS eps_null, stats_check('l2a', 'l2a', NULL) AS eps_null_self,
       stats_check('l2a', 'l2b', -1) AS eps_negative;
SELECT * FROM similarity_join_stats('all_null', 'l2a', NULL, left_column => 'v', right_column => 'v');

-- A small case by hand: ties for the nearest go to the smaller key; a row with a NULL vector
-- and a row without partners have 0, NULL, NULL; the self-join counts each row itself.
CREATE TABLE hand (id int PRIMARY KEY, v float8[]);
INSERT INTO hand VALUES (30, '{0,0}'), (10, '{3,4}'), (20, '{-3,-4}'), (40, '{100,100}'), (50, NULL), (5, '{0,0}');
SELECT * FROM similarity_join_stats('hand', 'hand', 5);
CREATE TABLE probes (pid int PRIMARY KEY, at float8[]);
INSERT INTO probes VALUES (1, '{0,0}'), (2, '{3,0}'), (3, NULL), (4, '{50,50}');
SELECT * FROM similarity_join_stats('probes', 'hand', 5);
SELECT * FROM similarity_join_stats('probes', 'hand', 5, 'chebyshev');
-- A different key column and a table joined with itself through another key: not a self-join.
CREATE TABLE hand2 (id int PRIMARY KEY, k2 int UNIQUE, v float8[]);
INSERT INTO hand2 SELECT id, 100 - id, v FROM hand;
SELECT * FROM similarity_join_stats('hand2', 'hand2', 5, left_key => 'k2', right_key => 'id');

-- Errors: NaN eps, unknown metric or algorithm, vectors of different dimensions.
SELECT * FROM similarity_join_stats('hand', 'hand', 'NaN');
SELECT * FROM similarity_join_stats('hand', 'hand', 1, 'hamming');
SELECT * FROM similarity_join_stats('hand', 'hand', 1, algorithm => 'quadtree');
SELECT * FROM similarity_join_stats('hand', 'l3a', 1, right_column => 'v');
SELECT * FROM similarity_join_stats(NULL, 'hand', 1);

-- The rows serve INSERT ... SELECT and UPDATE ... FROM directly.
ALTER TABLE hand ADD COLUMN crowd bigint, ADD COLUMN nearest int;
UPDATE hand h SET crowd = s.neighbours, nearest = s.nearest_id
FROM similarity_join_stats('hand', 'hand', 5) s WHERE s.left_id = h.id;
SELECT id, crowd, nearest FROM hand ORDER BY id;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA aggregate_functions_test CASCADE;
