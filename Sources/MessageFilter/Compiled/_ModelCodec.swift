/// The normalisation mode and the learned model in the `.smsf` rule table (appended after the number
/// lists; format version 3). All checked on load like the rest: enum values, counts against the bytes
/// left, finite numbers, unique phrases, one weight per target.
///
/// ```
/// u8 normalization (0 none, 1 standard, 2 leet)
/// u8 has model (0/1); then:
///   string name · u32 line · i64 priority · u8 has threshold · f32 threshold
///   u32 T · T × (u8 action, u32 sub-action) · T × f32 bias
///   u32 P · P × (u8 kind, string phrase, f32 idf, T × f32 weight)
///   string provenance
///   T × f32 margin (+inf: never) · i64 min script messages · u8 has scripts
///   u8 S · S × (u8 script, T × i64 real per target) · u8 G · G × (u8 script, i64 generated)   (version 5)
///   u8 has overrules · u8 S · S × (u8 script, 4 × T × f32 overrule margin (rows none, junk, promotion,
///   transaction; +inf: never)), scripts ascending                                                        (version 6)
/// ```
enum _ModelCodec {
    static func encode(_ d: RuleSetDefinition, into w: inout _ByteWriter) {
        w.u8(d.normalization.rawValue)
        guard let m = d.model else {
            w.u8(0)
            return
        }
        w.u8(1)
        w.string(m.name)
        w.u32(UInt32(m.line))
        w.i64(Int64(m.priority))
        w.u8(m.threshold == nil ? 0 : 1)
        w.u32((m.threshold ?? 0).bitPattern)
        w.u32(UInt32(m.targets.count))
        for t in m.targets {
            w.u8(UInt8(t.action.rawValue))
            w.u32(UInt32(t.subAction.rawValue))
        }
        for b in m.bias { w.u32(b.bitPattern) }
        w.u32(UInt32(m.phrases.count))
        for p in m.phrases {
            w.u8(p.kind.rawValue)
            w.string(p.text)
            w.u32(p.idf.bitPattern)
            for x in p.weights { w.u32(x.bitPattern) }
        }
        w.string(m.provenance)
        _encodeScope(m, into: &w)
        _encodeOverrules(m, into: &w)
    }

    /// - Parameter checkShapes: check each phrase's shape (``ModelDefinition/shapeProblem(_:kind:normalization:)``);
    ///   false only for the embedded default model, whose shapes a test checks (`DefaultRulesTests`).
    static func decode(_ r: inout _ByteReader, into d: inout RuleSetDefinition, checkShapes: Bool = true) throws {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        guard let mode = TextNormalization(rawValue: try r.u8()) else { throw fail("normalization") }
        d.normalization = mode
        let has = try r.u8()
        guard has <= 1 else { throw fail("model flag") }
        guard has == 1 else { return }
        var m = ModelDefinition()
        m.name = try r.string()
        guard RuleDefinition.isValidName(m.name), !d.rules.contains(where: { $0.name == m.name }) else { throw fail("model name") }
        m.line = Int(try r.u32())
        let priority = try r.i64()
        // Not abs(): abs(Int64.min) traps (a re-signed file can hold it).
        guard (-1_000_000...1_000_000).contains(priority) else { throw fail("model priority") }
        m.priority = Int(priority)
        let hasThreshold = try r.u8()
        let threshold = Float(bitPattern: try r.u32())
        guard hasThreshold <= 1, threshold.isFinite else { throw fail("model threshold") }
        m.threshold = hasThreshold == 1 ? threshold : nil
        let t = try r.count(minimumBytesEach: 9)
        guard t >= 2 else { throw fail("model targets") }
        for _ in 0..<t {
            guard let action = Action(rawValue: Int(try r.u8())), let sub = SubAction(rawValue: Int(try r.u32())),
                  sub.isValid(with: action) else { throw fail("model target") }
            let target = ModelDefinition.Target(action: action, subAction: sub)
            guard !m.targets.contains(target) else { throw fail("model target given twice") }
            m.targets.append(target)
        }
        for _ in 0..<t {
            let b = Float(bitPattern: try r.u32())
            guard b.isFinite else { throw fail("model bias") }
            m.bias.append(b)
        }
        let p = try r.count(minimumBytesEach: 9 + 4 * t)
        m.phrases.reserveCapacity(p)
        // Duplicates by bytes (a `Set<String>` hashes every non-ASCII phrase through NFC: 31M instructions for
        // a 10k-phrase Thai model); the automaton matches bytes, so byte-distinct phrases are distinct patterns.
        var seen = Set<_PhraseKey>(minimumCapacity: p)
        for _ in 0..<p {
            guard let kind = ModelDefinition.MatchKind(rawValue: try r.u8()) else { throw fail("model phrase kind") }
            let text = try r.string()
            guard !text.isEmpty, seen.insert(_PhraseKey(kind: kind.rawValue, text)).inserted,
                  !checkShapes || ModelDefinition.shapeProblem(text, kind: kind, normalization: d.normalization) == nil
            else { throw fail("model phrase") }
            let idf = Float(bitPattern: try r.u32())
            guard idf.isFinite, idf > 0 else { throw fail("model idf") }
            var weights: [Float] = []
            weights.reserveCapacity(t)
            for _ in 0..<t {
                let x = Float(bitPattern: try r.u32())
                guard x.isFinite else { throw fail("model weight") }
                weights.append(x)
            }
            m.phrases.append(.init(text: text, kind: kind, idf: idf, weights: weights))
        }
        m.provenance = try r.string()
        try _decodeScope(&r, into: &m)
        try _decodeOverrules(&r, into: &m)
        d.model = m
    }

