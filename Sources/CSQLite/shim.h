#ifndef MAILSEARCH_CSQLITE_SHIM_H
#define MAILSEARCH_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: text and
// blobs bound with it are copied by SQLite before the bind returns.
static inline sqlite3_destructor_type mailsearch_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
