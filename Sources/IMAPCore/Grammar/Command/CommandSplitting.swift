extension Command {
    /// The message set of a FETCH, STORE, COPY, MOVE or UID EXPUNGE (with or without UID), else nil.
    public var messageSet: SequenceSet? {
        switch self {
        case .fetch(let set, _, _), .uidFetch(let set, _, _): return set
        case .store(let set, _, _), .uidStore(let set, _, _): return set
        case .copy(let set, _), .uidCopy(let set, _), .move(let set, _), .uidMove(let set, _): return set
        case .uidExpunge(let set): return set
        case .capability, .noop, .logout, .startTLS, .login, .authenticate, .enable, .id, .select, .examine,
            .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub, .status, .namespace, .close,
            .unselect, .expunge, .append, .check, .search, .uidSearch, .sort, .uidSort, .idle:
            return nil
        }
    }

    /// The same command for `set`; a command without a message set is returned unchanged.
    public func replacingMessageSet(with set: SequenceSet) -> Command {
        switch self {
        case .fetch(_, let attributes, let modifiers): return .fetch(set, attributes, modifiers: modifiers)
        case .uidFetch(_, let attributes, let modifiers): return .uidFetch(set, attributes, modifiers: modifiers)
        case .store(_, let unchangedSince, let flags): return .store(set, unchangedSince: unchangedSince, flags)
        case .uidStore(_, let unchangedSince, let flags): return .uidStore(set, unchangedSince: unchangedSince, flags)
        case .copy(_, let mailbox): return .copy(set, mailbox)
        case .uidCopy(_, let mailbox): return .uidCopy(set, mailbox)
        case .move(_, let mailbox): return .move(set, mailbox)
        case .uidMove(_, let mailbox): return .uidMove(set, mailbox)
        case .uidExpunge: return .uidExpunge(set)
        case .capability, .noop, .logout, .startTLS, .login, .authenticate, .enable, .id, .select, .examine,
            .create, .delete, .rename, .subscribe, .unsubscribe, .list, .lsub, .status, .namespace, .close,
            .unselect, .expunge, .append, .check, .search, .uidSearch, .sort, .uidSort, .idle:
            return self
        }
    }

    /// Splits a FETCH, STORE, COPY, MOVE or UID EXPUNGE over a long message set into several
    /// commands whose command line (`tag SP ... CRLF`, with a tag of at most `tagLength` bytes)
    /// stays within `maximumLineLength` bytes, together covering exactly the same messages.
    ///
    /// Real servers refuse over-long lines (Dovecot at 64 KiB, others at 8 KiB), and 20,000
    /// scattered UIDs do not compress well. Other commands, `$`, and sets that already fit come
    /// back as one command. A single range that alone is too long still gets a command of its own.
    /// Note that a split COPY or MOVE is no longer atomic.
    public func split(maximumLineLength: Int, tagLength: Int = 16) -> [Command] {
        guard let set = messageSet, !set.isLastSearchResult else { return [self] }
        let overhead = Self.firstLineLength(of: replacingMessageSet(with: SequenceSet(1))) - 1 + tagLength + 1
        let budget = maximumLineLength - overhead
        guard budget < SequenceSet.encodedLength(set) else { return [self] }
        return set.split(maximumEncodedLength: max(budget, 1)).map { replacingMessageSet(with: $0) }
    }

    /// The length of the first line of the untagged command, CRLF included.
    private static func firstLineLength(of command: Command) -> Int {
        var buffer = EncodeBuffer(options: EncodingOptions(literalMode: .literalPlus))
        buffer.write(command)
        buffer.writeCRLF()
        let bytes = buffer.takeBytes()
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return bytes.count }
        return newline + 1
    }
}

extension SequenceSet {
    /// The number of bytes the set takes on the wire.
    fileprivate static func encodedLength(_ set: SequenceSet) -> Int {
        guard !set.isLastSearchResult else { return 1 }
        return set.ranges.reduce(set.ranges.isEmpty ? 0 : set.ranges.count - 1) { $0 + encodedLength($1) }
    }
}
