-- PostGIS, where it is installed on the server: :has_postgis says whether it is (the tests that
-- need it run their PostGIS part under \if :has_postgis).
SELECT count(*) > 0 AS has_postgis FROM pg_available_extensions WHERE name = 'postgis' \gset
\if :has_postgis
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
RESET client_min_messages;
\endif
