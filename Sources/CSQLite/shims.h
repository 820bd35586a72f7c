#ifndef CSQLITE_SHIMS_H
#define CSQLITE_SHIMS_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }

#endif
