-- The row estimate of a distance join, and of the plan above it, from the planner's sample
-- (pg/scan/estimate.cpp): PostgreSQL alone estimates  dist <= eps  as a third of the cross
-- product. Each check compares the estimated rows of one plan node (EXPLAIN without ANALYZE)
-- with the rows the query returns: within a factor of 3. The node is the top one (a Sort, a
-- three-table join, a LEFT join) or, under an aggregate, the join it reads.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- est(explain, count, depth): the node `depth` levels below the top of EXPLAIN `explain` (its
-- first child each time), its type, and whether its estimated rows are within a factor of 3 of
-- the rows `count` returns.
CREATE FUNCTION pg_temp.est(explain text, count text, depth int DEFAULT 0,
    OUT node text, OUT within_3x boolean)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
  estimated float8;
  actual float8;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || explain INTO plan;
  plan := plan -> 0 -> 'Plan';
  FOR i IN 1 .. depth LOOP plan := plan -> 'Plans' -> 0; END LOOP;
  node := coalesce(plan ->> 'Custom Plan Provider', plan ->> 'Node Type') ||
          coalesce(' ' || (plan ->> 'Join Type'), '');
  EXECUTE count INTO actual;
  estimated := (plan ->> 'Plan Rows')::float8;
  within_3x := estimated BETWEEN greatest(actual, 1) / 3 AND greatest(actual, 1) * 3;
  IF NOT within_3x THEN
    RAISE NOTICE 'estimated % rows, actual %', estimated, actual;
  END IF;
END $$;

