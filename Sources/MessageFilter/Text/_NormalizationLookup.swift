// The per-scalar lookup of `_NormalizationTables` that `_TextNormalizer` reads for every non-ASCII character.

import Foundation

/// The per-scalar lookup of `_NormalizationTables`: a two-stage table (high bits → block, low byte → entry),
/// built on first use.
final class _NormalizationLookup: Sendable {
    static let shared = _NormalizationLookup()

    /// `scalar >> 8` → block number, 0xFFFF when the block has no entry.
    let stage1: [UInt16]
    /// `block << 8 | scalar & 0xFF` → entry + 1 (0: none).
    let stage2: [UInt16]
    /// Per entry: start of the compatibility replacement in `replacements`, -1 when there is none.
    let replacementStart: [Int32]
    let replacementCount: [UInt8]
    let replacements: [UInt32]
    /// Per entry: the ASCII letter the scalar imitates, 0 when none; with ``leetOnly`` set, a reading that
    /// only `leet` makes (other scripts' look-alikes, accented Latin letters).
    let lookalike: [UInt8]
    static let leetOnly: UInt8 = 0x80
    /// Per entry: whether `standard` maps its scalar on its own, whatever stands around it: it is no look-alike
    /// letter `standard` reads (no `lookalike` without ``leetOnly``), nor is any scalar of its compatibility
    /// replacement. (A look-alike letter's reading depends on its whole word; see `_TextNormalizer.appendLocal`.)
    let isLocalUnderStandard: [Bool]
    /// Canonical composition: `first << 32 | second` → composite (NFC's pairs).
    let compositions: [UInt64: UInt32]
    /// The canonical combining class of each scalar that is the second of a composition pair.
    let combiningClass: [UInt32: UInt8]

    init() {
        var map: [UInt32: (repl: [UInt32]?, look: UInt8)] = Dictionary(minimumCapacity: 9_200)
        Self.entries(_NormalizationTables.compatibility) { key, value in
            var repl: [UInt32] = []
            var v: UInt32 = 0
            var digits = 0
            for b in value {
                if b == 0x20 {
                    if digits > 0 { repl.append(v) }
                    v = 0
                    digits = 0
                } else {
                    v = v << 4 | Self.hexDigit(b)
                    digits += 1
                }
            }
            if digits > 0 { repl.append(v) }
            map[key, default: (nil, 0)].repl = repl
        }
        Self.entries(_NormalizationTables.confusables) { key, value in
            map[key, default: (nil, 0)].look = value.first!
        }
        Self.entries(_NormalizationTables.leetConfusables) { key, value in
            if map[key]?.look ?? 0 == 0 { map[key, default: (nil, 0)].look = value.first! | Self.leetOnly }
        }
        compositions = Self.compositionPairs()
        combiningClass = Self.combiningClasses()
        var s1 = [UInt16](repeating: 0xFFFF, count: 0x1100)
        var s2: [UInt16] = []
        var starts: [Int32] = []
        var counts: [UInt8] = []
        var flat: [UInt32] = []
        var looks: [UInt8] = []
        for key in map.keys.sorted() {
            let (repl, look) = map[key]!
            let block = Int(key >> 8)
            if s1[block] == 0xFFFF {
                s1[block] = UInt16(s2.count >> 8)
                s2 += [UInt16](repeating: 0, count: 256)
            }
            s2[Int(s1[block]) << 8 | Int(key & 0xFF)] = UInt16(looks.count + 1)
            if let repl {
                starts.append(Int32(flat.count))
                counts.append(UInt8(repl.count))
                flat += repl
            } else {
                starts.append(-1)
                counts.append(0)
            }
            looks.append(look)
        }
        stage1 = s1
        stage2 = s2
        replacementStart = starts
        replacementCount = counts
        replacements = flat
        lookalike = looks
        // (`entry` on the tables just built, before `self` is complete.)
        func standardLookalike(_ scalar: UInt32) -> Bool {
            let hi = Int(scalar >> 8)
            guard hi < s1.count, s1[hi] != 0xFFFF else { return false }
            let e = Int(s2[Int(s1[hi]) << 8 | Int(scalar & 0xFF)]) - 1
            return e >= 0 && looks[e] != 0 && looks[e] & Self.leetOnly == 0
        }
        isLocalUnderStandard = map.keys.sorted().map { key in
            let (repl, _) = map[key]!
            return !standardLookalike(key) && !(repl ?? []).contains(where: standardLookalike)
        }
    }

    /// NFC's composition pairs from `_NormalizationTables.compositions`: items `A B:C` (hex), read from the
    /// UTF-8 bytes.
    static func compositionPairs() -> [UInt64: UInt32] {
        var pairs: [UInt64: UInt32] = Dictionary(minimumCapacity: 1_000)
        var numbers: [UInt32] = []
        var v: UInt32 = 0
        var digits = 0
        for b in _NormalizationTables.compositions.utf8 {
            if b == 0x20 || b == 0x3A || b == 0x3B || b == 0x0A {
                if digits > 0 { numbers.append(v) }
                v = 0
                digits = 0
                if b == 0x3B, numbers.count == 3 { pairs[UInt64(numbers[0]) << 32 | UInt64(numbers[1])] = numbers[2] }
                if b == 0x3B { numbers.removeAll(keepingCapacity: true) }
            } else {
                v = v << 4 | Self.hexDigit(b)
                digits += 1
            }
        }
        return pairs
    }

    /// The canonical combining classes of `_NormalizationTables.combiningClasses`.
    static func combiningClasses() -> [UInt32: UInt8] {
        var classes: [UInt32: UInt8] = [:]
        Self.entries(_NormalizationTables.combiningClasses) { key, value in
            var v: UInt32 = 0
            for b in value { v = v << 4 | Self.hexDigit(b) }
            classes[key] = UInt8(v)
        }
        return classes
    }

    /// Calls `entry(scalar, value bytes)` for each `HEX:value` item of a table (items separated by `;` or line
    /// breaks, leading spaces ignored). Parses UTF-8 bytes: splitting the 9,000 items as `Character`s cost
    /// 113M instructions at every start (callgrind), a quarter of `classify`'s start-up.
    static func entries(_ table: String, _ entry: (UInt32, ArraySlice<UInt8>) -> Void) {
        let bytes = Array(table.utf8)
        let n = bytes.count
        var i = 0
        while i < n {
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x3B { i += 1 }
            guard i < n else { break }
            var key: UInt32 = 0
            while i < n, bytes[i] != 0x3A {
                key = key << 4 | hexDigit(bytes[i])
                i += 1
            }
            precondition(i < n, "normalisation table: an item without a colon")
            i += 1
            let start = i
            while i < n, bytes[i] != 0x3B, bytes[i] != 0x0A { i += 1 }
            entry(key, bytes[start..<i])
        }
    }

    static func hexDigit(_ b: UInt8) -> UInt32 {
        switch b {
        case 0x30...0x39: UInt32(b - 0x30)
        case 0x41...0x46: UInt32(b - 0x41 + 10)
        case 0x61...0x66: UInt32(b - 0x61 + 10)
        default: preconditionFailure("normalisation table: \(b) is not a hex digit")
        }
    }

    /// The entry of `scalar`, -1 when it has none.
    @inline(__always)
    func entry(_ scalar: UInt32) -> Int {
        let hi = Int(scalar >> 8)
        guard hi < stage1.count else { return -1 }
        let block = stage1[hi]
        if block == 0xFFFF { return -1 }
        return Int(stage2[Int(block) << 8 | Int(scalar & 0xFF)]) - 1
    }
}
