#ifndef MAILSEARCH_CPROCESSCONTROL_SHIM_H
#define MAILSEARCH_CPROCESSCONTROL_SHIM_H

// prctl is variadic, which Swift cannot call: one wrapper per use. Linux only.
#ifdef __linux__
#include <sys/prctl.h>

/// Whether this process may dump core or be attached to by a process of the same user (1) or
/// not (0); prctl(PR_SET_DUMPABLE).
static inline int mailsearch_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}
#endif

#ifdef __GLIBC__
#include <malloc.h>

/// Every thread allocates from glibc's main arena: mallopt(M_ARENA_MAX, 1); 1 when taken.
static inline int mailsearch_use_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}
#endif

#endif
