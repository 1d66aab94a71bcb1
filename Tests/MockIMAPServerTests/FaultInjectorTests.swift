import MockIMAPServer
import TestSupport
import Testing

/// The fault state machine without sockets: which command fires which fault, how faults
/// combine, how a faulted response is cut into writes, seeded random faults, and the
/// `--fault` syntax.
@Suite(.hangGuard) struct FaultInjectorTests {
    /// Reports `commands` (name, session, user) in order; the faults of each.
    private func run(_ injector: inout FaultInjector, _ commands: [(String, Int, String?)]) -> [FaultEffects] {
        commands.enumerated().map { index, command in
            injector.commandReceived(name: command.0, tag: "t\(index)", user: command.2, session: command.1)
        }
    }

    @Test func occurrenceCountsMatchingCommandsAcrossSessions() {
        let no = Fault.respond(.no, code: "UNAVAILABLE", text: "try later")
        var injector = FaultInjector(plan: [FaultRule(trigger: .command("uid  store", occurrence: 2), fault: no)])
        let effects = run(
            &injector,
            [
                ("UID STORE", 1, "alice"), ("FETCH", 2, "bob"), ("STORE", 2, "bob"), ("UID STORE", 2, "bob"),
                ("UID STORE", 1, "alice"),
            ])
        #expect(effects.map(\.isEmpty) == [true, true, true, false, true])
        #expect(effects[3].replacement == .respond(.no, code: "UNAVAILABLE", text: "try later"))
        #expect(effects[3].replacementResponse(tag: "a7") == Array("a7 NO [UNAVAILABLE] try later\r\n".utf8))
        #expect(injector.fired == [FiredFault(ordinal: 4, session: 2, command: "UID STORE", tag: "t3", fault: no)])
    }

    @Test func perSessionCountingFiresOnceInEachSession() {
        var injector = FaultInjector(plan: [
            FaultRule(trigger: .command("NOOP", occurrence: 2, counting: .perSession), fault: .stall)
        ])
        let effects = run(&injector, [("NOOP", 1, nil), ("NOOP", 2, nil), ("NOOP", 2, nil), ("NOOP", 1, nil)])
        #expect(effects.map { $0.replacement == .stall } == [false, false, true, true])
    }

    @Test func userAndSessionFiltersAndEveryOccurrence() {
        var injector = FaultInjector(plan: [
            FaultRule(trigger: .command("SELECT", user: "bob"), fault: .fragment),
            FaultRule(trigger: FaultTrigger(session: 3), fault: .delay(.milliseconds(5))),
        ])
        let effects = run(
            &injector, [("SELECT", 1, "alice"), ("SELECT", 2, "bob"), ("SELECT", 2, "bob"), ("LIST", 3, "alice")])
        #expect(effects.map(\.fragments) == [false, true, true, false])
        #expect(effects.map(\.delay) == [nil, nil, nil, .milliseconds(5)])
    }

    @Test func rulesAddedCountFromThenAndRemovalStopsThem() {
        var injector = FaultInjector()
        _ = run(&injector, [("NOOP", 1, nil)])
        let id = injector.add(FaultRule(trigger: .command("NOOP", occurrence: 1), fault: .fragment))
        #expect(run(&injector, [("NOOP", 1, nil), ("NOOP", 1, nil)]).map(\.fragments) == [true, false])
        let removed = injector.remove(id)
        let removedAgain = injector.remove(id)
        #expect(removed && !removedAgain)
        injector.add(FaultRule(trigger: .everyCommand, fault: .stall))
        injector.removeAll()
        #expect(run(&injector, [("NOOP", 1, nil)]).map(\.isEmpty) == [true])
        #expect(injector.rules.isEmpty && injector.commandCount == 4)
    }

