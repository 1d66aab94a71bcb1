// `import MailSearch` is enough for the common case: an account's configuration and
// credentials (IMAPClient's `IMAPConfiguration`, `Credentials`, `MailboxConnection.ReconnectPolicy`),
// TLS with an extra trusted CA (Transport's `ClientTLSConfiguration`) and flags and keywords
// (IMAPCore's `Flag`) are what a caller names beside this module's own types. The layers below
// stay as they are; a program that works with them directly imports them too.
@_exported public import IMAPClient
@_exported public import IMAPCore
@_exported public import Transport
