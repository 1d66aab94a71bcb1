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

extension DifferentialTests {
    /// The sections of `SectionTests`, byte for byte the same from both servers.
    @Test func sectionsMatchDovecot() async throws {
        try await BothServers.with(messages: SectionTests.messages) { both in
            _ = try await both.ask("s", "EXAMINE INBOX")
            for sectionCase in SectionTests.cases {
                let command = "FETCH \(sectionCase.message) (BODY.PEEK[\(sectionCase.section)])"
                let (ours, theirs) = try await both.ask("f", command)
                #expect(ours == theirs, "\(command)")
                #expect(ours.first == String(SectionTests.expectedFrame(sectionCase).dropLast()), "the table")
            }
        }
    }
}
