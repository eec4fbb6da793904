import Foundation

/// The three parts of a training set.
public enum TrainingSplit: Int, Sendable, CaseIterable, CustomStringConvertible {
    case train = 0
    case validation = 1
    case test = 2

    /// `train`, `validation`, `test` (also the output file names).
    public var name: String {
        switch self {
        case .train: "train"
        case .validation: "validation"
        case .test: "test"
        }
    }

    public var description: String { name }
}

/// How records are shared between train, validation and test: integer weights, e.g. `80,10,10`.
///
/// A record's part depends only on a hash of its id (``StableHash/id(_:)``), never on its position, so
/// a record keeps its part when the corpus grows or is read in another order.
public struct SplitRatios: Sendable, Equatable, CustomStringConvertible {
    public let train: Int
    public let validation: Int
    public let test: Int

    /// The largest weight: three of them add up without overflow, and a part's share stays exact in a `Double`.
    public static let maxWeight = 1_000_000

    /// Weights of the three parts, each from 0 to ``maxWeight``; at least one must be positive.
    public init?(train: Int, validation: Int, test: Int) {
        let range = 0...Self.maxWeight
        guard range.contains(train), range.contains(validation), range.contains(test), train + validation + test > 0
        else { return nil }
        self.train = train
        self.validation = validation
        self.test = test
    }

    /// Parses `80,10,10` (or `90,10`: no test part).
    public init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.init(train: parts[0]!, validation: parts[1]!, test: parts.count == 3 ? parts[2]! : 0)
    }

    public var description: String { "\(train),\(validation),\(test)" }

    /// The weight of `split`.
    public func weight(of split: TrainingSplit) -> Int {
        switch split {
        case .train: train
        case .validation: validation
        case .test: test
        }
    }

    /// The parts with a positive weight: the ones written (`90,10` writes no test file).
    public var written: [TrainingSplit] { TrainingSplit.allCases.filter { weight(of: $0) > 0 } }

    /// The part of a record whose id hashes to `hash`.
    ///
    /// - Complexity: O(1).
    public func split(forHash hash: UInt64) -> TrainingSplit {
        let total = UInt64(train + validation + test)
        // The top bits of a well-mixed hash, scaled to [0, total): no modulo bias worth speaking of.
        let bucket = UInt64((Double(hash >> 11) / Double(1 << 53)) * Double(total))
        if bucket < UInt64(train) { return .train }
        if bucket < UInt64(train + validation) { return .validation }
        return .test
    }
}
