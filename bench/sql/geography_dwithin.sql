-- PostGIS geography self-join on real places: GeoNames' cities500 (demo/data/cities500.csv.gz,
-- 199,568 points worldwide), count of ST_DWithin(a.g, b.g, d) pairs at d = 1 km and 10 km,
-- timed with the SimilarityJoin custom scan and with PostgreSQL's own plan (a nested loop over
-- a GiST index on the geography column, its best plan; without the index, a nested loop over
-- all 4e10 pairs, cut at statement_timeout), rounds interleaved in one session.
--
--   psql -X -f bench/sql/geography_dwithin.sql      (from the repository root)
-- Options (-v name=value): rounds (default 3), noindex_timeout (default 120s; 0: skip).
\set ON_ERROR_STOP 1
\pset pager off
\if :{?rounds}
\else
\set rounds 3
\endif
\if :{?noindex_timeout}
\else
\set noindex_timeout 120s
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simjoin;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
LOAD 'simjoin';
SET jit = off;

DROP TABLE IF EXISTS bg_cities, bg_places;
CREATE TEMP TABLE bg_cities (geonameid int, name text, country text, latitude float8,
  longitude float8, elevation_m int, population int);
\copy bg_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
CREATE TABLE bg_places AS SELECT geonameid AS id,
  ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS g FROM bg_cities;
ALTER TABLE bg_places ADD PRIMARY KEY (id);
VACUUM ANALYZE bg_places;

-- bg_time(query, mode): the query's count, its time in ms and whether the plan has the custom
-- scan, in one of three settings: 'custom' (simjoin on: the planner's choice), 'custom, no
-- index' (simjoin on, index scans off: the custom scan where the planner preferred the index)
-- and 'native' (simjoin off: PostgreSQL's plan).
CREATE FUNCTION pg_temp.bg_time(query text, mode text,
    OUT n bigint, OUT ms numeric, OUT custom_scan boolean)
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz;
  line text;
BEGIN
  PERFORM set_config('simjoin.enable_customscan', (mode <> 'native')::text, true);
  PERFORM set_config('enable_indexscan', (mode <> 'custom, no index')::text, true);
  PERFORM set_config('enable_bitmapscan', (mode <> 'custom, no index')::text, true);
  custom_scan := false;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    custom_scan := custom_scan OR line LIKE '%SimilarityJoin%';
  END LOOP;
  t0 := clock_timestamp();
  EXECUTE query INTO n;
  ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
  PERFORM set_config('simjoin.enable_customscan', 'on', true);
  PERFORM set_config('enable_indexscan', 'on', true);
  PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

CREATE TEMP TABLE bg_runs (d int, mode text, round int, n bigint, ms numeric,
  custom_scan boolean);
CREATE FUNCTION pg_temp.bg_run(d int, rounds int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT count(*) FROM bg_places a JOIN bg_places b '
                   'ON ST_DWithin(a.g, b.g, %s)', d);
  forward text[] := ARRAY['custom', 'custom, no index', 'native'];
  r int;
  m text;
  t record;
BEGIN
  FOR r IN 0 .. rounds - 1 LOOP
    -- rounds interleaved: forward in even rounds, backward in odd ones
    FOREACH m IN ARRAY CASE WHEN r % 2 = 0 THEN forward
                            ELSE ARRAY['native', 'custom, no index', 'custom'] END LOOP
      t := pg_temp.bg_time(q, m);
      INSERT INTO bg_runs VALUES (d, m, r, t.n, t.ms, t.custom_scan);
    END LOOP;
  END LOOP;
END $$;

EXPLAIN (COSTS OFF) SELECT count(*) FROM bg_places a JOIN bg_places b ON ST_DWithin(a.g, b.g, 1000);
SET simjoin.enable_customscan = off;
\if :{?skip_noindex}
\else
SELECT :'noindex_timeout' <> '0' AS run_noindex \gset
\if :run_noindex
EXPLAIN (COSTS OFF) SELECT count(*) FROM bg_places a JOIN bg_places b ON ST_DWithin(a.g, b.g, 1000);
SET statement_timeout = :'noindex_timeout';
\set ON_ERROR_STOP 0
\timing on
SELECT count(*) FROM bg_places a JOIN bg_places b ON ST_DWithin(a.g, b.g, 1000);
\timing off
\set ON_ERROR_STOP 1
RESET statement_timeout;
\endif
\endif
CREATE INDEX ON bg_places USING gist (g);
VACUUM ANALYZE bg_places;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bg_places a JOIN bg_places b ON ST_DWithin(a.g, b.g, 1000);
RESET simjoin.enable_customscan;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bg_places a JOIN bg_places b ON ST_DWithin(a.g, b.g, 1000);
SELECT pg_temp.bg_run(1000, :rounds);
SELECT pg_temp.bg_run(10000, :rounds);
SELECT d, mode, bool_and(custom_scan) AS custom_scan, min(n) AS pairs,
       bool_and(n = (SELECT min(n) FROM bg_runs r2 WHERE r2.d = r.d)
         AND n = (SELECT max(n) FROM bg_runs r2 WHERE r2.d = r.d)) AS counts_equal,
       string_agg(ms::text, ', ' ORDER BY round) AS ms_by_round,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS median_ms
  FROM bg_runs r GROUP BY d, mode ORDER BY d, mode;
DROP TABLE bg_places;
