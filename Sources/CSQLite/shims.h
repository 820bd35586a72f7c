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

#endif
