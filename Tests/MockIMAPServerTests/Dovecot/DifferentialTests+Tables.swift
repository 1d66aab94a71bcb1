import IMAPCore
import TestSupport
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

extension DifferentialTests {
    /// `RealWorldAddresses`: each value as a From field, FETCH ENVELOPE from both servers; the
    /// same addresses (compared parsed, so a server's choice of quoted string or literal does not
    /// count), and the ones the table states.
    @Test func realWorldAddressesMatchDovecot() async throws {
        let messages = RealWorldAddresses.cases.enumerated().map { index, address in
            Array("From: \(address.value)\r\nSubject: \(index + 1)\r\n\r\nx\r\n".utf8)
        }
        try await BothServers.with(messages: messages) { both in
            _ = try await both.ask("s", "EXAMINE INBOX")
            let ours = try await both.ours.fetch("f", "FETCH 1:* (ENVELOPE)").fetches
            let theirs = try await both.theirs.fetch("f", "FETCH 1:* (ENVELOPE)").fetches
            #expect(ours.count == RealWorldAddresses.cases.count && theirs.count == ours.count)
            for (mine, dovecots) in zip(ours, theirs) {
                let address = RealWorldAddresses.cases[Int(mine.sequenceNumber) - 1]
                let from = mine.envelope?.from.map(Self.describe)
                #expect(from == dovecots.envelope?.from.map(Self.describe), "From: \(address.value)")
                #expect(from == address.expected, "From: \(address.value) (the table)")
            }
        }
    }

    /// An ENVELOPE address as `RealWorldAddresses` writes it.
    static func describe(_ address: Address) -> String {
        func text(_ value: ByteString?) -> String { value?.string ?? "-" }
        guard let host = address.host else { return address.mailbox == nil ? "end" : "group:\(text(address.mailbox))" }
        let route = address.adl.map { "<\($0.string):>" } ?? ""
        return "\(text(address.name))|\(route)\(text(address.mailbox))@\(host.string)"
    }
}

extension DifferentialTests {
    /// `BinaryTests`: each part's BINARY from both servers, the same bytes (a server may send them
    /// as literal8 or not: Dovecot sends every decoded part as literal8, the mock server only when
    /// it holds NUL, as RFC 3516 4.3 asks), and both refuse the uuencoded part with UNKNOWN-CTE.
    ///
    /// Not compared: BINARY.SIZE. Dovecot answers BINARY.SIZE of any part of this message with
    /// `NO [UNKNOWN-CTE]`, as it sizes the whole message at once and part 5 cannot be decoded;
    /// RFC 3516 asks for the size of the part named, which the mock server gives.
    @Test func binaryPartsMatchDovecot() async throws {
        try await BothServers.with(messages: [BinaryTests.message]) { both in
            _ = try await both.ask("s", "EXAMINE INBOX")
            for partCase in BinaryTests.parts {
                let command = "FETCH 1 (BINARY.PEEK[\(partCase.part)])"
                let ours = try await both.ours.fetch("b", command)
                let theirs = try await both.theirs.fetch("b", command)
                func data(_ fetches: [FetchResponse]) -> [UInt8]? {
                    for case .binary(_, _, let data) in fetches.first?.attributes ?? [] {
                        return data.map { Array($0.bytes) }
                    }
                    return nil
                }
                #expect(data(ours.fetches) == data(theirs.fetches), "\(command)")
                #expect(data(ours.fetches) == partCase.content, "\(command) (the table)")
            }
            let (ours, theirs) = try await both.ask("u", "FETCH 1 (BINARY.PEEK[5])")
            #expect(ours == ["* 1 FETCH (UID 1)", "NO"] && theirs == ours)
        }
    }
}
