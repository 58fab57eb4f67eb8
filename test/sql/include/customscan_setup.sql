-- Shared setup of the customscan tests: stable plans and output, and the two helpers that
-- compare the custom scan with PostgreSQL's own plan. Included with \i by each test.
SET simjoin.explain_machine_details = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- The join scan's tests count its pairs with count(*): the aggregates computed in the engine
-- (customscan_aggregates) would take those queries.
SET simjoin.enable_aggregates = off;

-- cs_explain(query, key): one property of the SimilarityJoin node in EXPLAIN ANALYZE.
CREATE FUNCTION pg_temp.cs_explain(query text, key text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  PERFORM set_config('simjoin.explain_machine_details', 'on', true);
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
  PERFORM set_config('simjoin.explain_machine_details', 'off', true);
  RETURN (SELECT p ->> key FROM json_array_elements(plan) e,
            LATERAL (SELECT e -> 'Plan' AS p UNION ALL SELECT e -> 'Plan' -> 'Plans' -> 0) n
          WHERE p ->> 'Custom Plan Provider' = 'SimilarityJoin' LIMIT 1);
END $$;

-- cs_compare(query): whether the custom scan plans it, and the row counts with and without it,
-- and the rows only one of the two plans returns (multiset difference, both ways).
CREATE FUNCTION pg_temp.cs_compare(query text,
    OUT custom_scan boolean, OUT rows_custom bigint, OUT rows_native bigint,
    OUT only_custom bigint, OUT only_native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  custom_scan := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Custom Scan (SimilarityJoin)%' THEN custom_scan := true; END IF;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE cs_on AS ' || query;
  PERFORM set_config('simjoin.enable_customscan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE cs_off AS ' || query;
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
  SELECT count(*) INTO rows_custom FROM cs_on;
  SELECT count(*) INTO rows_native FROM cs_off;
  SELECT count(*) INTO only_custom FROM (SELECT * FROM cs_on EXCEPT ALL SELECT * FROM cs_off) d;
  SELECT count(*) INTO only_native FROM (SELECT * FROM cs_off EXCEPT ALL SELECT * FROM cs_on) d;
  DROP TABLE cs_on;
  DROP TABLE cs_off;
END $$;
