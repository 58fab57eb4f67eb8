-- Neighbour counts and the farthest neighbour's distance within eps per place, on PostgreSQL's
-- point type and on PostGIS geography, the forms users write:
--   SELECT a.id, count(*), max(a.p <-> b.p) FROM t a JOIN t b ON a.p <-> b.p <= eps GROUP BY a.id
--   SELECT a.id, count(*), max(ST_Distance(a.gg, b.gg)) FROM t a JOIN t b
--     ON ST_DWithin(a.gg, b.gg, metres) GROUP BY a.id
-- computed by the SimilarityJoinAggregate scan: points decided and measured in the engine with
-- PostgreSQL's own hypotenuse (probed); geography decided by the engine within its certain bound
-- and by PostGIS beyond it, ST_Distance evaluated by PostGIS on each pair. Against the same join
-- handing its pairs to PostgreSQL's aggregation (simjoin.enable_aggregates off), the float8[]
-- form on the same points (for geography: Earth-centred coordinates in km, the chord of the
-- same distance), and PostgreSQL's own plan (GiST index nested loop).
--   psql -X -f bench/sql/aggregates_point.sql      (from the repository's root; needs postgis)
-- Points: the 199,568 GeoNames places (demo/data); -v eps=E (degrees, default 0.05) and
-- -v metres=M (default 5000). Each engine query runs three times in one session, PostgreSQL's
-- plan once (on points cut off after -v pg_timeout, default 120s); all are wrapped in
-- count(*), sum(c) and the sum of the maxima (rounded); then the nearest other place on geography.
\set ON_ERROR_STOP 1
\if :{?eps}
\else
\set eps 0.05
\endif
\if :{?metres}
\else
\set metres 5000
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
\ir include/cities.sql
SET work_mem = '256MB';
DROP TABLE IF EXISTS apt_places;
CREATE TABLE apt_places AS
  SELECT geonameid AS id, point(longitude, latitude) AS p, ARRAY[longitude, latitude] AS v,
         ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography AS gg,
         ARRAY[6371.0088 * cosd(latitude) * cosd(longitude),
               6371.0088 * cosd(latitude) * sind(longitude), 6371.0088 * sind(latitude)] AS xyz
  FROM bench_cities;
DROP TABLE bench_cities;
ALTER TABLE apt_places ADD PRIMARY KEY (id);
CREATE INDEX ON apt_places USING gist (p);
CREATE INDEX ON apt_places USING gist (gg);
VACUUM ANALYZE apt_places;
SELECT count(*) AS places, :eps AS eps_degrees, :metres AS metres FROM apt_places;
\set wrap 'SELECT count(*) AS groups, sum(c) AS pairs, round(sum(m)::numeric, 6) AS sum_max FROM'

-- PostgreSQL's plan for  a.p <-> b.p <= eps  is a nested loop over every pair (no index serves
-- the distance operator in a join clause): it is cut off after :pg_timeout (default 120 s).
\if :{?pg_timeout}
\else
\set pg_timeout 120s
\endif
\set ON_ERROR_STOP 0
SET statement_timeout = :'pg_timeout';
\set form point
\set by_form 'SELECT a.id, count(*) AS c, max(a.p <-> b.p) AS m FROM apt_places a JOIN apt_places b ON a.p <-> b.p <= ' :eps ' GROUP BY a.id'
\set by_array 'SELECT a.id, count(*) AS c, max(a.v <-> b.v) AS m FROM apt_places a JOIN apt_places b ON a.v <-> b.v <= ' :eps ' GROUP BY a.id'
\ir include/aggregates_runs.sql

RESET statement_timeout;
\set ON_ERROR_STOP 1
\set form geography
\set by_form 'SELECT a.id, count(*) AS c, max(ST_Distance(a.gg, b.gg)) AS m FROM apt_places a JOIN apt_places b ON ST_DWithin(a.gg, b.gg, ' :metres ') GROUP BY a.id'
\set by_array 'SELECT a.id, count(*) AS c, max(a.xyz <-> b.xyz) AS m FROM apt_places a JOIN apt_places b ON a.xyz <-> b.xyz <= ' :metres ' / 1000.0 GROUP BY a.id'
\ir include/aggregates_runs.sql
-- The nearest other place within :metres on geography (DISTINCT ON ... ORDER BY a.id, a.gg <->
-- b.gg, b.id: the planner chooses between keeping each place's nearest in the scan, PostGIS
-- measuring each candidate, and sorting every pair), then PostgreSQL's plan.
\set nearest 'SELECT count(*) AS places, round(sum(d)::numeric, 3) AS sum_nearest FROM (SELECT DISTINCT ON (a.id) a.id, b.id AS b, a.gg <-> b.gg AS d FROM apt_places a JOIN apt_places b ON ST_DWithin(a.gg, b.gg, ' :metres ') AND a.id <> b.id ORDER BY a.id, a.gg <-> b.gg, b.id) s'
\ir include/nearest_runs.sql
DROP TABLE apt_places;
