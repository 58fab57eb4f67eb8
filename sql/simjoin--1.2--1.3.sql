-- simjoin 1.2 -> 1.3: simjoin_jobs() reports the engine's progress (candidates_done, out of
-- candidates_estimate, now the sampled estimate of the join's work).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.3'" to load this file. \quit

DROP FUNCTION @extschema@.simjoin_jobs();
CREATE FUNCTION @extschema@.simjoin_jobs(OUT job_id pg_catalog.int8,
                                         OUT pid pg_catalog.int4,
                                         OUT state pg_catalog.text,
                                         OUT device pg_catalog.int4,
                                         OUT wanted_bytes pg_catalog.int8,
                                         OUT reserved_bytes pg_catalog.int8,
                                         OUT pairs pg_catalog.int8,
                                         OUT candidates_done pg_catalog.int8,
                                         OUT candidates_estimate pg_catalog.int8,
                                         OUT submitted_at pg_catalog.timestamptz,
                                         OUT queued_seconds pg_catalog.float8,
                                         OUT running_seconds pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_jobs'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_jobs()
IS 'the GPU service''s jobs: session, state (queued, running, streaming, done, failed), device, memory and progress (candidates done out of the sampled estimate)';
