import Testing

/// Every state of a machine by every event, written out: `expected[state]` lists, event by
/// event in `events`' order, what the machine in that state shows and asks for after it, as
/// `describe` writes it. A row or cell missing, or one too many, is a failure too.
struct MachineTable<Machine, Event> {
    var states: [(name: String, machine: Machine)]
    var events: [(name: String, event: Event)]
    /// Feeds `event` to `machine`; returns what it shows and asks for, in a line.
    var describe: (inout Machine, Event) -> String

    func check(_ expected: [String: [String]], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(expected.keys) == Set(states.map(\.name)), sourceLocation: sourceLocation)
        for (name, machine) in states {
            let actual = events.map { _, event in
                var copy = machine
                return describe(&copy, event)
            }
            let rows = expected[name] ?? []
            #expect(rows.count == events.count, "\(name): \(rows.count) cells", sourceLocation: sourceLocation)
            for (index, (event, line)) in zip(events.map(\.name), actual).enumerated() {
                let want = index < rows.count ? rows[index] : "(missing)"
                #expect(line == want, "\(name) + \(event)", sourceLocation: sourceLocation)
            }
        }
    }
}

extension MachineTable {
    /// The table as the machine answers it, as Swift source (for writing a new table).
    func dump() -> String {
        var text = ""
        for (name, machine) in states {
            text += "\"\(name)\": [\n"
            for (_, event) in events {
                var copy = machine
                text += "    #\"\(describe(&copy, event))\"#,\n"
            }
            text += "],\n"
        }
        return text
    }
}
