import CSQLite
import FoundationEssentials
public import IMAPCore

/// What lists show, kept in the index: the one local store of messages (it superseded the summary
/// cache, a second file that `index drop` did not remove).
///
/// A message a list showed is shown again with only its flags fetched: from its indexed row when
/// its mailbox is indexed, else from `listed`, where a list's messages of a mailbox never synced
/// (or not yet reached by its first sync) are kept under their UIDVALIDITY. `listed` rows are
/// never search answers (only `message` rows are), at most ``maximumListed`` of them are kept (the
/// older half goes past it), and `index drop` removes them with the rest.
extension MessageIndex {
    /// The most messages kept for lists beside the indexed ones.
    public static let maximumListed = 200_000

    /// The table of listed messages; made when missing, so an index made before it keeps its
    /// indexed mailboxes.
    static let listingSchema = """
        CREATE TABLE IF NOT EXISTS listed(mailbox TEXT NOT NULL, uidvalidity INTEGER NOT NULL, uid INTEGER NOT NULL,
            stored INTEGER NOT NULL, summary BLOB NOT NULL, PRIMARY KEY (mailbox, uid)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS listed_stored ON listed(stored);
        """

    /// What lists show of the messages among `uids` of `mailbox` under `uidValidity` that the
    /// index holds (indexed, or kept by ``keepListed(_:in:uidValidity:)``), by UID.
    public func summaries(
        _ uids: [UInt32], in mailbox: String, uidValidity: UInt32
    ) async throws(StoreError) -> [UInt32: CachedMessage] {
        guard !uids.isEmpty else { return [:] }
        return try await withConnection { (connection) throws(StoreError) -> [UInt32: CachedMessage] in
            let inflater = Inflater()
            var found: [UInt32: CachedMessage] = [:]
            found.reserveCapacity(uids.count)
            let find = try connection.prepare("SELECT id, uidvalidity FROM mailbox WHERE name = ?1")
            try find.bind(1, mailbox)
            if try find.step(), UInt32(truncatingIfNeeded: find.int64(1)) == uidValidity {
                let id = find.int64(0)
                let read = try connection.prepare("SELECT summary FROM message_content WHERE rowid = ?1")
                for uid in uids {
                    try read.bind(1, id << 32 | Int64(uid))
                    defer { read.reset() }
                    guard try read.step() else { continue }
                    found[uid] = try Self.summary(read.blob(0), uid: uid, inflater, connection)
                }
            }
            let missing = uids.filter { found[$0] == nil }
            guard let lowest = missing.min(), let highest = missing.max() else { return found }
            // Many UIDs close together (a long listing) are read in one range scan; a few spread
            // out (a search's page) one by one.
            if Int(highest - lowest) < missing.count * 8 {
                let wanted = Set(missing)
                let scan = try connection.prepare(
                    "SELECT uid, summary FROM listed WHERE mailbox = ?1 AND uidvalidity = ?2 AND uid BETWEEN ?3 AND ?4")
                try scan.bind(1, mailbox)
                try scan.bind(2, Int64(uidValidity))
                try scan.bind(3, Int64(lowest))
                try scan.bind(4, Int64(highest))
                while try scan.step() {
                    let uid = UInt32(truncatingIfNeeded: scan.int64(0))
                    guard wanted.contains(uid) else { continue }
                    found[uid] = try Self.summary(scan.blob(1), uid: uid, inflater, connection)
                }
            } else {
                let read = try connection.prepare(
                    "SELECT summary FROM listed WHERE mailbox = ?1 AND uidvalidity = ?2 AND uid = ?3")
                for uid in missing {
                    // (A reset clears every binding.)
                    try read.bind(1, mailbox)
                    try read.bind(2, Int64(uidValidity))
                    try read.bind(3, Int64(uid))
                    defer { read.reset() }
                    if try read.step() { found[uid] = try Self.summary(read.blob(0), uid: uid, inflater, connection) }
                }
            }
            return found
        }
    }

