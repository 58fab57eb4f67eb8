-- similarity_knn_join() compared with PostgreSQL's own k-nearest-neighbour query,
--   a CROSS JOIN LATERAL (SELECT b.key, d FROM b WHERE d <= eps ORDER BY d, b.key LIMIT k)
-- on the same tables with the extension's distance operators: the rows must be the same (counted
-- both ways, 0 and 0), ranks included. Real data (GeoNames places in Switzerland), ties on a
-- lattice, duplicates, NULL vectors, empty tables, errors, privileges and row-level security.
SET simjoin.enable_customscan = off;  -- the LATERAL queries below are PostgreSQL's own plans
\i test/sql/include/places_ch.sql
ALTER TABLE places ADD COLUMN pos float8[];
UPDATE places SET pos = ARRAY[latitude, longitude];
CREATE TABLE towns AS SELECT geonameid AS id, pos FROM places WHERE geonameid % 7 = 0;
ALTER TABLE towns ADD PRIMARY KEY (id);

\i test/sql/include/rows_differ.sql

-- PostgreSQL's answer for left table l, right table r (columns id, pos), distance expression
-- `dist` over a.pos and b.pos, k, eps (NULL: no limit; a NaN distance is never within).
CREATE FUNCTION lateral_knn(l text, r text, dist text, k int, eps float8 DEFAULT NULL,
                            exclude_self bool DEFAULT false) RETURNS text LANGUAGE sql AS $$
  SELECT format($q$SELECT a.id::bigint, n.id::bigint, n.d, n.rank FROM %s a CROSS JOIN LATERAL (
    SELECT b.id, %s AS d, (row_number() OVER (ORDER BY %s, b.id))::int AS rank FROM %s b
    WHERE %s <= %s %s ORDER BY %s, b.id LIMIT %s) n$q$,
    l, dist, dist, r, dist, coalesce(eps::text, '''Infinity''::float8'),
    CASE WHEN exclude_self THEN 'AND b.id <> a.id' ELSE '' END, dist, k)
$$;

-- Towns against all places, every metric, with and without eps.
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 5)$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'a.pos <-> b.pos', 5));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 3, 0.02)$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'a.pos <-> b.pos', 3, 0.02));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 4, metric => 'manhattan')$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'a.pos <+> b.pos', 4));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 4, metric => 'chebyshev')$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'chebyshev_distance(a.pos, b.pos)', 4));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 6, metric => 'cosine')$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'a.pos <=> b.pos', 6));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'places', 5, algorithm => 'bruteforce')$$,
  lateral_knn('towns', '(SELECT geonameid AS id, pos FROM places)', 'a.pos <-> b.pos', 5));
-- A self-join: each town its own nearest neighbour (distance 0, rank 1), or left out.
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'towns', 3)$$,
  lateral_knn('towns', 'towns', 'a.pos <-> b.pos', 3));
SELECT rows_differ($$SELECT * FROM similarity_knn_join('towns', 'towns', 3, include_self => false)$$,
  lateral_knn('towns', 'towns', 'a.pos <-> b.pos', 3, exclude_self => true));
SELECT count(*) FILTER (WHERE rank = 1 AND left_id = right_id AND distance = 0) = count(DISTINCT left_id)
       AS itself_first
FROM similarity_knn_join('towns', 'towns', 2);
-- The three places nearest to Zurich's main station.
CREATE TABLE stations (id int PRIMARY KEY, label text, at float8[]);
INSERT INTO stations VALUES (1, 'Zurich HB', '{47.3779, 8.5403}'), (2, 'nowhere', NULL);
SELECT s.label, k.rank, p.name, round(k.distance::numeric, 5) AS degrees
FROM similarity_knn_join('stations', 'places', 3, right_column => 'pos') k
JOIN stations s ON s.id = k.left_id JOIN places p ON p.geonameid = k.right_id ORDER BY 1, 2;

-- Ties: a 5 x 5 lattice, queries on and between lattice points; the k-th distance is shared by
-- several points and the smaller key wins. Keys given in reverse of the lattice order.
CREATE TABLE lattice AS
  SELECT 100 - (x * 5 + y) AS id, ARRAY[x::float8, y::float8] AS pos
  FROM generate_series(0, 4) x, generate_series(0, 4) y;
CREATE TABLE probes (id int, pos float8[]);
INSERT INTO probes VALUES (1, '{2, 2}'), (2, '{0.5, 0.5}'), (3, '{0, 0}'), (4, '{4.5, 2}'),
  (5, NULL), (6, '{NaN, 1}');
SELECT k, rows_differ(format($$SELECT * FROM similarity_knn_join('probes', 'lattice', %s, left_key => 'id', right_key => 'id')$$, k),
  lateral_knn('probes', 'lattice', 'a.pos <-> b.pos', k)) FROM generate_series(1, 6) k;
SELECT rows_differ($$SELECT * FROM similarity_knn_join('probes', 'lattice', 7, metric => 'chebyshev', left_key => 'id', right_key => 'id')$$,
  lateral_knn('probes', 'lattice', 'chebyshev_distance(a.pos, b.pos)', 7));
SELECT * FROM similarity_knn_join('probes', 'lattice', 5, left_key => 'id', right_key => 'id')
WHERE left_id = 1 ORDER BY rank;
-- Duplicates and k above the right side's rows: every partner, in order; NULL and NaN vectors none.
CREATE TABLE dups (id int PRIMARY KEY, pos float8[]);
INSERT INTO dups VALUES (1, '{1, 1}'), (2, '{1, 1}'), (3, '{0, 0}'), (4, '{1, 1}'), (5, NULL),
  (6, '{Infinity, 0}');
SELECT * FROM similarity_knn_join('probes', 'dups', 10, left_key => 'id') ORDER BY left_id, rank;
SELECT rows_differ($$SELECT * FROM similarity_knn_join('probes', 'dups', 10, left_key => 'id')$$,
  lateral_knn('probes', 'dups', 'a.pos <-> b.pos', 10));
SELECT count(*) FROM similarity_knn_join('probes', 'dups', 2147483647, left_key => 'id');

-- k 0 and empty tables: no rows; k NULL or negative: ERROR.
CREATE TABLE nothing (id int PRIMARY KEY, pos float8[]);
SELECT count(*) FROM similarity_knn_join('towns', 'places', 0, right_column => 'pos');
SELECT count(*) FROM similarity_knn_join('nothing', 'towns', 3);
SELECT count(*) FROM similarity_knn_join('towns', 'nothing', 3);
SELECT * FROM similarity_knn_join('towns', 'towns', NULL);
SELECT * FROM similarity_knn_join('towns', 'towns', -1);
SELECT * FROM similarity_knn_join('towns', 'places', 3, include_self => false, right_column => 'pos');
SELECT * FROM similarity_knn_join('towns', 'towns', 3, 'NaN');
SELECT * FROM similarity_knn_join('towns', 'towns', 3, metric => 'hamming');
INSERT INTO nothing VALUES (1, '{1, 2, 3}');
SELECT * FROM similarity_knn_join('towns', 'nothing', 3);

-- Privileges and row-level security apply as to the user's own SELECT.
CREATE ROLE simjoin_knn_reader NOLOGIN;
GRANT USAGE ON SCHEMA public TO simjoin_knn_reader;
GRANT SELECT ON towns TO simjoin_knn_reader;
SET ROLE simjoin_knn_reader;
SELECT * FROM similarity_knn_join('towns', 'dups', 1);
RESET ROLE;
GRANT SELECT ON dups TO simjoin_knn_reader;
ALTER TABLE dups ENABLE ROW LEVEL SECURITY;
CREATE POLICY small_ids ON dups FOR SELECT TO simjoin_knn_reader USING (id >= 3);
SET ROLE simjoin_knn_reader;
SELECT left_id, right_id, rank FROM similarity_knn_join('towns', 'dups', 2)
WHERE left_id = (SELECT min(id) FROM towns) ORDER BY rank;
RESET ROLE;
DROP POLICY small_ids ON dups;
REVOKE ALL ON towns, dups FROM simjoin_knn_reader;
REVOKE USAGE ON SCHEMA public FROM simjoin_knn_reader;
DROP ROLE simjoin_knn_reader;
DROP TABLE places, towns, stations, lattice, probes, dups, nothing;
DROP FUNCTION rows_differ(text, text);
DROP FUNCTION lateral_knn(text, text, text, int, float8, bool);
