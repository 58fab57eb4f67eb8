-- The extension's catalog entries: every member object has a comment (\df+, \do+ and \dx+ describe
-- it), every simjoin.* setting has a description (SHOW ALL, pg_settings), and the control file's
-- trusted and relocatable settings and what they promise.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS simjoin;
SELECT plan(10);

CREATE TEMP VIEW simjoin_members AS
  SELECT d.classid, d.objid, d.objsubid, pg_describe_object(d.classid, d.objid, d.objsubid) AS member
  FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
  WHERE e.extname = 'simjoin' AND d.deptype = 'e';

SELECT cmp_ok((SELECT count(*) FROM simjoin_members WHERE classid = 'pg_proc'::regclass), '>=', 15::bigint,
  'the extension''s functions are found as its members');
SELECT is_empty($$SELECT member FROM simjoin_members
                 WHERE classid = 'pg_proc'::regclass AND obj_description(objid, 'pg_proc') IS NULL$$,
  'every function of the extension has a comment');
SELECT is_empty($$SELECT member FROM simjoin_members
                 WHERE classid = 'pg_operator'::regclass AND obj_description(objid, 'pg_operator') IS NULL$$,
  'every operator of the extension has a comment');
SELECT is_empty($$SELECT member FROM simjoin_members m WHERE NOT EXISTS (
                   SELECT FROM pg_description c
                   WHERE (c.classoid, c.objoid, c.objsubid) = (m.classid, m.objid, m.objsubid))$$,
  'every member object of any kind has a comment');
SELECT isnt((SELECT obj_description(oid, 'pg_extension') FROM pg_extension WHERE extname = 'simjoin'),
  NULL, 'the extension itself has a comment (simjoin.control)');

-- Settings cannot take COMMENT ON: their descriptions are given in src/pg/settings.cpp and
-- src/pg/scan/join_path.cpp, and exist once the library is loaded.
LOAD 'simjoin';
SELECT cmp_ok((SELECT count(*) FROM pg_settings WHERE name LIKE 'simjoin.%'), '>=', 10::bigint,
  'the simjoin.* settings are defined once the library is loaded');
SELECT is_empty($$SELECT name FROM pg_settings
                 WHERE name LIKE 'simjoin.%' AND coalesce(short_desc, '') = ''$$,
  'every simjoin.* setting has a short description');

-- The control file: trusted, not relocatable (test/pgtap/install.sql tests what that allows).
SELECT results_eq(
  $$SELECT trusted, relocatable FROM pg_available_extension_versions v
    JOIN pg_available_extensions a USING (name) WHERE name = 'simjoin' AND v.version = a.default_version$$,
  $$VALUES (true, false)$$, 'simjoin is trusted and not relocatable');
-- Installed by a non-superuser (trusted), the functions belong to the bootstrap superuser and run
-- as the caller: none may run with its owner's rights or change settings on its own.
SELECT is_empty($$SELECT member FROM simjoin_members m JOIN pg_proc p ON m.objid = p.oid
                 WHERE m.classid = 'pg_proc'::regclass AND (p.prosecdef OR p.proconfig IS NOT NULL)$$,
  'no function of the extension is SECURITY DEFINER or sets a configuration parameter');
CREATE SCHEMA simjoin_tap_elsewhere;
SELECT throws_ok($$ALTER EXTENSION simjoin SET SCHEMA simjoin_tap_elsewhere$$, '0A000',
  'extension "simjoin" does not support SET SCHEMA',
  'not relocatable: ALTER EXTENSION SET SCHEMA is refused (CREATE EXTENSION ... SCHEMA chooses it)');

SELECT * FROM finish();
ROLLBACK;
