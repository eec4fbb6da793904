/// The canonical binary encoding of a ``RuleSetDefinition`` (the `.smsf` rule-table section).
/// Deterministic: the same rules always encode to the same bytes, so its hash is the rule set's checksum.
enum _DefinitionCodec {
    static func encode(_ d: RuleSetDefinition) -> [UInt8] {
        var w = _ByteWriter()
        w.u32(UInt32(d.version))
        w.u8(d.capabilities.isDeclared ? 1 : 0)
        w.u32(UInt32(d.capabilities._mask))
        w.i32(d.defaultCountryCode)
        w.u32(UInt32(d.rules.count))
        for r in d.rules {
            w.string(r.name)
            w.u8(UInt8(r.action.rawValue))
            w.u32(UInt32(r.subAction.rawValue))
            w.i64(Int64(r.priority))
            w.strings(r.keywords)
            w.strings(r.unless)
            w.u32(UInt32(r.all.count))
            for g in r.all { w.strings(g) }
            w.u8(r.caseFold.rawValue)
            w.u8(r.wholeWord ? 1 : 0)
            w.u32(UInt32(r.line))
            w.u32(UInt32(r.subActionLine))
            // Flags: 1 a sender condition follows, 2 `unlessSender` conditions follow (a count, then each): a
            // rule without `unlessSender` encodes as before it existed (the same bytes, the same checksum).
            w.u8((r.sender == nil ? 0 : 1) | (r.unlessSender.isEmpty ? 0 : 2))
            if let s = r.sender { _encodeSender(s, into: &w) }
            if !r.unlessSender.isEmpty {
                w.u32(UInt32(r.unlessSender.count))
                for s in r.unlessSender { _encodeSender(s, into: &w) }
            }
            _ConditionCodec.encode(r, into: &w)
        }
        w.u32(UInt32(d.blockList.count))
        for n in d.blockList { w.i64(n) }
        w.u32(UInt32(d.identificationNumbers.count))
        for (n, l) in zip(d.identificationNumbers, d.identificationLabels) {
            w.i64(n)
            w.i32(l)
        }
        w.strings(d.labels)
        _ModelCodec.encode(d, into: &w)
        return w.buffer
    }

    /// One sender condition.
    static func _encodeSender(_ s: SenderCondition, into w: inout _ByteWriter) {
        w.strings(s.exact)
        w.strings(s.prefix)
        w.strings(s.kinds.map(\.rawValue))
        w.bytes(s.suffixes.map(\.rawValue))
        w.strings(s.entities)
        w.u32(UInt32(s.countryCodes.count))
        for c in s.countryCodes { w.i32(c) }
    }

    /// Decodes and re-validates everything (names, enum values, list order, label indices).
    /// `checkShapes`: see `_ModelCodec.decode`.
    static func decode(_ bytes: UnsafeRawBufferPointer, checkShapes: Bool = true) throws -> RuleSetDefinition {
        var r = _ByteReader(bytes)
        var d = RuleSetDefinition()
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        d.version = Int(try r.u32())
        guard d.version == 1 else { throw fail("rule-file version \(d.version)") }
        let declared = try r.u8()
        let mask = try r.u32()
        guard declared <= 1, mask <= 0x0FFF else { throw fail("capabilities") }
        d.capabilities = Capabilities(_mask: UInt16(mask), isDeclared: declared == 1)
        d.defaultCountryCode = try r.i32()
        guard (1...999).contains(d.defaultCountryCode) else { throw fail("default country code") }
        let n = try r.count(minimumBytesEach: 30)
        var names = Set<String>()
        for _ in 0..<n { d.rules.append(try _decodeRule(&r, names: &names)) }
        try _decodeLists(&r, into: &d)
        try _ModelCodec.decode(&r, into: &d, checkShapes: checkShapes)
        guard r.remaining == 0 else { throw fail("trailing bytes in the rule table") }
        return d
    }

