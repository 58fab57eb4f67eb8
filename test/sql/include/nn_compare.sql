-- nn_compare(query): whether the Nearest Scan plans it, the row counts with and without it and
-- the rows only one of the two plans returns (multiset difference, both ways).
CREATE FUNCTION pg_temp.nn_compare(query text,
    OUT nearest_scan boolean, OUT rows_scan bigint, OUT rows_native bigint,
    OUT only_scan bigint, OUT only_native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  nearest_scan := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%Custom Scan (SimJoin Nearest Scan)%' THEN nearest_scan := true; END IF;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE nn_on AS ' || query;
  PERFORM set_config('simjoin.enable_nearest_scan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE nn_off AS ' || query;
  PERFORM set_config('simjoin.enable_nearest_scan', 'on', true);
  SELECT count(*) INTO rows_scan FROM nn_on;
  SELECT count(*) INTO rows_native FROM nn_off;
  SELECT count(*) INTO only_scan FROM (SELECT * FROM nn_on EXCEPT ALL SELECT * FROM nn_off) d;
  SELECT count(*) INTO only_native FROM (SELECT * FROM nn_off EXCEPT ALL SELECT * FROM nn_on) d;
  DROP TABLE nn_on;
  DROP TABLE nn_off;
END $$;