-- est_rows(explain): the estimated rows of the top node.
CREATE FUNCTION pg_temp.est_rows(explain text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || explain INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;

SELECT setseed(0.25);
CREATE TABLE es_a AS SELECT i AS id, ARRAY[random() * 100, random() * 100] AS v,
    4 * random() ^ 3 AS r FROM generate_series(1, 20000) i;
CREATE TABLE es_b AS SELECT i AS id, ARRAY[random() * 100, random() * 100] AS v,
    4 * random() ^ 3 AS r FROM generate_series(1, 5000) i;
CREATE TABLE es_c AS SELECT i AS id, i % 10 AS g FROM generate_series(1, 20000) i;
ANALYZE es_a;
ANALYZE es_b;
ANALYZE es_c;

-- ORDER BY above the join, an aggregate over it, DISTINCT ON, a third table, a LEFT join.
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.est(
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1', 1);
SELECT * FROM pg_temp.est(
  'SELECT c.g, count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c ON c.id = a.id
   GROUP BY c.g', 'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1', 1);
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id, c.g FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c ON c.id = b.id',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c ON c.id = b.id');
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id, c.g FROM es_c c JOIN es_a a ON c.id = a.id JOIN es_b b ON a.v <-> b.v <= 1',
  'SELECT count(*) FROM es_c c JOIN es_a a ON c.id = a.id JOIN es_b b ON a.v <-> b.v <= 1');
SELECT * FROM pg_temp.est(
  'SELECT b.id, count(a.id) FROM es_b b LEFT JOIN es_a a ON a.v <-> b.v <= 1 GROUP BY b.id',
  'SELECT count(*) FROM es_b b LEFT JOIN es_a a ON a.v <-> b.v <= 1', 1);
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a LEFT JOIN es_b b ON a.v <-> b.v <= 0.3 ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a LEFT JOIN es_b b ON a.v <-> b.v <= 0.3');
-- (the join's own rows: the nearest per row, computed in the engine, turned off)
SET simjoin.enable_aggregates = off;
SELECT * FROM pg_temp.est(
  'SELECT DISTINCT ON (a.id) a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1
   ORDER BY a.id, a.v <-> b.v', 'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1', 1);
RESET simjoin.enable_aggregates;
-- The same estimate whichever table comes first (sampled pairs count alike both ways).
SELECT pg_temp.est_rows('SELECT * FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1') =
       pg_temp.est_rows('SELECT * FROM es_b b JOIN es_a a ON b.v <-> a.v <= 1') AS same_estimate;
SELECT pg_temp.est_rows('SELECT * FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c
                         ON c.id = a.id') =
       pg_temp.est_rows('SELECT * FROM es_c c JOIN es_b b ON true JOIN es_a a
                         ON c.id = a.id AND a.v <-> b.v <= 1') AS same_estimate;
-- EXISTS and NOT EXISTS: the outer rows with a match and without one.
SELECT * FROM pg_temp.est(
  'SELECT a.id FROM es_a a WHERE EXISTS (SELECT FROM es_b b WHERE a.v <-> b.v <= 0.5)',
  'SELECT count(*) FROM es_a a WHERE EXISTS (SELECT FROM es_b b WHERE a.v <-> b.v <= 0.5)');
SELECT * FROM pg_temp.est(
  'SELECT a.id FROM es_a a WHERE NOT EXISTS (SELECT FROM es_b b WHERE a.v <-> b.v <= 0.5)',
  'SELECT count(*) FROM es_a a WHERE NOT EXISTS (SELECT FROM es_b b WHERE a.v <-> b.v <= 0.5)');
-- A self-join.
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_b a JOIN es_b b ON a.v <-> b.v <= 2 ORDER BY 1, 2',
  'SELECT count(*) FROM es_b a JOIN es_b b ON a.v <-> b.v <= 2');

-- A bound per row (the sample holds each sampled row's radius), and monotone arithmetic on the
-- distance (a constant factor, or a parameter's value in a custom plan).
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= b.r ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= b.r');
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= a.r * 0.5 ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= a.r * 0.5');
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a JOIN es_b b ON (a.v <-> b.v) * 20 <= 50 ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a JOIN es_b b ON (a.v <-> b.v) * 20 <= 50');
SET plan_cache_mode = force_custom_plan;
PREPARE es_scaled(float8) AS
  SELECT a.id, b.id FROM es_a a JOIN es_b b ON (a.v <-> b.v) * $1 <= 50 ORDER BY 1, 2;
SELECT * FROM pg_temp.est('EXECUTE es_scaled(20)',
  'SELECT count(*) FROM es_a a JOIN es_b b ON (a.v <-> b.v) * 20 <= 50');
PREPARE es_radius(float8) AS
  SELECT a.id, b.id FROM es_a a JOIN es_b b ON (a.v <-> b.v) * $1 <= b.r ORDER BY 1, 2;
SELECT * FROM pg_temp.est('EXECUTE es_radius(2)',
  'SELECT count(*) FROM es_a a JOIN es_b b ON (a.v <-> b.v) * 2 <= b.r');

-- Generic plans: a parameter's value is unknown when the plan is made; the join is taken as
-- selective, each row of the smaller side matching 10 rows (50000 pairs here), the estimate of
-- the plan above it too: within a factor of 3 where the bound gives about 3 to 30 matches per
-- row of the smaller side (eps 1.8 gives 20 here). A parameter elsewhere leaves the distance
-- clause sampled: a per-row radius needs no value; a parameter factor on the distance does.
SET plan_cache_mode = force_generic_plan;
PREPARE es_eps(float8) AS
  SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= $1 ORDER BY 1, 2;
EXPLAIN (COSTS OFF) EXECUTE es_eps(1.8);
SELECT pg_temp.est_rows('EXECUTE es_eps(1.8)') AS generic_rows;
SELECT * FROM pg_temp.est('EXECUTE es_eps(1.8)',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1.8');
PREPARE es_radius_where(int) AS
  SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= b.r WHERE b.id > $1 ORDER BY 1, 2;
SELECT * FROM pg_temp.est('EXECUTE es_radius_where(0)',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= b.r');
SELECT pg_temp.est_rows('EXECUTE es_radius(2)') AS generic_rows;
RESET plan_cache_mode;

-- PostgreSQL's own estimate where the custom scan is off (a third of the cross product).
SET simjoin.enable_customscan = off;
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 ORDER BY 1, 2',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1');
RESET simjoin.enable_customscan;

-- PostgreSQL's plan chosen (the custom scan priced out): the sampled estimate stands
SET simjoin.customscan_startup_cost = 1e9;
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id, c.g FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c ON c.id = b.id',
  'SELECT count(*) FROM es_a a JOIN es_b b ON a.v <-> b.v <= 1 JOIN es_c c ON c.id = b.id');
RESET simjoin.customscan_startup_cost;

SELECT count(*) > 0 AS has_cube FROM pg_available_extensions WHERE name = 'cube' \gset
\if :has_cube
CREATE EXTENSION IF NOT EXISTS cube;
CREATE TABLE es_ca AS SELECT id, cube(v) AS c FROM es_a;
CREATE TABLE es_cb AS SELECT id, cube(v) AS c FROM es_b;
ANALYZE es_ca;
ANALYZE es_cb;
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_ca a JOIN es_cb b ON a.c <-> b.c <= 1 ORDER BY 1, 2',
  'SELECT count(*) FROM es_ca a JOIN es_cb b ON a.c <-> b.c <= 1');
-- with cube's box clause for its index (implied by the distance: no further selectivity)
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_ca a JOIN es_cb b
     ON a.c <-> b.c <= 1 AND cube_enlarge(a.c, 1, 2) @> b.c ORDER BY 1, 2',
  'SELECT count(*) FROM es_ca a JOIN es_cb b ON a.c <-> b.c <= 1 AND cube_enlarge(a.c, 1, 2) @> b.c');
DROP TABLE es_ca, es_cb;
DROP EXTENSION cube;  -- as the other tests expect to find the database
\endif

\i test/sql/include/postgis.sql
\if :has_postgis
CREATE TABLE es_ga AS SELECT id, ST_MakePoint(v[1], v[2]) AS g FROM es_a;
CREATE TABLE es_gb AS SELECT id, ST_MakePoint(v[1], v[2]) AS g FROM es_b;
CREATE INDEX ON es_gb USING gist (g);
ANALYZE es_ga;
ANALYZE es_gb;
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_ga a JOIN es_gb b ON ST_DWithin(a.g, b.g, 1) ORDER BY 1, 2',
  'SELECT count(*) FROM es_ga a JOIN es_gb b ON ST_DWithin(a.g, b.g, 1)');
SELECT * FROM pg_temp.est(
  'SELECT b.id, count(a.id) FROM es_gb b LEFT JOIN es_ga a ON ST_DWithin(a.g, b.g, 1)
   GROUP BY b.id', 'SELECT count(*) FROM es_gb b LEFT JOIN es_ga a ON ST_DWithin(a.g, b.g, 1)', 1);
-- PostgreSQL's plan chosen (the custom scan priced out): the sampled estimate stands
SET simjoin.customscan_startup_cost = 1e9;
SELECT * FROM pg_temp.est(
  'SELECT a.id, b.id FROM es_ga a JOIN es_gb b ON ST_DWithin(a.g, b.g, 3) WHERE a.id <= 50
   ORDER BY 1, 2',
  'SELECT count(*) FROM es_ga a JOIN es_gb b ON ST_DWithin(a.g, b.g, 3) WHERE a.id <= 50', 1);
RESET simjoin.customscan_startup_cost;
\endif
