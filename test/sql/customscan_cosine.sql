-- The SimilarityJoin custom scan with the cosine distance (<=> and cosine_distance() on real[] and
-- float8[]): the same rows as PostgreSQL's own plan (simjoin.enable_customscan = off), as the SQL
-- function evaluated on every pair of a cross join (the oracle), and as similarity_join(metric =>
-- 'cosine'). The engine joins unit vectors by a widened Euclidean bound and decides every
-- candidate with the definition (src/engine/cosine.h); vectors without a direction (zero, NaN,
-- infinite) have distance NaN, which only a NaN eps matches (NaN <= NaN in PostgreSQL).
\i test/sql/include/customscan_setup.sql

-- Small integer coordinates: many parallel, antiparallel and orthogonal pairs, zero vectors.
-- Copies of some rows scaled by a power of two (the same direction bit for bit), by 2.5 and 0.1
-- (rounded), by 1e-300 and 1e300 (far from overflow and underflow after the scaling of the
-- definition), duplicates, and rows without a direction or without a vector.
SELECT setseed(0.31);
CREATE TABLE co_a (id int PRIMARY KEY, cat int, v float8[]);
CREATE TABLE co_b (id int PRIMARY KEY, cat int, v float8[]);
INSERT INTO co_a SELECT i, i % 3, ARRAY[floor(random() * 7) - 3, floor(random() * 7) - 3,
  floor(random() * 7) - 3] FROM generate_series(1, 600) i;
INSERT INTO co_b SELECT i, i % 3, ARRAY[floor(random() * 7) - 3, floor(random() * 7) - 3,
  floor(random() * 7) - 3] FROM generate_series(1, 600) i;
INSERT INTO co_a SELECT 2000 + id, cat, ARRAY[v[1] * 1e-300, v[2] * 1e-300, v[3] * 1e-300]
  FROM co_a WHERE id <= 100 ORDER BY id;
INSERT INTO co_a SELECT 3000 + id, cat, ARRAY[v[1] * 0.1, v[2] * 0.1, v[3] * 0.1]
  FROM co_a WHERE id <= 100 ORDER BY id;
INSERT INTO co_a SELECT 4000 + id, cat, v FROM co_a WHERE id <= 50 ORDER BY id;  -- duplicates
INSERT INTO co_b SELECT 2000 + id, cat, ARRAY[v[1] * 1e300, v[2] * 1e300, v[3] * 1e300]
  FROM co_b WHERE id <= 100 ORDER BY id;
INSERT INTO co_b SELECT 3000 + id, cat, ARRAY[v[1] * 2.5, v[2] * 2.5, v[3] * 2.5]
  FROM co_b WHERE id <= 100 ORDER BY id;
INSERT INTO co_b SELECT 4000 + id, cat, ARRAY[v[1] * 1024, v[2] * 1024, v[3] * 1024]
  FROM co_a WHERE id <= 100 ORDER BY id;
INSERT INTO co_a VALUES (9001, 0, '{0,0,0}'), (9002, 1, '{0,0,0}'), (9003, 2, NULL),
  (9004, 0, '{NaN,1,1}'), (9005, 1, '{Infinity,1,1}'), (9006, 2, '{1e-320,0,0}'),
  (9007, 0, '{1e308,1e308,1e308}'), (9010, 1, '{1,2,3}'), (9011, 2, '{1,2,3}');
INSERT INTO co_b VALUES (9001, 0, '{0,0,0}'), (9003, 2, NULL), (9004, 0, '{1,NaN,1}'),
  (9006, 2, '{-1e-320,0,0}'), (9007, 0, '{-1e308,-1e308,-1e308}'), (9010, 1, '{4,-1,2.5}'),
  (9011, 2, '{2,4,6}'), (9012, 0, '{-3,-6,-9}'), (9013, 1, '{-0.1,-0.2,-0.3}');
ANALYZE co_a;
ANALYZE co_b;

