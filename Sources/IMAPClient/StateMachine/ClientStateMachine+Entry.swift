import IMAPCore

extension ClientStateMachine {
    /// A command's life in the pipeline: queued, its chunks written, its answer collected.
    struct Entry: Sendable {
        let id: CommandID
        let request: CommandRequest
        var tag = ""
        var remaining: [EncodedChunk] = []
        var collected: [UntaggedResponse] = []
        /// The tracker's membership count when the first search answer arrived (`mapsAllUIDs`).
        var membershipAtAnswer: Int?
        /// The UIDs the mailbox lost while this command ran (EXPUNGE, UID EXPUNGE, MOVE), as far
        /// as the sequence-to-UID map knew them, and how many it did not know.
        var expunged: [UInt32] = []
        var unidentifiedExpunges = 0
        var abandoned = false
        var sentAt: Moment?
        /// SELECT or EXAMINE. Stored, not derived from `request` when asked: the state machine
        /// asks of every command in flight for every response, and each derivation copied the
        /// entry (its command, its claim and what it collected).
        let isSelect: Bool
        /// Whether the command removes messages from the selected mailbox, so that the EXPUNGE
        /// and VANISHED responses read while it runs are its outcome (it runs alone: RFC 3501
        /// 5.5 keeps other commands out of flight with it). Stored, as `isSelect` is.
        let removesMessages: Bool

        init(id: CommandID, request: CommandRequest) {
            self.id = id
            self.request = request
            isSelect =
                switch request.command {
                case .select, .examine: true
                default: false
                }
            removesMessages =
                switch request.command {
                case .expunge, .uidExpunge, .move, .uidMove: true
                default: false
                }
        }
        var isExclusive: Bool { ResponseClass.isExclusive(request.command) }
        /// Whether this command, in flight, holds back `next`.
        ///
        /// ID (RFC 2971): its answer changes no state and is claimed by no one else, so a command
        /// that must go alone (ENABLE, SELECT) need not wait for it. ENABLE (RFC 5161) does not
        /// hold back a SELECT or EXAMINE whose bytes cannot depend on its answer: an ASCII name
        /// (UTF8=ACCEPT changes how a name is written) and no QRESYNC parameter (allowed only once
        /// ENABLED QRESYNC came back, RFC 7162 errata 1365). The server answers ENABLE before
        /// it reads the SELECT, so the mailbox's responses are read with the extensions on. A
        /// login sends ID and ENABLE in one flight, and opening the mailbox follows in the same
        /// one: a round trip less each.
        func holdsBack(_ next: Entry) -> Bool {
            switch request.command {
            case .id: return false
            case .enable: return !next.opensMailboxIndependentlyOfEnable
            default: return true
            }
        }

        private var opensMailboxIndependentlyOfEnable: Bool {
            let (name, parameters): (MailboxName, [SelectParameter])
            switch request.command {
            case .select(let mailbox, let selectParameters), .examine(let mailbox, let selectParameters):
                (name, parameters) = (mailbox, selectParameters)
            default: return false
            }
            let qresync = parameters.contains { parameter in
                if case .other(let parameterName, _) = parameter { return parameterName.uppercased() == "QRESYNC" }
                return false
            }
            return !qresync && name.bytes.isASCII
        }
        var responseClass: ResponseClass? { ResponseClass(request.command) }
    }
}
