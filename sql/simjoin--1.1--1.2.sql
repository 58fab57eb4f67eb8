-- simjoin 1.1 -> 1.2: the GPU service's devices and jobs (simjoin_devices(), simjoin_jobs()).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.2'" to load this file. \quit

-- 1.2: the GPU service (shared_preload_libraries = 'simjoin'): its devices and its jobs.
CREATE FUNCTION @extschema@.simjoin_devices(OUT device pg_catalog.int4,
                                            OUT name pg_catalog.text,
                                            OUT memory_bytes pg_catalog.int8,
                                            OUT ledger_limit_bytes pg_catalog.int8,
                                            OUT reserved_bytes pg_catalog.int8,
                                            OUT running_jobs pg_catalog.int4,
                                            OUT queued_jobs pg_catalog.int4,
                                            OUT jobs_done pg_catalog.int8,
                                            OUT jobs_failed pg_catalog.int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_devices'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_devices()
IS 'the GPU service''s devices with their memory ledgers and load (no rows without the service)';

CREATE FUNCTION @extschema@.simjoin_jobs(OUT job_id pg_catalog.int8,
                                         OUT pid pg_catalog.int4,
                                         OUT state pg_catalog.text,
                                         OUT device pg_catalog.int4,
                                         OUT wanted_bytes pg_catalog.int8,
                                         OUT reserved_bytes pg_catalog.int8,
                                         OUT pairs pg_catalog.int8,
                                         OUT candidates_estimate pg_catalog.int8,
                                         OUT submitted_at pg_catalog.timestamptz,
                                         OUT queued_seconds pg_catalog.float8,
                                         OUT running_seconds pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_jobs'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_jobs()
IS 'the GPU service''s jobs: session, state (queued, running, streaming, done, failed), device, memory and progress';