-- The special pairs by the SQL function: parallel 0 (also 1e300 times longer), antiparallel 2,
-- zero, NaN and infinite vectors NaN, subnormal vectors a direction like any other.
SELECT a.id AS a, b.id AS b, a.v <=> b.v AS cosine, cosine_distance(b.v, a.v) AS commuted
  FROM co_a a, co_b b
 WHERE (a.id, b.id) IN ((9010, 9011), (9010, 9012), (9010, 9013), (9001, 9001), (9001, 9010),
                        (9004, 9010), (9005, 9010), (9006, 9006), (9007, 9007), (9006, 9010))
 ORDER BY 1, 2;
SELECT count(*) FILTER (WHERE (a.v <=> b.v) = (x.v <=> y.v)) AS scaled_same,
       count(*) FILTER (WHERE abs((a.v <=> b.v) - (x.v <=> y.v)) <= 1e-15) AS scaled_close,
       count(*) FILTER (WHERE (a.v <=> b.v) = 'NaN' AND (x.v <=> y.v) = 'NaN') AS both_nan,
       count(*) AS pairs
  FROM co_a a JOIN co_a x ON x.id = a.id + 2000, co_b b JOIN co_b y ON y.id = b.id + 2000
 WHERE a.id <= 100 AND b.id <= 100;

-- Plan shape: the operator, the function in both argument orders, a commuted comparison.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0.1;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM co_a a JOIN co_b b ON cosine_distance(b.v, a.v) < 0.1;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM co_a a, co_b b WHERE 0.1 >= b.v <=> a.v;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT a.id, b.id FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0.1;

-- Every distance once, by the SQL function on a cross join (no distance clause: no custom scan).
CREATE TEMP TABLE co_d AS SELECT a.id AS a, b.id AS b, a.v <=> b.v AS d FROM co_a a CROSS JOIN co_b b;
SELECT count(*) AS pairs, count(*) FILTER (WHERE d = 0) AS at_0, count(*) FILTER (WHERE d = 1) AS at_1,
       count(*) FILTER (WHERE d = 2) AS at_2, count(*) FILTER (WHERE d = 'NaN') AS nan,
       count(*) FILTER (WHERE d <> 'NaN' AND (d < 0 OR d > 2)) AS outside FROM co_d;
-- cs_oracle(eps, strict): the distance the custom scan runs a.v <=> b.v <= eps (or <) with, its
-- pairs, and the pairs only it or only the oracle has (a full join on the keys).
CREATE FUNCTION pg_temp.cs_oracle(eps float8, strict boolean DEFAULT false,
    OUT distance text, OUT pairs bigint, OUT only_custom bigint, OUT only_oracle bigint)
LANGUAGE plpgsql AS $$
DECLARE
  op text := CASE WHEN strict THEN '<' ELSE '<=' END;
  query text := format('SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v %s %L::float8',
                       op, eps);
BEGIN
  distance := pg_temp.cs_explain(query, 'Distance');
  EXECUTE format('SELECT count(c.a), count(*) FILTER (WHERE o.a IS NULL), count(*) FILTER (WHERE c.a IS NULL)
                    FROM (%s) c FULL JOIN (SELECT a, b FROM co_d WHERE d %s %L::float8) o
                      ON o.a = c.a AND o.b = c.b', query, op, eps)
    INTO pairs, only_custom, only_oracle;
END $$;
SELECT eps, strict, o.* FROM unnest(ARRAY[0, 1e-12, 0.01, 0.1, 0.5, 1, 1.5, 2]::float8[]) eps,
  unnest(ARRAY[false, true]) strict, LATERAL pg_temp.cs_oracle(eps, strict) o ORDER BY 1, 2;

-- Same rows as PostgreSQL's own plan: the operator and the function, both orders, <= and <,
-- another clause checked on each pair, pairs with columns and distances.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0.1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v < 0.5');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON 0.25 >= b.v <=> a.v');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON cosine_distance(a.v, b.v) <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON cosine_distance(b.v, a.v) < 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0.2 AND a.cat = b.cat
     AND a.id < b.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.*, b.v AS bv, a.v <=> b.v AS d FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0.05');