    /// One rule of the rule table (its name new in `names`).
    static func _decodeRule(_ r: inout _ByteReader, names: inout Set<String>) throws -> RuleDefinition {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        let name = try r.string()
        guard RuleDefinition.isValidName(name), names.insert(name).inserted
        else { throw fail("rule name") }
        guard let action = Action(rawValue: Int(try r.u8())) else { throw fail("action") }
        var rule = RuleDefinition(name: name, action: action)
        guard let sub = SubAction(rawValue: Int(try r.u32())) else { throw fail("sub-action") }
        rule.subAction = sub
        rule.priority = Int(try r.i64())
        // Not abs(): abs(Int.min) traps.
        guard (-1_000_000...1_000_000).contains(rule.priority) else { throw fail("priority") }
        rule.keywords = try r.strings()
        rule.unless = try r.strings()
        let groups = try r.count(minimumBytesEach: 4)
        guard groups <= 64 else { throw fail("all groups") }
        for _ in 0..<groups {
            let g = try r.strings()
            guard !g.isEmpty else { throw fail("empty all group") }
            rule.all.append(g)
        }
        for p in rule.keywords + rule.unless + rule.all.flatMap({ $0 }) where p.isEmpty { throw fail("empty phrase") }
        guard let fold = CaseFoldMode(rawValue: try r.u8()) else { throw fail("case folding") }
        rule.caseFold = fold
        let whole = try r.u8()
        guard whole <= 1 else { throw fail("wholeWord") }
        rule.wholeWord = whole == 1
        rule.line = Int(try r.u32())
        rule.subActionLine = Int(try r.u32())
        let senderFlags = try r.u8()
        guard senderFlags <= 3 else { throw fail("sender flag") }
        if senderFlags & 1 != 0 { rule.sender = try _decodeSender(&r) }
        if senderFlags & 2 != 0 {
            let n = try r.count(minimumBytesEach: 24)
            guard n > 0 else { throw fail("empty unlessSender") }
            for _ in 0..<n { rule.unlessSender.append(try _decodeSender(&r)) }
        }
        try _ConditionCodec.decode(into: &rule, from: &r)
        guard rule.needsText || rule.sender != nil else { throw fail("rule without condition") }
        return rule
    }

    /// A rule's sender condition.
    static func _decodeSender(_ r: inout _ByteReader) throws -> SenderCondition {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        var s = SenderCondition()
        s.exact = try r.strings()
        s.prefix = try r.strings()
        for k in try r.strings() {
            guard let kind = SenderKind(rawValue: k) else { throw fail("sender kind") }
            s.kinds.append(kind)
        }
        for b in try r.bytes() {
            guard let suffix = TRAISuffix(rawValue: b) else { throw fail("TRAI suffix") }
            s.suffixes.append(suffix)
        }
        s.entities = try r.strings()
        let cc = try r.count(minimumBytesEach: 4)
        for _ in 0..<cc { s.countryCodes.append(try r.i32()) }
        return s
    }

    /// The block list, the identification list and its labels, each in order and checked.
    static func _decodeLists(_ r: inout _ByteReader, into d: inout RuleSetDefinition) throws {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        let blocks = try r.count(minimumBytesEach: 8)
        d.blockList.reserveCapacity(blocks)
        for _ in 0..<blocks {
            let v = try r.i64()
            guard v >= 0, v <= NumberListReader.maximumNumber, v > (d.blockList.last ?? -1) else { throw fail("block list order") }
            d.blockList.append(v)
        }
        let ids = try r.count(minimumBytesEach: 12)
        var labelIndices: [Int32] = []
        for _ in 0..<ids {
            let v = try r.i64()
            guard v >= 0, v <= NumberListReader.maximumNumber, v > (d.identificationNumbers.last ?? -1) else { throw fail("identification list order") }
            d.identificationNumbers.append(v)
            labelIndices.append(try r.i32())
        }
        d.labels = try r.strings()
        guard d.labels.allSatisfy(RuleDefinition.isValidName) else { throw fail("label") }
        guard labelIndices.allSatisfy({ $0 >= 0 && Int($0) < d.labels.count }) else { throw fail("label index") }
        d.identificationLabels = labelIndices
    }
}
