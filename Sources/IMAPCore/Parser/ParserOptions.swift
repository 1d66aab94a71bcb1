/// Limits that protect a parser from a peer that sends too much. Each has its own error code.
public struct ParserOptions: Hashable, Sendable {
    /// The longest line (bytes between CRLFs, not counting literals). Real servers send FETCH
    /// and SEARCH lines of hundreds of kilobytes, so the default is generous.
    public var maximumLineLength: Int
    /// The largest literal accepted.
    public var maximumLiteralSize: Int
    /// The deepest nesting of parentheses (BODYSTRUCTURE, search keys).
    public var maximumNestingDepth: Int
    /// The largest whole frame: one response or command, with all of its lines and literals.
    public var maximumFrameSize: Int

    /// Defaults: 8 MiB lines, 64 MiB literals, 100 levels, 128 MiB frames.
    public init(
        maximumLineLength: Int = 8 << 20,
        maximumLiteralSize: Int = 64 << 20,
        maximumNestingDepth: Int = 100,
        maximumFrameSize: Int = 128 << 20
    ) {
        self.maximumLineLength = maximumLineLength
        self.maximumLiteralSize = maximumLiteralSize
        self.maximumNestingDepth = maximumNestingDepth
        self.maximumFrameSize = maximumFrameSize
    }
}
