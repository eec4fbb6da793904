import Foundation
import MessageFilter

/// The training examples: target, fold and the model phrases present, in flat arrays. Past `limit`
/// messages, a deterministic sample by hash of the body: the sampling level rises (keeping half) until it
/// fits, so the kept set does not depend on the order of the records.
struct _Examples {
    let limit: Int
    var targets: [UInt8] = []
    var folds: [UInt8] = []
    /// Per example: its main script's raw value, with 0x80 set when it is generated.
    var scriptBytes: [UInt8] = []
    var hashes: [UInt64] = []
    /// Per example: what the base rules below the model's priority make of it (``pack(_:)``; 0 without base rules).
    var contexts: [UInt16] = []
    var starts: [Int] = [0]
    var features: [Int32] = []
    /// The sample keeps the examples whose body hash has its low `sampleLevel` bits zero (1 in 2^level).
    var sampleLevel = 0
    var sampledOut = 0
    var count: Int { targets.count }

    init(limit: Int) { self.limit = max(16, limit) }

    func script(_ r: Int) -> Script { Script(rawValue: scriptBytes[r] & 0x7F)! }

    /// Real examples per main script and target outside fold `fold`.
    func scripts(excluding fold: Int, targets t: Int) -> [Script: [Int]] {
        var counts: [Script: [Int]] = [:]
        for r in 0..<count where Int(folds[r]) != fold && scriptBytes[r] & 0x80 == 0 {
            counts[script(r), default: Array(repeating: 0, count: t)][Int(targets[r])] += 1
        }
        return counts
    }

    /// ``RuleSituation`` in 16 bits: the best firing rule's action + 1 (0: none fired) in bits 0–2, then the
    /// flags below.
    static let decidedAbove: UInt16 = 8
    static let vouched: UInt16 = 16
    static let traiSender: UInt16 = 32

    static func pack(_ b: RuleSituation) -> UInt16 {
        var x = UInt16(b.action.map { $0.rawValue + 1 } ?? 0)
        if b.decidedAbove { x |= decidedAbove }
        if b.vouched { x |= vouched }
        if b.traiSender { x |= traiSender }
        return x
    }

    static func action(_ c: UInt16) -> Action? { c & 7 == 0 ? nil : Action(rawValue: Int(c & 7) - 1) }

    mutating func add(target: Int, fold: Int, features f: [Int32], body: UnsafeRawBufferPointer, script: Script, generated: Bool,
                      context: UInt16 = 0) {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for b in body { h = StableHash.fnv1a(h, b) }
        h ^= h >> 31
        guard Self.inSample(hash: h, level: sampleLevel) else {
            sampledOut += 1
            return
        }
        targets.append(UInt8(target))
        folds.append(UInt8(fold))
        scriptBytes.append(script.rawValue | (generated ? 0x80 : 0))
        hashes.append(h)
        contexts.append(context)
        features.append(contentsOf: f)
        starts.append(features.count)
        while count > limit { halveSample() }
    }

    /// Whether an example of body hash `h` is in the sample at `level`.
    static func inSample(hash h: UInt64, level: Int) -> Bool { level == 0 || h & ((1 << UInt64(level)) - 1) == 0 }

    /// Raises the sample's level: keeps the half of the examples whose next hash bit is zero too.
    private mutating func halveSample() {
        sampleLevel += 1
        var t: [UInt8] = [], fo: [UInt8] = [], sc: [UInt8] = [], hs: [UInt64] = [], cx: [UInt16] = [], st: [Int] = [0], fe: [Int32] = []
        for r in 0..<count {
            guard Self.inSample(hash: hashes[r], level: sampleLevel) else {
                sampledOut += 1
                continue
            }
            t.append(targets[r]); fo.append(folds[r]); sc.append(scriptBytes[r]); hs.append(hashes[r]); cx.append(contexts[r])
            fe.append(contentsOf: features[starts[r]..<starts[r + 1]])
            st.append(fe.count)
        }
        targets = t; folds = fo; scriptBytes = sc; hashes = hs; contexts = cx; starts = st; features = fe
    }
}

/// Results written by concurrent trainers, one slot each.
final class _ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [_LinearSVM.Result?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: _LinearSVM.Result) {
        lock.lock()
        results[i] = r
        lock.unlock()
    }
    func get(_ i: Int) -> _LinearSVM.Result {
        lock.lock()
        defer { lock.unlock() }
        return results[i]!
    }
}
