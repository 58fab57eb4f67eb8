-- simjoin 1.8 -> 1.9: one join over several servers. A table is laid out over postgres_fdw
-- foreign servers by regions of space (quantiles of the join's work, after Alsabti, Ranka and
-- Singh), each row on its home region's server and copied to every region within eps (the halo);
-- a partitioned table of foreign partitions on the coordinator then runs a distance join on
-- every server at once (docs/SHARDING.md).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.9'" to load this file. \quit

CREATE FUNCTION @extschema@.simjoin_region_plan(
    source pg_catalog.regclass,
    eps pg_catalog.float8,
    regions pg_catalog.int4,
    column_name pg_catalog.name DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    split pg_catalog.text DEFAULT 'work')
RETURNS pg_catalog.jsonb
AS 'MODULE_PATHNAME', 'simjoin_region_plan'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simjoin_region_plan(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.int4, pg_catalog.name, pg_catalog.text, pg_catalog.text)
IS 'regions of space for splitting joins of a table within eps over several servers: boxes over one or two dimensions cut at quantiles of a sample, of the join''s work (split => ''work'') or of the points (''points'')';

CREATE FUNCTION @extschema@.simjoin_point_regions(point pg_catalog.float8[], plan pg_catalog.jsonb,
    OUT region pg_catalog.int4, OUT halo pg_catalog.bool)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_point_regions'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 2;
COMMENT ON FUNCTION @extschema@.simjoin_point_regions(pg_catalog.float8[], pg_catalog.jsonb)
IS 'the regions of a region plan a point is stored in: its home region (halo false), then every other region within the plan''s eps (halo true); region 0 for NULL';

CREATE FUNCTION @extschema@.simjoin_point_regions(point pg_catalog.float4[], plan pg_catalog.jsonb,
    OUT region pg_catalog.int4, OUT halo pg_catalog.bool)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_point_regions'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 2;
COMMENT ON FUNCTION @extschema@.simjoin_point_regions(pg_catalog.float4[], pg_catalog.jsonb)
IS 'the regions of a region plan a point is stored in: its home region (halo false), then every other region within the plan''s eps (halo true); region 0 for NULL';

-- Lays `source` out over `servers` (postgres_fdw foreign servers, region i on servers[i + 1]):
-- the coordinator's partitioned table `target` (default <source>_sharded, in source's schema)
-- of foreign partitions <target>_<i>, each a table <target>_l<layout>_<i> on its server (through
-- dblink, created first on every server; the previous layout's tables are dropped only once the
-- new one is complete). Returns the plan. Like every function of the extension it sets no
-- parameter: every name in its body is schema-qualified, and operators resolve in pg_catalog,
-- which is searched first.
CREATE FUNCTION @extschema@.simjoin_shard_table(
    source pg_catalog.regclass,
    servers pg_catalog.text[],
    eps pg_catalog.float8,
    target pg_catalog.name DEFAULT NULL,
    column_name pg_catalog.name DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    split pg_catalog.text DEFAULT 'work',
    halo pg_catalog.bool DEFAULT true,
    plan pg_catalog.jsonb DEFAULT NULL)
RETURNS pg_catalog.jsonb
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
AS $shard$
DECLARE
  region_count pg_catalog.int4 := pg_catalog.cardinality(servers);
  dblink_schema pg_catalog.name;
  schema_name pg_catalog.name;
  source_name pg_catalog.name;
  target_name pg_catalog.text;
  vector_column pg_catalog.name;
  column_defs pg_catalog.text;
  column_list pg_catalog.text;
  layout pg_catalog.text := 'l' || pg_catalog.substr(pg_catalog.md5(pg_catalog.random()::text ||
                            pg_catalog.clock_timestamp()::text), 1, 8);
  remote_names pg_catalog.text[] := '{}';
  found_version pg_catalog.text;
  existing pg_catalog.oid;
  i pg_catalog.int4;
