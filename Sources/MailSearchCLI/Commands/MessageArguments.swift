import IMAPCore
import MailSearch

/// The messages a command acts on, as search and list show them: UIDs of the open mailbox
/// (`12`, `12,15:20`), or of another mailbox, `MAILBOX:UIDS` (`Archive:32`, `Archive:32,40:45`).
///
/// The rule, for names with `:` in them: an argument of only digits, `,` and `:` is a UID set of
/// the open mailbox. Any other is `MAILBOX:UIDS`, split at a `:` after which only a UID set
/// follows; the name before it is the mailbox as `mailsearch mailboxes` (or the server) names
/// it, and may hold `:` itself. Where more than one split reads as a UID set (`Lists:2024:5` is
/// UIDs 2024:5 of Lists, or UID 5 of Lists:2024), the one naming a mailbox the account has is
/// taken; when both do, the argument is refused (open that mailbox with `--mailbox`).
struct MessageArguments: Hashable, Sendable {
    /// One argument and the ways it can be read.
    struct Argument: Hashable, Sendable {
        /// The argument as given.
        var text: String
        /// Each reading: UIDs of a mailbox.
        var readings: [Group]
    }

    /// UIDs of one mailbox.
    struct Group: Hashable, Sendable {
        /// The mailbox as the server names it; nil for the open mailbox.
        var mailbox: String?
        /// The UIDs.
        var uids: UIDSet
    }

    /// The arguments, in order.
    var arguments: [Argument]

    /// Parses `arguments`; with `single`, exactly one message (`42` or `Archive:42`). Throws a
    /// usage error naming the argument that is none of the forms.
    init(arguments texts: [String], single: Bool = false) throws(UsageError) {
        arguments = []
        for text in texts {
            var readings: [Group] = []
            if let uids = Self.uidSet(text, single: single) {
                readings.append(Group(mailbox: nil, uids: uids))
            } else {
                for colon in text.indices where text[colon] == ":" && colon != text.startIndex {
                    if let uids = Self.uidSet(String(text[text.index(after: colon)...]), single: single) {
                        readings.append(Group(mailbox: String(text[..<colon]), uids: uids))
                    }
                }
            }
            guard !readings.isEmpty else {
                throw single
                    ? UsageError(
                        "\"\(text)\" is not a UID", hint: "give the number search or list shows, like 42 or Archive:42")
                    : UsageError(
                        "\"\(text)\" is not a UID or UID set",
                        hint: "write UIDs as search and list show them, like 12, 12,15:20 or Archive:32")
            }
            arguments.append(Argument(text: text, readings: readings))
        }
    }

    /// Whether some argument names a mailbox (so the mailboxes must be listed to resolve them).
    var namesMailboxes: Bool { arguments.contains { $0.readings.contains { $0.mailbox != nil } } }

    /// The UIDs by mailbox, the open mailbox's first, then the others in the order given: each
    /// mailbox named is found in `mailboxes` (the server's names, or as `mailsearch mailboxes`
    /// shows them); one that is `open` (the open mailbox) counts as the open mailbox.
    func groups(mailboxes: [MailboxSummary], open: String) throws(CommandFailure) -> [Group] {
        var byMailbox: [String?: [ClosedRange<UInt32>]] = [:]
        var order: [String?] = [nil]
        for argument in arguments {
            let resolved = argument.readings.compactMap { reading -> Group? in
                guard let name = reading.mailbox else { return reading }
                guard let wire = Self.mailbox(named: name, in: mailboxes) else { return nil }
                return Group(mailbox: wire == open ? nil : wire, uids: reading.uids)
            }
            guard let chosen = resolved.first else {
                let name = argument.readings.compactMap(\.mailbox).first ?? argument.text
                throw CommandFailure(
                    "there is no mailbox named \"\(name)\" (in \"\(argument.text)\"); \"mailsearch mailboxes\" lists them",
                    exitCode: .usageError)
            }
            guard resolved.count == 1 else {
                let readings = resolved.map { "UIDs \($0.uids.text) of \($0.mailbox ?? open)" }
                throw CommandFailure(
                    "\"\(argument.text)\" could be \(readings.joined(separator: " or ")); open the mailbox with --mailbox and give its UIDs alone",
                    exitCode: .usageError)
            }
            if !order.contains(chosen.mailbox) { order.append(chosen.mailbox) }
            byMailbox[chosen.mailbox, default: []] += chosen.uids.ranges
        }
        return order.compactMap { mailbox in
            byMailbox[mailbox].map { Group(mailbox: mailbox, uids: UIDSet(ranges: $0)) }
        }
    }

