import AhoCorasick
import Foundation

// MARK: Internal API
//
// The model's phrases found by one Aho-Corasick automaton over the model's text, instead of
// the hashed scan of `_ModelFeatures.swift` plus the text phrases' own automaton. Every phrase the hashed scan
// can find is a plain substring match, except the word phrases' outer boundaries:
//
//   part phrase of word characters: an occurrence is all word characters, so it lies inside one word run; an
//     unspaced-script phrase's occurrence is all unspaced characters; a digit piece's occurrence holds its
//     digit. So the hashed scan's conditions (`_ModelFeatureTable.needUnspaced` …) hold for every occurrence.
//   part phrase of symbols: an occurrence is all non-word characters that are not the ASCII space: inside one
//     symbol run.
//   word phrase `w1 w2 … wk`: an occurrence of its bytes has exactly one ASCII space between two words (the
//     phrase's bytes say so); it is a phrase hit when the character before it and the one after it are not
//     word characters (or are the text's ends): checked per occurrence (`_modelWordBefore`, `_modelWordAt`).
//   text phrase: any occurrence (as `_TextPhrases`).
//
// Phrases the hashed scan can never find (`_ModelFeatureTable.findable`: a word phrase holding a symbol, a part
// phrase mixing word characters with others) are left out, so the features found are exactly the same.
// Per match state the automaton lists every phrase ending there (along its output links): first the
// phrases without a boundary test (longest first, then by feature), then the word phrases (longest first).
// The scan takes the automaton's match states (`AhoCorasick.matchStates`); a state met again in the same
// message skips its unconditional phrases (present already); its word phrases are tested again (a boundary
// may fail at one occurrence and hold at the next).
//
// The order into the sums is the hashed scan's (by end; at one end parts, then words, each longest first;
// then the text phrases; then every phrase of a non-ASCII pattern), so scores are bit for bit the same.
//
// Not the default: chosen only by SMSFILTER_MODEL_SCAN (`_ModelAutomaton.requested`), for measuring. Where the
// model scans it runs fewer instructions than the hashed scan, but its tables (four times the hashed scan's)
// miss the caches more often, so it takes more CPU time on most corpora; it is also built at every start (no
// `.smsf` carries it) and slows `learn` (docs/PERFORMANCE.md, "The model in the automaton", "In time").

/// The model's phrases in one automaton (immutable after `init`, shared by every classifier of a rule set).
/// Its per-state and per-feature lists are one bundle (`_ModelAutomatonTables`), built in `init` and freed in
/// `deinit`; the scan (`_modelAutomatonScan`) reads them through this object, which its caller's compiled model
/// holds, and anything else through `withTables`.
final class _ModelAutomaton: @unchecked Sendable {
    let automaton: AhoCorasick
    /// Borrowed by the scan while the caller holds this object (see `_ModelAutomatonTables`).
    let tables: _ModelAutomatonTables
    let matchStateCount: Int

    /// Nil when the model has no phrase the automaton can find.
    init?(patterns: [[UInt8]], kinds: [ModelDefinition.MatchKind], table: _ModelFeatureTable) {
        var list: [Pattern] = []
        var feature: [Int32] = []
        var length = [Int32](repeating: 0, count: kinds.count)
        var route = [UInt8](repeating: 0, count: kinds.count)
        for (f, kind) in kinds.enumerated() {
            var p = patterns[f]
            if kind == .word, p.count >= 2, p.first == 0x20, p.last == 0x20 { p = Array(p[1..<(p.count - 1)]) }
            guard !p.isEmpty, kind == .text || table.findable[f] else { continue }
            list.append(Pattern(p))
            feature.append(Int32(f))
            length[f] = Int32(p.count)
            route[f] = kind == .text ? 1 : table.tables.weights.wide[f] ? 2 : 0
        }
        guard !list.isEmpty else { return nil }
        var builder = AhoCorasickBuilder()
        builder.matchKind = .standard
        builder.caseFolding = .ascii
        switch Self.engine {
        case "dfa": builder.engine = .dfa
        case "compact": builder.engine = .compact
        case "nfa": builder.engine = .nfa
        default: break
        }
        guard let automaton = try? builder.build(list) else { return nil }
        var meta: [UInt64] = [0]
        var entries: [Int32] = []
        for state in stride(from: 1, through: automaton.matchStateCount, by: 1) {
            let fs = automaton.patterns(inMatchState: state).map { feature[$0] }
            let plain = fs.filter { kinds[Int($0)] != .word }
            let words = fs.filter { kinds[Int($0)] == .word }
            guard plain.count <= 0xFFFF, words.count <= 0xFFFF, entries.count <= Int(UInt32.max) else { return nil }
            meta.append(UInt64(entries.count) << 32 | UInt64(plain.count) << 16 | UInt64(words.count))
            entries += plain + words
        }
        self.automaton = automaton
        if getenv("SMSFILTER_MODEL_SCAN_VERBOSE") != nil {
            FileHandle.standardError.write(Data("model automaton: \(automaton.engineDescription), \(automaton.matchStateCount) match states\n".utf8))
        }
        matchStateCount = automaton.matchStateCount
        tables = _ModelAutomatonTables(state: meta, entry: entries, length: length, route: route)
    }