BEGIN
  IF source IS NULL OR eps IS NULL OR region_count IS NULL OR region_count < 1 THEN
    RAISE EXCEPTION 'simjoin: simjoin_shard_table needs a source table, servers and eps';
  END IF;
  SELECT n.nspname INTO dblink_schema
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'dblink';
  IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'postgres_fdw')
  THEN
    RAISE EXCEPTION 'simjoin: simjoin_shard_table needs the postgres_fdw and dblink extensions'
      USING HINT = 'CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink; then CREATE SERVER '
                   '... FOREIGN DATA WRAPPER postgres_fdw and a USER MAPPING for each server.';
  END IF;
  FOR i IN 1 .. region_count LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_foreign_server s
                     JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw
                    WHERE s.srvname = servers[i] AND w.fdwname = 'postgres_fdw') THEN
      RAISE EXCEPTION 'simjoin: "%" is not a postgres_fdw foreign server', servers[i]
        USING HINT = 'CREATE SERVER ... FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host ..., '
                     'dbname ..., extensions ''simjoin'', async_capable ''true'')';
    END IF;
  END LOOP;

  SELECT n.nspname, c.relname INTO schema_name, source_name
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
   WHERE c.oid = source;
  target_name := pg_catalog.left(coalesce(target, source_name || '_sharded'), 40);
  SELECT c.oid INTO existing FROM pg_catalog.pg_class c
   WHERE c.relname = target_name AND c.relnamespace = pg_catalog.to_regnamespace(schema_name);
  IF existing IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM pg_catalog.pg_partitioned_table p
         JOIN pg_catalog.pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
        WHERE p.partrelid = existing AND a.attname = 'simjoin_region') THEN
    RAISE EXCEPTION 'simjoin: table %.% exists and is not a sharded layout of simjoin',
      schema_name, target_name USING HINT = 'Name another target.';
  END IF;

  -- The vector column, as simjoin_region_plan finds it; the plan (its regions kept when given,
  -- eps and metric this call's: the halo is this table's).
  SELECT a.attname INTO vector_column FROM pg_catalog.pg_attribute a
   WHERE a.attrelid = source AND a.attnum > 0 AND NOT a.attisdropped
     AND (a.attname = column_name OR (column_name IS NULL AND
          pg_catalog.format_type(a.atttypid, NULL) IN ('real[]', 'double precision[]')));
  IF vector_column IS NULL THEN
    RAISE EXCEPTION 'simjoin: table % has no real[] or float8[] column%', source,
      coalesce(' "' || column_name || '"', '') USING HINT = 'Name it with column_name.';
  END IF;
  IF plan IS NULL THEN
    plan := @extschema@.simjoin_region_plan(source, eps, region_count, vector_column, metric,
                                            split);
  ELSE
    IF pg_catalog.jsonb_array_length(plan -> 'regions') <> region_count THEN
      RAISE EXCEPTION 'simjoin: the plan has % regions, but % servers are given',
        pg_catalog.jsonb_array_length(plan -> 'regions'), region_count;
    END IF;
    plan := pg_catalog.jsonb_set(pg_catalog.jsonb_set(plan, '{eps}',
              CASE WHEN eps = 'Infinity' THEN 'null'::pg_catalog.jsonb
                   ELSE pg_catalog.to_jsonb(eps) END),
              '{metric}', pg_catalog.to_jsonb(coalesce(metric, 'euclidean')));
  END IF;

  SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname,
                                 pg_catalog.format_type(a.atttypid, a.atttypmod)), ', '
                               ORDER BY a.attnum),
         pg_catalog.string_agg(pg_catalog.format('s.%I', a.attname), ', ' ORDER BY a.attnum)
    INTO column_defs, column_list
    FROM pg_catalog.pg_attribute a
   WHERE a.attrelid = source AND a.attnum > 0 AND NOT a.attisdropped;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = source
                AND a.attname IN ('simjoin_region', 'simjoin_halo') AND NOT a.attisdropped) THEN
    RAISE EXCEPTION 'simjoin: table % has a column simjoin_region or simjoin_halo', source;
  END IF;

  -- Every server answers and has simjoin, before anything changes.
  FOR i IN 1 .. region_count LOOP
    BEGIN
      EXECUTE pg_catalog.format('SELECT v FROM %I.dblink(%L, %L) AS t(v text)', dblink_schema,
                                servers[i], 'SELECT extversion FROM pg_catalog.pg_extension '
                                            'WHERE extname = ''simjoin''')
         INTO found_version;
    EXCEPTION WHEN OTHERS THEN
      RAISE EXCEPTION 'simjoin: server "%" cannot be reached: %', servers[i], SQLERRM
        USING HINT = 'Start it, or lay the table out over servers that run; nothing was changed.';
    END;
    IF found_version IS NULL THEN
      RAISE EXCEPTION 'simjoin: server "%" has no simjoin extension in its database', servers[i]
        USING HINT = 'Run CREATE EXTENSION simjoin there; nothing was changed.';
    END IF;
  END LOOP;

  -- This layout's tables on the servers, then the coordinator's partitioned table over them.
  FOR i IN 1 .. region_count LOOP
    remote_names := remote_names || (target_name || '_' || layout || '_' || (i - 1));
    EXECUTE pg_catalog.format('SELECT %I.dblink_exec(%L, %L)', dblink_schema, servers[i],
      pg_catalog.format('CREATE TABLE %I.%I (%s, simjoin_region pg_catalog.int4 NOT NULL, '
                        'simjoin_halo pg_catalog.bool NOT NULL)', schema_name, remote_names[i],
                        column_defs));
  END LOOP;
  IF existing IS NOT NULL THEN
    EXECUTE pg_catalog.format('DROP TABLE %I.%I', schema_name, target_name);
  END IF;
  EXECUTE pg_catalog.format('CREATE TABLE %I.%I (%s, simjoin_region pg_catalog.int4 NOT NULL, '
                            'simjoin_halo pg_catalog.bool NOT NULL) '
                            'PARTITION BY LIST (simjoin_region)', schema_name, target_name,
                            column_defs);
  FOR i IN 1 .. region_count LOOP
    EXECUTE pg_catalog.format('CREATE FOREIGN TABLE %I.%I PARTITION OF %I.%I FOR VALUES IN (%s) '
                              'SERVER %I OPTIONS (schema_name %L, table_name %L, '
                              'batch_size ''1000'')', schema_name, target_name || '_' || (i - 1),
                              schema_name, target_name, i - 1, servers[i], schema_name,
                              remote_names[i]);
  END LOOP;
  EXECUTE pg_catalog.format('INSERT INTO %I.%I SELECT %s, r.region, r.halo FROM %I.%I s '
                            'CROSS JOIN LATERAL @extschema@.simjoin_point_regions(s.%I, $1) r%s',
                            schema_name, target_name, column_list, schema_name, source_name,
                            vector_column,
                            CASE WHEN halo THEN '' ELSE ' WHERE NOT r.halo' END)
    USING plan;

  -- Statistics here (the costs without remote estimates: postgres_fdw samples the new rows in
  -- this transaction). The servers' own planners see the new tables as never analyzed, sized
  -- from their pages, until autovacuum analyzes them (an ANALYZE through dblink now would see
  -- them empty: the rows commit with this transaction). Then the earlier layouts' tables go.
  EXECUTE pg_catalog.format('ANALYZE %I.%I', schema_name, target_name);
  FOR i IN 1 .. region_count LOOP
    EXECUTE pg_catalog.format(
      'SELECT %I.dblink_exec(%L, t) FROM %I.dblink(%L, %L) AS r(t text)', dblink_schema,
      servers[i], dblink_schema, servers[i],
      pg_catalog.format('SELECT pg_catalog.format(''DROP TABLE %%I.%%I'', schemaname, tablename) '
                        'FROM pg_catalog.pg_tables WHERE schemaname = %L AND tablename ~ %L '
                        'AND tablename <> ALL (%L::pg_catalog.text[])', schema_name,
                        '^' || pg_catalog.regexp_replace(target_name, '([^A-Za-z0-9_])', '\\\1', 'g')
                            || '_l[0-9a-f]{8}_[0-9]+$', remote_names));
  END LOOP;
  EXECUTE pg_catalog.format('COMMENT ON TABLE %I.%I IS %L', schema_name, target_name,
                            'simjoin layout of ' || source::text || ' over ' ||
                            pg_catalog.array_to_string(servers, ', ') || ': ' || plan::text);
  RETURN plan;
END
$shard$;
COMMENT ON FUNCTION @extschema@.simjoin_shard_table(pg_catalog.regclass, pg_catalog.text[],
  pg_catalog.float8, pg_catalog.name, pg_catalog.name, pg_catalog.text, pg_catalog.text,
  pg_catalog.bool, pg_catalog.jsonb)
IS 'lays a table out over postgres_fdw servers by regions of space (simjoin_region_plan), each row on its home region''s server and, with halo, on every region within eps; creates the coordinator''s partitioned table of foreign partitions (simjoin_region, simjoin_halo); returns the plan';
