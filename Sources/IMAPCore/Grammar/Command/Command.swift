/// A client command without its tag (RFC 3501 6, RFC 9051 6, and the extensions a search client
/// uses: IDLE, ID, ENABLE, NAMESPACE, UNSELECT, UIDPLUS, MOVE, SORT, ESEARCH, CONDSTORE, BINARY,
/// LIST-EXTENDED, SASL-IR).
///
/// `C: a9 UID SEARCH FROM "grace" SINCE 1-Jan-2025` is
/// `.uidSearch(keys: [.from("grace"), .since(date)])` with the tag `a9`. The commands with a `uid`
/// prefix are cases of their own, so a switch names every form.
public enum Command: Hashable, Sendable {
    /// `CAPABILITY`.
    case capability
    /// `NOOP`.
    case noop
    /// `LOGOUT`.
    case logout
    /// `STARTTLS`.
    case startTLS
    /// `LOGIN user password`.
    case login(username: ByteString, password: ByteString)
    /// `AUTHENTICATE mechanism [initial-response]`. The initial response (SASL-IR, RFC 4959) is
    /// the base64 text as sent; an empty one goes on the wire as `=`.
    case authenticate(mechanism: String, initialResponse: ByteString? = nil)
    /// `ENABLE capability ...` (RFC 5161).
    case enable([Capability])
    /// `ID (fields)` or `ID NIL` (RFC 2971).
    case id([IDParameter]?)
    /// `SELECT mailbox [(parameters)]`.
    case select(MailboxName, parameters: [SelectParameter] = [])
    /// `EXAMINE mailbox [(parameters)]`.
    case examine(MailboxName, parameters: [SelectParameter] = [])
    /// `CREATE mailbox`.
    case create(MailboxName)
    /// `DELETE mailbox`.
    case delete(MailboxName)
    /// `RENAME from to`.
    case rename(from: MailboxName, to: MailboxName)
    /// `SUBSCRIBE mailbox`.
    case subscribe(MailboxName)
    /// `UNSUBSCRIBE mailbox`.
    case unsubscribe(MailboxName)
    /// `LIST [(selection)] reference pattern(s) [RETURN (options)]` (RFC 5258 when options are used).
    case list(
        selection: [ListSelectOption] = [], reference: MailboxName, patterns: [ByteString],
        returnOptions: [ListReturnOption] = [])
    /// `LSUB reference pattern` (IMAP4rev1).
    case lsub(reference: MailboxName, pattern: ByteString)
    /// `STATUS mailbox (attributes)`.
    case status(MailboxName, [StatusAttribute])
    /// `NAMESPACE` (RFC 2342).
    case namespace
    /// `CLOSE`.
    case close
    /// `UNSELECT` (RFC 3691).
    case unselect
    /// `EXPUNGE`.
    case expunge
    /// `UID EXPUNGE set` (RFC 4315 UIDPLUS).
    case uidExpunge(SequenceSet)
    /// `APPEND mailbox [(flags)] [date-time] literal`.
    case append(MailboxName, AppendMessage)
    /// `CHECK` (IMAP4rev1).
    case check
    /// `SEARCH [RETURN (options)] [CHARSET charset] keys`: at least one key; several mean all of
    /// them. `returnOptions` nil sends no RETURN (a plain `* SEARCH` answer); `[]` sends `RETURN ()`.
    case search(charset: String? = nil, returnOptions: [SearchReturnOption]? = nil, keys: [SearchKey])
    /// `UID SEARCH [RETURN (options)] [CHARSET charset] keys`, answered with UIDs.
    case uidSearch(charset: String? = nil, returnOptions: [SearchReturnOption]? = nil, keys: [SearchKey])
    /// `SORT [RETURN (options)] (criteria) charset keys` (RFC 5256, RFC 5267 ESORT).
    case sort(
        criteria: [SortCriterion], charset: String, keys: [SearchKey], returnOptions: [SearchReturnOption]? = nil)
    /// `UID SORT [RETURN (options)] (criteria) charset keys`.
    case uidSort(
        criteria: [SortCriterion], charset: String, keys: [SearchKey], returnOptions: [SearchReturnOption]? = nil)
    /// `FETCH set (items) [(modifiers)]`. The macros ALL, FAST and FULL arrive expanded.
    case fetch(SequenceSet, [FetchAttribute], modifiers: [FetchModifier] = [])
    /// `UID FETCH set (items) [(modifiers)]`.
    case uidFetch(SequenceSet, [FetchAttribute], modifiers: [FetchModifier] = [])
    /// `STORE set [(UNCHANGEDSINCE n)] flags` (RFC 7162 for UNCHANGEDSINCE).
    case store(SequenceSet, unchangedSince: UInt64? = nil, StoreFlags)
    /// `UID STORE set [(UNCHANGEDSINCE n)] flags`.
    case uidStore(SequenceSet, unchangedSince: UInt64? = nil, StoreFlags)
    /// `COPY set mailbox`.
    case copy(SequenceSet, MailboxName)
    /// `UID COPY set mailbox`.
    case uidCopy(SequenceSet, MailboxName)
    /// `MOVE set mailbox` (RFC 6851).
    case move(SequenceSet, MailboxName)
    /// `UID MOVE set mailbox`.
    case uidMove(SequenceSet, MailboxName)
    /// `IDLE` (RFC 2177); the client ends it with `DONE`, which is not a command.
    case idle

