// MARK: Internal API

/// The learned model's read-only tables, as its scan reads them: one bundle, built in one place, instead of
/// pointers copied field by field into every structure the scan uses. Three parts, each taken whole by the
/// step that reads it:
///
/// - `index` (`_ModelPhraseIndex`): the phrases' hash table, filter and patterns (`lookup`, `verify`);
/// - `runs` (`_ModelRunLengths`): the part lengths a run is probed at and what they need (`_ModelScanPlan`);
/// - `weights` (`_ModelWeights`): the packed weight rows and which features are deferred (`_ModelHits`).
///
/// ### Ownership and lifetime
/// ```
///   _CompiledModel ──owns──▶ _ModelFeatureTable ──owns──▶ the memory (allocated in `init(…)` here, freed
///                                   │                      by `deallocate()` from the table's `deinit`)
///                                   └── tables: _ModelTables (borrowed pointers into that memory)
///   the scan, once per message, inside a call whose caller holds the compiled model:
///     let plan = _ModelScanPlan(table, scratch)        a copy of `tables.runs` (taken apart into registers)
///     var hits = _ModelHits(…, weights: …)             a copy of `tables.weights`
///     table.lookup(…)                                  `tables.index`, read through the table per probe
///   elsewhere: `table.withTables { … }` (the table kept alive for the closure)
/// ```
/// Only `_ModelFeatureTable` builds a bundle and frees it; nothing writes the tables after `init`. A copy is a
/// set of borrowed pointers, valid while the `_ModelFeatureTable` that built it lives (the rule set holds the
/// model, the classifier holds the rule set). - warning: Do not store a copy anywhere that can outlive its
/// table; nothing keeps one beyond the scoring of a message.
///
/// Why parts, not one flat struct for every step: the scan's plan is a `let` the optimiser keeps in registers;
/// holding the index's pointers too, they were hoisted out of the loop with it and spilled (7% more
/// instructions in the scan), where read through the table they are loaded at each probe.
///
/// Every table is allocated with at least one element (so no base address is nil) and the buffers' counts are
/// the tables' sizes; `_invariantProblem()` says what holds between them (`_ModelTables+Invariants.swift`).
/// Every index the scan makes is in range by those invariants (the comments at each read say why), so the
/// reads are unchecked.
struct _ModelTables {
    let index: _ModelPhraseIndex
    let runs: _ModelRunLengths
    let weights: _ModelWeights
    let featureCount: Int

    /// The one place a bundle is made: each table allocated (at least one element) and copied in. The caller
    /// owns the memory and frees it with `deallocate()`.
    init(slots: [UInt64], filter: [UInt64], patternBytes: [UInt8], patternStart: [Int32], wide: [Bool],
         partLength: [Int], partNeed: [UInt8], symbolLength: [Int], unspacedLength: [Int], maxWords: Int,
         maxPartScalars: Int, anyPart: Bool, maxDigitPart: Int, minUnspacedPart: Int, rows: [Float],
         rowStride: Int, targets: Int) {
        func copy<T>(_ a: [T]) -> UnsafeBufferPointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(1, a.count))
            p.initialize(from: a, count: a.count)
            return UnsafeBufferPointer(start: p, count: a.count)
        }
        index = _ModelPhraseIndex(slots: copy(slots), slotMask: slots.count - 1, filter: copy(filter),
                                  patternBytes: copy(patternBytes), patternStart: copy(patternStart))
        runs = _ModelRunLengths(partLength: copy(partLength), partNeed: copy(partNeed), symbolLength: copy(symbolLength),
                                unspacedLength: copy(unspacedLength), maxWords: maxWords, maxPartScalars: maxPartScalars,
                                anyPart: anyPart, maxDigitPart: maxDigitPart, minUnspacedPart: minUnspacedPart)
        weights = _ModelWeights(wide: copy(wide), rows: copy(rows), rowStride: rowStride, targets: targets)
        featureCount = wide.count
    }

    /// Frees every table (only the owner, once, from its `deinit`).
    func deallocate() {
        index.slots.deallocate()
        index.filter.deallocate()
        index.patternBytes.deallocate()
        index.patternStart.deallocate()
        runs.partLength.deallocate()
        runs.partNeed.deallocate()
        runs.symbolLength.deallocate()
        runs.unspacedLength.deallocate()
        weights.wide.deallocate()
        weights.rows.deallocate()
    }
}

/// The model's phrases as an open-addressing hash table with a filter before it, and their patterns to verify
/// a hit against (part of `_ModelTables`).
struct _ModelPhraseIndex {
    /// Slot: key's high 32 bits << 32 | feature + 1 (0: empty). Power-of-two count, at most half full.
    let slots: UnsafeBufferPointer<UInt64>
    /// `slots.count - 1`.
    let slotMask: Int
    /// 2^`filterBits`-bit filter over the keys (one bit per phrase): most lookups of absent candidates end here.
    let filter: UnsafeBufferPointer<UInt64>
    /// Per feature: its pattern (normalised, ASCII folded; word phrases without the spaces around them) in
    /// `patternBytes[patternStart[f]..<patternStart[f + 1]]` (`patternStart` has `featureCount + 1` entries).
    let patternBytes: UnsafeBufferPointer<UInt8>
    let patternStart: UnsafeBufferPointer<Int32>

