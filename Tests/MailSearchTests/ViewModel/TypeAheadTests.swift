import Foundation
import IMAPCore
import Testing

@testable import MailSearch

/// Type-ahead, every state by every event: a question per change of the text, answers to text
/// typed over dropped, nothing asked for text that does not parse or is empty.
@Suite struct TypeAheadTests {
    static let first = ScreenFixture.email(1)
    static let second = ScreenFixture.email(2)

    static func describe(_ machine: TypeAhead) -> String {
        let state: String
        switch machine.state {
        case .off: state = "off"
        case .asking(let query): state = "asking \(query)"
        case .shown(let query): state = "shown \(query)"
        }
        return "\(state) #\(machine.generation) rows \(machine.results.map(\.uid)) for \(machine.answeredQuery ?? "-")"
    }

    static func describe(_ action: TypeAhead.Action) -> String {
        switch action {
        case .ask(let generation, let query, let limit): return "ask #\(generation) \(query) \(limit)"
        case .cancel: return "cancel"
        }
    }

    static func machine(_ events: TypeAhead.Event...) -> TypeAhead {
        var machine = TypeAhead(limit: 2)
        for event in events { _ = machine.event(event) }
        return machine
    }

    static var table: MachineTable<TypeAhead, TypeAhead.Event> {
        MachineTable(
            states: [
                ("off", machine()),
                ("asking albus", machine(.typed("albus"))),
                ("shown albus", machine(.typed("albus"), .answered(generation: 1, [first, second]))),
                (
                    "shown albus, asking potter",
                    machine(.typed("albus"), .answered(generation: 1, [first, second]), .typed("potter"))
                ),
            ],
            events: [
                ("typed albus", .typed(" albus ")), ("typed potter", .typed("potter")), ("typed empty", .typed("  ")),
                ("typed open quote", .typed("from:\"alb")),
                ("answered #1", .answered(generation: 1, [second, first, second])),
                ("answered #2", .answered(generation: 2, [second])), ("answered #2 nil", .answered(generation: 2, nil)),
                ("clear", .clear),
            ],
            describe: { machine, event in
                let actions = machine.event(event)
                return "\(Self.describe(machine)): \(actions.map(Self.describe).joined(separator: ", "))"
            })
    }

    @Test func everyStateByEveryEvent() {
        Self.table.check([
            "off": [
                #"asking albus #1 rows [] for -: ask #1 term(MailSearch.QueryTerm.text("albus")) 2"#,
                #"asking potter #1 rows [] for -: ask #1 term(MailSearch.QueryTerm.text("potter")) 2"#,
                #"off #1 rows [] for -: "#,
                #"off #0 rows [] for -: "#,
                #"off #0 rows [] for -: "#,
                #"off #0 rows [] for -: "#,
                #"off #0 rows [] for -: "#,
                #"off #1 rows [] for -: "#,
            ],
            "asking albus": [
                #"asking albus #1 rows [] for -: "#,
                #"asking potter #2 rows [] for -: cancel, ask #2 term(MailSearch.QueryTerm.text("potter")) 2"#,
                #"off #2 rows [] for -: cancel"#,
                #"asking albus #1 rows [] for -: "#,
                #"shown albus #1 rows [2, 1] for albus: "#,
                #"asking albus #1 rows [] for -: "#,
                #"asking albus #1 rows [] for -: "#,
                #"off #2 rows [] for -: cancel"#,
            ],
            "shown albus": [
                #"shown albus #1 rows [1, 2] for albus: "#,
                #"asking potter #2 rows [1, 2] for albus: ask #2 term(MailSearch.QueryTerm.text("potter")) 2"#,
                #"off #2 rows [] for -: "#,
                #"shown albus #1 rows [1, 2] for albus: "#,
                #"shown albus #1 rows [1, 2] for albus: "#,
                #"shown albus #1 rows [1, 2] for albus: "#,
                #"shown albus #1 rows [1, 2] for albus: "#,
                #"off #2 rows [] for -: "#,
            ],
            "shown albus, asking potter": [
                #"shown albus #3 rows [1, 2] for albus: cancel"#,
                #"asking potter #2 rows [1, 2] for albus: "#,
                #"off #3 rows [] for -: cancel"#,
                #"asking potter #2 rows [1, 2] for albus: "#,
                #"asking potter #2 rows [1, 2] for albus: "#,
                #"shown potter #2 rows [2] for potter: "#,
                #"off #2 rows [] for -: "#,
                #"off #3 rows [] for -: cancel"#,
            ],
        ])
    }
}
