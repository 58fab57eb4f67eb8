-- Robustness of the PostgreSQL glue: unusual shapes of input and of execution (early end of a
-- scan, errors raised mid-stream inside subtransactions, rescans, cursors, generic plans, nested
-- use). Results are compared with PostgreSQL's own plan (simjoin.enable_customscan = off).
SET client_min_messages = warning;
SELECT setseed(0.42);
CREATE FUNCTION pg_temp.backend_threads() RETURNS int LANGUAGE sql AS $$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), 'Threads:\s+(\d+)'))[1]::int $$;
-- Whether the thread count is back to `base` within two seconds: a joined thread can still be
-- counted for a moment (pthread_join returns when the kernel clears the thread's id, before the
-- kernel releases the task), so a count taken at once races the teardown on a loaded machine; a
-- thread that outlives its join never leaves the count.
CREATE FUNCTION pg_temp.threads_back_to(base int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..200 LOOP
    IF pg_temp.backend_threads() = base THEN RETURN true; END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END $$;

CREATE TABLE rb_grid (id int PRIMARY KEY, v float8[]);
INSERT INTO rb_grid SELECT i, ARRAY[(i % 50)::float8, (i / 50)::float8] FROM generate_series(1, 2500) i;
CREATE TABLE rb_empty (id int PRIMARY KEY, v float8[]);
ANALYZE rb_grid;
ANALYZE rb_empty;

-- 2000-dimensional and 1-dimensional vectors
CREATE TABLE rb_wide (id int PRIMARY KEY, v float8[]);
INSERT INTO rb_wide SELECT i, array_agg(((i * j) % 3)::float8 ORDER BY j)
  FROM generate_series(1, 40) i, generate_series(1, 2000) j GROUP BY i;
SELECT count(*) FROM similarity_join('rb_wide', 'rb_wide', 40);
SELECT count(*) FROM rb_wide a JOIN rb_wide b ON a.v <-> b.v <= 40;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM rb_wide a JOIN rb_wide b ON a.v <-> b.v <= 40;
RESET simjoin.enable_customscan;
CREATE TABLE rb_one (id int PRIMARY KEY, v real[]);
INSERT INTO rb_one SELECT i, ARRAY[i / 10.0] FROM generate_series(1, 500) i;
SELECT count(*) FROM similarity_join('rb_one', 'rb_one', 0.1);
SELECT count(*) FROM rb_one a JOIN rb_one b ON a.v <-> b.v <= 0.1;

-- an empty side
SELECT count(*) FROM similarity_join('rb_empty', 'rb_grid', 1);
SELECT count(*) FROM similarity_join('rb_grid', 'rb_empty', 1);
SELECT count(*) FROM rb_empty a JOIN rb_grid b ON a.v <-> b.v <= 1e9;
SELECT count(*) FROM rb_grid a JOIN rb_empty b ON a.v <-> b.v <= 1e9;

-- smallint keys, negative; extreme bigint keys
CREATE TABLE rb_small (k smallint PRIMARY KEY, v float8[]);
INSERT INTO rb_small SELECT -i, ARRAY[i] FROM generate_series(1, 100) i;
SELECT * FROM similarity_join('rb_small', 'rb_small', 1, unique_pairs => true) ORDER BY 1, 2 LIMIT 3;
CREATE TABLE rb_big (k bigint PRIMARY KEY, v real[]);
INSERT INTO rb_big VALUES (-9223372036854775808, '{1}'), (9223372036854775807, '{1.5}'), (0, '{3}');
SELECT * FROM similarity_join('rb_big', 'rb_big', 0.5) ORDER BY 1, 2;

-- partitioned table and inheritance parent (children included, as in a SELECT)
CREATE TABLE rb_part (id int PRIMARY KEY, v float8[]) PARTITION BY RANGE (id);
CREATE TABLE rb_part1 PARTITION OF rb_part FOR VALUES FROM (0) TO (50);
CREATE TABLE rb_part2 PARTITION OF rb_part FOR VALUES FROM (50) TO (200);
INSERT INTO rb_part SELECT i, ARRAY[i] FROM generate_series(1, 100) i;
SELECT count(*) FROM similarity_join('rb_part', 'rb_part', 1);
SELECT count(*) FROM rb_part a JOIN rb_part b ON a.v <-> b.v <= 1;
CREATE TABLE rb_parent (id int PRIMARY KEY, v float8[]);
CREATE TABLE rb_child () INHERITS (rb_parent);
INSERT INTO rb_parent SELECT i, ARRAY[i] FROM generate_series(1, 50) i;
INSERT INTO rb_child SELECT i, ARRAY[i] FROM generate_series(51, 100) i;
SELECT count(*) FROM similarity_join('rb_parent', 'rb_parent', 1);
SELECT count(*) FROM rb_parent a JOIN rb_parent b ON a.v <-> b.v <= 1;

-- TOASTed vectors: compressed and external
CREATE TABLE rb_toast (id int PRIMARY KEY, v float8[]);
INSERT INTO rb_toast SELECT i, array_agg(((i + j) % 3)::float8 ORDER BY j)
  FROM generate_series(1, 30) i, generate_series(1, 1000) j GROUP BY i;
ALTER TABLE rb_toast ALTER v SET STORAGE EXTERNAL;
INSERT INTO rb_toast SELECT i, array_agg(round(random() * 4)::float8 ORDER BY j)
  FROM generate_series(101, 130) i, generate_series(1, 1000) j GROUP BY i;
SELECT count(*) FILTER (WHERE pg_column_compression(v) IS NOT NULL) AS compressed,
       count(*) FILTER (WHERE pg_column_size(v) > 4000) AS external FROM rb_toast;
SELECT count(*) FROM similarity_join('rb_toast', 'rb_toast', 35);
SELECT count(*) FROM rb_toast a JOIN rb_toast b ON a.v <-> b.v <= 35;
SET work_mem = '64kB';  -- both sides spill
SELECT count(*), sum(a.id * b.id) FROM rb_toast a JOIN rb_toast b ON a.v <-> b.v <= 35;
RESET work_mem;
SET simjoin.enable_customscan = off;
SELECT count(*), sum(a.id * b.id) FROM rb_toast a JOIN rb_toast b ON a.v <-> b.v <= 35;
RESET simjoin.enable_customscan;

-- huge eps with LIMIT
SELECT count(*) FROM (SELECT * FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 1e6 LIMIT 10) s;
SELECT count(*) FROM (SELECT * FROM similarity_join('rb_one', 'rb_one', 1e6) LIMIT 10) s;

-- early end of the scan, 1000 times: no thread left behind, no memory kept
CREATE FUNCTION pg_temp.first_rows(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r record; c int := 0;
BEGIN
  FOR i IN 1..n LOOP
    FOR r IN SELECT a.id, b.id AS bid FROM rb_part a JOIN rb_parent b ON a.v <-> b.v <= 20 LOOP
      c := c + 1;
      EXIT;
    END LOOP;
  END LOOP;
  RETURN c;
END $$;
SELECT pg_temp.first_rows(10);
-- The threads after a first join (the GPU runtime keeps its own threads per backend; the engine's
-- producer and workers must all be gone): every later count must equal it.
SELECT pg_temp.backend_threads() AS base_threads \gset
SELECT sum(total_bytes) AS before_bytes FROM pg_backend_memory_contexts \gset
SELECT pg_temp.first_rows(1000), pg_temp.threads_back_to(:base_threads) AS no_thread_left;
SELECT sum(total_bytes) - :before_bytes < 100000 AS no_growth FROM pg_backend_memory_contexts;

-- an error raised by a recheck clause mid-stream, in a subtransaction, 200 times
CREATE FUNCTION pg_temp.failing_joins(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE c int := 0; x bigint;
BEGIN
  FOR i IN 1..n LOOP
    BEGIN
      SELECT count(*) INTO x FROM rb_grid a JOIN rb_grid b
        ON a.v <-> b.v <= 3 AND 1 / (a.id - b.id + 50) > -100;
    EXCEPTION WHEN division_by_zero THEN c := c + 1;
    END;
  END LOOP;
  RETURN c;
END $$;
SELECT pg_temp.failing_joins(200), pg_temp.threads_back_to(:base_threads) AS no_thread_left;
BEGIN;
SAVEPOINT s;
SELECT count(*) FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 3 AND 1 / (a.id - b.id + 50) > -100;
ROLLBACK TO s;
SELECT count(*) FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 3;
COMMIT;

-- cursors: WITH HOLD (persisted at commit), SCROLL
BEGIN;
DECLARE h CURSOR WITH HOLD FOR
  SELECT a.id AS a, b.id AS b FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 1.5;
MOVE 100 IN h;
COMMIT;
MOVE FORWARD ALL IN h;
CLOSE h;
BEGIN;
DECLARE s SCROLL CURSOR FOR
  SELECT a.id AS a, b.id AS b FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 0 ORDER BY 1;
FETCH 2 FROM s;
FETCH BACKWARD 1 FROM s;
FETCH LAST FROM s;
COMMIT;

-- a generic plan, executed with changing eps
SET plan_cache_mode = force_generic_plan;
PREPARE rb_q(float8) AS SELECT count(*) FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= $1;
EXECUTE rb_q(0);
EXECUTE rb_q(1);
EXECUTE rb_q(1.5);
EXECUTE rb_q(-1);
EXECUTE rb_q(NULL);
EXECUTE rb_q(2);
EXECUTE rb_q(1);
DEALLOCATE rb_q;
RESET plan_cache_mode;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 1.5;
SELECT count(*) FROM rb_grid a JOIN rb_grid b ON a.v <-> b.v <= 2;
RESET simjoin.enable_customscan;

-- rescans with a changing eps (LATERAL)
SELECT count(*), sum(c) FROM rb_one x,
  LATERAL (SELECT count(*) c FROM rb_part a JOIN rb_parent b ON a.v <-> b.v <= x.id / 10.0) l
  WHERE x.id <= 15;
SET simjoin.enable_customscan = off;
SELECT count(*), sum(c) FROM rb_one x,
  LATERAL (SELECT count(*) c FROM rb_part a JOIN rb_parent b ON a.v <-> b.v <= x.id / 10.0) l
  WHERE x.id <= 15;
RESET simjoin.enable_customscan;

-- nested use: similarity_join and the custom scan inside a clause of another join
CREATE FUNCTION pg_temp.neighbours(k int) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM similarity_join('rb_part', 'rb_parent', 2) s WHERE s.left_id = k $$;
CREATE FUNCTION pg_temp.neighbours2(k int) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM rb_part a JOIN rb_parent b ON a.v <-> b.v <= 2 WHERE a.id = k $$;
SELECT count(*), sum(pg_temp.neighbours(left_id::int))
  FROM similarity_join('rb_part', 'rb_part', 1) s WHERE pg_temp.neighbours2(s.left_id::int) > 0;
SELECT count(*), sum(pg_temp.neighbours2(a.id)) FROM rb_part a JOIN rb_parent b
  ON a.v <-> b.v <= 1 AND pg_temp.neighbours(a.id) + pg_temp.neighbours2(b.id) > 0;
SET simjoin.enable_customscan = off;
SELECT count(*), sum(pg_temp.neighbours2(a.id)) FROM rb_part a JOIN rb_parent b
  ON a.v <-> b.v <= 1 AND pg_temp.neighbours(a.id) + pg_temp.neighbours2(b.id) > 0;
RESET simjoin.enable_customscan;
SELECT pg_temp.threads_back_to(:base_threads) AS no_thread_left;
