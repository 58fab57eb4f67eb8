-- The extension simjoin as the catalogs hold it: its row in pg_extension, each member object
-- (pg_depend deptype 'e') with its comment, and the definition of each member function and
-- operator. test/upgrade/upgrade_test.sh diffs this between an updated and a fresh database.
-- Everything is named and sorted by name (never by OID, which differs between the databases).
\pset footer off
\pset null '(null)'
\pset format unaligned
\pset fieldsep ' | '

SELECT e.extname, e.extversion, pg_get_userbyid(e.extowner) AS owner,
       e.extnamespace::regnamespace AS schema, e.extrelocatable, e.extconfig, e.extcondition,
       obj_description(e.oid, 'pg_extension') AS comment
FROM pg_extension e WHERE e.extname = 'simjoin';

-- Members and comments.
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) COLLATE "C" AS member,
       c.description AS comment
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
LEFT JOIN pg_description c
  ON c.classoid = d.classid AND c.objoid = d.objid AND c.objsubid = d.objsubid
WHERE e.extname = 'simjoin' AND d.deptype = 'e'
ORDER BY 1;

-- Member functions: owner, privileges and the full definition (language, symbol, volatility,
-- strictness, parallel safety, cost, rows, support function, defaults, argument names).
SELECT p.oid::regprocedure::text COLLATE "C" AS function, pg_get_userbyid(p.proowner) AS owner,
       p.proacl, p.prosecdef, p.proleakproof, p.proconfig, pg_get_functiondef(p.oid) AS definition
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE e.extname = 'simjoin' AND d.deptype = 'e'
ORDER BY 1;

-- Member operators: what each one calls and its planner properties.
SELECT o.oid::regoperator::text COLLATE "C" AS operator, pg_get_userbyid(o.oprowner) AS owner,
       o.oprkind, o.oprresult::regtype, o.oprcode::oid::regprocedure AS function,
       o.oprcom::regoperator AS commutator, o.oprnegate::regoperator AS negator,
       o.oprrest::oid::regprocedure AS restrict, o.oprjoin::oid::regprocedure AS join,
       o.oprcanmerge, o.oprcanhash
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
JOIN pg_operator o ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid
WHERE e.extname = 'simjoin' AND d.deptype = 'e'
ORDER BY 1;
