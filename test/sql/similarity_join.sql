-- similarity_join() on real data (GeoNames places in Switzerland), compared with PostgreSQL's
-- own evaluation of the same predicate: the two must give exactly the same rows.
SET simjoin.enable_customscan = off;  -- the plain joins below are PostgreSQL's own plans
\i test/sql/include/places_ch.sql
ALTER TABLE places ADD COLUMN pos float8[];
UPDATE places SET pos = ARRAY[latitude, longitude];
SELECT count(*) AS places, count(DISTINCT pos) AS distinct_positions FROM places;

\i test/sql/include/rows_differ.sql

-- Self-join, Euclidean, in degrees: every ordered pair and each place with itself.
SELECT count(*) AS pairs, count(*) FILTER (WHERE left_id = right_id) AS self_pairs
FROM similarity_join('places', 'places', 0.02);
SELECT rows_differ(
  $$SELECT left_id, right_id, distance FROM similarity_join('places', 'places', 0.02)$$,
  $$SELECT a.geonameid, b.geonameid, a.pos <-> b.pos FROM places a JOIN places b ON a.pos <-> b.pos <= 0.02$$);
-- The other metrics (cosine: the angle between the (lat, lon) vectors, seen from (0, 0)).
SELECT rows_differ(
  $$SELECT * FROM similarity_join('places', 'places', 0.03, metric => 'manhattan')$$,
  $$SELECT a.geonameid, b.geonameid, a.pos <+> b.pos FROM places a JOIN places b ON a.pos <+> b.pos <= 0.03$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('places', 'places', 0.015, metric => 'chebyshev')$$,
  $$SELECT a.geonameid, b.geonameid, chebyshev_distance(a.pos, b.pos) FROM places a JOIN places b ON chebyshev_distance(a.pos, b.pos) <= 0.015$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('places', 'places', 1e-8, metric => 'cosine')$$,
  $$SELECT a.geonameid, b.geonameid, a.pos <=> b.pos FROM places a JOIN places b ON a.pos <=> b.pos <= 1e-8$$);
-- The nearest distinct pairs, each unordered pair once.
SELECT l.name AS left_place, r.name AS right_place, round(j.distance::numeric, 6) AS degrees
FROM similarity_join('places', 'places', 0.005, unique_pairs => true) j
JOIN places l ON l.geonameid = j.left_id JOIN places r ON r.geonameid = j.right_id
WHERE j.left_id <> j.right_id
ORDER BY j.distance, l.name, r.name LIMIT 5;
SELECT (SELECT count(*) FROM similarity_join('places', 'places', 0.02, unique_pairs => true)) * 2 +
       (SELECT count(*) FROM places) =
       (SELECT count(*) FROM similarity_join('places', 'places', 0.02)) AS unique_pairs_consistent;
SELECT count(*) FILTER (WHERE left_id >= right_id) AS misordered
FROM similarity_join('places', 'places', 0.05, unique_pairs => true);

-- Two tables: places against a few landmarks, with real[] vectors and 3-D (lat, lon, km).
CREATE TABLE landmarks (id int PRIMARY KEY, label text, at real[]);
INSERT INTO landmarks VALUES (1, 'Zurich HB', '{47.3779, 8.5403}'), (2, 'Bern', '{46.9480, 7.4474}'),
  (3, 'Geneva', '{46.2044, 6.1432}'), (4, 'nowhere', NULL), (5, 'Atlantic', '{40, -30}');
ALTER TABLE places ADD COLUMN pos_real real[];
UPDATE places SET pos_real = pos::real[];
SELECT l.label, count(*) AS places_within
FROM similarity_join('landmarks', 'places', 0.05, right_column => 'pos_real') j
JOIN landmarks l ON l.id = j.left_id GROUP BY l.label ORDER BY l.label;
SELECT rows_differ(
  $$SELECT * FROM similarity_join('landmarks', 'places', 0.05, right_column => 'pos_real')$$,
  $$SELECT l.id::bigint, p.geonameid, l.at <-> p.pos_real FROM landmarks l JOIN places p ON l.at <-> p.pos_real <= 0.05$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('places', 'landmarks', 0.05, left_column => 'pos_real')$$,
  $$SELECT p.geonameid, l.id::bigint, p.pos_real <-> l.at FROM landmarks l JOIN places p ON l.at <-> p.pos_real <= 0.05$$);
