/// The faults a server starts with: rules, and optionally seeded random faults.
///
/// ```swift
/// let server = try await MockIMAPServer.start(.init(users: users, faults: [
///     FaultRule(trigger: .command("SEARCH"), fault: .stall)
/// ]))
/// let soak = try await MockIMAPServer.start(.init(users: users,
///     faults: .random(seed: 42, probability: 0.05, kinds: [.respond(.no, text: "busy"), .closeAfter(bytes: 10)])))
/// ```
public struct FaultPlan: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The rules, in the order they are applied.
    public var rules: [FaultRule]
    /// Seeded random faults, or nil for none.
    public var random: RandomFaults?

    /// A plan of `rules` and optional random faults.
    public init(_ rules: [FaultRule], random: RandomFaults? = nil) {
        self.rules = rules
        self.random = random
    }

    /// A plan of these rules.
    public init(arrayLiteral rules: FaultRule...) {
        self.init(rules)
    }

    /// Random faults, the same for the same seed: see `RandomFaults`.
    public static func random(seed: UInt64, probability: Double, kinds: [Fault]) -> FaultPlan {
        FaultPlan([], random: RandomFaults(seed: seed, probability: probability, kinds: kinds))
    }
}

/// Faults chosen at random, deterministically: whether the server's nth command (counted from 1
/// across every session, in the order the server receives them) gets a fault, and which of
/// `kinds`, depends only on the seed and n. The same seed and the same order of commands give
/// the same faults; `FaultController.fired` lists them.
public struct RandomFaults: Sendable, Hashable {
    /// The seed.
    public var seed: UInt64
    /// The chance that one command gets a fault, 0...1.
    public var probability: Double
    /// The faults to choose from, with equal chances.
    public var kinds: [Fault]

    /// Random faults from `kinds`, each command getting one with `probability`.
    public init(seed: UInt64, probability: Double, kinds: [Fault]) {
        self.seed = seed
        self.probability = probability
        self.kinds = kinds
    }

    /// The fault of the command with this ordinal (from 1), or nil.
    public func fault(forCommand ordinal: Int) -> Fault? {
        guard !kinds.isEmpty, probability > 0 else { return nil }
        let draw = Self.mix(seed &+ UInt64(truncatingIfNeeded: ordinal) &* 0x9E37_79B9_7F4A_7C15)
        // The top 53 bits as a fraction in 0..<1.
        let fraction = Double(draw >> 11) / Double(UInt64(1) << 53)
        guard fraction < probability else { return nil }
        let choice = Self.mix(draw)
        return kinds[Int(choice % UInt64(kinds.count))]
    }

    /// SplitMix64's finalizer: a well-spread 64-bit hash.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
