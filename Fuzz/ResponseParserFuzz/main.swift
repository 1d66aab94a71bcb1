// libFuzzer entry point for the client's ResponseParser.
//
// Fuzz/run.sh compiles this file together with Sources/IMAPCore/**/*.swift into one module, so
// IMAPCore's types are used without an import.
//
// The oracle: parsing must not depend on how the bytes are chunked. The input is parsed once
// whole and once in two chunks split at a byte the input chooses; both must produce the same
// responses and the same errors in the same order. Parsing continues past errors (the parser
// consumes a bad response and goes on), every error must name an offset inside the input, and
// every `next()` that returns something must consume input (so the number of results is
// bounded). A broken rule is a crash, which libFuzzer reports with the input that caused it.
//
// Errors are compared by code, offset and message, not by excerpt: the excerpt of a limit error
// shows the bytes that happen to have arrived after the offending line, which legitimately
// depends on the chunking.

/// What one `next()` produced.
private enum Outcome: Equatable {
    case response(Response)
    case error(code: IMAPParseError.Code, offset: Int, message: String)
}

/// Takes results out of `parser` until it needs more bytes.
private func drain(_ parser: inout ResponseParser, into outcomes: inout [Outcome], inputCount: Int) {
    while true {
        do {
            guard let response = try parser.next() else { return }
            outcomes.append(.response(response))
        } catch {
            guard error.offset >= 0 && error.offset <= inputCount else {
                fatalError("error offset \(error.offset) outside the input of \(inputCount) bytes: \(error)")
            }
            outcomes.append(.error(code: error.code, offset: error.offset, message: error.message))
        }
        guard outcomes.count <= inputCount + 1 else {
            fatalError("more results (\(outcomes.count)) than input bytes (\(inputCount)): next() makes no progress")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))

    var whole = ResponseParser()
    whole.append(bytes)
    var expected: [Outcome] = []
    drain(&whole, into: &expected, inputCount: count)

    let split = bytes.isEmpty ? 0 : Int(bytes[0]) * count / 255
    var chunked = ResponseParser()
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
