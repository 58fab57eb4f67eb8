-- The load tests' tables :load_a and :load_b: :n_a points on a 20 x 50 lattice (each point
-- n_a / 1000 times), every 97th key, every 89th point and every 11th tag NULL; :n_b points of a
-- second lattice shifted by a half step in x (pairs at exactly 0.5 and sqrt(1.25)).
CREATE TABLE :"load_a" (id int PRIMARY KEY, v float8[], p point, tag int);
INSERT INTO :"load_a"
SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE ARRAY[(i % 1000) % 20, (i % 1000) / 20]::float8[] END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE point((i % 1000) % 20, (i % 1000) / 20) END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END
FROM generate_series(1, :n_a) i;
CREATE TABLE :"load_b" (id int PRIMARY KEY, v float8[], tag int);
INSERT INTO :"load_b" SELECT i, ARRAY[(i % 20) + 0.5, (i / 20) % 50]::float8[], i % 5
FROM generate_series(1, :n_b) i;
ANALYZE :"load_a";
ANALYZE :"load_b";
