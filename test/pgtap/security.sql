-- Privileges and row-level security: similarity_join reads a table exactly as the user's own
-- SELECT would.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(9);

CREATE TABLE secret (id int PRIMARY KEY, v float8[], owner_name text);
INSERT INTO secret VALUES (1, '{0,0}', 'alice'), (2, '{0,1}', 'bob'), (3, '{1,0}', 'alice'), (4, '{1,1}', 'bob');
CREATE ROLE simjoin_tap_reader NOLOGIN;
GRANT USAGE ON SCHEMA public TO simjoin_tap_reader;

SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM similarity_join('secret', 'secret', 1)$$, '42501',
  'permission denied for table secret', 'no SELECT privilege: the same error as SELECT');
RESET ROLE;

GRANT SELECT (id, v) ON secret TO simjoin_tap_reader;
SET LOCAL ROLE simjoin_tap_reader;
SELECT is((SELECT count(*) FROM similarity_join('secret', 'secret', 1)), 12::bigint,
  'column privileges on the key and vector columns suffice');
RESET ROLE;

CREATE TABLE other (id int PRIMARY KEY, v float8[]);
INSERT INTO other VALUES (1, '{0,0}');
SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM similarity_join('secret', 'other', 1)$$, '42501',
  'permission denied for table other', 'the right table is checked too');
RESET ROLE;

ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
CREATE POLICY alice_rows ON secret FOR SELECT TO simjoin_tap_reader USING (owner_name = 'alice');
GRANT SELECT ON secret TO simjoin_tap_reader;
SET LOCAL ROLE simjoin_tap_reader;
SELECT results_eq(
  $$SELECT left_id, right_id FROM similarity_join('secret', 'secret', 1) ORDER BY 1, 2$$,
  $$SELECT a.id::bigint, b.id::bigint FROM secret a JOIN secret b ON a.v <-> b.v <= 1 ORDER BY 1, 2$$,
  'row-level security: the same rows as the user''s own join');
SELECT is((SELECT count(*) FROM similarity_join('secret', 'secret', 1)), 4::bigint,
  'row-level security hides the other rows');
SELECT is((SELECT count(*) FROM similarity_join('secret', 'secret', 10) WHERE left_id IN (2, 4) OR right_id IN (2, 4)),
  0::bigint, 'no hidden row appears in any pair');
RESET ROLE;
SELECT is((SELECT count(*) FROM similarity_join('secret', 'secret', 1)), 12::bigint,
  'the table owner still sees every row');

CREATE ROLE simjoin_tap_owner NOLOGIN;
GRANT USAGE, CREATE ON SCHEMA public TO simjoin_tap_owner;
SET LOCAL ROLE simjoin_tap_owner;
CREATE TABLE owned (id int PRIMARY KEY, v float8[], owner_name text);
INSERT INTO owned SELECT * FROM (VALUES (1, '{0,0}'::float8[], 'alice'), (2, '{0,1}', 'bob')) v;
ALTER TABLE owned ENABLE ROW LEVEL SECURITY;
ALTER TABLE owned FORCE ROW LEVEL SECURITY;
CREATE POLICY alice_only ON owned USING (owner_name = 'alice');
SELECT is((SELECT count(*) FROM similarity_join('owned', 'owned', 1)), 1::bigint,
  'FORCE ROW LEVEL SECURITY applies to the table owner too');
RESET ROLE;

SET LOCAL ROLE simjoin_tap_reader;
SELECT throws_ok($$SELECT * FROM similarity_join('pg_authid', 'pg_authid', 1)$$, '42501',
  'permission denied for table pg_authid',
  'a catalog without privilege stays closed');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
