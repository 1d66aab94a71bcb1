/// Encoding a client command (the client side), without tag or CRLF.
extension EncodeBuffer {
    /// Writes a command without tag or CRLF.
    public mutating func write(_ command: Command) {
        switch command {
        case .capability, .noop, .logout, .startTLS, .namespace, .close, .unselect, .expunge, .check, .idle:
            writeRaw(command.name)
        case .login(let username, let password):
            writeRaw("LOGIN ")
            writeAString(username)
            writeSpace()
            writeAString(password)
        case .authenticate(let mechanism, let initialResponse):
            writeRaw("AUTHENTICATE ")
            writeRaw(mechanism)
            if let initialResponse {
                writeSpace()
                if initialResponse.isEmpty { writeRaw("=") } else { writeBytes(initialResponse.bytes) }
            }
        case .enable(let capabilities):
            write("ENABLE", capabilities: capabilities)
        case .id(let parameters):
            writeRaw("ID ")
            write(parameters)
        case .select(let mailbox, let parameters):
            writeSelect("SELECT ", mailbox, parameters)
        case .examine(let mailbox, let parameters):
            writeSelect("EXAMINE ", mailbox, parameters)
        case .create(let mailbox): writeMailboxCommand("CREATE ", mailbox)
        case .delete(let mailbox): writeMailboxCommand("DELETE ", mailbox)
        case .subscribe(let mailbox): writeMailboxCommand("SUBSCRIBE ", mailbox)
        case .unsubscribe(let mailbox): writeMailboxCommand("UNSUBSCRIBE ", mailbox)
        case .rename(let from, let to):
            writeMailboxCommand("RENAME ", from)
            writeSpace()
            write(to)
        case .list(let selection, let reference, let patterns, let returnOptions):
            writeListCommand(selection, reference, patterns, returnOptions)
        case .lsub(let reference, let pattern):
            writeMailboxCommand("LSUB ", reference)
            writeSpace()
            writeListMailbox(pattern)
        case .status(let mailbox, let attributes):
            writeMailboxCommand("STATUS ", mailbox)
            writeSpace()
            writeList(attributes) { buffer, attribute in buffer.write(attribute) }
        case .uidExpunge(let set):
            writeRaw("UID EXPUNGE ")
            write(set)
        case .append(let mailbox, let message):
            writeMailboxCommand("APPEND ", mailbox)
            writeSpace()
            write(message)
        case .search(let charset, let returnOptions, let keys):
            writeSearch("SEARCH", charset, returnOptions, keys)
        case .uidSearch(let charset, let returnOptions, let keys):
            writeSearch("UID SEARCH", charset, returnOptions, keys)
        case .sort(let criteria, let charset, let keys, let returnOptions):
            writeSort("SORT", criteria, charset, keys, returnOptions)
        case .uidSort(let criteria, let charset, let keys, let returnOptions):
            writeSort("UID SORT", criteria, charset, keys, returnOptions)
        case .fetch(let set, let attributes, let modifiers):
            writeFetch("FETCH ", set, attributes, modifiers)
        case .uidFetch(let set, let attributes, let modifiers):
            writeFetch("UID FETCH ", set, attributes, modifiers)
        case .store(let set, let unchangedSince, let flags):
            writeStore("STORE ", set, unchangedSince, flags)
        case .uidStore(let set, let unchangedSince, let flags):
            writeStore("UID STORE ", set, unchangedSince, flags)
        case .copy(let set, let mailbox): writeCopy("COPY ", set, mailbox)
        case .uidCopy(let set, let mailbox): writeCopy("UID COPY ", set, mailbox)
        case .move(let set, let mailbox): writeCopy("MOVE ", set, mailbox)
        case .uidMove(let set, let mailbox): writeCopy("UID MOVE ", set, mailbox)
        }
    }

    /// Writes a LIST pattern: as an atom when every byte is a list-char, else as a string.
    public mutating func writeListMailbox(_ pattern: ByteString) {
        if !pattern.isEmpty && pattern.bytes.allSatisfy({ CharacterClass.table[Int($0)].contains(.listMailbox) })
            && !pattern.equalsCaseInsensitive("NIL")
        {
            writeBytes(pattern.bytes)
        } else {
            writeString(pattern)
        }
    }

    private mutating func writeMailboxCommand(_ name: StaticString, _ mailbox: MailboxName) {
        writeRaw(name)
        write(mailbox)
    }

    private mutating func writeSelect(_ name: StaticString, _ mailbox: MailboxName, _ parameters: [SelectParameter]) {
        writeMailboxCommand(name, mailbox)
        if !parameters.isEmpty {
            writeSpace()
            writeList(parameters) { buffer, parameter in buffer.write(parameter) }
        }
    }

    private mutating func writeListCommand(
        _ selection: [ListSelectOption], _ reference: MailboxName, _ patterns: [ByteString],
        _ returnOptions: [ListReturnOption]
    ) {
        writeRaw("LIST ")
        if !selection.isEmpty {
            writeList(selection) { buffer, option in buffer.write(option) }
            writeSpace()
        }
        write(reference)
        writeSpace()
        if patterns.count == 1 {
            writeListMailbox(patterns[0])
        } else {
            writeList(patterns) { buffer, pattern in buffer.writeListMailbox(pattern) }
        }
        if !returnOptions.isEmpty {
            writeRaw(" RETURN ")
            writeList(returnOptions) { buffer, option in buffer.write(option) }
        }
    }

    private mutating func writeSearch(
        _ name: StaticString, _ charset: String?, _ returnOptions: [SearchReturnOption]?, _ keys: [SearchKey]
    ) {
        writeRaw(name)
        if let returnOptions {
            writeSpace()
            writeSearchReturnOptions(returnOptions)
        }
        if let charset {
            writeRaw(" CHARSET ")
            writeAString(ByteString(charset))
        }
        writeSpace()
        write(keys)
    }

    private mutating func writeSort(
        _ name: StaticString, _ criteria: [SortCriterion], _ charset: String, _ keys: [SearchKey],
        _ returnOptions: [SearchReturnOption]?
    ) {
        writeRaw(name)
        if let returnOptions {
            writeSpace()
            writeSearchReturnOptions(returnOptions)
        }
        writeSpace()
        writeList(criteria) { buffer, criterion in buffer.write(criterion) }
        writeSpace()
        writeAString(ByteString(charset))
        writeSpace()
        write(keys)
    }

    private mutating func writeFetch(
        _ name: StaticString, _ set: SequenceSet, _ attributes: [FetchAttribute], _ modifiers: [FetchModifier]
    ) {
        writeRaw(name)
        write(set)
        writeSpace()
        write(attributes)
        if !modifiers.isEmpty {
            writeSpace()
            writeList(modifiers) { buffer, modifier in buffer.write(modifier) }
        }
    }

    private mutating func writeStore(
        _ name: StaticString, _ set: SequenceSet, _ unchangedSince: UInt64?, _ flags: StoreFlags
    ) {
        writeRaw(name)
        write(set)
        writeSpace()
        if let unchangedSince {
            writeRaw("(UNCHANGEDSINCE ")
            writeNumber(unchangedSince)
            writeRaw(") ")
        }
        write(flags)
    }

    private mutating func writeCopy(_ name: StaticString, _ set: SequenceSet, _ mailbox: MailboxName) {
        writeRaw(name)
        write(set)
        writeSpace()
        write(mailbox)
    }
}