    /// The server's name of the mailbox `name` names: its name on the server, or as shown
    /// (modified UTF-7 decoded); INBOX in any case.
    static func mailbox(named name: String, in mailboxes: [MailboxSummary]) -> String? {
        if name.uppercased() == "INBOX" { return "INBOX" }
        return mailboxes.first { $0.name == name }?.name ?? mailboxes.first { $0.displayName == name }?.name
    }

    private static func uidSet(_ text: String, single: Bool) -> UIDSet? {
        guard let uids = try? UIDSet(arguments: [text]) else { return nil }
        guard single else { return uids }
        return uids.ranges.count == 1 && uids.ranges[0].count == 1 ? uids : nil
    }

    /// How a message is named on the command line and in rows: its UID in the open mailbox
    /// `open`, `Archive:32` in another (the name as `mailsearch mailboxes` shows it).
    static func label(_ id: Email.ID, open: String) -> String {
        id.mailbox == open ? String(id.uid) : "\(MailboxName(wire: id.mailbox).displayName):\(id.uid)"
    }

    /// `ids` written compactly, as arguments: `3,5:7 Archive:32,40` (the open mailbox's first).
    static func labels(_ ids: [Email.ID], open: String) -> String {
        let byMailbox = Dictionary(grouping: ids, by: \.mailbox)
        let names = byMailbox.keys.sorted { ($0 == open ? 0 : 1, $0) < ($1 == open ? 0 : 1, $1) }
        return names.map { name in
            let uids = compactUIDs(byMailbox[name, default: []].map(\.uid))
            return name == open ? uids : "\(MailboxName(wire: name).displayName):\(uids)"
        }
        .joined(separator: " ")
    }
}

extension MessageArguments {
    /// The messages the arguments name that exist, and the single UIDs given that do not, by
    /// mailbox: one UID SEARCH per mailbox (the open one on its connection, another on the
    /// second), after one LIST when an argument names a mailbox.
    func find(in open: OpenAccount) async throws(CommandFailure) -> (found: [Email.ID], missing: [Group]) {
        var found: [Email.ID] = []
        var missing: [Group] = []
        let mailboxes: [MailboxSummary]
        do throws(MailServiceError) {
            mailboxes = namesMailboxes ? try await open.service.mailboxes(counting: false) : []
        } catch {
            throw Failures.working(error)
        }
        let groups = try groups(mailboxes: mailboxes, open: open.mailbox.name)
        do throws(MailServiceError) {
            for group in groups {
                var query = Query.term(.uid(SequenceSet(group.uids.ranges.map(SequenceRange.init))))
                if let mailbox = group.mailbox { query = .and([.term(.mailbox(.mailbox(mailbox))), query]) }
                let ids = try await open.service.search(query, pageSize: 1).list.ids
                found += ids
                let existing = Set(ids.map(\.uid))
                let absent = group.uids.singles.filter { !existing.contains($0) }
                if !absent.isEmpty {
                    missing.append(Group(mailbox: group.mailbox, uids: UIDSet(ranges: absent.map { $0...$0 })))
                }
            }
        } catch {
            throw Failures.working(error)
        }
        return (found, missing)
    }

    /// `UID 12 in INBOX` for the missing UIDs of each group (`, ` between mailboxes).
    static func describe(_ missing: [Group], open: String) -> String {
        missing.map { group in
            let name = MailboxName(wire: group.mailbox ?? open).displayName
            return "UID \(compactUIDs(group.uids.singles)) in \(name)"
        }
        .joined(separator: ", ")
    }
}