ALTER TABLE places ADD COLUMN pos3 float8[];
UPDATE places SET pos3 = ARRAY[latitude, longitude, elevation_m / 1000.0];
SELECT rows_differ(
  $$SELECT * FROM similarity_join('places', 'places', 0.05, left_column => 'pos3', right_column => 'pos3')$$,
  $$SELECT a.geonameid, b.geonameid, a.pos3 <-> b.pos3 FROM places a JOIN places b ON a.pos3 <-> b.pos3 <= 0.05$$);

-- Pairs at exactly eps are included: an integer lattice with many exact distances.
CREATE TABLE lattice (id int PRIMARY KEY, v float8[]);
INSERT INTO lattice SELECT x * 100 + y, ARRAY[x * 0.5, y * 0.5] FROM generate_series(0, 19) x, generate_series(0, 19) y;
SELECT eps, (SELECT count(*) FROM similarity_join('lattice', 'lattice', eps)) AS engine,
       (SELECT count(*) FROM lattice a JOIN lattice b ON a.v <-> b.v <= eps) AS sql
FROM unnest(ARRAY[0, 0.5, 0.7071067811865476, 1.0, 2.5]::float8[]) eps ORDER BY eps;
SELECT metric, eps, (SELECT count(*) FROM similarity_join('lattice', 'lattice', eps, metric => metric)) AS engine
FROM unnest(ARRAY['manhattan', 'chebyshev']) metric, unnest(ARRAY[0.5, 1.0]::float8[]) eps ORDER BY 1, 2;
SELECT count(*) FROM lattice a JOIN lattice b ON a.v <+> b.v <= 1.0;
SELECT count(*) FROM lattice a JOIN lattice b ON chebyshev_distance(a.v, b.v) <= 1.0;
-- Cosine: parallel lattice points at distance 0 (or a rounding error above), the zero vector
-- (0, 0) never (its distance is NaN), so 399 * 399 pairs within 1 (at most 90 degrees apart).
SELECT eps, (SELECT count(*) FROM similarity_join('lattice', 'lattice', eps, metric => 'cosine')) AS engine,
       (SELECT count(*) FROM lattice a JOIN lattice b ON a.v <=> b.v <= eps) AS sql
FROM unnest(ARRAY[0, 1e-15, 0.01, 1, 2]::float8[]) eps ORDER BY eps;
-- 3-4-5: distance exactly 5.
CREATE TABLE triangle (id int PRIMARY KEY, v float8[]);
INSERT INTO triangle VALUES (1, '{0,0}'), (2, '{3,4}'), (3, '{3,4.000000000000001}');
SELECT * FROM similarity_join('triangle', 'triangle', 5, unique_pairs => true) ORDER BY 1, 2;

-- Edge cases: NULL vectors are skipped, NULL eps and negative eps give no rows, duplicates all
-- match, NaN never matches, infinite eps matches every non-NaN pair, empty tables give nothing.
CREATE TABLE edge (id int PRIMARY KEY, v float8[]);
INSERT INTO edge VALUES (1, '{1,1}'), (2, '{1,1}'), (3, NULL), (4, '{NaN,1}'), (5, '{Infinity,0}'), (6, '{2,1}');
SELECT * FROM similarity_join('edge', 'edge', 0) ORDER BY 1, 2;
SELECT count(*) FROM similarity_join('edge', 'edge', NULL);
SELECT count(*) FROM similarity_join('edge', 'edge', -1);
SELECT * FROM similarity_join('edge', 'edge', 'Infinity') ORDER BY 1, 2;
SELECT count(*) FROM edge a JOIN edge b ON a.v <-> b.v <= 'Infinity';
CREATE TABLE empty_table (id int PRIMARY KEY, v float8[]);
SELECT count(*) FROM similarity_join('empty_table', 'edge', 10);
SELECT count(*) FROM similarity_join('edge', 'empty_table', 10);

-- Views and explicit key columns.
CREATE VIEW big_places AS SELECT geonameid AS place_id, pos FROM places WHERE population >= 10000;
SELECT count(*) FROM similarity_join('big_places', 'big_places', 0.1, left_key => 'place_id', right_key => 'place_id');
SELECT count(*) FROM (SELECT * FROM big_places) a JOIN big_places b ON a.pos <-> b.pos <= 0.1;

-- Results larger than work_mem spill to disk and still come back whole.
SET work_mem = '64kB';
SELECT count(*), sum(left_id % 7), max(distance) <= 0.2 AS within
FROM similarity_join('places', 'places', 0.2, left_column => 'pos', right_column => 'pos');
SELECT count(*) FROM places a JOIN places b ON a.pos <-> b.pos <= 0.2;
RESET work_mem;

