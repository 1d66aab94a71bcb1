import IMAPClient
import IMAPCore

/// One mailbox of the account as `mailsearch mailboxes` lists it.
public struct MailboxSummary: Hashable, Sendable {
    /// The name as the server lists it.
    public var name: String
    /// The LIST attributes (`\Sent`, `\HasNoChildren`, ...).
    public var attributes: [String]
    /// The name to show people: modified UTF-7 decoded (`Entw&APw-rfe` is `Entwürfe`).
    public var displayName: String { MailboxName(wire: name).displayName }
    /// How many messages it holds; nil for a mailbox that cannot be selected.
    public var messageCount: Int?
    /// How many of them are unread; nil for a mailbox that cannot be selected.
    public var unreadCount: Int?
    /// Whether it can be selected (and searched): not `\Noselect` or `\NonExistent`.
    public var isSelectable: Bool {
        MailboxListItem(attributes: attributes, delimiter: nil, name: MailboxName(wire: name)).isSelectable
    }

    /// A summary.
    public init(name: String, attributes: [String], messageCount: Int?, unreadCount: Int?) {
        self.name = name
        self.attributes = attributes
        self.messageCount = messageCount
        self.unreadCount = unreadCount
    }
}

extension IMAPMailService {
    /// Every mailbox of the account, in the server's order, with message and unread counts
    /// unless `counting` is false (then one LIST, and no counts).
    ///
    /// ```
    /// C: A4 LIST "" "*"
    /// C: A5 STATUS INBOX (MESSAGES UNSEEN)          (one per selectable mailbox)
    /// ```
    public func mailboxes(counting: Bool = true) async throws(MailServiceError) -> [MailboxSummary] {
        do throws(IMAPError) {
            let session = try await connection.currentSession()
            var summaries: [MailboxSummary] = []
            for item in try await session.list() {
                guard item.isSelectable, counting else {
                    summaries.append(
                        MailboxSummary(
                            name: item.name.description, attributes: item.attributes, messageCount: nil,
                            unreadCount: nil))
                    continue
                }
                let status = try await session.status(item.name, [.messages, .unseen])
                summaries.append(
                    MailboxSummary(
                        name: item.name.description, attributes: item.attributes,
                        messageCount: status.messageCount.map(Int.init), unreadCount: status.unseenCount.map(Int.init)))
            }
            return summaries
        } catch {
            throw MailServiceError(error)
        }
    }
}
