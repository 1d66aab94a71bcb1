#ifndef MAILSEARCH_CZLIB_SHIM_H
#define MAILSEARCH_CZLIB_SHIM_H

#include <zlib.h>

#endif
