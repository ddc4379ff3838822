#ifndef WAYPOST_CSQLITE_SHIM_H
#define WAYPOST_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