    /// The command name as it goes on the wire (`UID FETCH`), for logs and BAD replies.
    public var name: String {
        switch self {
        case .capability: return "CAPABILITY"
        case .noop: return "NOOP"
        case .logout: return "LOGOUT"
        case .startTLS: return "STARTTLS"
        case .login: return "LOGIN"
        case .authenticate: return "AUTHENTICATE"
        case .enable: return "ENABLE"
        case .id: return "ID"
        case .select: return "SELECT"
        case .examine: return "EXAMINE"
        case .create: return "CREATE"
        case .delete: return "DELETE"
        case .rename: return "RENAME"
        case .subscribe: return "SUBSCRIBE"
        case .unsubscribe: return "UNSUBSCRIBE"
        case .list: return "LIST"
        case .lsub: return "LSUB"
        case .status: return "STATUS"
        case .namespace: return "NAMESPACE"
        case .close: return "CLOSE"
        case .unselect: return "UNSELECT"
        case .expunge: return "EXPUNGE"
        case .uidExpunge: return "UID EXPUNGE"
        case .append: return "APPEND"
        case .check: return "CHECK"
        case .search: return "SEARCH"
        case .uidSearch: return "UID SEARCH"
        case .sort: return "SORT"
        case .uidSort: return "UID SORT"
        case .fetch: return "FETCH"
        case .uidFetch: return "UID FETCH"
        case .store: return "STORE"
        case .uidStore: return "UID STORE"
        case .copy: return "COPY"
        case .uidCopy: return "UID COPY"
        case .move: return "MOVE"
        case .uidMove: return "UID MOVE"
        case .idle: return "IDLE"
        }
    }
}

