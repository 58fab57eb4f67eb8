-- simjoin.algorithm (auto, grid, szl, bruteforce) and similarity_join(..., algorithm => ...):
-- every algorithm gives exactly the rows of PostgreSQL's own plan. Run with PGOPTIONS="-c
-- simjoin.algorithm=szl" the SHOW below and the NOTICE of the auto rows differ (see TESTING.md).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET simjoin.threads = 2;  -- auto's choice prices the join's threads: the same on every machine
-- The NOTICEs below name the device: this backend's CPU engine even where the suite runs with
-- simjoin.device = gpu (test/service/service_test.sh checks the algorithm through the service).
SET simjoin.device = cpu;
SHOW simjoin.algorithm;

-- 2-D: a lattice of step 0.25 (pairs at exactly eps = 0.25 and 0.5), duplicates, NULL and wild
-- rows; 16-D: coordinates in {0, 0.5, 1} (pairs at exactly eps 0.5 and 1 in every metric).
SELECT setseed(0.4);
CREATE TABLE alg2 (id int PRIMARY KEY, v float8[]);
INSERT INTO alg2 SELECT g, ARRAY[(g % 30) * 0.25, (g / 30) * 0.25] FROM generate_series(1, 900) g;
INSERT INTO alg2 SELECT 5000 + id, v FROM alg2 WHERE id % 47 = 0;
INSERT INTO alg2 VALUES (9001, NULL), (9002, ARRAY['NaN', 1]::float8[]),
  (9003, ARRAY['Infinity', 1]::float8[]);
CREATE TABLE alg2b (id int PRIMARY KEY, v float8[]);
INSERT INTO alg2b SELECT g, ARRAY[round(random() * 30) / 4, round(random() * 30) / 4]
  FROM generate_series(1, 600) g;
INSERT INTO alg2b VALUES (9001, NULL);
CREATE TABLE alg16 (id int PRIMARY KEY, v float8[]);
INSERT INTO alg16 SELECT g, (SELECT array_agg(floor(random() * 3) * 0.5) FROM generate_series(1, 16) d
                             WHERE g > 0) FROM generate_series(1, 600) g;
INSERT INTO alg16 VALUES (9001, NULL);
CREATE TABLE alg16b (id int PRIMARY KEY, v float8[]);
INSERT INTO alg16b SELECT g, (SELECT array_agg(floor(random() * 3) * 0.5) FROM generate_series(1, 16) d
                              WHERE g > 0) FROM generate_series(1, 500) g;
CREATE TABLE alg_empty (id int PRIMARY KEY, v float8[]);
ANALYZE alg2, alg2b, alg16, alg16b, alg_empty;

-- each_algorithm(query): cs_compare (the custom scan against PostgreSQL's plan) under each
-- setting of simjoin.algorithm.
CREATE FUNCTION pg_temp.each_algorithm(query text)
RETURNS TABLE (algorithm text, custom_scan boolean, rows_custom bigint, rows_native bigint,
               only_custom bigint, only_native bigint)
LANGUAGE plpgsql AS $$
BEGIN
  FOREACH algorithm IN ARRAY ARRAY['auto', 'grid', 'szl', 'bruteforce'] LOOP
    PERFORM set_config('simjoin.algorithm', algorithm, true);
    SELECT * INTO custom_scan, rows_custom, rows_native, only_custom, only_native
      FROM pg_temp.cs_compare(query);
    RETURN NEXT;
  END LOOP;
END $$;

SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2 b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2b b ON a.v <-> b.v <= 0.5');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2b b ON a.v <+> b.v <= 0.5');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg16 a JOIN alg16 b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg16 a JOIN alg16b b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg16 a JOIN alg16b b ON a.v <+> b.v <= 1.5');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg_empty b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.each_algorithm('SELECT a.id AS a, b.id AS b FROM alg_empty a JOIN alg_empty b ON a.v <-> b.v <= 1');

-- similarity_join() with each algorithm (NULL: the setting) and metric against PostgreSQL's own
-- plan of the same join (computed once per join; equal to it, the algorithms equal each other
-- and brute force).
SET simjoin.enable_customscan = off;
CREATE FUNCTION pg_temp.function_against_postgresql(l text, r text, eps float8, metric text,
                                                    dist text)
