// libFuzzer entry point for the server's CommandParser.
//
// Fuzz/run.sh compiles this file together with Sources/IMAPCore/**/*.swift into one module, so
// IMAPCore's types are used without an import.
//
// The oracle, as for the response parser: the input is parsed once whole and once in two chunks
// split at a byte the input chooses; both must give the same events and errors in the same
// order. The harness plays the server's part in the parser's modes, so the IDLE and SASL paths
// are reached too: after IDLE it expects DONE, after AUTHENTICATE without an initial response it
// reads one SASL line. Parsing continues past errors (the bad command is consumed), every error
// must name an offset inside the input, and the number of results is bounded by the input's
// size (every result consumes input). Errors are compared by tag, code, offset and message, not
// by excerpt (a limit error's excerpt shows whatever bytes have arrived after the line).

/// What one `next()` produced.
private enum Outcome: Equatable {
    case event(CommandParserEvent)
    case error(tag: String?, code: IMAPParseError.Code, offset: Int, message: String)
}

/// Takes results out of `parser` until it needs more bytes, switching its mode as a server would.
private func drain(_ parser: inout CommandParser, into outcomes: inout [Outcome], inputCount: Int) {
    while true {
        do {
            guard let event = try parser.next() else { return }
            outcomes.append(.event(event))
            switch event {
            case .command(let tagged):
                if case .idle = tagged.command { parser.mode = .idle }
                if case .authenticate(_, nil) = tagged.command { parser.mode = .authentication }
            case .authenticationResponse:
                parser.mode = .command
            case .continuationNeeded, .idleDone:
                break
            }
        } catch {
            guard error.underlying.offset >= 0 && error.underlying.offset <= inputCount else {
                fatalError("error offset \(error.underlying.offset) outside the input of \(inputCount) bytes: \(error)")
            }
            outcomes.append(
                .error(tag: error.tag, code: error.code, offset: error.underlying.offset, message: error.message))
            if parser.mode == .idle { parser.mode = .command }
        }
        guard outcomes.count <= 2 * inputCount + 1 else {
            fatalError("more results (\(outcomes.count)) than the input allows (\(inputCount) bytes): no progress")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    var whole = CommandParser()
    whole.append(bytes)
    var expected: [Outcome] = []
    drain(&whole, into: &expected, inputCount: count)

    let split = bytes.isEmpty ? 0 : Int(bytes[0]) * count / 255
    var chunked = CommandParser()
    var actual: [Outcome] = []
    chunked.append(bytes[..<split])
    drain(&chunked, into: &actual, inputCount: count)
    chunked.append(bytes[split...])
    drain(&chunked, into: &actual, inputCount: count)

    guard actual == expected else {
        let common = min(actual.count, expected.count)
        let position = (0..<common).first { actual[$0] != expected[$0] } ?? common
        fatalError(
            """
            chunking changed the result (split at byte \(split) of \(count)): result \(position) differs
              whole:   \(position < expected.count ? String(reflecting: expected[position]) : "(none)")
              chunked: \(position < actual.count ? String(reflecting: actual[position]) : "(none)")
            """)
    }
    guard whole.bufferedByteCount == chunked.bufferedByteCount else {
        fatalError("left over: \(whole.bufferedByteCount) bytes whole, \(chunked.bufferedByteCount) chunked")
    }
    return 0
}