-- Bad input: clear errors naming the table, the row's key and the problem.
CREATE TABLE bad_nulls (id int PRIMARY KEY, v float8[]);
INSERT INTO bad_nulls VALUES (1, '{1,2}'), (2, '{1,NULL}');
SELECT * FROM similarity_join('bad_nulls', 'bad_nulls', 1);
CREATE TABLE bad_dims (id int PRIMARY KEY, v float8[]);
INSERT INTO bad_dims VALUES (1, '{1,2}'), (7, '{1,2,3}');
SELECT * FROM similarity_join('bad_dims', 'bad_dims', 1);
CREATE TABLE bad_nesting (id int PRIMARY KEY, v float8[]);
INSERT INTO bad_nesting VALUES (3, '{{1,2},{3,4}}');
SELECT * FROM similarity_join('bad_nesting', 'bad_nesting', 1);
SELECT * FROM similarity_join('lattice', 'places', 1, right_column => 'pos3');
SELECT * FROM similarity_join('places', 'places', 1, metric => 'inner_product');
SELECT * FROM similarity_join('places', 'places', 'NaN');
SELECT * FROM similarity_join('places', 'lattice', 1, left_column => 'pos', unique_pairs => true);
SELECT * FROM similarity_join('places', 'places', 1);
CREATE TABLE no_vector (id int PRIMARY KEY, t text);
SELECT * FROM similarity_join('no_vector', 'no_vector', 1);
CREATE TABLE no_key (id int, v float8[]);
SELECT * FROM similarity_join('no_key', 'no_key', 1);
SELECT * FROM similarity_join('places', 'places', 1, left_column => 'nope');
SELECT * FROM similarity_join('places', 'places', 1, left_column => 'name');
SELECT * FROM similarity_join('places', 'places', 1, left_column => 'pos', left_key => 'name');
SELECT * FROM similarity_join('no_such_table', 'places', 1);
SELECT * FROM similarity_join(NULL, 'places', 1);
CREATE TABLE null_key (id int, v float8[]);
INSERT INTO null_key VALUES (NULL, '{1}');
SELECT * FROM similarity_join('null_key', 'null_key', 1, left_key => 'id', right_key => 'id');

-- unique_pairs on a key that is not unique: the rows of the SQL join with l.key < r.key, so two
-- rows that share a key never pair (no (k, k) rows), and each other pair comes once.
CREATE TABLE dup_keys (k int, v float8[]);
INSERT INTO dup_keys VALUES (1, '{0}'), (1, '{0.5}'), (2, '{0.25}'), (2, '{0.25}'), (3, '{5}');
SELECT * FROM similarity_join('dup_keys', 'dup_keys', 0.5, left_key => 'k', right_key => 'k',
                              unique_pairs => true) ORDER BY 1, 2, 3;
SELECT rows_differ(
  $$SELECT * FROM similarity_join('dup_keys', 'dup_keys', 0.5, left_key => 'k', right_key => 'k', unique_pairs => true)$$,
  $$SELECT a.k, b.k, a.v <-> b.v FROM dup_keys a JOIN dup_keys b ON a.v <-> b.v <= 0.5 AND a.k < b.k$$);

-- The same table on both sides: a vector column or key named on one side only serves both.
CREATE TABLE two_vectors (id int PRIMARY KEY, k int, v float8[], w float8[]);
INSERT INTO two_vectors VALUES (1, 10, '{0,0}', '{5,5}'), (2, 20, '{0,1}', '{9,9}');
SELECT * FROM similarity_join('two_vectors', 'two_vectors', 1.5, left_column => 'v') ORDER BY 1, 2;
SELECT * FROM similarity_join('two_vectors', 'two_vectors', 1.5, right_column => 'w') ORDER BY 1, 2;
SELECT * FROM similarity_join('two_vectors', 'two_vectors', 1.5, left_column => 'v', right_key => 'k')
ORDER BY 1, 2;
SELECT * FROM similarity_join('two_vectors', 'two_vectors', 1.5, right_column => 'v', left_key => 'k',
                              unique_pairs => true);
-- Two different columns: no self-join.
SELECT * FROM similarity_join('two_vectors', 'two_vectors', 7, left_column => 'v', right_column => 'w')
ORDER BY 1, 2;
-- Another table: its column is still its own.
SELECT * FROM similarity_join('two_vectors', 'places', 1, left_column => 'v');
-- The tables go, so that the tests do not depend on their order.
DROP VIEW big_places;
DROP TABLE places, landmarks, lattice, triangle, edge, empty_table, bad_nulls, bad_dims,
  bad_nesting, no_vector, no_key, null_key, dup_keys, two_vectors;
DROP FUNCTION rows_differ(text, text);