RETURNS TABLE (algorithm text, rows_function bigint, only_function bigint,
               only_postgresql bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TEMP TABLE native AS SELECT a.id::int8 AS l, b.id::int8 AS r, %s AS d
                  FROM %I a JOIN %I b ON %s <= %s', dist, l, r, dist, eps);
  FOREACH algorithm IN ARRAY ARRAY['auto', 'grid', 'szl', 'bruteforce', NULL] LOOP
    EXECUTE format('CREATE TEMP TABLE fn AS SELECT * FROM similarity_join(%L, %L, %s,
                    metric => %L, algorithm => %L)', l, r, eps, metric, algorithm);
    SELECT count(*) INTO rows_function FROM fn;
    SELECT count(*) INTO only_function FROM (SELECT * FROM fn EXCEPT ALL SELECT * FROM native) x;
    SELECT count(*) INTO only_postgresql FROM (SELECT * FROM native EXCEPT ALL SELECT * FROM fn) x;
    DROP TABLE fn;
    RETURN NEXT;
  END LOOP;
  DROP TABLE native;
END $$;
SELECT m.metric, t.l, t.r, e.eps, f.*
FROM (VALUES ('euclidean', 'a.v <-> b.v', 1.0), ('manhattan', 'a.v <+> b.v', 2.0),
             ('chebyshev', 'chebyshev_distance(a.v, b.v)', 0.5),
             ('cosine', 'a.v <=> b.v', NULL)) m(metric, dist, scale),
     (VALUES ('alg2', 'alg2', 0.5), ('alg2', 'alg2b', 0.25), ('alg16', 'alg16', 1.0),
             ('alg16', 'alg16b', 1.0)) t(l, r, eps),
     LATERAL (SELECT coalesce(t.eps * m.scale, 0.05) AS eps) e,
     LATERAL pg_temp.function_against_postgresql(t.l, t.r, e.eps, m.metric, m.dist) f;
-- cosine with a small bound, the empty table, unique pairs, an infinite eps
SELECT algorithm,
       (SELECT count(*) FROM similarity_join('alg2', 'alg2', 0.001, metric => 'cosine', algorithm => algorithm)) AS cosine,
       (SELECT count(*) FROM similarity_join('alg2', 'alg_empty', 1, algorithm => algorithm)) AS empty,
       (SELECT count(*) FROM similarity_join('alg16', 'alg16', 1, unique_pairs => true, algorithm => algorithm)) AS unique_pairs,
       (SELECT count(*) FROM similarity_join('alg16', 'alg16b', 'Infinity', algorithm => algorithm)) AS infinite_eps
FROM unnest(ARRAY['auto', 'grid', 'szl', 'bruteforce']) algorithm;

-- The argument: any case; NULL is the setting; an unknown name is an ERROR naming it.
SET simjoin.explain = on;
SET simjoin.algorithm = szl;
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5);                      -- the setting
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5, algorithm => NULL);   -- the setting
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5, algorithm => 'GRID');
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5, algorithm => 'BruteForce');
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5, algorithm => 'brute-force');
SELECT count(*) FROM similarity_join('alg2', 'alg2b', 0.5, algorithm => '');
SELECT count(*) FROM similarity_join('alg_empty', 'alg2b', 0.5, algorithm => 'lss');
SET simjoin.algorithm = 'quadtree';
SHOW simjoin.algorithm;
RESET simjoin.explain;

-- EXPLAIN shows the algorithm asked for; the custom scan runs it (the NOTICE names what ran).
SET simjoin.enable_customscan = on;
SET simjoin.algorithm = szl;
EXPLAIN (COSTS OFF) SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2b b ON a.v <-> b.v <= 0.5;
SET simjoin.algorithm = bruteforce;
EXPLAIN (COSTS OFF) SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2b b ON a.v <-> b.v <= 0.5;
SET simjoin.algorithm = grid;
EXPLAIN (COSTS OFF) SELECT a.id AS a, b.id AS b FROM alg2 a JOIN alg2b b ON a.v <-> b.v <= 0.5;
SET simjoin.explain = on;
SELECT count(*) FROM alg2 a JOIN alg2b b ON a.v <-> b.v <= 0.5;
-- The setting in a generic plan: read when the scan runs, not when it was planned.
SET plan_cache_mode = force_generic_plan;
PREPARE near(float8) AS SELECT count(*) FROM alg16 a JOIN alg16b b ON a.v <-> b.v <= $1;
EXECUTE near(1);
SET simjoin.algorithm = szl;
EXECUTE near(1);
SET simjoin.algorithm = bruteforce;
EXECUTE near(1);
EXPLAIN (COSTS OFF) EXECUTE near(1);
SET simjoin.enable_customscan = off;
SELECT count(*) FROM alg16 a JOIN alg16b b ON a.v <-> b.v <= 1;
DEALLOCATE near;
RESET plan_cache_mode;
RESET simjoin.explain;
RESET simjoin.enable_customscan;
RESET simjoin.algorithm;
RESET simjoin.device;
DROP TABLE alg2, alg2b, alg16, alg16b, alg_empty;