extension ByteCursor {
    // command = tag SP (command-any / command-auth / command-nonauth / command-select) CRLF
    // command-any = "CAPABILITY" / "LOGOUT" / "NOOP" / x-command / id
    // id = "ID" SP id-params-list                                  ; RFC 2971
    // command-auth = append / create / delete / enable / examine / list / namespace-command / rename /
    //                select / status / subscribe / unsubscribe / idle / lsub
    // command-nonauth = login / authenticate / "STARTTLS"
    // command-select = "CHECK" / "CLOSE" / "UNSELECT" / "EXPUNGE" / copy / move / fetch / store / search /
    //                  sort / uid
    // uid = "UID" SP (copy / move / fetch / search / store / sort / uid-expunge)
    /// A command after its tag and SP, up to (not including) the CRLF. An unknown command name is
    /// an `unknownCommand` error.
    public mutating func parseCommand() throws(IMAPParseError) -> Command {
        let nameStart = index
        let name = String(decoding: try parseAtom(), as: UTF8.self).uppercased()
        switch name {
        case "CAPABILITY": return .capability
        case "NOOP": return .noop
        case "LOGOUT": return .logout
        case "STARTTLS": return .startTLS
        case "NAMESPACE": return .namespace
        case "CLOSE": return .close
        case "UNSELECT": return .unselect
        case "EXPUNGE": return .expunge
        case "CHECK": return .check
        case "IDLE": return .idle
        case "LOGIN": return try parseLogin()
        case "AUTHENTICATE": return try parseAuthenticate()
        case "ENABLE": return try parseEnable()
        case "ID":
            try expectSpace()
            return .id(try parseIDParameters())
        case "SELECT":
            let (mailbox, parameters) = try parseSelectArguments()
            return .select(mailbox, parameters: parameters)
        case "EXAMINE":
            let (mailbox, parameters) = try parseSelectArguments()
            return .examine(mailbox, parameters: parameters)
        case "CREATE": return .create(try parseMailboxArgument())
        case "DELETE": return .delete(try parseMailboxArgument())
        case "SUBSCRIBE": return .subscribe(try parseMailboxArgument())
        case "UNSUBSCRIBE": return .unsubscribe(try parseMailboxArgument())
        case "RENAME":
            let from = try parseMailboxArgument()
            return .rename(from: from, to: try parseMailboxArgument())
        case "LIST": return try parseListCommand()
        case "LSUB":
            let reference = try parseMailboxArgument()
            try expectSpace()
            return .lsub(reference: reference, pattern: try parseListMailbox())
        case "STATUS": return try parseStatus()
        case "APPEND":
            let mailbox = try parseMailboxArgument()
            try expectSpace()
            return .append(mailbox, try parseAppendMessage())
        case "SEARCH":
            let (charset, returnOptions, keys) = try parseSearchArguments()
            return .search(charset: charset, returnOptions: returnOptions, keys: keys)
        case "SORT":
            let (criteria, charset, keys, returnOptions) = try parseSortArguments()
            return .sort(criteria: criteria, charset: charset, keys: keys, returnOptions: returnOptions)
        case "FETCH":
            let (set, attributes, modifiers) = try parseFetchArguments()
            return .fetch(set, attributes, modifiers: modifiers)
        case "STORE":
            let (set, unchangedSince, flags) = try parseStoreArguments()
            return .store(set, unchangedSince: unchangedSince, flags)
        case "COPY":
            let (set, mailbox) = try parseCopyArguments()
            return .copy(set, mailbox)
        case "MOVE":
            let (set, mailbox) = try parseCopyArguments()
            return .move(set, mailbox)
        case "UID":
            try expectSpace()
            return try parseUIDCommand()
        default:
            index = nameStart
            throw error(.unknownCommand, "unknown command \(name)")
        }
    }

    // uid = "UID" SP (copy / move / fetch / search / store / sort / uid-expunge)
    // uid-expunge = "EXPUNGE" SP sequence-set
    private mutating func parseUIDCommand() throws(IMAPParseError) -> Command {
        let nameStart = index
        let name = String(decoding: try parseAtom(), as: UTF8.self).uppercased()
        switch name {
        case "SEARCH":
            let (charset, returnOptions, keys) = try parseSearchArguments()
            return .uidSearch(charset: charset, returnOptions: returnOptions, keys: keys)
        case "SORT":
            let (criteria, charset, keys, returnOptions) = try parseSortArguments()
            return .uidSort(criteria: criteria, charset: charset, keys: keys, returnOptions: returnOptions)
        case "FETCH":
            let (set, attributes, modifiers) = try parseFetchArguments()
            return .uidFetch(set, attributes, modifiers: modifiers)
        case "STORE":
            let (set, unchangedSince, flags) = try parseStoreArguments()
            return .uidStore(set, unchangedSince: unchangedSince, flags)
        case "COPY":
            let (set, mailbox) = try parseCopyArguments()
            return .uidCopy(set, mailbox)
        case "MOVE":
            let (set, mailbox) = try parseCopyArguments()
            return .uidMove(set, mailbox)
        case "EXPUNGE":
            try expectSpace()
            return .uidExpunge(try parseSequenceSet())
        default:
            index = nameStart
            throw error(.unknownCommand, "unknown command UID \(name)")
        }
    }

    // SP mailbox
    private mutating func parseMailboxArgument() throws(IMAPParseError) -> MailboxName {
        try expectSpace()
        return try parseMailbox()
    }

