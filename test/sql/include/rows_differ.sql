-- rows_differ(a, b): the differences between two queries' rows, counted both ways (0 and 0 means
-- equal multisets).
CREATE FUNCTION rows_differ(a text, b text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE only_a bigint; only_b bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', a, b) INTO only_a;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', b, a) INTO only_b;
  RETURN only_a || ' only in the first, ' || only_b || ' only in the second';
END $$;
