public import MailMIME

extension MailStore {
    /// What a mail list shows of a stored message (subject, people, date, preview, attachment,
    /// size, flags), decoded from the message by MailMIME (``MailSummary/init(message:flags:)``):
    /// what a client's decoded summary of the same message should equal. Nil when there is no
    /// such message.
    public func summary(user: String, mailbox: String, uid: UInt32) -> MailSummary? {
        guard let stored = message(user: user, mailbox: mailbox, uid: uid) else { return nil }
        return MailSummary(message: stored.message.mime, flags: stored.flags.map(\.rawValue))
    }
}