    static let filterBits = 17

    /// The bytes the hash tables use: slots and filter.
    var tableBytes: Int { slots.count * 8 + filter.count * 8 }

    @inline(__always)
    static func filterIndex(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key >> 40) & ((1 << filterBits) - 1) }

    /// Passes to `hits` each phrase whose key is `key` and whose pattern is `text[a..<b)` (ASCII case
    /// ignored), in feature order.
    @inline(__always)
    func lookup(_ key: UInt64, _ text: UnsafePointer<UInt8>, _ a: Int, _ b: Int, _ hits: inout _ModelHits) {
        // Why in bounds: `filterIndex` is below 2^filterBits, 64 per filter word; a slot index is masked.
        let bit = Self.filterIndex(key)
        if filter[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return }
        let tag = key >> 32
        var i = Int(truncatingIfNeeded: key) & slotMask
        while true {
            let s = slots[i]
            if s == 0 { return }  // the table is at most half full: an empty slot ends every probe
            if s >> 32 == tag {
                let f = Int(truncatingIfNeeded: s & 0xFFFF_FFFF) &- 1  // a slot holds a feature < featureCount
                if verify(f, text + a, b &- a) { hits.hit(f, a, b) }
            }
            i = (i &+ 1) & slotMask
        }
    }

    /// Whether `n` bytes at `p` are feature `f`'s pattern, ASCII case ignored (patterns hold no ASCII capital).
    /// Compares 8 bytes at a time (the last word overlapping), folded as `_foldASCII8` folds; every load stays
    /// inside `[p, p + n)` and inside the pattern's own bytes.
    @inline(__always)
    func verify(_ f: Int, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let s = Int(patternStart[f])
        guard Int(patternStart[f &+ 1]) &- s == n else { return false }
        let pat = UnsafeRawPointer(patternBytes.baseAddress.unsafelyUnwrapped + s)
        let txt = UnsafeRawPointer(p)
        if n >= 8 {
            var i = 0
            while i &+ 8 < n {
                if _foldASCII8(txt.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    != pat.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
                i &+= 8
            }
            return _foldASCII8(txt.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
                == pat.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        }
        if n >= 4 {
            let t = UInt64(txt.loadUnaligned(as: UInt32.self)) | UInt64(txt.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) << 32
            let q = UInt64(pat.loadUnaligned(as: UInt32.self)) | UInt64(pat.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) << 32
            return _foldASCII8(t) == q
        }
        var i = 0
        while i < n {
            var c = p[i]
            if c &- 0x41 < 26 { c |= 0x20 }
            if c != pat.load(fromByteOffset: i, as: UInt8.self) { return false }
            i &+= 1
        }
        return true
    }
}

/// The part lengths (in scalars) a run is probed at, longest first, and what they need (part of
/// `_ModelTables`; the scan's plan holds a copy).
struct _ModelRunLengths {
    /// Part lengths for word runs, with what each length's phrases need (`_ModelFeatureTable.needUnspaced`,
    /// `needDigit`, `needNothing`). Same count.
    let partLength: UnsafeBufferPointer<Int>
    let partNeed: UnsafeBufferPointer<UInt8>
    /// Part lengths for symbol runs.
    let symbolLength: UnsafeBufferPointer<Int>
    /// The part lengths whose phrases are all unspaced-script characters: what a character of an unspaced run
    /// with no ASCII digit within `maxDigitPart` scalars can end.
    let unspacedLength: UnsafeBufferPointer<Int>
    /// The most words of a word phrase (0: no word phrase), and the longest part in scalars.
    let maxWords: Int
    let maxPartScalars: Int
    /// Whether some part phrase of word characters needs no digit and no unspaced script (every substring of
    /// every word run is then a candidate), the longest digit-piece length and the shortest unspaced length
    /// (`Int.max`: none).
    let anyPart: Bool
    let maxDigitPart: Int
    let minUnspacedPart: Int
}

/// What a phrase hit adds to the sums (part of `_ModelTables`; `_ModelHits` holds a copy): per feature its
/// packed row (`_CompiledModel.rows`: the weights, `targets` values, then the idf, then 1 or 0 for `trim`;
/// `rowStride` floats per row) and whether its automaton pattern had a byte ≥ 0x80 (`wide`: added after the
/// ASCII ones).
struct _ModelWeights {
    let wide: UnsafeBufferPointer<Bool>
    let rows: UnsafeBufferPointer<Float>
    let rowStride: Int
    let targets: Int
}