    // login = "LOGIN" SP userid SP password
    // userid = astring
    // password = astring
    private mutating func parseLogin() throws(IMAPParseError) -> Command {
        try expectSpace()
        let username = try parseAString()
        try expectSpace()
        return .login(username: username, password: try parseAString())
    }

    // authenticate = "AUTHENTICATE" SP auth-type [SP (base64 / "=")]   ; RFC 4959 SASL-IR
    // auth-type = atom
    // base64 = *(4base64-char) [base64-terminal]
    private mutating func parseAuthenticate() throws(IMAPParseError) -> Command {
        try expectSpace()
        let mechanism = try parseAtomString()
        guard peek == UInt8(ascii: " ") else { return .authenticate(mechanism: mechanism) }
        try expectSpace()
        if consume(UInt8(ascii: "=")) { return .authenticate(mechanism: mechanism, initialResponse: ByteString([])) }
        return .authenticate(mechanism: mechanism, initialResponse: try parseBase64())
    }

    // base64 = *(4base64-char) [base64-terminal]
    // base64-char = ALPHA / DIGIT / "+" / "/"
    // base64-terminal = (2base64-char "==") / (3base64-char "=")
    /// Base64 text as it was sent (not decoded).
    mutating func parseBase64() throws(IMAPParseError) -> ByteString {
        let start = index
        while let byte = peek,
            isASCIILetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        {
            index += 1
        }
        var padding = 0
        while padding < 2 && consume(UInt8(ascii: "=")) { padding += 1 }
        guard index > start, (index - start) % 4 == 0 else {
            throw error(isAtEnd ? .unexpectedEnd : .unexpectedByte, "expected base64 text")
        }
        return ByteString(storage[start..<index])
    }

    // enable = "ENABLE" 1*(SP capability)
    private mutating func parseEnable() throws(IMAPParseError) -> Command {
        try expectSpace()
        var capabilities = [try parseCapability()]
        while true {
            let saved = index
            guard skipSpaces(), let next = peek, next != UInt8(ascii: "\r"), next != UInt8(ascii: "\n") else {
                index = saved
                return .enable(capabilities)
            }
            capabilities.append(try parseCapability())
        }
    }

    // select = "SELECT" SP mailbox [select-params]
    // examine = "EXAMINE" SP mailbox [select-params]
    // select-params = SP "(" select-param *(SP select-param) ")"
    private mutating func parseSelectArguments() throws(IMAPParseError) -> (MailboxName, [SelectParameter]) {
        let mailbox = try parseMailboxArgument()
        guard peek == UInt8(ascii: " ") else { return (mailbox, []) }
        skipSpaces()
        guard peek == UInt8(ascii: "(") else { return (mailbox, []) }
        return (mailbox, try parseSelectParameters())
    }

