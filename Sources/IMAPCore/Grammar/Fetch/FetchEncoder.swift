extension EncodeBuffer {
    /// Writes `n FETCH (attributes)`.
    public mutating func write(_ fetch: FetchResponse) {
        writeNumber(fetch.sequenceNumber)
        writeRaw(" FETCH ")
        writeList(fetch.attributes) { buffer, attribute in buffer.write(attribute) }
    }

    /// Writes one FETCH item.
    public mutating func write(_ attribute: MessageAttribute) {
        switch attribute {
        case .uid(let value):
            writeRaw("UID ")
            writeNumber(value)
        case .flags(let flags):
            writeRaw("FLAGS ")
            write(flags)
        case .internalDate(let date):
            writeRaw("INTERNALDATE ")
            write(date)
        case .rfc822Size(let size):
            writeRaw("RFC822.SIZE ")
            writeNumber(size)
        case .envelope(let envelope):
            writeRaw("ENVELOPE ")
            write(envelope)
        case .body(let body):
            writeRaw("BODY ")
            write(body)
        case .bodyStructure(let body):
            writeRaw("BODYSTRUCTURE ")
            write(body)
        case .bodySection(let section, let origin, let data):
            writeRaw("BODY")
            write(section)
            writeOrigin(origin)
            writeSpace()
            writeSectionData(data)
        case .binary(let part, let origin, let data):
            writeRaw("BINARY")
            writeBinarySection(part)
            writeOrigin(origin)
            writeSpace()
            if let data, data.bytes.contains(0) {
                writeLiteral(data.bytes, binary: true)
            } else {
                writeSectionData(data)
            }
        case .binarySize(let part, let size):
            writeRaw("BINARY.SIZE")
            writeBinarySection(part)
            writeSpace()
            writeNumber(size)
        case .rfc822(let data):
            writeRaw("RFC822 ")
            writeSectionData(data)
        case .rfc822Header(let data):
            writeRaw("RFC822.HEADER ")
            writeSectionData(data)
        case .rfc822Text(let data):
            writeRaw("RFC822.TEXT ")
            writeSectionData(data)
        case .preview(let text):
            writeRaw("PREVIEW ")
            writeNString(text)
        case .modificationSequence(let value):
            writeRaw("MODSEQ (")
            writeNumber(value)
            writeRaw(")")
        case .gmailMessageID(let value):
            writeRaw("X-GM-MSGID ")
            writeNumber(value)
        case .gmailThreadID(let value):
            writeRaw("X-GM-THRID ")
            writeNumber(value)
        case .gmailLabels(let labels):
            writeRaw("X-GM-LABELS ")
            writeList(labels) { buffer, label in
                // System labels (`\Inbox`) go as atoms, the way Gmail sends them.
                if label.bytes.first == UInt8(ascii: "\\"), label.count > 1,
                    label.bytes.dropFirst().allSatisfy({ isASCIILetter($0) || isDigit($0) })
                {
                    buffer.writeBytes(label.bytes)
                } else {
                    buffer.writeAString(label)
                }
            }
        case .unknown(let name, let raw):
            writeRaw(name)
            if let first = raw.bytes.first, first != UInt8(ascii: "["), first != UInt8(ascii: "<") { writeSpace() }
            writeBytes(raw.bytes)
        }
    }

    private mutating func writeOrigin(_ origin: UInt32?) {
        guard let origin else { return }
        writeRaw("<")
        writeNumber(origin)
        writeRaw(">")
    }

    /// Message data is always a literal (it usually holds CRLFs); NIL for nil.
    private mutating func writeSectionData(_ data: ByteString?) {
        guard let data else {
            writeRaw("NIL")
            return
        }
        writeLiteral(data.bytes)
    }

    /// Writes an ENVELOPE value.
    public mutating func write(_ envelope: Envelope) {
        writeRaw("(")
        writeNString(envelope.date)
        writeSpace()
        writeNString(envelope.subject)
        for list in [envelope.from, envelope.sender, envelope.replyTo, envelope.to, envelope.cc, envelope.bcc] {
            writeSpace()
            write(list)
        }
        writeSpace()
        writeNString(envelope.inReplyTo)
        writeSpace()
        writeNString(envelope.messageID)
        writeRaw(")")
    }

    private mutating func write(_ addresses: [Address]) {
        if addresses.isEmpty {
            writeRaw("NIL")
            return
        }
        writeRaw("(")
        for address in addresses {
            writeRaw("(")
            writeNString(address.name)
            writeSpace()
            writeNString(address.adl)
            writeSpace()
            writeNString(address.mailbox)
            writeSpace()
            writeNString(address.host)
            writeRaw(")")
        }
        writeRaw(")")
    }

    /// Writes a BODY/BODYSTRUCTURE value.
    public mutating func write(_ body: BodyStructure) {
        switch body {
        case .invalid(let raw):
            writeBytes(raw.bytes)
        case .multipart(let multipart):
            writeRaw("(")
            for part in multipart.parts { write(part) }
            writeSpace()
            writeString(multipart.mediaSubtype)
            if let fields = multipart.extension {
                writeSpace()
                writeBodyParameters(fields.parameters)
                writeExtensionTail(fields)
            }
            writeRaw(")")
        case .singlepart(let part):
            writeRaw("(")
            writeString(part.mediaType)
            writeSpace()
            writeString(part.mediaSubtype)
            writeSpace()
            writeBodyParameters(part.parameters)
            writeSpace()
            writeNString(part.id)
            writeSpace()
            writeNString(part.description)
            writeSpace()
            writeString(part.encoding)
            writeSpace()
            writeNumber(part.size)
            switch part.kind {
            case .basic: break
            case .text(let lines):
                writeSpace()
                writeNumber(lines)
            case .message(let envelope, let inner, let lines):
                writeSpace()
                write(envelope)
                writeSpace()
                write(inner)
                writeSpace()
                writeNumber(lines)
            }
            if let fields = part.extension {
                writeSpace()
                writeNString(fields.md5)
                writeExtensionTail(fields)
            }
            writeRaw(")")
        }
    }

    private mutating func writeBodyParameters(_ parameters: [BodyParameter]) {
        if parameters.isEmpty {
            writeRaw("NIL")
            return
        }
        writeList(parameters) { buffer, parameter in
            buffer.writeString(parameter.name)
            buffer.writeSpace()
            buffer.writeString(parameter.value)
        }
    }

    private mutating func writeExtensionTail(_ fields: BodyExtension) {
        guard fields.fieldCount >= 2 else { return }
        writeSpace()
        if let disposition = fields.disposition {
            writeRaw("(")
            writeString(disposition.kind)
            writeSpace()
            writeBodyParameters(disposition.parameters)
            writeRaw(")")
        } else {
            writeRaw("NIL")
        }
        guard fields.fieldCount >= 3 else { return }
        writeSpace()
        switch fields.language.count {
        case 0: writeRaw("NIL")
        case 1: writeString(fields.language[0])
        default: writeList(fields.language) { buffer, language in buffer.writeString(language) }
        }
        guard fields.fieldCount >= 4 else { return }
        writeSpace()
        writeNString(fields.location)
        for value in fields.extensions {
            writeSpace()
            write(value)
        }
    }

    private mutating func write(_ value: BodyExtensionValue) {
        switch value {
        case .string(let string): writeNString(string)
        case .number(let number): writeNumber(number)
        case .list(let values): writeList(values) { buffer, value in buffer.write(value) }
        }
    }
}
