// A session's API is made of the grammar's values (SequenceSet, SearchKey, Flag, ByteString) and
// the transport's TLS configuration: `import IMAPClient` brings them, so a program that talks IMAP
// itself needs that one import (the README's session-search program).
@_exported public import IMAPCore
@_exported public import Transport
