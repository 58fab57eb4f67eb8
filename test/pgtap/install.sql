-- simjoin is a trusted extension: a role that is not a superuser but has CREATE on the database
-- (a database owner, typically) can CREATE EXTENSION simjoin, here in a schema of its own
-- (CREATE EXTENSION ... SCHEMA: the extension is not relocatable afterwards, but can be created
-- in any schema), update it, and then uses it with its own privileges only. A role without CREATE
-- on the database cannot create it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(16);

-- This transaction starts from a database without simjoin (the ROLLBACK restores it).
DROP EXTENSION simjoin;

CREATE ROLE simjoin_tap_installer NOLOGIN;
CREATE ROLE simjoin_tap_bystander NOLOGIN;
DO $$ BEGIN
  EXECUTE format('GRANT CREATE ON DATABASE %I TO simjoin_tap_installer', current_database());
END $$;
-- A superuser's table that neither role may read.
CREATE TABLE simjoin_tap_private (id int PRIMARY KEY, v float8[]);
INSERT INTO simjoin_tap_private VALUES (1, '{0,0}'), (2, '{0,1}');

-- cs_compare() and cs_explain(), the custom scan tests' helpers (the path is relative to the
-- repository's root, where scripts/test_all.sh runs pg_prove).
\i test/sql/include/customscan_setup.sql

SET LOCAL ROLE simjoin_tap_bystander;
SELECT throws_ok($$CREATE EXTENSION simjoin$$, '42501', 'permission denied to create extension "simjoin"',
  'a role without CREATE on the database cannot create simjoin');
RESET ROLE;

SET LOCAL ROLE simjoin_tap_installer;
CREATE SCHEMA simjoin_tap_schema;
SELECT lives_ok($$CREATE EXTENSION simjoin SCHEMA simjoin_tap_schema$$,
  'a role with CREATE on the database, not a superuser, creates simjoin (trusted)');
RESET ROLE;

SELECT is(
  (SELECT format('owner %s, schema %s, version %s', pg_get_userbyid(extowner),
                 extnamespace::regnamespace, extversion)
   FROM pg_extension WHERE extname = 'simjoin'),
  (SELECT format('owner simjoin_tap_installer, schema simjoin_tap_schema, version %s', default_version)
   FROM pg_available_extensions WHERE name = 'simjoin'),
  'the extension belongs to that role, in the schema it named, at the default version');
SELECT is(
  (SELECT count(*) FROM pg_depend d
   LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
   LEFT JOIN pg_operator o ON d.classid = 'pg_operator'::regclass AND o.oid = d.objid
   LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
   WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
     AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'simjoin')
     AND coalesce(p.proowner, o.oprowner, c.relowner) IS DISTINCT FROM 10),
  0::bigint, 'its functions, operators and view belong to the bootstrap superuser');
SELECT is(
  (SELECT count(*) FROM pg_proc WHERE pronamespace = 'simjoin_tap_schema'::regnamespace
     AND proname = 'similarity_join'), 2::bigint,
  'and live in the schema it named (the integer-keyed and the polymorphic form)');

SET LOCAL ROLE simjoin_tap_installer;
SELECT throws_ok(
  $$CREATE OR REPLACE FUNCTION simjoin_tap_schema.euclidean_distance(float8[], float8[])
    RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8'$$,
  '42501', 'must be owner of function euclidean_distance',
  'the role cannot replace the extension''s functions');
SELECT throws_ok($$ALTER FUNCTION simjoin_tap_schema.similarity_join(regclass, regclass, float8, text, name, name, name, name, bool, text) SECURITY DEFINER$$,
  '42501', 'must be owner of function simjoin_tap_schema.similarity_join',
  'nor make them run with their owner''s rights');
SELECT throws_ok(
  $$SELECT * FROM simjoin_tap_schema.similarity_join('simjoin_tap_private', 'simjoin_tap_private', 1)$$,
  '42501', 'permission denied for table simjoin_tap_private',
  'similarity_join reads tables with the caller''s privileges only');

CREATE TABLE simjoin_tap_schema.mine (id int PRIMARY KEY, v float8[]);
INSERT INTO simjoin_tap_schema.mine VALUES (1, '{0,0}'), (2, '{3,4}'), (3, '{10,10}'), (4, '{1,0}');
SELECT results_eq(
  $$SELECT left_id, right_id FROM simjoin_tap_schema.similarity_join('simjoin_tap_schema.mine',
      'simjoin_tap_schema.mine', 5) ORDER BY 1, 2$$,
  $$SELECT a.id::bigint, b.id::bigint FROM simjoin_tap_schema.mine a JOIN simjoin_tap_schema.mine b
      ON a.v OPERATOR(simjoin_tap_schema.<->) b.v <= 5 ORDER BY 1, 2$$,
  'and joins the role''s own tables');
SELECT is('{1,0}'::float8[] OPERATOR(simjoin_tap_schema.<=>) '{0,1}'::float8[], 1::float8,
  'the operators work from the schema it named (<=>: cosine distance)');
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_nestloop = off;
SELECT is(
  (SELECT (custom_scan, only_custom, only_native)::text FROM pg_temp.cs_compare(
     $$SELECT a.id AS a, b.id AS b FROM simjoin_tap_schema.mine a JOIN simjoin_tap_schema.mine b
       ON a.v OPERATOR(simjoin_tap_schema.<=>) b.v <= 0.1$$)),
  '(t,0,0)', 'the custom scan plans joins on the operators of simjoin in that schema');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET ROLE;

-- The role that owns the extension also updates it: from an earlier version that has a full
-- script, 1.0 here (the scripts run as the bootstrap superuser, as for CREATE EXTENSION).
SET LOCAL ROLE simjoin_tap_installer;
DROP EXTENSION simjoin;
SELECT lives_ok($$CREATE EXTENSION simjoin VERSION '1.0' SCHEMA simjoin_tap_schema$$,
  'the role creates version 1.0');
SELECT lives_ok($$ALTER EXTENSION simjoin UPDATE$$, 'and updates it with ALTER EXTENSION simjoin UPDATE');
RESET ROLE;
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'simjoin'),
  (SELECT default_version::text FROM pg_available_extensions WHERE name = 'simjoin'),
  'the update reaches the default version');

-- Without a SCHEMA clause it goes to the first schema of the search_path, as any extension.
SET LOCAL ROLE simjoin_tap_installer;
DROP EXTENSION simjoin;
SET LOCAL search_path = simjoin_tap_schema, public;
SELECT lives_ok($$CREATE EXTENSION simjoin$$, 'CREATE EXTENSION simjoin without SCHEMA');
RESET ROLE;
SELECT is((SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'simjoin'),
  'simjoin_tap_schema', 'puts it in the first schema of the search_path');

SELECT * FROM finish();
ROLLBACK;
