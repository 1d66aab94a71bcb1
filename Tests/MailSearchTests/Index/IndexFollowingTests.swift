import Testing

@testable import MailSearch

/// Following an index, every state by every event: changes told during a catch-up cost one more
/// catch-up, not one each; a failure is tried again only for a change told after it began;
/// nothing runs once stopped.
@Suite struct IndexFollowingTests {
    @Test func everyStateByEveryEvent() {
        let table = MachineTable<IndexFollowing, IndexFollowing.Event>(
            states: IndexFollowing.allCases.map { ("\($0)", $0) },
            events: IndexFollowing.Event.allCases.map { ("\($0)", $0) },
            describe: { machine, event in
                let action = machine.event(event)
                return "\(machine) \(action)"
            })
        table.check([
            "idle": ["catchingUp catchUp", "idle none", "idle none", "stopped end"],
            "catchingUp": ["catchingUpAgain none", "idle none", "idle none", "stopped end"],
            "catchingUpAgain": ["catchingUpAgain none", "catchingUp catchUp", "catchingUp catchUp", "stopped end"],
            "stopped": ["stopped none", "stopped none", "stopped none", "stopped none"],
        ])
    }

    @Test func aBurstOfChangesCostsTwoCatchUps() {
        var machine = IndexFollowing.idle
        var catchUps = 0
        func run(_ event: IndexFollowing.Event) {
            if machine.event(event) == .catchUp { catchUps += 1 }
        }
        run(.changed)
        for _ in 0..<10 { run(.changed) }
        run(.caughtUp)
        run(.caughtUp)
        #expect(catchUps == 2)
        #expect(machine == .idle)
    }
}