    // list = "LIST" [SP list-select-opts] SP mailbox SP mbox-or-pat [SP list-return-opts]
    // list-select-opts = "(" [list-select-opt *(SP list-select-opt)] ")"
    // mbox-or-pat = list-mailbox / patterns
    // patterns = "(" list-mailbox *(SP list-mailbox) ")"
    // list-return-opts = "RETURN" SP "(" [return-option *(SP return-option)] ")"
    private mutating func parseListCommand() throws(IMAPParseError) -> Command {
        try expectSpace()
        var selection: [ListSelectOption] = []
        if peek == UInt8(ascii: "(") {
            selection = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ListSelectOption in
                try cursor.parseListSelectOption()
            }
            try expectSpace()
        }
        let reference = try parseMailbox()
        try expectSpace()
        var patterns: [ByteString]
        if peek == UInt8(ascii: "(") {
            let start = index
            patterns = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ByteString in
                try cursor.parseListMailbox()
            }
            guard !patterns.isEmpty else {
                index = start
                throw error(.unexpectedByte, "LIST needs at least one mailbox pattern")
            }
        } else {
            patterns = [try parseListMailbox()]
        }
        var returnOptions: [ListReturnOption] = []
        let beforeReturn = index
        if skipSpaces() && consumeCaseInsensitive("RETURN") {
            try expectSpace()
            returnOptions = try parseListReturnOptions()
        } else {
            index = beforeReturn
        }
        return .list(selection: selection, reference: reference, patterns: patterns, returnOptions: returnOptions)
    }

    // status = "STATUS" SP mailbox SP "(" status-att *(SP status-att) ")"
    private mutating func parseStatus() throws(IMAPParseError) -> Command {
        let mailbox = try parseMailboxArgument()
        try expectSpace()
        let start = index
        let attributes = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> StatusAttribute in
            try cursor.parseStatusAttribute()
        }
        guard !attributes.isEmpty else {
            index = start
            throw error(.unexpectedByte, "STATUS needs at least one attribute")
        }
        return .status(mailbox, attributes)
    }

    // search = "SEARCH" [search-return-opts] SP search-program
    // search-program = ["CHARSET" SP charset SP] search-key *(SP search-key)
    // charset = atom / quoted
    private mutating func parseSearchArguments() throws(IMAPParseError)
        -> (String?, [SearchReturnOption]?, [SearchKey])
    {
        try expectSpace()
        let returnOptions = try parseSearchReturnOptions()
        if returnOptions != nil { try expectSpace() }
        var charset: String?
        let beforeCharset = index
        if consumeCaseInsensitive("CHARSET") && peek == UInt8(ascii: " ") {
            try expectSpace()
            charset = try parseCharset()
            try expectSpace()
        } else {
            index = beforeCharset
        }
        return (charset, returnOptions, try parseSearchKeys())
    }

    // sort = ["UID" SP] "SORT" [search-return-opts] SP sort-criteria SP search-charset 1*(SP search-key)
    // search-charset = charset
    private mutating func parseSortArguments() throws(IMAPParseError)
        -> ([SortCriterion], String, [SearchKey], [SearchReturnOption]?)
    {
        try expectSpace()
        let returnOptions = try parseSearchReturnOptions()
        if returnOptions != nil { try expectSpace() }
        let criteria = try parseSortCriteria()
        try expectSpace()
        let charset = try parseCharset()
        try expectSpace()
        return (criteria, charset, try parseSearchKeys(), returnOptions)
    }

    // charset = atom / quoted
    /// A charset name.
    public mutating func parseCharset() throws(IMAPParseError) -> String {
        if peek == UInt8(ascii: "\"") { return try parseQuoted().string }
        return try parseAtomString()
    }

    // fetch = "FETCH" SP sequence-set SP ("ALL" / "FULL" / "FAST" / fetch-att / "(" fetch-att *(SP fetch-att) ")")
    //         [fetch-modifiers]
    private mutating func parseFetchArguments() throws(IMAPParseError)
        -> (SequenceSet, [FetchAttribute], [FetchModifier])
    {
        try expectSpace()
        let set = try parseSequenceSet()
        try expectSpace()
        let attributes = try parseFetchAttributes()
        var modifiers: [FetchModifier] = []
        let beforeModifiers = index
        if skipSpaces() && peek == UInt8(ascii: "(") {
            modifiers = try parseFetchModifiers()
        } else {
            index = beforeModifiers
        }
        return (set, attributes, modifiers)
    }

    // store = "STORE" SP sequence-set [store-modifiers] SP store-att-flags
    // store-modifiers = SP "(" store-modifier *(SP store-modifier) ")"
    // store-modifier = "UNCHANGEDSINCE" SP mod-sequence-valzer
    private mutating func parseStoreArguments() throws(IMAPParseError) -> (SequenceSet, UInt64?, StoreFlags) {
        try expectSpace()
        let set = try parseSequenceSet()
        try expectSpace()
        var unchangedSince: UInt64?
        if peek == UInt8(ascii: "(") {
            let modifiers = try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> UInt64 in
                try cursor.expectCaseInsensitive("UNCHANGEDSINCE")
                try cursor.expectSpace()
                return try cursor.parseNumber64()
            }
            unchangedSince = modifiers.last
            try expectSpace()
        }
        return (set, unchangedSince, try parseStoreFlags())
    }

    // copy = "COPY" SP sequence-set SP mailbox
    // move = "MOVE" SP sequence-set SP mailbox
    private mutating func parseCopyArguments() throws(IMAPParseError) -> (SequenceSet, MailboxName) {
        try expectSpace()
        let set = try parseSequenceSet()
        return (set, try parseMailboxArgument())
    }
}

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
