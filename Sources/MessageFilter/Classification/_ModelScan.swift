/// The model's scan (`Classifier._modelCandidates`) in pieces: what it reads of the table and the scratch per
/// message (`_ModelScanPlan`, built once), and its steps as pure functions that take everything by value and
/// return values (besides, the probes pass hits to the `inout _ModelHits` and the scalar step counts its script
/// in the `inout _ScriptTally`, as the loop did). The run's counters are not a state struct passed `inout`:
/// that kept them in memory across the loop or had the steps outlined (docs/PERFORMANCE.md, "The model's scan
/// in steps"). Each step is `@_transparent` (inlined before the optimiser, always): as `@inline(__always)` the
/// word-part probes were outlined (17% more instructions per byte).

/// What the scan reads per character, loaded once per message: the model's run lengths (`_ModelTables.runs`,
/// a copy of that part of the bundle `_ModelFeatureTable` owns) and the scratch's run ring. Pointers and integers only: a `let` of it
/// is taken apart into registers, where the table is a class whose fields would be re-read after every hit.
/// Borrowed for one message's scan (see `_ModelTables`, "Ownership and lifetime").
struct _ModelScanPlan {
    let runs: _ModelRunLengths
    let ring: UnsafeMutablePointer<Int32>
    let mask: Int

    @_transparent
    init(_ table: _ModelFeatureTable, _ s: _ModelScratch) {
        runs = table.tables.runs
        ring = s.message.ring
        mask = s.message.ringMask
    }

    var partCount: Int { @_transparent get { runs.partLength.count } }
    var symbolCount: Int { @_transparent get { runs.symbolLength.count } }
    var anyPart: Bool { @_transparent get { runs.anyPart } }
    var maxDigit: Int { @_transparent get { runs.maxDigitPart } }
    var minUnspaced: Int { @_transparent get { runs.minUnspacedPart } }
}

/// The scalar at byte `i` of `text` (its first byte ≥ 0x80): its length in bytes (1 for an invalid
/// sequence), whether it is a word character and whether of an unspaced script; a word character's script
/// goes into `tally`.
@_transparent
func _modelHighScalar(_ text: UnsafeRawBufferPointer, _ i: Int, _ flags: _ScalarFlags, _ blocks: UnsafePointer<UInt8>,
                      _ tally: inout _ScriptTally) -> (len: Int, word: Bool, isUnspaced: Bool) {
    let (v, l) = _decodeUTF8(text, i)
    if l == 0 { return (1, false, false) }
    guard flags.isWord(v) else { return (l, false, false) }
    let e = v < 0x10000 ? blocks[Int(v >> 7)] : _ScriptBlocks.mixed
    if e != _ScriptBlocks.mixed {
        tally.add(raw: e & 0x3F)
        return (l, true, e & _ScriptBlocks.unspaced != 0)
    }
    tally.add(Script.of(letter: v))
    return (l, true, PhraseCandidates.isUnspaced(v))
}

/// Whether ASCII byte `b` is a word character of the model's runs: a letter or a digit (what the scan's ASCII
/// step finds, `_modelCandidates`).
@_transparent
func _modelASCIIWord(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 }

/// Whether the character at byte `i` of `text` (`i < text.count`) is a word character as the model's scan
/// cuts runs: an ASCII letter or digit (`_modelASCIIWord`), a valid non-ASCII scalar that `flags.isWord`
/// (`_modelHighScalar`); an invalid byte is a symbol. The one word test of the model: the automaton's
/// word-phrase edges (`_ModelAutomaton`, `_modelWordBefore`) read characters by it.
@inline(__always)
func _modelWordAt(_ text: UnsafeRawBufferPointer, _ i: Int, _ flags: _ScalarFlags) -> Bool {
    let c = text[i]
    if c < 0x80 { return _modelASCIIWord(c) }
    let (v, l) = _decodeUTF8(text, i)
    return l > 0 && flags.isWord(v)
}

/// Probes the parts of a word run ending at `end` (the run's `runScalars`-th scalar ends there; its last ASCII
/// digit is scalar `lastDigit`, its last `unspaced` scalars are of an unspaced script), longest first.
@_transparent
func _modelProbeWordRun(_ table: _ModelFeatureTable, _ plan: _ModelScanPlan, _ p: UnsafePointer<UInt8>,
                        _ runScalars: Int, _ lastDigit: Int, _ unspaced: Int, _ end: Int, _ hits: inout _ModelHits) {
    guard plan.partCount > 0 else { return }
    if !plan.anyPart && runScalars &- lastDigit > plan.maxDigit {
        // No digit piece or any-substring part can end here: only unspaced n-grams.
        _modelProbeUnspaced(table, plan, p, runScalars, unspaced, end, &hits)
    } else {
        _modelProbeParts(table, plan, p, runScalars, lastDigit, unspaced, end, &hits)
    }
}

