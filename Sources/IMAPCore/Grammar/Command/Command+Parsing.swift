/// Parsing a client command (the server side): `command` of RFC 3501 9 / RFC 9051 9, one
/// function per rule, each carrying the ABNF it implements.
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