    deinit { tables.deallocate() }

    /// Lends the tables to `body`, this object kept alive until it returns: the scoped way to read them where
    /// nothing else holds the automaton (checks, tests). The scan reads `tables` directly, inside calls whose
    /// caller holds the compiled model (and so this object).
    /// - warning: Do not let the bundle escape `body`.
    func withTables<R>(_ body: (_ModelAutomatonTables) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(tables) }
    }

    /// Whether the scan should use the automaton: the `SMSFILTER_MODEL_SCAN` environment variable, read when a
    /// model is compiled, is `automaton` (the builder's engine: the compact DFA for the default model) or
    /// `automaton-dfa`, `automaton-compact`, `automaton-nfa`. For measuring the two schemes side by side
    /// (`Scripts/measure-model-automaton.sh`) and for the test that holds them equal (`ModelAutomatonTests`).
    static var requested: Bool {
        guard let v = getenv("SMSFILTER_MODEL_SCAN") else { return false }
        return String(cString: v).hasPrefix("automaton")
    }

    /// The engine asked for (see `requested`; "": the builder's choice).
    static var engine: String {
        guard let v = getenv("SMSFILTER_MODEL_SCAN") else { return "" }
        let s = String(cString: v)
        return s.hasPrefix("automaton-") ? String(s.dropFirst("automaton-".count)) : ""
    }
}

/// The lists the automaton's scan reads per match state and per feature, as one bundle of borrowed pointers
/// (the style of `_ModelTables`): built only by `_ModelAutomaton.init`, read-only afterwards, freed by
/// `deallocate()` from the automaton's `deinit`. A copy is valid while the `_ModelAutomaton` that built it
/// lives. - warning: Do not store a copy anywhere that can outlive its automaton.
/// Every table has at least one element (no base address is nil); the reads are unchecked, in range because
/// the automaton reports states 1…`matchStateCount` (`state` has one more entry, 0 unused), a state's list
/// lies inside `entry` and every entry is a feature below `length.count` = `route.count`.
struct _ModelAutomatonTables {
    /// Match state s (1…M): `state[s]` = first << 32 | unconditional count << 16 | word count; its phrases are
    /// `entry[first ..< first + unconditional + words]`, the last `words` of them word phrases (boundary-tested).
    let state: UnsafeBufferPointer<UInt64>
    let entry: UnsafeBufferPointer<Int32>
    /// Per feature: its pattern's length in bytes (a word phrase without the spaces around it).
    let length: UnsafeBufferPointer<Int32>
    /// Per feature: into the sums at once (0), after the whole scan (1: text phrases), after those (2: word and
    /// part phrases of non-ASCII patterns, as `_ModelFeatureTable.wide`).
    let route: UnsafeBufferPointer<UInt8>

    /// Each list allocated (at least one element) and copied in; the caller frees them with `deallocate()`.
    init(state: [UInt64], entry: [Int32], length: [Int32], route: [UInt8]) {
        func copy<T>(_ a: [T]) -> UnsafeBufferPointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(1, a.count))
            p.initialize(from: a, count: a.count)
            return UnsafeBufferPointer(start: p, count: a.count)
        }
        self.state = copy(state)
        self.entry = copy(entry)
        self.length = copy(length)
        self.route = copy(route)
    }

    /// Frees every list (only the owner, once, from its `deinit`).
    func deallocate() {
        state.deallocate()
        entry.deallocate()
        length.deallocate()
        route.deallocate()
    }
}

