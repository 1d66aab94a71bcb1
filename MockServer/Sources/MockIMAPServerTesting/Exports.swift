// A test of mail code imports this one module: the server, its store and faults, the message
// builder, the flags and dates they take, and the hang guard.
@_exported public import IMAPCore
@_exported public import MockIMAPServer
@_exported public import TestHangGuard
