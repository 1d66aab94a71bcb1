// Every I/O suite carries `.hangGuard`; the trait lives in the MockIMAPServerTesting product's
// TestHangGuard module, so the project's own tests and its users' use the same one.
@_exported public import TestHangGuard
