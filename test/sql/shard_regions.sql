-- Regions of space for one join split over several servers (simjoin_region_plan,
-- simjoin_point_regions): every row at home in one region, and the pairs found region by region
-- (a row's home region against its regions' homes and halos) are the join's, each once.
SET client_min_messages = warning;
CREATE TABLE sr_grid AS
  SELECT i * 40 + j AS id, ARRAY[i * 0.5, j * 0.5]::float8[] AS v
  FROM generate_series(0, 39) i, generate_series(0, 39) j;  -- pairs at exactly eps = 0.5
INSERT INTO sr_grid SELECT 5000 + g, ARRAY[3 + g * 0.001, 7]::float8[] FROM generate_series(1, 400) g;
INSERT INTO sr_grid VALUES (9000, NULL), (9001, ARRAY['NaN', 1]::float8[]);

CREATE TABLE sr_plans AS
  SELECT s, simjoin_region_plan('sr_grid', 0.5, 4, split => s) AS plan
  FROM unnest(ARRAY['work', 'points']) s;
SELECT s, plan ->> 'split' AS split, plan -> 'dimensions' AS dimensions,
       jsonb_array_length(plan -> 'regions') AS regions, plan -> 'eps' AS eps,
       plan -> 'rows' AS rows
FROM sr_plans ORDER BY s;

-- Each row's home exactly once; the halo only within eps of another region.
SELECT s, count(*) FILTER (WHERE NOT r.halo) AS homes, count(DISTINCT g.id) AS rows,
       count(*) FILTER (WHERE r.halo) > 0 AS has_halo
FROM sr_plans, sr_grid g, simjoin_point_regions(g.v, plan) r GROUP BY s ORDER BY s;

-- The join region by region equals the join, pair for pair, nothing twice.
CREATE TABLE sr_stored AS
  SELECT p.s, g.id, g.v, r.region, r.halo
  FROM sr_plans p, sr_grid g, simjoin_point_regions(g.v, p.plan) r;
CREATE TABLE sr_by_region AS
  SELECT a.s, a.id AS l, b.id AS r FROM sr_stored a JOIN sr_stored b
    ON a.s = b.s AND a.region = b.region AND a.v <-> b.v <= 0.5
  WHERE NOT a.halo AND a.id < b.id;
CREATE TABLE sr_join AS
  SELECT a.id AS l, b.id AS r FROM sr_grid a JOIN sr_grid b ON a.v <-> b.v <= 0.5 WHERE a.id < b.id;
SELECT s, count(*) AS pairs, count(DISTINCT (l, r)) AS distinct_pairs,
       (SELECT count(*) FROM sr_join) AS expected,
       (SELECT count(*) FROM (SELECT l, r FROM sr_join EXCEPT
                              SELECT l, r FROM sr_by_region b WHERE b.s = o.s) m) AS missing
FROM sr_by_region o GROUP BY s ORDER BY s;

-- The same for cosine and Manhattan.
CREATE TABLE sr_metric_plans AS
  SELECT m, e, simjoin_region_plan('sr_grid', e, 3, metric => m) AS plan
  FROM (VALUES ('cosine', 0.0001::float8), ('manhattan', 1.0)) c(m, e);
CREATE TABLE sr_metric_stored AS
  SELECT p.m, p.e, g.id, g.v, r.region, r.halo
  FROM sr_metric_plans p, sr_grid g, simjoin_point_regions(g.v, p.plan) r;
SELECT m, (SELECT count(*) FROM sr_grid a JOIN sr_grid b
             ON CASE m WHEN 'cosine' THEN a.v <=> b.v ELSE a.v <+> b.v END <= e
            WHERE a.id < b.id) AS expected,
       (SELECT count(*) FROM sr_metric_stored a JOIN sr_metric_stored b
            ON a.m = b.m AND a.region = b.region
           AND CASE a.m WHEN 'cosine' THEN a.v <=> b.v ELSE a.v <+> b.v END <= a.e
         WHERE a.m = p.m AND NOT a.halo AND a.id < b.id) AS by_region,
       (SELECT count(*) > 0 FROM sr_metric_stored s WHERE s.m = p.m AND s.halo) AS has_halo
FROM sr_metric_plans p ORDER BY m;

-- NULL points stay at home in region 0; a real[] point works as a float8[] one.
SELECT * FROM simjoin_point_regions(NULL::float8[], (SELECT plan FROM sr_plans WHERE s = 'work'));
SELECT count(*) FROM simjoin_point_regions(ARRAY[10, 10]::real[],
                                           (SELECT plan FROM sr_plans WHERE s = 'work'));

-- Errors name the problem.
\set VERBOSITY terse
SELECT simjoin_region_plan('sr_grid', -1, 4);
SELECT simjoin_region_plan('sr_grid', 0.5, 0);
SELECT simjoin_region_plan('sr_grid', 0.5, 2, split => 'even');
SELECT simjoin_region_plan('sr_grid', 0.5, 2, column_name => 'nope');
CREATE TABLE sr_empty (id int, v float8[]);
SELECT simjoin_region_plan('sr_empty', 0.5, 2);
SELECT * FROM simjoin_point_regions(ARRAY[1]::float8[], (SELECT plan FROM sr_plans WHERE s = 'work'));
SELECT * FROM simjoin_point_regions(ARRAY[1, 2]::float8[], NULL);
SELECT * FROM simjoin_point_regions(ARRAY[1, 2]::float8[], '{"format": 1}');
SELECT * FROM simjoin_point_regions(ARRAY[1, 2]::float8[], '[1, 2]');
-- simjoin_shard_table needs postgres_fdw and dblink on the coordinator (test/shards runs it on
-- several servers).
SELECT simjoin_shard_table('sr_grid', '{s1, s2}', 0.5);