    /// Keeps what a list showed of `messages` of `mailbox` under `uidValidity` (replacing what
    /// was kept for their UIDs; those of another UIDVALIDITY go, their UIDs now name other
    /// messages). Messages the index holds already are not kept twice. Past `limit` listed
    /// messages, the older half goes.
    public func keepListed(
        _ messages: [CachedMessage], in mailbox: String, uidValidity: UInt32, keepingAtMost limit: Int = maximumListed
    ) async throws(StoreError) {
        guard !messages.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970)
        try await withConnection { (connection) throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                let stale = try connection.prepare("DELETE FROM listed WHERE mailbox = ?1 AND uidvalidity <> ?2")
                try stale.bind(1, mailbox)
                try stale.bind(2, Int64(uidValidity))
                try stale.run()
                var indexedID: Int64?
                let find = try connection.prepare("SELECT id, uidvalidity FROM mailbox WHERE name = ?1")
                try find.bind(1, mailbox)
                if try find.step(), UInt32(truncatingIfNeeded: find.int64(1)) == uidValidity {
                    indexedID = find.int64(0)
                }
                let indexed = try connection.prepare("SELECT 1 FROM message WHERE rowid = ?1")
                let insert = try connection.prepare(
                    "INSERT OR REPLACE INTO listed(mailbox, uidvalidity, uid, stored, summary) VALUES (?1, ?2, ?3, ?4, ?5)"
                )
                for message in messages {
                    if let id = indexedID {
                        try indexed.bind(1, id << 32 | Int64(message.uid))
                        defer { indexed.reset() }
                        if try indexed.step() { continue }
                    }
                    // (A run resets the statement, which clears every binding.)
                    try insert.bind(1, mailbox)
                    try insert.bind(2, Int64(uidValidity))
                    try insert.bind(3, Int64(message.uid))
                    try insert.bind(4, now)
                    try insert.bind(5, Deflate.packed(message.encoded()))
                    try insert.run()
                }
                try Self.trimListed(connection, to: limit)
            }
        }
    }

    /// The messages `uids` of `name` as a listing shows them, in the order of `uids` (a UID not
    /// indexed is left out).
    public func emails(_ uids: [UInt32], in name: String, pinFlag: Flag) async throws(StoreError) -> [Email] {
        try await withConnection { (connection) throws(StoreError) -> [Email] in
            let find = try connection.prepare("SELECT id, uidvalidity FROM mailbox WHERE name = ?1")
            try find.bind(1, name)
            guard try find.step() else { return [] }
            let (id, uidValidity) = (find.int64(0), UInt32(truncatingIfNeeded: find.int64(1)))
            let read = try connection.prepare(
                "SELECT message.flags, message_content.summary FROM message JOIN message_content USING (rowid) WHERE rowid = ?1"
            )
            let inflater = Inflater()
            var emails: [Email] = []
            for uid in uids {
                try read.bind(1, id << 32 | Int64(uid))
                defer { read.reset() }
                guard try read.step() else { continue }
                let summary = try Self.summary(read.blob(1), uid: uid, inflater, connection)
                emails.append(
                    summary.email(
                        mailbox: name, uidValidity: uidValidity, flags: Self.flags(read.text(0)), pinFlag: pinFlag))
            }
            return emails
        }
    }

    /// How many messages are kept for lists (beside the indexed ones).
    public func listedCount() async throws(StoreError) -> Int {
        try await withConnection { (connection) throws(StoreError) in
            Int(try connection.integer("SELECT count(*) FROM listed") ?? 0)
        }
    }

    /// Drops the older half of the listed messages when there are more than `limit`.
    static func trimListed(_ connection: SQLiteConnection, to limit: Int) throws(StoreError) {
        let count = Int(try connection.integer("SELECT count(*) FROM listed") ?? 0)
        guard count > limit else { return }
        try connection.execute(
            "DELETE FROM listed WHERE (mailbox, uid) IN (SELECT mailbox, uid FROM listed ORDER BY stored, uid LIMIT \(count / 2))"
        )
    }

    /// Removes the listed messages of `mailbox`, or of every mailbox (``drop(mailbox:)``).
    static func dropListed(_ mailbox: String?, in connection: SQLiteConnection) throws(StoreError) {
        guard let mailbox else {
            try connection.execute("DELETE FROM listed")
            return
        }
        let delete = try connection.prepare("DELETE FROM listed WHERE mailbox = ?1")
        try delete.bind(1, mailbox)
        try delete.run()
    }

    private static func summary(
        _ stored: [UInt8], uid: UInt32, _ inflater: Inflater, _ connection: SQLiteConnection
    ) throws(StoreError) -> CachedMessage {
        guard let bytes = inflater.unpacked(stored), let summary = CachedMessage(uid: uid, decoding: bytes) else {
            throw StoreError(message: "the index \(connection.path) holds a damaged message; drop it")
        }
        return summary
    }
}
