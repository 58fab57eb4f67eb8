// simjoin in the database's session_preload_libraries (session_preload.h). The database-level
// value (pg_db_role_setting, all roles) is read, simjoin added to or removed from its list with
// the other entries kept in order, and written back through ALTER DATABASE's own routine
// (AlterSetting). Plain C: PostgreSQL errors may longjmp through every function here.
#include "pg/loading/session_preload.h"

extern "C" {
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_db_role_setting.h"
#include "catalog/pg_extension.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/varlena.h"

PG_FUNCTION_INFO_V1(simjoin_session_preload);
}

#include <cstring>

namespace simjoin::pg {

namespace {

constexpr const char* kSetting = "session_preload_libraries";

object_access_hook_type prev_object_access_hook = nullptr;

// A string constant as the SET statement's argument (makeStringConst is the grammar's own).
Node* string_argument(const char* text) {
  A_Const* constant = makeNode(A_Const);
  constant->val.sval.type = T_String;
  constant->val.sval.sval = pstrdup(text);
  constant->location = -1;
  return reinterpret_cast<Node*>(constant);
}

// The database's own session_preload_libraries (for all roles), or NULL where it sets none.
char* database_preload_value() {
  char* value = nullptr;
  Relation rel = table_open(DbRoleSettingRelationId, AccessShareLock);
  ScanKeyData keys[2];
  ScanKeyInit(&keys[0], Anum_pg_db_role_setting_setdatabase, BTEqualStrategyNumber, F_OIDEQ,
              ObjectIdGetDatum(MyDatabaseId));
  ScanKeyInit(&keys[1], Anum_pg_db_role_setting_setrole, BTEqualStrategyNumber, F_OIDEQ,
              ObjectIdGetDatum(InvalidOid));
  SysScanDesc scan =
      systable_beginscan(rel, DbRoleSettingDatidRolidIndexId, true, nullptr, 2, keys);
  HeapTuple tuple = systable_getnext(scan);
  bool isnull = true;
  Datum config = HeapTupleIsValid(tuple) ? heap_getattr(tuple, Anum_pg_db_role_setting_setconfig,
                                                        RelationGetDescr(rel), &isnull)
                                         : (Datum)0;
  if (!isnull) {
    Datum* items;
    bool* nulls;
    int count;
    deconstruct_array(DatumGetArrayTypeP(config), TEXTOID, -1, false, TYPALIGN_INT, &items,
                      &nulls, &count);
    const size_t prefix = strlen(kSetting);
    for (int i = 0; i < count; ++i) {
      if (nulls[i]) continue;
      char* item = TextDatumGetCString(items[i]);
      if (strncmp(item, kSetting, prefix) == 0 && item[prefix] == '=')
        value = pstrdup(item + prefix + 1);
    }
  }
  systable_endscan(scan);
  table_close(rel, AccessShareLock);
  return value;
}

// Whether a library entry names this library ("simjoin", "$libdir/simjoin", ".../simjoin.so").
bool names_simjoin(const char* entry) {
  const char* slash = strrchr(entry, '/');
  const char* base = slash ? slash + 1 : entry;
  return strcmp(base, "simjoin") == 0 || strcmp(base, "simjoin" DLSUFFIX) == 0;
}

// Writes the database's session_preload_libraries: the entries of `value` without simjoin's,
// then simjoin where `enable`; RESET where nothing is left. Returns the new value (NULL if none).
char* rewrite_preload(const char* value, bool enable) {
  List* entries = NIL;
  if (value != nullptr && !SplitDirectoriesString(pstrdup(value), ',', &entries))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("database \"%s\" has an invalid session_preload_libraries: %s",
                           get_database_name(MyDatabaseId), value)));
  VariableSetStmt* stmt = makeNode(VariableSetStmt);
  stmt->name = pstrdup(kSetting);
  stmt->kind = VAR_SET_VALUE;
  StringInfoData shown;
  initStringInfo(&shown);
  ListCell* cell;
  foreach (cell, entries) {
    const char* entry = static_cast<const char*>(lfirst(cell));
    if (names_simjoin(entry)) continue;
    stmt->args = lappend(stmt->args, string_argument(entry));
    appendStringInfo(&shown, "%s%s", shown.len > 0 ? ", " : "", quote_identifier(entry));
  }
  if (enable) {
    stmt->args = lappend(stmt->args, string_argument("simjoin"));
    appendStringInfo(&shown, "%s%s", shown.len > 0 ? ", " : "", "simjoin");
  }
  if (stmt->args == NIL) stmt->kind = VAR_RESET;
  AlterSetting(MyDatabaseId, InvalidOid, stmt);
  return stmt->args == NIL ? nullptr : shown.data;
}

