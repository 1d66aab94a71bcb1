import IMAPCore
import Testing

extension DifferentialTests {
    /// The address searches of `AddressSearchTests`, asked of the mock server and of Dovecot over
    /// the same messages: the same UIDs for every one.
    @Test func addressSearchesMatchDovecot() async throws {
        try await BothServers.with(messages: AddressSearchTests.messages) { both in
            _ = try await both.ask("s", "EXAMINE INBOX")
            for searchCase in AddressSearchTests.cases {
                let (ours, theirs) = try await both.ask("u", "UID SEARCH \(searchCase.keys)")
                #expect(ours == theirs, "UID SEARCH \(searchCase.keys)")
                #expect(ours.first == "* SEARCH" + searchCase.uids.map { " \($0)" }.joined(), "the table")
            }
        }
    }
}
