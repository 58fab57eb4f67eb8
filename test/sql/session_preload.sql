-- The library in every new session of a database where simjoin is created (simjoin--1.7--1.8.sql,
-- src/pg/loading/session_preload.cpp): CREATE EXTENSION adds simjoin to the database's
-- session_preload_libraries, keeping the entries already there; a new session then plans a
-- join written only with PostgreSQL's point <-> point as the custom scan without LOAD; DROP
-- EXTENSION takes simjoin out again, also when a non-superuser who installed the trusted
-- extension drops it. Each step in a database of its own, reached with \c (a new session). (A
-- server that preloads simjoin in shared_preload_libraries, the GPU service's, keeps it loaded.)
SELECT current_database() AS regress_database \gset
CREATE DATABASE simjoin_preload_test;
CREATE ROLE simjoin_preload_owner LOGIN;
GRANT CREATE ON DATABASE simjoin_preload_test TO simjoin_preload_owner;
\c simjoin_preload_test
CREATE VIEW database_preload AS
  SELECT setconfig FROM pg_db_role_setting
  WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND setrole = 0;
GRANT SELECT ON database_preload TO simjoin_preload_owner;
DO $$ BEGIN
  EXECUTE format('ALTER DATABASE %I SET session_preload_libraries = %L', current_database(),
                 'auto_explain');
END $$;
-- created by a superuser: simjoin follows the entry already there
CREATE EXTENSION simjoin;
SELECT setconfig FROM database_preload;
SELECT simjoin_session_preload();  -- already there: unchanged
CREATE TABLE spots AS
  SELECT i AS id, point((i % 60) / 10.0, (i / 60) / 10.0) AS p FROM generate_series(0, 3599) i;
ANALYZE spots;
\c simjoin_preload_test
-- a new session: loaded, and the point join runs as the custom scan
SET simjoin.explain_machine_details = off;
SELECT current_setting('simjoin.enable_customscan', true) AS loaded,
       current_setting('auto_explain.log_min_duration', true) AS other_entry_loaded;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM spots a JOIN spots b ON a.p <-> b.p <= 0.1 AND a.id < b.id;
SELECT count(*) FROM spots a JOIN spots b ON a.p <-> b.p <= 0.1 AND a.id < b.id;
-- taken out and put back by hand (a superuser)
SELECT simjoin_session_preload(false);
SELECT setconfig FROM database_preload;
SELECT simjoin_session_preload(true);
-- DROP EXTENSION takes it out; a new session does not load the library
DROP EXTENSION simjoin;
SELECT setconfig FROM database_preload;
\c simjoin_preload_test
SELECT current_setting('simjoin.enable_customscan', true) IS NOT NULL =
       (current_setting('shared_preload_libraries') ~ 'simjoin') AS loaded_only_if_server_preloads;
-- installed by a non-superuser (a trusted extension), with nothing else in the setting
DO $$ BEGIN
  EXECUTE format('ALTER DATABASE %I RESET session_preload_libraries', current_database());
END $$;
SET ROLE simjoin_preload_owner;
CREATE EXTENSION simjoin;
SELECT setconfig FROM database_preload;
SELECT simjoin_session_preload(false);  -- ERROR: a superuser's
DROP EXTENSION simjoin;
RESET ROLE;
SELECT count(*) AS settings_left FROM database_preload;
\c :regress_database
DROP DATABASE simjoin_preload_test;
DROP ROLE simjoin_preload_owner;