bool preload_has_simjoin(const char* value) {
  List* entries = NIL;
  if (value == nullptr || !SplitDirectoriesString(pstrdup(value), ',', &entries)) return false;
  ListCell* cell;
  foreach (cell, entries)
    if (names_simjoin(static_cast<const char*>(lfirst(cell)))) return true;
  return false;
}

// DROP EXTENSION simjoin: simjoin leaves the database's session_preload_libraries, as the
// extension's owner dropping it may not be a superuser (a trusted extension), with the bootstrap
// superuser's rights, as CREATE EXTENSION ran the script that added it.
void drop_hook(ObjectAccessType access, Oid class_id, Oid object_id, int sub_id, void* arg) {
  if (prev_object_access_hook) prev_object_access_hook(access, class_id, object_id, sub_id, arg);
  if (access != OAT_DROP || class_id != ExtensionRelationId) return;
  if (object_id != get_extension_oid("simjoin", true)) return;
  const char* value = database_preload_value();
  if (!preload_has_simjoin(value)) return;
  Oid saved_user;
  int saved_context;
  GetUserIdAndSecContext(&saved_user, &saved_context);
  SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, saved_context | SECURITY_LOCAL_USERID_CHANGE);
  PG_TRY();
  { rewrite_preload(value, false); }
  PG_FINALLY();
  { SetUserIdAndSecContext(saved_user, saved_context); }
  PG_END_TRY();
}

}  // namespace

void session_preload_init() {
  prev_object_access_hook = object_access_hook;
  object_access_hook = drop_hook;
}

}  // namespace simjoin::pg

// simjoin_session_preload(enable boolean DEFAULT true) RETURNS text: adds simjoin to (or takes it
// out of) the current database's session_preload_libraries, keeping its other entries; returns
// the new value. A superuser's (session_preload_libraries is one); CREATE EXTENSION runs it.
extern "C" Datum simjoin_session_preload(PG_FUNCTION_ARGS) {
  using namespace simjoin::pg;
  const bool enable = PG_GETARG_BOOL(0);
  const char* database = get_database_name(MyDatabaseId);
  if (!superuser())
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("only a superuser may change the session_preload_libraries of "
                           "database \"%s\"", database),
                    errhint("A superuser runs SELECT simjoin_session_preload(%s) in it.",
                            enable ? "true" : "false")));
  const char* value = database_preload_value();
  if (preload_has_simjoin(value) == enable) {
    if (value == nullptr) PG_RETURN_NULL();
    PG_RETURN_TEXT_P(cstring_to_text(value));
  }
  const char* written = rewrite_preload(value, enable);
  if (enable)
    ereport(NOTICE,
            (errmsg("new sessions of database \"%s\" load simjoin (session_preload_libraries = "
                    "'%s'), so that every session plans distance joins with its custom scans",
                    database, written),
             errhint("DROP EXTENSION simjoin takes it out again; SELECT "
                     "simjoin_session_preload(false) does now.")));
  if (written == nullptr) PG_RETURN_NULL();
  PG_RETURN_TEXT_P(cstring_to_text(written));
}