/// Whether the character that ends just before byte `a` of `text` (`a > 0`) is a word character
/// (`_modelWordAt`, the hashed scan's rule; a byte that no valid scalar ends at `a` is an invalid byte on its
/// own: a symbol).
@inline(__always)
func _modelWordBefore(_ text: UnsafeRawBufferPointer, _ a: Int, _ flags: _ScalarFlags) -> Bool {
    var j = a &- 1
    if text[j] >= 0x80 {
        // Back over continuation bytes (at most 3) to a lead byte: the character starts there when that lead
        // decodes to a scalar ending exactly at `a`.
        var back = 0
        while j > 0, back < 3, text[j] & 0xC0 == 0x80 {
            j &-= 1
            back &+= 1
        }
        let l = _decodeUTF8(text, j).1
        if l == 0 || j &+ l != a { return false }
    }
    return _modelWordAt(text, j, flags)
}

extension _ModelHits {
    /// Phrase `f` is present at text bytes `[a, b)`: counted once, its span noted; into the sums now (`route`
    /// 0), into `later` (1: added after the scan) or into the deferred list (2).
    @inline(__always)
    mutating func hit(_ f: Int, _ a: Int, _ b: Int, route: UInt8, later: UnsafeMutablePointer<Int32>, laterCount: inout Int) {
        let stamp = buffers.stamp
        if stamp[f] == gen { return }
        stamp[f] = gen
        if let starts {
            buffers.firstStart[f] = starts[a]
            buffers.firstEnd[f] = ends.unsafelyUnwrapped[b &- 1]
        } else {
            buffers.firstStart[f] = Int32(truncatingIfNeeded: a)
            buffers.firstEnd[f] = Int32(truncatingIfNeeded: b)
        }
        if route == 0 {
            add(f)
        } else if route == 1 {
            later[laterCount] = Int32(truncatingIfNeeded: f)
            laterCount &+= 1
        } else {
            buffers.deferred[deferredCount] = Int32(truncatingIfNeeded: f)
            deferredCount &+= 1
        }
    }
}

extension Classifier {
    /// Passes every phrase present in `text` to `hits` through the model's automaton (`_ModelAutomaton`), in the
    /// hashed scan's order; the text phrases are added after the scan, before the deferred ones.
    func _modelAutomatonScan(_ m: _ModelAutomaton, _ text: UnsafeRawBufferPointer, _ s: _ModelScratch,
                             _ flags: _ScalarFlags, _ hits: inout _ModelHits) {
        let n = text.count
        guard n > 0 else { return }
        s.reservePositions(n)
        let positions = s.positions
        let count = m.automaton.matchStates(in: text, into: UnsafeMutableBufferPointer(start: positions, count: s.positionCapacity))
        let seen = s.stateStamp
        let gen = s.generation
        let tables = m.tables
        let meta = tables.state.baseAddress.unsafelyUnwrapped
        let entry = tables.entry.baseAddress.unsafelyUnwrapped
        let length = tables.length.baseAddress.unsafelyUnwrapped
        let route = tables.route.baseAddress.unsafelyUnwrapped
        let stamp = s.message.stamp
        let later = s.later
        var laterCount = 0
        var k = 0
        while k < count {
            let e = positions[k]
            k &+= 1
            // Why in bounds: the automaton writes states 1…M, the lists' size.
            let state = Int(truncatingIfNeeded: e >> 32)
            let end = Int(truncatingIfNeeded: e & 0xFFFF_FFFF)
            let info = meta[state]
            var q = Int(truncatingIfNeeded: info >> 32)
            let plain = Int(truncatingIfNeeded: (info >> 16) & 0xFFFF)
            let words = Int(truncatingIfNeeded: info & 0xFFFF)
            if plain > 0 {
                if seen[state] != gen {
                    seen[state] = gen
                    let last = q &+ plain
                    while q < last {
                        let f = Int(entry[q])
                        hits.hit(f, end &- Int(length[f]), end, route: route[f], later: later, laterCount: &laterCount)
                        q &+= 1
                    }
                } else {
                    q &+= plain
                }
            }
            if words > 0, end == n || !_modelWordAt(text, end, flags) {
                let last = q &+ words
                while q < last {
                    let f = Int(entry[q])
                    q &+= 1
                    if stamp[f] == gen { continue }
                    let a = end &- Int(length[f])
                    if a > 0 && _modelWordBefore(text, a, flags) { continue }
                    hits.hit(f, a, end, route: route[f], later: later, laterCount: &laterCount)
                }
            }
        }
        var d = 0
        while d < laterCount {
            hits.add(Int(later[d]))
            d &+= 1
        }
    }
}
