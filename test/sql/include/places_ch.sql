-- GeoNames places in Switzerland (test/data/places_ch.csv; its source and license:
-- demo/data/README.md) as the table places.
CREATE TABLE places (geonameid bigint PRIMARY KEY, name text, country text,
                     latitude float8, longitude float8, elevation_m int, population bigint);
\copy places FROM 'test/data/places_ch.csv' WITH (FORMAT csv, HEADER)