/// Probes the unspaced n-grams ending at `end` (the run's `runScalars`-th scalar ends there, the last
/// `unspaced` of them of an unspaced script): their bytes are all ≥ 0x80, hashed without folding; the same
/// lengths in the same order as `_modelProbeParts`.
@_transparent
func _modelProbeUnspaced(_ table: _ModelFeatureTable, _ plan: _ModelScanPlan, _ p: UnsafePointer<UInt8>,
                         _ runScalars: Int, _ unspaced: Int, _ end: Int, _ hits: inout _ModelHits) {
    guard unspaced >= plan.minUnspaced else { return }
    _modelProbeLengths(table, plan, p, plan.runs.unspacedLength, upTo: unspaced, runScalars, end,
                       seed: _ModelFeatureTable.partSeed, fold: false, &hits)
}

/// Probes the n-grams of the run ending at `end` (the run's `runScalars`-th scalar ends there) of each of the
/// `lengths` (longest first) up to `limit` scalars, their keys `_hash(…, seed:, fold:)`.
@_transparent
func _modelProbeLengths(_ table: _ModelFeatureTable, _ plan: _ModelScanPlan, _ p: UnsafePointer<UInt8>,
                        _ lengths: UnsafeBufferPointer<Int>, upTo limit: Int, _ runScalars: Int,
                        _ end: Int, seed: UInt64, fold: Bool, _ hits: inout _ModelHits) {
    let count = lengths.count
    var q = 0
    while q < count {
        let length = lengths[q]
        q &+= 1
        if length > limit { continue }
        let a = Int(plan.ring[(runScalars &- length) & plan.mask])
        table.lookup(_hash(p + a, end &- a, seed: seed, fold: fold), p, a, end, &hits)
    }
}

/// Probes the word-run parts ending at `end`, longest first: each length the run holds whose phrases' need
/// (nothing, an ASCII digit at or after scalar `lastDigit`, only unspaced scalars) the n-gram meets.
@_transparent
func _modelProbeParts(_ table: _ModelFeatureTable, _ plan: _ModelScanPlan, _ p: UnsafePointer<UInt8>,
                      _ runScalars: Int, _ lastDigit: Int, _ unspaced: Int, _ end: Int, _ hits: inout _ModelHits) {
    var q = 0
    while q < plan.partCount {
        let length = plan.runs.partLength[q]
        let need = plan.runs.partNeed[q]
        q &+= 1
        if length > runScalars { continue }
        if need & _ModelFeatureTable.needNothing != 0
            || (need & _ModelFeatureTable.needDigit != 0 && lastDigit >= runScalars &- length)
            || (need & _ModelFeatureTable.needUnspaced != 0 && unspaced >= length) {
            let a = Int(plan.ring[(runScalars &- length) & plan.mask])
            table.lookup(_foldedHash(p + a, end &- a, seed: _ModelFeatureTable.partSeed), p, a, end, &hits)
        }
    }
}

/// Probes the symbol-run parts ending at `end` (the run's `runScalars`-th scalar ends there), longest first.
@_transparent
func _modelProbeSymbols(_ table: _ModelFeatureTable, _ plan: _ModelScanPlan, _ p: UnsafePointer<UInt8>,
                        _ runScalars: Int, _ end: Int, _ hits: inout _ModelHits) {
    _modelProbeLengths(table, plan, p, plan.runs.symbolLength, upTo: runScalars, runScalars, end,
                       seed: _ModelFeatureTable.symbolSeed, fold: true, &hits)
}

/// The ASCII letters from byte `i` of `p` (`n` bytes) on, entered in the ring as the word run's scalars
/// `runScalars`, `runScalars + 1`, …; returns the byte after the last of them (`i`: none).
@_transparent
func _modelASCIILetters(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int, _ plan: _ModelScanPlan,
                        _ runScalars: Int) -> Int {
    var j = i
    var r = runScalars
    while j < n {
        if (p[j] | 0x20) &- 0x61 >= 26 { break }
        plan.ring[r & plan.mask] = Int32(truncatingIfNeeded: j)
        r &+= 1
        j &+= 1
    }
    return j
}