-- eps exactly the distance of a pair (computed, not a round number): the pair is in with <=,
-- out with <, in both plans and in the oracle.
SET extra_float_digits = 3;
SELECT a.v <=> b.v AS d FROM co_a a, co_b b WHERE a.id = 9010 AND b.id = 9010 \gset
SELECT :'d'::float8 AS d, count(*) AS at_d FROM co_d WHERE d = :'d'::float8;
SELECT * FROM pg_temp.cs_compare(format(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= %L::float8', :'d'));
SELECT * FROM pg_temp.cs_compare(format(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v < %L::float8', :'d'));
SELECT * FROM pg_temp.cs_oracle(:'d'::float8);
SELECT * FROM pg_temp.cs_oracle(:'d'::float8, true);
SELECT EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v <= :'d'::float8
                WHERE a.id = 9010 AND b.id = 9010) AS pair_with_le,
       EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v < :'d'::float8
                WHERE a.id = 9010 AND b.id = 9010) AS pair_with_lt,
       EXISTS (SELECT FROM co_a a JOIN co_b b ON cosine_distance(b.v, a.v) <= :'d'::float8
                WHERE a.id = 9010 AND b.id = 9010) AS pair_with_function;
-- The same with the distance of a pair of scaled copies (1e-300 against 1e300).
SELECT a.v <=> b.v AS d FROM co_a a, co_b b WHERE a.id = 2007 AND b.id = 2011 \gset
SELECT * FROM pg_temp.cs_oracle(:'d'::float8);
SELECT * FROM pg_temp.cs_oracle(:'d'::float8, true);
SELECT EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v <= :'d'::float8
                WHERE a.id = 2007 AND b.id = 2011) AS pair_with_le,
       EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v < :'d'::float8
                WHERE a.id = 2007 AND b.id = 2011) AS pair_with_lt;
RESET extra_float_digits;
-- Parallel vectors of different lengths: at distance 0, or a rounding error above it (1 - s / (sqrt(s)
-- sqrt(s)) is not always 0, even for a vector against itself); antiparallel ones at 2 (only <= 2
-- keeps those).
SELECT EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0
                WHERE a.id = 9010 AND b.id = 9011) AS parallel_at_0,
       EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v <= 2
                WHERE a.id = 9010 AND b.id = 9012) AS antiparallel_le_2,
       EXISTS (SELECT FROM co_a a JOIN co_b b ON a.v <=> b.v < 2
                WHERE a.id = 9010 AND b.id = 9012) AS antiparallel_lt_2;
-- co_a's first rows against their copies 1024 times longer: joined at eps 0 and 1e-15 (custom
-- scan) and by the oracle.
SELECT count(*) FILTER (WHERE b.id = a.id + 4000) AS scaled_within_0,
       (SELECT count(*) FROM co_d WHERE b = a + 4000 AND d = 0) AS oracle_0
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 0;
SELECT count(*) FILTER (WHERE b.id = a.id + 4000) AS scaled_within_1e_15,
       (SELECT count(*) FROM co_d WHERE b = a + 4000 AND d <= 1e-15) AS oracle_1e_15,
       (SELECT count(*) FROM co_a WHERE id <= 100 AND v <> '{0,0,0}') AS with_direction
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 1e-15;

-- Vectors without a direction never match, not even with eps 2 or infinity (forced: the planner
-- prefers a nested loop there); with eps NaN every pair matches, theirs too (NaN <= NaN).
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= 2');
SELECT count(*) FILTER (WHERE a.id IN (9001, 9002, 9004, 9005) OR b.id IN (9001, 9004))
         AS no_direction_pairs FROM co_a a JOIN co_b b ON a.v <=> b.v <= 2;
SET enable_nestloop = off;
SELECT eps, op, c.* FROM unnest(ARRAY['Infinity', 'NaN']::float8[]) eps, unnest(ARRAY['<=', '<']) op,
  LATERAL pg_temp.cs_compare(format('SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b
    ON a.v <=> b.v %s %L::float8 AND (a.id %% 10 = 0 OR a.id > 9000)', op, eps)) c ORDER BY 1, 2;
SELECT count(*) FILTER (WHERE a.id IN (9001, 9002, 9004, 9005) OR b.id IN (9001, 9004))
         AS no_direction_pairs
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 'Infinity' AND (a.id % 10 = 0 OR a.id > 9000);
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE a.v <=> b.v = 'NaN') AS nan_pairs
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 'NaN' AND (a.id % 10 = 0 OR a.id > 9000);
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.v <=> b.v = 'NaN') AS nan_pairs,
       count(*) FILTER (WHERE a.v = '{0,0,0}' OR b.v = '{0,0,0}') AS zero_vector_pairs
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 'NaN' AND (a.id % 10 = 0 OR a.id > 9000);
SET simjoin.enable_customscan = off;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a.v <=> b.v = 'NaN') AS nan_pairs,
       count(*) FILTER (WHERE a.v = '{0,0,0}' OR b.v = '{0,0,0}') AS zero_vector_pairs
  FROM co_a a JOIN co_b b ON a.v <=> b.v <= 'NaN' AND (a.id % 10 = 0 OR a.id > 9000);
