-- lattice(name, n, dim, span, nulls): a table (id int PRIMARY KEY, v float8[], vr real[]) of n
-- random integer vectors in [0, span] of each dimension (many duplicates and pairs at lattice
-- distances, exactly eps for integer eps), vr = v as real[]; ids a random permutation of 1..n
-- stored in another random order (reading order is not key order); `nulls` vectors NULL.
-- Used by aggregate_functions.sql and dbscan.sql.
CREATE FUNCTION lattice(name text, n int, dim int, span int, nulls int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, v float8[], vr real[])', name);
  EXECUTE format($q$INSERT INTO %I
    SELECT row_number() OVER (ORDER BY random()), v, v::real[] FROM (
      SELECT i, ARRAY(SELECT floor(random() * (%s + 1)) FROM generate_series(1, %s) WHERE i > 0) AS v
      FROM generate_series(1, %s) i) s ORDER BY md5(i::text)$q$, name, span, dim, n);
  EXECUTE format('UPDATE %I SET v = NULL, vr = NULL WHERE id IN (SELECT id FROM %I ORDER BY random() LIMIT %s)',
                 name, name, nulls);
END $$;
