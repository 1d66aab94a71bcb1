/// Why a query cannot be searched: a parse error that names the column, or something the server
/// cannot do.
///
/// `from:"alice` fails with `unterminated quote starting at column 6`.
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The code\'s name.

        public var description: String { name }

        /// A `"` without its closing partner.
        public static let unterminatedQuote = Code("unterminatedQuote")
        /// A `(` without `)` or a `)` without `(`.
        public static let unbalancedParenthesis = Code("unbalancedParenthesis")
        /// `OR`, `AND`, `NOT` or `-` without an operand.
        public static let missingOperand = Code("missingOperand")
        /// `field:` with nothing after it, `""` or `()`.
        public static let emptyValue = Code("emptyValue")
        /// CR, LF or NUL in the query.
        public static let forbiddenCharacter = Code("forbiddenCharacter")
        /// A date that does not exist or is not written as the language allows.
        public static let invalidDate = Code("invalidDate")
        /// A relative age that is not digits plus `d`, `w`, `m` or `y`.
        public static let invalidAge = Code("invalidAge")
        /// A size that is not digits with an optional `K`, `M` or `G`.
        public static let invalidSize = Code("invalidSize")
        /// A size larger than the server can search.
        public static let sizeTooLarge = Code("sizeTooLarge")
        /// A value this field does not know (`is:blue`, `has:music`, a bad UID set or header name).
        public static let invalidValue = Code("invalidValue")
        /// `raw:` on a server that is not Gmail.
        public static let unsupported = Code("unsupported")
        /// `in:` somewhere it cannot mean "search there" (negated, inside OR, twice).
        public static let misplacedMailbox = Code("misplacedMailbox")
        /// Parentheses or negations nested deeper than the parser allows.
        public static let tooDeep = Code("tooDeep")
    }

    /// What kind of error.
    public var code: Code
    /// The 1-based column (in Unicode scalars) the error points at, when it has a place.
    public var column: Int?
    /// One sentence for a person, naming the column when there is one.
    public var message: String

    /// An error with a ready-made message.
    public init(_ code: Code, column: Int?, _ message: String) {
        self.code = code
        self.column = column
        self.message = message
    }

    /// The same as `message`.

    public var description: String { message }
}
