import MailSearchCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let status = MailSearchTool.standard().main(arguments: Array(CommandLine.arguments.dropFirst()), context: .standard())
exit(status.rawValue)
