-- Keys of any type with a btree ordering in the functions over tables (src/pg/functions/
-- table_keys.h): each function's polymorphic form (key_type => NULL::the_type) returns the keys in
-- their own type, and its rows equal PostgreSQL's own query's: uuid keys, text keys in the C
-- collation's order, numeric keys named without a primary key (with keys equal in value but not
-- in scale), ties at equal distances broken by the smaller key as SQL's ORDER BY d, key does.
-- The integer forms are unchanged, and their errors say how to pass key_type.
\i test/sql/include/rows_differ.sql

-- 600 uuid-keyed points on a lattice of step 0.25 (many pairs at exactly eps), a NULL vector
CREATE TABLE ku (id uuid PRIMARY KEY, v float8[]);
INSERT INTO ku SELECT md5(i::text)::uuid, ARRAY[(i % 17) / 4.0, (i / 17) / 4.0]
  FROM generate_series(1, 600) i;
INSERT INTO ku VALUES (md5('null')::uuid, NULL);
-- 500 text-keyed points (ties at the k-th distance decided by the names' order), and 200 more
CREATE TABLE kt (name text COLLATE "C" PRIMARY KEY, v float8[]);
INSERT INTO kt SELECT 'p' || i, ARRAY[(i % 13) / 4.0, (i / 13) / 4.0]
  FROM generate_series(1, 500) i;
CREATE TABLE kt2 (name text COLLATE "C" PRIMARY KEY, v float8[]);
INSERT INTO kt2 SELECT 'q' || i, ARRAY[(i % 11) / 4.0 + 0.125, (i / 11) / 4.0]
  FROM generate_series(1, 200) i;
-- numeric codes in a table without a primary key: 1.0 and 1.00 are equal keys
CREATE TABLE kn (code numeric, v float8[]);
INSERT INTO kn SELECT i / 10.0, ARRAY[(i % 7) / 4.0, (i / 7) / 4.0] FROM generate_series(1, 300) i;
INSERT INTO kn VALUES (1.00, ARRAY[0.5, 0.25]), (2.000, ARRAY[0.5, 0.5]);

-- similarity_join
SELECT rows_differ($$SELECT * FROM similarity_join('ku', 'ku', 0.5, NULL::uuid)$$,
  $$SELECT a.id, b.id, a.v <-> b.v FROM ku a JOIN ku b ON a.v <-> b.v <= 0.5$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('ku', 'ku', 0.5, NULL::uuid, unique_pairs => true)$$,
  $$SELECT a.id, b.id, a.v <-> b.v FROM ku a JOIN ku b ON a.v <-> b.v <= 0.5 AND a.id < b.id$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('kt', 'kt2', 0.3, key_type => NULL::text,
                                  metric => 'manhattan')$$,
  $$SELECT a.name, b.name, a.v <+> b.v FROM kt a JOIN kt2 b ON a.v <+> b.v <= 0.3$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join('kn', 'kn', 0.25, NULL::numeric, left_key => 'code',
                                  unique_pairs => true)$$,
  $$SELECT a.code, b.code, a.v <-> b.v FROM kn a JOIN kn b ON a.v <-> b.v <= 0.25
    AND a.code < b.code$$);
SELECT pg_typeof(left_id), pg_typeof(right_id), count(*)
FROM similarity_join('kt', 'kt', 0.25, key_type => NULL::text) GROUP BY 1, 2;

-- similarity_knn_join (the k-th distance tied: the smaller key)
SELECT rows_differ($$SELECT * FROM similarity_knn_join('kt', 'kt', 4, NULL::text)$$,
  $$SELECT a.name, n.name, n.d, n.rank::int FROM kt a CROSS JOIN LATERAL
      (SELECT b.name, a.v <-> b.v AS d, row_number() OVER (ORDER BY a.v <-> b.v, b.name) AS rank
       FROM kt b ORDER BY a.v <-> b.v, b.name LIMIT 4) n$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_knn_join('ku', 'ku', 3, NULL::uuid, include_self => false)$$,
  $$SELECT a.id, n.id, n.d, n.rank::int FROM ku a CROSS JOIN LATERAL
      (SELECT b.id, a.v <-> b.v AS d, row_number() OVER (ORDER BY a.v <-> b.v, b.id) AS rank
       FROM ku b WHERE b.id <> a.id AND b.v IS NOT NULL ORDER BY a.v <-> b.v, b.id LIMIT 3) n
    WHERE a.v IS NOT NULL$$);
SELECT rows_differ($$SELECT * FROM similarity_knn_join('kt2', 'kt', 2, NULL::text, 0.2)$$,
  $$SELECT a.name, n.name, n.d, n.rank::int FROM kt2 a CROSS JOIN LATERAL
      (SELECT b.name, a.v <-> b.v AS d, row_number() OVER (ORDER BY a.v <-> b.v, b.name) AS rank
       FROM kt b WHERE a.v <-> b.v <= 0.2 ORDER BY a.v <-> b.v, b.name LIMIT 2) n$$);

-- similarity_join_stats (the NULL vector's row too: no partner)
SELECT rows_differ($$SELECT * FROM similarity_join_stats('ku', 'ku', 0.5, NULL::uuid)$$,
  $$SELECT a.id, count(b.id), (array_agg(b.id ORDER BY a.v <-> b.v, b.id))[1], min(a.v <-> b.v)
    FROM ku a LEFT JOIN ku b ON a.v <-> b.v <= 0.5 GROUP BY a.id$$);
SELECT rows_differ(
  $$SELECT * FROM similarity_join_stats('kt2', 'kt', 0.2, key_type => NULL::text)$$,
  $$SELECT a.name, count(b.name), (array_agg(b.name ORDER BY a.v <-> b.v, b.name))[1],
           min(a.v <-> b.v)
    FROM kt2 a LEFT JOIN kt b ON a.v <-> b.v <= 0.2 GROUP BY a.name$$);

-- simjoin_dbscan: the same clusters, numbered by their smallest key, as on integer keys numbered
-- in the uuids' order
CREATE TABLE ku_numbered AS SELECT row_number() OVER (ORDER BY id) AS n, id, v FROM ku;
ALTER TABLE ku_numbered ADD PRIMARY KEY (n);
SELECT rows_differ($$SELECT * FROM simjoin_dbscan('ku', 0.3, 4, NULL::uuid)$$,
  $$SELECT m.id, d.cluster, d.kind FROM simjoin_dbscan('ku_numbered', 0.3, 4, column_name => 'v') d
    JOIN ku_numbered m ON m.n = d.id$$);
SELECT kind, count(*) FROM simjoin_dbscan('kt', 0.25, 5, key_type => NULL::text) GROUP BY kind
ORDER BY kind;

-- errors: the integer forms on other keys, a key of another type than key_type, a NULL key, a
-- key type without a btree ordering, key_type by position where metric is
SELECT * FROM similarity_join('ku', 'ku', 0.5);
SELECT * FROM similarity_knn_join('kt', 'kt', 2, left_key => 'name');
SELECT * FROM similarity_join('ku', 'ku', 0.5, NULL::text);
SELECT * FROM similarity_join('ku', 'ku', 0.5, key_type => NULL::text);
INSERT INTO kn VALUES (NULL, ARRAY[0, 0]);
SELECT * FROM simjoin_dbscan('kn', 0.3, 4, NULL::numeric, key => 'code');
CREATE TABLE kp (p point, v float8[]);
INSERT INTO kp VALUES (point(0, 0), ARRAY[0, 0]);
SELECT * FROM similarity_join('kp', 'kp', 1, NULL::point, left_key => 'p');

DROP TABLE ku, kt, kt2, kn, ku_numbered, kp;
DROP FUNCTION rows_differ(text, text);
