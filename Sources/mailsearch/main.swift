import MailSearchCLI
import SystemLayer

// One malloc arena for the few threads a command has (see MallocArenas): before any other thread.
MallocArenas.useOne()

// The process may come to hold a password (for hours, in the terminal screen and `watch`): no
// core file may write it to disk. Both calls only lower limits, which the kernel always allows.
do throws(SystemCallError) {
    try CoreDumps.forbid()
} catch {
    FileOutput.standardError().write(
        "warning: core dumps could not be turned off (\(error)); a crash could write the password to disk\n")
}

// A reader that goes away (`mailsearch list | head`) must not kill the process mid-write; the
// write fails and the tool ends normally.
do throws(SystemCallError) {
    try ProcessSignals.ignoreBrokenPipe()
} catch {
    FileOutput.standardError().write("warning: \(error); a reader that goes away will end the tool\n")
}
await MailSearchTool.standard().run(arguments: Array(CommandLine.arguments.dropFirst()), context: .standard())
