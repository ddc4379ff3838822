// CMemoryHints is header-only (include/CMemoryHints.h); a C target needs one source file.
#include "CMemoryHints.h"