    /// Where the model speaks: its margins and its script counts (version 5).
    static func _encodeScope(_ m: ModelDefinition, into w: inout _ByteWriter) {
        for k in 0..<m.targets.count { w.u32((m.margins.isEmpty ? 0 : m.margins[k]).bitPattern) }
        w.i64(Int64(m.minScriptMessages))
        // The flag byte: bit 0, script counts follow; bit 1, links need company (`links: company`).
        w.u8((m.scripts == nil ? 0 : 1) | (m.linksNeedCompany ? 2 : 0))
        let scripts = m.scripts ?? [:]
        let present = Script.allCases.filter { scripts[$0] != nil }
        w.u8(UInt8(present.count))
        for s in present {
            w.u8(s.rawValue)
            for n in scripts[s]! { w.i64(Int64(n)) }
        }
        let generated = Script.allCases.filter { (m.generatedScripts[$0] ?? 0) > 0 }
        w.u8(UInt8(generated.count))
        for s in generated {
            w.u8(s.rawValue)
            w.i64(Int64(m.generatedScripts[s]!))
        }
    }

    static func _decodeScope(_ r: inout _ByteReader, into m: inout ModelDefinition) throws {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        var margins: [Float] = []
        for _ in 0..<m.targets.count {
            let x = Float(bitPattern: try r.u32())
            guard x >= 0, !x.isNaN else { throw fail("model margin") }
            margins.append(x)
        }
        m.margins = margins.allSatisfy { $0 == 0 } ? [] : margins
        let minimum = try r.i64()
        guard minimum >= 0, minimum <= 1_000_000_000 else { throw fail("model script minimum") }
        m.minScriptMessages = Int(minimum)
        let flags = try r.u8()
        guard flags <= 3 else {
            throw fail("model flag byte 0x\(String(flags, radix: 16, uppercase: true)) (known bits: 0x1 script counts, 0x2 links need company)")
        }
        let hasScripts = flags & 1
        m.linksNeedCompany = flags & 2 != 0
        var scripts: [Script: [Int]] = [:]
        for _ in 0..<Int(try r.u8()) {
            guard let s = Script(rawValue: try r.u8()), scripts[s] == nil else { throw fail("model script") }
            var row: [Int] = []
            for _ in 0..<m.targets.count {
                let n = try r.i64()
                guard n >= 0, n <= 1_000_000_000_000 else { throw fail("model script count") }
                row.append(Int(n))
            }
            scripts[s] = row
        }
        m.scripts = hasScripts == 1 ? scripts : nil
        var generated: [Script: Int] = [:]
        for _ in 0..<Int(try r.u8()) {
            guard let s = Script(rawValue: try r.u8()), generated[s] == nil else { throw fail("model script") }
            let n = try r.i64()
            guard n > 0, n <= 1_000_000_000_000 else { throw fail("model script count") }
            generated[s] = Int(n)
        }
        m.generatedScripts = generated
    }
}

extension _ModelCodec {
    /// What the model needs to overrule a hand rule (version 6).
    static func _encodeOverrules(_ m: ModelDefinition, into w: inout _ByteWriter) {
        guard let overrules = m.overrules else {
            w.u8(0)
            return
        }
        w.u8(1)
        let table = ModelDefinition.canonicalOverrules(overrules, targets: m.targets)
        let scripts = Script.allCases.filter { table[$0] != nil }
        w.u8(UInt8(scripts.count))
        for script in scripts {
            w.u8(script.rawValue)
            for row in ModelDefinition.overruleRows {
                for x in table[script]![row]! { w.u32(x.bitPattern) }
            }
        }
    }

    static func _decodeOverrules(_ r: inout _ByteReader, into m: inout ModelDefinition) throws {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        let has = try r.u8()
        guard has <= 1 else { throw fail("model overrules flag") }
        guard has == 1 else {
            m.overrules = nil
            return
        }
        let count = Int(try r.u8())
        guard count <= Script.allCases.count else { throw fail("model overrule script count") }
        var table: [Script: [Action: [Float]]] = [:]
        var previous = -1
        for _ in 0..<count {
            let raw = try r.u8()
            // Scripts ascending, each once.
            guard let script = Script(rawValue: raw), Int(raw) > previous else { throw fail("model overrule script") }
            previous = Int(raw)
            var rows: [Action: [Float]] = [:]
            for row in ModelDefinition.overruleRows {
                var margins: [Float] = []
                for t in 0..<m.targets.count {
                    let x = Float(bitPattern: try r.u32())
                    guard x >= 0, !x.isNaN else { throw fail("model overrule margin") }
                    // Canonical: a target with the row's own action never overrules it.
                    guard ModelDefinition.overruleRow(m.targets[t].action) != row || x == .infinity else { throw fail("model overrule margin") }
                    margins.append(x)
                }
                rows[row] = margins
            }
            table[script] = rows
        }
        m.overrules = table
    }
}

/// A phrase compared by its UTF-8 bytes (and a tag), hashed with `_Checksum` in one call: a cheaper key than a
/// `String`, whose hashing normalises non-ASCII text to NFC.
struct _PhraseKey: Hashable {
    let tag: UInt8
    let bytes: [UInt8]
    let digest: UInt64

    init(kind tag: UInt8, _ text: String) {
        self.tag = tag
        bytes = Array(text.utf8)
        digest = _Checksum.hash(bytes) ^ UInt64(tag)
    }

    init(tag: UInt8, bytes: [UInt8]) {
        self.tag = tag
        self.bytes = bytes
        digest = _Checksum.hash(bytes) ^ UInt64(tag)
    }

    static func == (a: _PhraseKey, b: _PhraseKey) -> Bool { a.digest == b.digest && a.tag == b.tag && a.bytes == b.bytes }
    func hash(into h: inout Hasher) { h.combine(digest) }
}
