-- Bad input: each gives a clear ERROR with the right SQLSTATE, naming table, key and problem.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(15);

CREATE TABLE t_nulls (id int PRIMARY KEY, v float8[]);
INSERT INTO t_nulls VALUES (1, '{1,2}'), (42, '{1,NULL}');
SELECT throws_ok($$SELECT * FROM similarity_join('t_nulls', 't_nulls', 1)$$, '22004',
  'simjoin: table "t_nulls", row with key 42: vector has NULL elements', 'NULL elements');
CREATE TABLE t_dims (id int PRIMARY KEY, v real[]);
INSERT INTO t_dims VALUES (1, '{1,2}'), (7, '{1,2,3}');
SELECT throws_ok($$SELECT * FROM similarity_join('t_dims', 't_dims', 1)$$, '2202E',
  'simjoin: table "t_dims", row with key 7: vector has 3 dimensions, expected 2', 'a row of another dimension');
CREATE TABLE t_nest (id int PRIMARY KEY, v float8[]);
INSERT INTO t_nest VALUES (3, '{{1,2},{3,4}}');
SELECT throws_ok($$SELECT * FROM similarity_join('t_nest', 't_nest', 1)$$, '2202E',
  'simjoin: table "t_nest", row with key 3: vector has 2 array dimensions, expected 1', 'a nested array');
CREATE TABLE t_empty_vec (id int PRIMARY KEY, v float8[]);
INSERT INTO t_empty_vec VALUES (9, '{}');
SELECT throws_ok($$SELECT * FROM similarity_join('t_empty_vec', 't_empty_vec', 1)$$, '2202E',
  'simjoin: table "t_empty_vec", row with key 9: vector is empty', 'an empty vector');
CREATE TABLE t_3d (id int PRIMARY KEY, v float8[]);
INSERT INTO t_3d VALUES (1, '{1,2,3}');
CREATE TABLE t_2d (id int PRIMARY KEY, v float8[]);
INSERT INTO t_2d VALUES (5, '{1,2}');
SELECT throws_ok($$SELECT * FROM similarity_join('t_2d', 't_3d', 1)$$, '2202E',
  'simjoin: table "t_3d", row with key 1: vector has 3 dimensions, expected 2',
  'tables of different dimensions');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_3d', 1, metric => 'inner_product')$$, '22023',
  'simjoin: unknown metric "inner_product"', 'unknown metric');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_3d', 1, algorithm => 'quadtree')$$, '22023',
  'simjoin: unknown algorithm "quadtree"', 'unknown algorithm');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_3d', 'NaN')$$, '22023',
  'simjoin: eps must not be NaN', 'NaN eps');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_dims', 1, unique_pairs => true)$$, '22023',
  'simjoin: unique_pairs needs a self-join', 'unique_pairs on two tables');
CREATE TABLE t_novec (id int PRIMARY KEY, t text);
SELECT throws_ok($$SELECT * FROM similarity_join('t_novec', 't_novec', 1)$$, '42703',
  'simjoin: table "t_novec" has no real[], float8[], vector, halfvec, geometry or geography column', 'no vector column');
CREATE TABLE t_twovec (id int PRIMARY KEY, a float8[], b real[]);
SELECT throws_ok($$SELECT * FROM similarity_join('t_twovec', 't_twovec', 1)$$, '42702',
  'simjoin: table "t_twovec" has more than one real[], float8[], vector or halfvec column', 'two vector columns');
CREATE TABLE t_nokey (id int, v float8[]);
SELECT throws_ok($$SELECT * FROM similarity_join('t_nokey', 't_nokey', 1)$$, '42703',
  'simjoin: table "t_nokey" has no single-column integer primary key', 'no primary key');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_3d', 1, left_key => 'v')$$, '42804',
  'simjoin: column "v" of table "t_3d" is double precision[], expected smallint, integer or bigint', 'a non-integer key');
SELECT throws_ok($$SELECT * FROM similarity_join('t_3d', 't_3d', 1, left_column => 'nope')$$, '42703',
  'column "nope" of relation "t_3d" does not exist', 'a missing column');
SELECT throws_ok($$SELECT * FROM similarity_join('no_such_table', 't_3d', 1)$$, '42P01', NULL, 'a missing table');

SELECT * FROM finish();
ROLLBACK;
