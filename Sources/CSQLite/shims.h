#ifndef CSQLITE_SHIMS_H
#define CSQLITE_SHIMS_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

/// Extended result codes are macros built with `|` and `<<`; spelled out here so Swift sees them as constants.
static const int CSQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int CSQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int CSQLITE_IOERR_WRITE = SQLITE_IOERR_WRITE;
static const int CSQLITE_READONLY_DBMOVED = SQLITE_READONLY_DBMOVED;
static const int CSQLITE_READONLY_DIRECTORY = SQLITE_READONLY_DIRECTORY;

/// sqlite3_db_config is variadic, which Swift cannot call. SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (SQLite 3.28) keeps the
/// last connection to close from checkpointing the WAL into the database file and deleting it.
static inline int csqlite_set_no_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, (int *)0);
}

#endif