RESET simjoin.enable_customscan;
RESET enable_nestloop;
-- Negative and NULL eps: nothing.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= -1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <=> b.v <= NULL::float8');
-- eps as a parameter: custom and generic plans, rescans with a changing eps.
PREPARE co_q(float8) AS SELECT count(*) FROM co_a a JOIN co_b b ON a.v <=> b.v <= $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE co_q(0.1);
EXECUTE co_q(0.1);
EXECUTE co_q('NaN');
SET simjoin.enable_customscan = off;
EXECUTE co_q(0.1);
EXECUTE co_q('NaN');
RESET simjoin.enable_customscan;
RESET plan_cache_mode;
DEALLOCATE co_q;
SELECT e, (SELECT count(*) FROM co_a a JOIN co_b b ON a.v <=> b.v <= e)
  FROM (VALUES (0.1::float8), (0.5), (0.1), (2)) AS t(e);
SET simjoin.enable_customscan = off;
SELECT e, (SELECT count(*) FROM co_a a JOIN co_b b ON a.v <=> b.v <= e)
  FROM (VALUES (0.1::float8), (0.5), (0.1), (2)) AS t(e);
RESET simjoin.enable_customscan;

-- Duplicates and a self-join: eps 0 pairs each vector with its duplicates and parallel copies.
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM co_a x JOIN co_a y ON x.v <=> y.v <= 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM co_a x JOIN co_a y ON x.v <=> y.v <= 0.3');

-- real[] columns (float4 widened exactly): rounded coordinates, a real[] against a float8[].
CREATE TABLE co_r (id int PRIMARY KEY, v real[]);
INSERT INTO co_r SELECT i, ARRAY[round(random() * 20) / 10 - 1, round(random() * 20) / 10 - 1,
  round(random() * 20) / 10 - 1]::real[] FROM generate_series(1, 1000) i;
INSERT INTO co_r SELECT 2000 + id, ARRAY[v[1] * 3e-38, v[2] * 3e-38, v[3] * 3e-38]::real[]
  FROM co_r WHERE id <= 50 ORDER BY id;
INSERT INTO co_r VALUES (9001, '{0,0,0}'), (9002, '{NaN,0,0}'), (9003, '{Infinity,0,0}'),
  (9004, '{3e38,3e38,3e38}'), (9005, '{1e-45,0,0}');
ANALYZE co_r;
EXPLAIN (COSTS OFF) SELECT x.id, y.id FROM co_r x JOIN co_r y ON x.v <=> y.v <= 0.01;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM co_r x JOIN co_r y ON x.v <=> y.v <= 0.01');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM co_r x JOIN co_r y ON cosine_distance(x.v, y.v) < 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM co_r x JOIN co_r y ON x.v <=> y.v <= 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, b.id AS b FROM co_r x JOIN co_b b ON x.v::float8[] <=> b.v <= 0.05');

-- cs_differ(a, b): the distance the custom scan runs query a with (empty: no custom scan), a's
-- rows, and the rows only one of the two queries returns (multiset difference, both ways).
CREATE FUNCTION pg_temp.cs_differ(a text, b text,
    OUT distance text, OUT pairs bigint, OUT only_first bigint, OUT only_second bigint)
LANGUAGE plpgsql AS $$
BEGIN
  distance := pg_temp.cs_explain(a, 'Distance');
  EXECUTE format('SELECT count(*) FROM (%s) x', a) INTO pairs;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', a, b) INTO only_first;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', b, a) INTO only_second;
