-- The custom scan's cost and row estimate where a key is an expression: the planner's sample
-- evaluates it on sampled rows (casts, PostGIS functions), so buffered polygons (candidates from
-- their bounding boxes) are priced as the rechecks they cost, and PostgreSQL's own plan wins; a
-- key that raises an error on a sampled row leaves the join unsampled, never fails the plan.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

-- The estimate of the plan's rows against the actual rows: within a factor of two?
CREATE FUNCTION pg_temp.cs_estimate_close(query text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
  node json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
  node := plan -> 0 -> 'Plan';
  IF node ->> 'Custom Plan Provider' IS DISTINCT FROM 'SimilarityJoin' THEN
    RETURN NULL;
  END IF;
  RETURN (node ->> 'Plan Rows')::float8 BETWEEN (node ->> 'Actual Rows')::float8 / 2
                                             AND (node ->> 'Actual Rows')::float8 * 2;
END $$;

-- A real[] column joined with a float8[] column: the key is a cast.
SELECT setseed(0.4);
CREATE TABLE cc_r4 AS SELECT i AS id, ARRAY[random() * 100, random() * 100]::real[] AS w
  FROM generate_series(1, 5000) i;
CREATE TABLE cc_r8 AS SELECT i AS id, ARRAY[random() * 100, random() * 100]::float8[] AS v
  FROM generate_series(1, 5000) i;
ANALYZE cc_r4;
ANALYZE cc_r8;
SELECT pg_temp.cs_estimate_close('SELECT a.id AS l, b.id AS r FROM cc_r4 a JOIN cc_r8 b ON a.w <-> b.v <= 1');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS l, b.id AS r FROM cc_r4 a JOIN cc_r8 b ON a.w <-> b.v <= 1');
-- the same with both keys computed
SELECT pg_temp.cs_estimate_close(
  'SELECT a.id AS l, b.id AS r FROM cc_r4 a JOIN cc_r8 b ON (a.w::float8[]) <-> ARRAY[b.v[2], b.v[1]] <= 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS l, b.id AS r FROM cc_r4 a JOIN cc_r8 b ON (a.w::float8[]) <-> ARRAY[b.v[2], b.v[1]] <= 1');

-- A key expression that raises an error on some row of the table (filtered out by the query):
-- the sample gives up, the plan does not fail, the rows are PostgreSQL's.
CREATE TABLE cc_text (id int, ok boolean, t text);
INSERT INTO cc_text SELECT i, true, '{' || (i % 50) || ',' || (i % 7) || '}'
  FROM generate_series(1, 400) i;
INSERT INTO cc_text VALUES (401, false, 'not a vector');
ANALYZE cc_text;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS l, b.id AS r FROM (SELECT * FROM cc_text WHERE ok) a
   JOIN (SELECT * FROM cc_text WHERE ok) b ON a.t::float8[] <-> b.t::float8[] <= 1');

\i test/sql/include/postgis.sql
\if :has_postgis
-- Buffered centres against indexed points: every buffer is a polygon, joined by its box's
-- centre. Priced in time against PostgreSQL's index nested loop (which computes ST_Buffer on each
-- candidate), the custom scan reads the points through the same index (a probe per centre) and
-- computes each buffer once; the two take about 3 ms each here.
CREATE TABLE cc_pts AS SELECT i AS id, ST_MakePoint(random() * 100, random() * 100) AS g
  FROM generate_series(1, 20000) i;
CREATE INDEX ON cc_pts USING gist (g);
CREATE TABLE cc_centres AS SELECT i AS id, ST_MakePoint(random() * 100, random() * 100) AS g
  FROM generate_series(1, 100) i;
ANALYZE cc_pts;
ANALYZE cc_centres;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS l, b.id AS r FROM cc_centres a JOIN cc_pts b ON ST_DWithin(ST_Buffer(a.g, 0.3), b.g, 0.2)');
-- points on both sides: the custom scan, with a close estimate
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS l, b.id AS r FROM cc_centres a JOIN cc_pts b ON ST_DWithin(a.g, b.g, 2)');
SELECT pg_temp.cs_estimate_close(
  'SELECT a.id AS l, b.id AS r FROM cc_centres a JOIN cc_pts b ON ST_DWithin(a.g, b.g, 2)');
\endif
