internal import CProcessControl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Core dumps of a process that holds a password (the terminal screen and `watch` hold one for
/// hours) would write it to disk.
public enum CoreDumps {
    /// Turns them off for this process and its children: no core file at any size
    /// (`RLIMIT_CORE` 0, soft and hard), and the process not dumpable
    /// (`PR_SET_DUMPABLE` 0), which also keeps other processes of the same user from attaching
    /// to it or reading its memory through /proc.
    public static func forbid() throws(SystemCallError) {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        #if os(Linux)
        try systemCall("setrlimit") { setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none) }
        try systemCall("prctl") { mailsearch_set_dumpable(0) }
        #else
        try systemCall("setrlimit") { setrlimit(RLIMIT_CORE, &none) }
        #endif
    }
}
