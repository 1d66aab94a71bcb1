internal import CProcessControl

/// glibc's malloc gives each new thread an arena of its own, and grows a thread's arena a page
/// range at a time with an `mprotect` for each step: an offline search's blocking-work thread
/// made hundreds of those calls (with their page faults) to allocate what the main arena, grown
/// by `brk` 128 KB at a time, gives at once. A command-line process has a handful of threads,
/// and glibc's per-thread cache answers most small allocations without the arena's lock.
public enum MallocArenas {
    /// Every thread of this process allocates from the main arena (`M_ARENA_MAX` 1). Call it
    /// before the second thread starts; false where the C library is not glibc.
    @discardableResult
    public static func useOne() -> Bool {
        #if canImport(Glibc)
        return mailsearch_use_one_malloc_arena() == 1
        #else
        return false
        #endif
    }
}
