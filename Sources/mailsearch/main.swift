import MailSearchCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A reader that goes away (`mailsearch list | head`) must not kill the process mid-write; the
// write fails and the tool ends normally.
signal(SIGPIPE, SIG_IGN)
await MailSearchTool.standard().run(arguments: Array(CommandLine.arguments.dropFirst()), context: .standard())
