import IMAPCore
import TestSupport
import Testing

/// Concrete values from real Dovecot 2.3.19 output.
@Suite(.cpuBound) struct ResponseFixtureValueTests {
    /// The whole session; a missing or unparsable fixture fails every test here.
    let session: [Response]

    init() throws {
        session = try ResponseParser.parseAll(try Fixtures.dovecot("session.server.txt"))
    }

    func tagged(_ tag: String) -> TaggedResponse? {
        for case .tagged(let response) in session where response.tag == tag { return response }
        return nil
    }

    @Test func greetingCarriesCapabilities() throws {
        guard case .untagged(.condition(.ok, let text)) = try #require(session.first) else {
            Issue.record("the greeting is not an untagged OK")
            return
        }
        guard case .capability(let capabilities) = text.code else {
            Issue.record("no CAPABILITY code in the greeting")
            return
        }
        #expect(capabilities.contains(.literalPlus))
        #expect(capabilities.contains(.auth("PLAIN")))
        #expect(text.text == "Dovecot (Debian) ready.")
    }

    @Test func sessionHasOneTaggedResponsePerCommand() {
        let tags = session.compactMap { response -> String? in
            if case .tagged(let tagged) = response { return tagged.tag }
            return nil
        }
        #expect(tags.count == 32)
        #expect(tags.first == "a1")
        #expect(tags.last == "d5")
    }

    @Test func statusResponse() {
        let status = session.compactMap { response -> MailboxStatus? in
            if case .untagged(.mailboxStatus(.inbox, let status)) = response { return status }
            return nil
        }.first
        #expect(
            status
                == MailboxStatus(
                    messageCount: 20000, uidNext: 20001, uidValidity: 1_796_004_237, unseenCount: 7871,
                    highestModificationSequence: 2))
    }

    @Test func selectResponses() {
        #expect(session.contains(.untagged(.exists(20000))))
        #expect(session.contains(.untagged(.recent(0))))
        #expect(session.contains(.untagged(.flags([.answered, .flagged, .deleted, .seen, .draft]))))
        #expect(
            session.contains(
                .untagged(
                    .condition(
                        .ok,
                        ResponseText(
                            code: .permanentFlags([.answered, .flagged, .deleted, .seen, .draft, .wildcard]),
                            text: "Flags permitted.")))))
        #expect(
            session.contains(
                .untagged(.condition(.ok, ResponseText(code: .uidValidity(1_796_004_237), text: "UIDs valid")))))
        #expect(tagged("a8")?.text.code == .readWrite)
        #expect(tagged("c7")?.status == .no)
        #expect(
            session.contains(
                .untagged(.condition(.ok, ResponseText(code: .closed, text: "Previous mailbox closed.")))))
    }

    @Test func extendedSearchOfB1() throws {
        let result = try #require(
            session.compactMap { response -> ExtendedSearchResponse? in
                if case .untagged(.extendedSearch(let result)) = response, result.tag == "b1" { return result }
                return nil
            }.first)
        #expect(result.isUID)
        #expect(result.min == 45)
        #expect(result.max == 19977)
        #expect(result.count == 973)
        #expect(result.all?.count == 973)
        #expect(result.all?.ranges.first == SequenceRange(45...46))
        #expect(result.all?.contains(19498) == true && result.all?.contains(19501) == false)
        #expect(result.descendingNumbers.first == 19977)
    }

    @Test func countOnlySearchAndSortAndSearch() throws {
        #expect(
            session.contains(
                .untagged(.extendedSearch(ExtendedSearchResponse(tag: "b2", isUID: true, count: 7871)))))
        let sort = session.compactMap { response -> [UInt32]? in
            if case .untagged(.sort(let numbers, nil)) = response { return numbers }
            return nil
        }.first
        #expect(sort?.first == 19981)
        #expect(sort?.count == 1010)
        let search = session.compactMap { response -> [UInt32]? in
            if case .untagged(.search(let numbers, nil)) = response { return numbers }
            return nil
        }.first
        #expect(search?.first == 10923)
        #expect(search?.last == 19949)
    }

    @Test func responseCodesOfStoreAndCharset() {
        #expect(tagged("c3")?.status == .ok)
        #expect(tagged("c3")?.text.code == .modified(SequenceSet(5)))
        #expect(tagged("b4")?.status == .no)
        #expect(tagged("b4")?.text.code == .badCharset([]))
        #expect(tagged("c5")?.status == .bad)
        #expect(tagged("c5")?.text.text.string.hasPrefix("Error in IMAP command BOGUS") == true)
    }

    @Test func idleTimeFetchAndExists() throws {
        let idleStart = try #require(
            session.firstIndex { response in
                if case .continuation(let request) = response { return request.text == "idling" }
                return false
            })
        #expect(
            session[idleStart + 1]
                == .untagged(
                    .fetch(
                        FetchResponse(
                            sequenceNumber: 10, attributes: [.modificationSequence(7), .flags([.flagged, .seen])]))))
        #expect(session[idleStart + 2] == .untagged(.exists(20001)))
        #expect(tagged("d3")?.status == .ok)
    }

    @Test func fetchWithPreviewBodyStructureAndModseq() throws {
        let fetches = session.compactMap { response -> FetchResponse? in
            if case .untagged(.fetch(let fetch)) = response { return fetch }
            return nil
        }
        let uid2 = try #require(fetches.first { $0.uid == 2 && $0.bodyStructure != nil })
        #expect(uid2.modificationSequence == 2 || uid2.modificationSequence == 1)
        guard case .multipart(let multipart) = uid2.bodyStructure else {
            Issue.record("UID 2 should be multipart")
            return
        }
        #expect(multipart.mediaSubtype == "alternative")
        #expect(multipart.parts.count == 2)
        #expect(multipart.extension?.parameters.first?.name == "boundary")
        #expect(uid2.preview?.string.hasPrefix("quarterly calendar invoice") == true)
        #expect(uid2.envelope?.subject == "Invoice #1364")
        #expect(uid2.envelope?.from.first?.emailAddress == "grace.jones@apple.com")
        #expect(uid2.internalDate?.description == "01-Dec-2023 00:22:30 +0000")
        #expect(uid2.size == 3761)
    }

    @Test func bodySectionsWithLiterals() throws {
        let fetches = session.compactMap { response -> FetchResponse? in
            if case .untagged(.fetch(let fetch)) = response { return fetch }
            return nil
        }
        let headerFetch = try #require(
            fetches.first { fetch in
                fetch.bodySection(
                    SectionSpecifier(kind: .headerFields(["FROM", "TO", "SUBJECT", "DATE", "MESSAGE-ID"])))
                    != nil
            })
        let header = try #require(
            headerFetch.bodySection(
                SectionSpecifier(kind: .headerFields(["FROM", "TO", "SUBJECT", "DATE", "MESSAGE-ID"]))))
        #expect(header.string.hasPrefix("From: "))
        #expect(header.string.hasSuffix("\r\n\r\n"))
        let text = try #require(
            headerFetch.attributes.compactMap { attribute -> (UInt32?, ByteString?)? in
                if case .bodySection(.text, let origin, let data) = attribute { return (origin, data) }
                return nil
            }.first)
        #expect(text.0 == 0)
        #expect(text.1?.count == 300)
        let binary = fetches.flatMap(\.attributes).compactMap { attribute -> ByteString? in
            if case .binary([1], 0, let data) = attribute { return data }
            return nil
        }.first
        #expect(binary == "quarterly calendar prototype coffee party calendar")
        let mime = fetches.flatMap(\.attributes).compactMap { attribute -> ByteString? in
            if case .bodySection(SectionSpecifier(part: [1], kind: .mime), nil, let data) = attribute { return data }
            return nil
        }.first
        #expect(mime?.string.hasPrefix("Content-Type: text/plain") == true)
    }

    @Test func envelopeOfUID3InTheTwentyThousand() throws {
        var parser = ResponseParser()
        parser.append(try Fixtures.dovecot("fetch-envelope-20k.server.txt"))
        var count = 0
        var uid3: FetchResponse?
        while let response = try parser.next() {
            if case .untagged(.fetch(let fetch)) = response {
                count += 1
                if fetch.uid == 3 { uid3 = fetch }
            }
        }
        #expect(count == 20000)
        let from = try #require(uid3?.envelope?.from.first)
        #expect(from.name == "=?utf-8?q?S=C3=B8ren?= Tanaka")
        #expect(from.emailAddress == "sren.tanaka@example.com")
        #expect(uid3?.flags == [.seen])
        #expect(uid3?.size == 2215)
    }
}
