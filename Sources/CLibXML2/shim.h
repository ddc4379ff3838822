#ifndef WAYPOST_CLIBXML2_SHIM_H
#define WAYPOST_CLIBXML2_SHIM_H

// Debian's libxml2 headers pull in the system ICU headers, which clash with the ICU that
// Foundation bundles ("'UErrorCode' has different definitions in different modules").
// Waypost never uses libxml2's ICU converters, so hide them before the other headers.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

#endif
