import Foundation
import TestSupport
import Testing

/// The README's first command, and `--demo list`: the bundled demo server started by the built
/// binary, over TLS, showing the demo mailbox (MockServer's `DemoMailbox`).
@Suite(.hangGuard, .timeLimit(.minutes(3)))
final class DemoTests {
    /// A directory of the test's own for the tool's state and config, removed when the test ends.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-demo-\(UUID())")

    deinit { try? FileManager.default.removeItem(at: directory) }

    func environment() throws -> [String: String] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return ToolEnvironment.make(directory)
    }

    /// The subject column of a row (`  ● 278  20:25       Albus Dumbledore        About ...`):
    /// after the 22-column sender, up to the two spaces before the preview.
    func subject(ofRow row: String) -> String? {
        guard let sender = row.range(of: "Albus Dumbledore") else { return nil }
        let rest = row[sender.upperBound...].drop { $0 == " " }
        return rest.components(separatedBy: "  ").first
    }

    @Test func searchFromDumbledorePrintsHisTwoLetters() async throws {
        let environment = try environment()
        let rows = try await ToolProcess.run(["--demo", "search", "from:dumbledore"], environment: environment)
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.standardError.isEmpty, "\(rows)")
        #expect(rows.lines.compactMap(subject(ofRow:)) == ["About Nicolas Flamel", "Thing about pain"], "\(rows)")
        #expect(rows.lines.count == 2, "\(rows)")
        #expect(rows.lines[0].contains("To the well-organized mind, death is but the next great adventure."))

        let json = try await ToolProcess.run(
            ["--demo", "search", "--json", "from:dumbledore"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let objects = try json.lines.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["subject"] as? String } == ["About Nicolas Flamel", "Thing about pain"])
        for object in objects {
            let from = try #require(object["from"] as? [String: Any])
            #expect(from["name"] as? String == "Albus Dumbledore")
            #expect(from["address"] as? String == "albus.dumbledore@hogwarts.example")
            #expect(object["read"] as? Bool == false)
        }
    }

    @Test func listPrintsTheDemoMailboxPinnedFirst() async throws {
        let environment = try environment()
        let rows = try await ToolProcess.run(["--demo", "list"], environment: environment)
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.lines.count == 50, "\(rows)")
        for subject in [
            "About Nicolas Flamel", "Battle of Hogwarts", "Wrong vs Right", "Crumple-Horned Snorkack",
            "Thing about pain", "Happy Birthday!", "Can you review the attached document?", "Let's catch up soon.",
        ] {
            #expect(rows.lines.contains { $0.contains("  \(subject)  ") }, "\(subject) missing:\n\(rows)")
        }

        let json = try await ToolProcess.run(["--demo", "list", "--json", "--limit", "1000"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let objects = try json.lines.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count > 50)
        let subjects = objects.compactMap { $0["subject"] as? String }
        for subject in [
            "About Nicolas Flamel", "Thing about pain", "Amazon quarterly update.", "Google security alert.",
        ] {
            #expect(subjects.contains(subject), "\(subject) missing")
        }
        // Pinned ones first, each part newest first; every message once.
        let pinned = objects.map { $0["pinned"] as? Bool == true }
        #expect(pinned.contains(true) && pinned.contains(false))
        #expect(pinned == pinned.sorted { $0 && !$1 }, "pinned messages are not all first")
        let uids = objects.compactMap { $0["uid"] as? Int }
        #expect(Set(uids).count == objects.count)
        let pinnedUIDs = zip(uids, pinned).filter(\.1).map(\.0)
        let otherUIDs = zip(uids, pinned).filter { !$0.1 }.map(\.0)
        #expect(pinnedUIDs == pinnedUIDs.sorted(by: >))
        #expect(otherUIDs == otherUIDs.sorted(by: >))
    }
}
