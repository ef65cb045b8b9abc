#pragma once
#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: turns off SQLite's memory statistics,
/// which take a global mutex on every allocation. Before SQLite initializes, else SQLITE_MISUSE.
static inline int lerix_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
