-- cs_compare_prepared(execute, query): the rows of EXECUTE ... (a prepared statement, its plan
-- made with the custom scan on) against PostgreSQL's own plan of the same query with the values
-- written in (as cs_compare: rows only one of them returns must be 0).
CREATE FUNCTION pg_temp.cs_compare_prepared(execute text, query text,
    OUT rows_custom bigint, OUT rows_native bigint, OUT only_custom bigint, OUT only_native bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'CREATE TEMP TABLE cs_prepared_on AS ' || execute;
  PERFORM set_config('simjoin.enable_customscan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE cs_prepared_off AS ' || query;
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
  SELECT (SELECT count(*) FROM cs_prepared_on), (SELECT count(*) FROM cs_prepared_off),
         (SELECT count(*) FROM (TABLE cs_prepared_on EXCEPT ALL TABLE cs_prepared_off) d),
         (SELECT count(*) FROM (TABLE cs_prepared_off EXCEPT ALL TABLE cs_prepared_on) d)
    INTO rows_custom, rows_native, only_custom, only_native;
  DROP TABLE cs_prepared_on, cs_prepared_off;
END $$;