    @Test func faultsOnOneCommandCombine() {
        let effects = FaultEffects([
            .delay(.milliseconds(10)), .closeAfter(bytes: 50), .delay(.milliseconds(30)), .closeAfter(bytes: 20),
            .respond(.bad, text: "first"), .stall, .inject([.exists(3)]), .inject([.expunge(1)]),
        ])
        #expect(effects.delay == .milliseconds(30))
        #expect(effects.closeAfterBytes == 20)
        #expect(effects.replacement == .respond(.bad, code: nil, text: "first"))
        #expect(effects.injectedBytes == Array("* 3 EXISTS\r\n* 1 EXPUNGE\r\n".utf8))
        #expect(effects.closesConnection)
        #expect(!FaultEffects([.fragment]).closesConnection)
        #expect(FaultEffects([.respond(.bye, code: "UNAVAILABLE", text: "bye")]).closesConnection)
        #expect(
            FaultEffects([.respond(.bye, code: "UNAVAILABLE", text: "bye")]).replacementResponse(tag: "x")
                == Array("* BYE [UNAVAILABLE] bye\r\n".utf8))
    }

    @Test func unsolicitedResponsesAreUntaggedLines() {
        #expect(UnsolicitedResponse.exists(4).line == "* 4 EXISTS")
        #expect(UnsolicitedResponse.expunge(2).line == "* 2 EXPUNGE")
        #expect(UnsolicitedResponse.fetchFlags(1, ["\\Seen", "$Pinned"]).line == "* 1 FETCH (FLAGS (\\Seen $Pinned))")
        #expect(UnsolicitedResponse.bye("going").line == "* BYE going")
    }

    static let response = Array("* 1 FETCH (BODY[] {10}\r\n0123456789)\r\na OK done\r\n".utf8)

    @Test func writesCutTheResponseAsTheFaultsSay() {
        let whole = FaultEffects([.delay(.milliseconds(1))]).writes(of: Self.response)
        #expect(whole.writes == [Self.response] && !whole.thenClose)
        let fragmented = FaultEffects([.fragment]).writes(of: Self.response)
        #expect(fragmented.writes == Self.response.map { [$0] } && !fragmented.thenClose)
        let cut = FaultEffects([.closeAfter(bytes: 7), .fragment]).writes(of: Self.response)
        #expect(cut.writes == Self.response.prefix(7).map { [$0] } && cut.thenClose)
        let beyond = FaultEffects([.closeAfter(bytes: 1000)]).writes(of: Self.response)
        #expect(beyond.writes == [Self.response] && beyond.thenClose)
        let literal = FaultEffects([.closeInLiteral]).writes(of: Self.response)
        #expect(literal.writes == [Array("* 1 FETCH (BODY[] {10}\r\n01234".utf8)] && literal.thenClose)
        #expect(FaultEffects.middleOfFirstLiteral(in: Array("a OK {x}\r\n".utf8)) == nil)
        #expect(FaultEffects.middleOfFirstLiteral(in: Array("* 1 FETCH (A {0}\r\n)\r\n".utf8)) == 18)
    }

    @Test func randomFaultsDependOnlyOnSeedAndOrdinal() {
        let kinds: [Fault] = [.respond(.no, text: "random"), .fragment, .closeAfter(bytes: 3)]
        let random = RandomFaults(seed: 42, probability: 0.3, kinds: kinds)
        let first = (1...1000).map { random.fault(forCommand: $0) }
        #expect(
            first == (1...1000).map { RandomFaults(seed: 42, probability: 0.3, kinds: kinds).fault(forCommand: $0) })
        #expect(
            first != (1...1000).map { RandomFaults(seed: 43, probability: 0.3, kinds: kinds).fault(forCommand: $0) })
        let count = first.compactMap { $0 }.count
        #expect((200...400).contains(count), "\(count) faults in 1000 at p = 0.3")
        for kind in kinds { #expect(first.contains(kind)) }
        #expect(
            (1...100).allSatisfy { RandomFaults(seed: 1, probability: 0, kinds: kinds).fault(forCommand: $0) == nil })
        #expect(
            (1...100).allSatisfy { RandomFaults(seed: 1, probability: 1, kinds: kinds).fault(forCommand: $0) != nil })

        var injector = FaultInjector(plan: .random(seed: 42, probability: 0.3, kinds: kinds))
        let effects = run(&injector, (1...50).map { ("NOOP", $0 % 3, nil) })
        let expected = (1...50).filter { first[$0 - 1] != nil }
        #expect(injector.fired.map(\.ordinal) == expected)
        #expect(effects.indices.filter { !effects[$0].isEmpty }.map { $0 + 1 } == expected)
    }

    struct SyntaxCase: Sendable, CustomTestStringConvertible {
        let spec: String
        let rule: FaultRule
        var testDescription: String { spec }
    }

    static let syntaxCases: [SyntaxCase] = [
        SyntaxCase(
            spec: "UID STORE#2=NO [UNAVAILABLE] try later",
            rule: FaultRule(
                trigger: .command("UID STORE", occurrence: 2),
                fault: .respond(.no, code: "UNAVAILABLE", text: "try later"))),
        SyntaxCase(
            spec: "fetch@bob=BAD [LIMIT] too many",
            rule: FaultRule(
                trigger: .command("FETCH", user: "bob"), fault: .respond(.bad, code: "LIMIT", text: "too many"))),
        SyntaxCase(
            spec: "LOGIN#1=BYE",
            rule: FaultRule(trigger: .command("LOGIN", occurrence: 1), fault: .respond(.bye, text: "fault injected"))),
        SyntaxCase(spec: "delay=200ms", rule: FaultRule(trigger: .everyCommand, fault: .delay(.milliseconds(200)))),
        SyntaxCase(
            spec: "*#3=delay:2s", rule: FaultRule(trigger: FaultTrigger(occurrence: 3), fault: .delay(.seconds(2)))),
        SyntaxCase(
            spec: "FETCH=delay:150", rule: FaultRule(trigger: .command("FETCH"), fault: .delay(.milliseconds(150)))),
        SyntaxCase(spec: "SEARCH=stall", rule: FaultRule(trigger: .command("SEARCH"), fault: .stall)),
        SyntaxCase(
            spec: "FETCH#1=close-after:100",
            rule: FaultRule(trigger: .command("FETCH", occurrence: 1), fault: .closeAfter(bytes: 100))),
        SyntaxCase(
            spec: "UID FETCH=close-in-literal", rule: FaultRule(trigger: .command("UID FETCH"), fault: .closeInLiteral)),
        SyntaxCase(spec: "fragment", rule: FaultRule(trigger: .everyCommand, fault: .fragment)),
        SyntaxCase(
            spec: "NOOP#1=inject:* 3 EXPUNGE|* 5 EXISTS",
            rule: FaultRule(
                trigger: .command("NOOP", occurrence: 1), fault: .inject([.line("* 3 EXPUNGE"), .line("* 5 EXISTS")]))),
        SyntaxCase(spec: "uidvalidity-change", rule: FaultRule(trigger: .command("LOGOUT"), fault: .changeUIDValidity)),
        SyntaxCase(
            spec: "SELECT#2=uidvalidity-change",
            rule: FaultRule(trigger: .command("SELECT", occurrence: 2), fault: .changeUIDValidity)),
        SyntaxCase(spec: "NO a=b", rule: FaultRule(trigger: .everyCommand, fault: .respond(.no, text: "a=b"))),
    ]

    @Test(arguments: syntaxCases) func parsesTheFaultSyntax(_ fixture: SyntaxCase) throws {
        #expect(try FaultRule(parsing: fixture.spec) == fixture.rule)
    }

    @Test(arguments: [
        ("", "it is empty"), ("FETCH#0=stall", "#N takes an occurrence from 1"),
        ("FETCH#x=stall", "#N takes an occurrence from 1"), ("FETCH=explode", "\"explode\" is not a fault"),
        ("delay=soon", "a delay is a number"), ("FETCH=close-after:-1", "close-after takes a number of bytes"),
        ("NOOP=inject:3 EXISTS", "inject takes untagged lines"), ("NOOP@=stall", "@ needs a user name"),
        ("NOOP=NO [UNAVAILABLE", "[CODE has no ]"),
    ])
    func refusesMalformedFaults(_ spec: String, _ reason: String) {
        #expect {
            try FaultRule(parsing: spec)
        } throws: { error in
            guard let error = error as? MockServerError else { return false }
            return error.code == .invalidFault && error.message.contains(reason)
        }
    }
}
