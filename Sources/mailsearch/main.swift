import MailSearchCLI
import SystemLayer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The process may come to hold a password (for hours, in the terminal screen and `watch`): no
// core file may write it to disk. Both calls only lower limits, which the kernel always allows.
do throws(SystemCallError) {
    try CoreDumps.forbid()
} catch {
    let warning = "warning: core dumps could not be turned off (\(error)); a crash could write the password to disk\n"
    _ = warning.withCString { write(2, $0, strlen($0)) }
}

// A reader that goes away (`mailsearch list | head`) must not kill the process mid-write; the
// write fails and the tool ends normally.
signal(SIGPIPE, SIG_IGN)
await MailSearchTool.standard().run(arguments: Array(CommandLine.arguments.dropFirst()), context: .standard())
