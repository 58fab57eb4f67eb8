-- The start of the benchmarks on the GeoNames places (demo/data): simjoin created and loaded, JIT
-- off, and the places' CSV in the table bench_cities (geonameid, name, country, latitude,
-- longitude, elevation_m, population), which the caller turns into its own table and drops. Run
-- from the repository's root.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simjoin;
RESET client_min_messages;
LOAD 'simjoin';
SET jit = off;
DROP TABLE IF EXISTS bench_cities;
CREATE TABLE bench_cities (geonameid int, name text, country text, latitude float8,
                           longitude float8, elevation_m int, population bigint);
\copy bench_cities FROM PROGRAM 'zcat demo/data/cities500.csv.gz' WITH (FORMAT csv, HEADER)