END $$;
-- 100 dimensions, clustered (60 directions, 2000 rows): the custom scan, its pairs those of the
-- native plan (run once, the pairs within 0.1 with their distances kept).
CREATE TABLE co_centers AS SELECT g AS id,
  ARRAY(SELECT random() * 2 - 1 FROM generate_series(1, 100) WHERE g > 0)::float8[] AS v
  FROM generate_series(1, 60) g;
CREATE TABLE co_h AS SELECT i AS id,
  ARRAY(SELECT c.v[j] + (random() - 0.5) * 0.6 FROM generate_series(1, 100) j)::float8[] AS v
  FROM generate_series(1, 2000) i JOIN co_centers c ON c.id = 1 + i % 60;
ANALYZE co_h;
EXPLAIN (COSTS OFF) SELECT count(*) FROM co_h a JOIN co_h b ON a.v <=> b.v <= 0.1;
SET simjoin.enable_customscan = off;
CREATE TEMP TABLE co_hd AS SELECT a.id AS a, b.id AS b, a.v <=> b.v AS d FROM co_h a JOIN co_h b
  ON a.v <=> b.v <= 0.1;
RESET simjoin.enable_customscan;
SELECT * FROM pg_temp.cs_differ('SELECT a.id AS a, b.id AS b FROM co_h a JOIN co_h b ON a.v <=> b.v <= 0.1',
                                'SELECT a, b FROM co_hd');
SELECT * FROM pg_temp.cs_differ(
  'SELECT a.id AS a, b.id AS b, a.v <=> b.v AS d FROM co_h a JOIN co_h b ON cosine_distance(a.v, b.v) < 0.05',
  'SELECT a, b, d FROM co_hd WHERE d < 0.05');

-- <#> (negative inner product) and inner_product() are PostgreSQL's: no custom scan.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM co_a a JOIN co_b b ON a.v <#> b.v <= -10;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM co_a a JOIN co_b b ON a.v <#> b.v <= -10');
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM co_a a JOIN co_b b ON inner_product(a.v, b.v) >= 10;

-- similarity_join(metric => 'cosine'): the rows (keys and distances) of the SQL join, two tables
-- and a self-join, unique_pairs both ways, real[] columns.
SELECT count(*) AS pairs FROM similarity_join('co_a', 'co_b', 0.1, metric => 'cosine');
SET simjoin.enable_customscan = off;  -- the SQL joins: PostgreSQL's own plans
SELECT l, r, eps, metric, unique_pairs, d.pairs, d.only_first AS only_function, d.only_second AS only_sql
  FROM (VALUES ('co_a', 'co_b', 0.1, 'cosine', false), ('co_a', 'co_b', 1, 'cosine', false),
               ('co_b', 'co_b', 0, 'cosine', false), ('co_b', 'co_b', 0, 'cosine', true),
               ('co_a', 'co_a', 0.05, 'cosine', false), ('co_a', 'co_a', 0.05, 'cosine', true),
               ('co_r', 'co_r', 0.01, 'COSINE', false), ('co_r', 'co_r', 0.01, 'Cosine', true))
       AS t(l, r, eps, metric, unique_pairs),
  LATERAL pg_temp.cs_differ(
    format('SELECT * FROM similarity_join(%L, %L, %s, metric => %L, unique_pairs => %L)',
           l, r, eps, metric, unique_pairs),
    format('SELECT x.id::bigint, y.id::bigint, x.v <=> y.v FROM %I x JOIN %I y ON x.v <=> y.v <= %s%s',
           l, r, eps, CASE WHEN unique_pairs THEN ' AND x.id < y.id' ELSE '' END)) d;
RESET simjoin.enable_customscan;
-- Each row with itself where its distance to itself is 0: not a row without a direction, nor
-- one whose rounding leaves it above 0.
SELECT count(*) FILTER (WHERE left_id = right_id) AS self_pairs,
       (SELECT count(*) FROM co_a WHERE v <=> v = 0) AS at_0_from_itself,
       (SELECT count(*) FROM co_a WHERE v <=> v > 0 AND v <=> v < 1e-15) AS just_above_0
  FROM similarity_join('co_a', 'co_a', 0, metric => 'cosine');

DROP TABLE co_a, co_b, co_r, co_centers, co_h, co_d, co_hd;
