// MARK: Internal API

import MessageFilter

/// Android "SMS Backup & Restore" XML, streamed: each `<sms …/>` start tag is a record; everything else (the
/// prolog, `<smses>`, `<mms>` elements, comments, CDATA, whitespace) passes through untouched, and `<mms>`
/// elements are counted. A rejected `<sms>` element is left out of the output.
///
/// No DTD is read and no entity is expanded (`_XMLText`), so a hostile document cannot grow or reach out.
final class _XMLDriver: _FormatDriver {
    let format = InputFormat.xml
    let layout: _SlotLayout
    /// Attribute names in lookup order: id, sender, body, then the layout's slots (timestamp, extras), then
    /// the four label attributes (`filter_action`…), which are left out when the record is written again.
    let names: _KeyTable
    let labelBase: Int
    let bodyName: String
    let options: _ReadOptions
    /// For each attribute name: the slots (timestamp, extras) that a later entry of the same name would
    /// fill (`--truth-field address`): the lookup finds only the first entry of a name.
    let aliases: [[Int]]

    static let idName = 0, senderName = 1, bodyName = 2, firstSlotName = 3

    init(options: _ReadOptions) {
        layout = _SlotLayout(options, own: options.wantsExistingLabels ? 3 : 0)
        // SMS Backup & Restore names the sender `address` and the time `date`; there is no id.
        let f = options.fields
        var list = [f.id, f.sender == "sender" ? "address" : f.sender, f.body]
        if options.wantsTimestamp { list.append(f.timestamp == "ts" ? "date" : f.timestamp) }
        list += f.extra
        let slotEnd = list.count
        labelBase = slotEnd
        list += ["action", "subAction", "folder", "rule"].map { "\(options.filterKey)_\($0)" }
        names = _KeyTable(list)
        aliases = list.indices.map { k in
            (Self.firstSlotName..<slotEnd).filter { $0 > k && list[$0] == list[k] }.map { $0 - Self.firstSlotName }
        }
        bodyName = list[Self.bodyName]
        self.options = options
    }

    func makeFramer() -> _Framer { _XMLFramer() }

    /// Why the file cannot be read as asked, from the `<sms>` start tags among its first bytes (at most 256),
    /// or nil: when none of them has a required attribute (the body, or a field option the user gave), the
    /// option names nothing in this file. A rough scan (a tag inside a comment counts too), which can only
    /// find more attribute names, never fewer.
    static func missingFields(_ bytes: UnsafeRawBufferPointer, options: _ReadOptions) -> String? {
        let required = options.requiredFields(xmlNames: true)
        var missing = Array(repeating: true, count: required.count)
        var found: [String] = []
        var tags = 0
        var i = 0
        let n = bytes.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while tags < 256, let lt = _find(UInt8(ascii: "<"), in: bytes, from: i, to: n) {
            i = lt + 1
            guard lt + 4 < n, bytes[lt + 1] == UInt8(ascii: "s"), bytes[lt + 2] == UInt8(ascii: "m"),
                  bytes[lt + 3] == UInt8(ascii: "s"), isSpace(bytes[lt + 4]) || bytes[lt + 4] == UInt8(ascii: "/") else { continue }
            var j = lt + 4
            var names: [String] = []
            var whole = false
            while j < n {
                while j < n, isSpace(bytes[j]) { j += 1 }
                guard j < n else { break }
                if bytes[j] == UInt8(ascii: ">") || bytes[j] == UInt8(ascii: "/") { whole = true; break }
                let start = j
                while j < n, bytes[j] != UInt8(ascii: "="), bytes[j] != UInt8(ascii: ">"), !isSpace(bytes[j]) { j += 1 }
                names.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<j]), as: UTF8.self))
                while j < n, isSpace(bytes[j]) { j += 1 }
                guard j < n, bytes[j] == UInt8(ascii: "=") else { break }
                j += 1
                while j < n, isSpace(bytes[j]) { j += 1 }
                guard j < n, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'"),
                      let close = _find(bytes[j], in: bytes, from: j + 1, to: n) else { break }
                j = close + 1
            }
            guard whole else { break }
            tags += 1
            i = j
            for (k, r) in required.enumerated() where missing[k] && names.contains(r.name) { missing[k] = false }
            if !missing.contains(true) { return nil }
            for name in names where found.count < 20 && !found.contains(name) { found.append(name) }
        }
        guard tags > 0, let k = missing.firstIndex(of: true) else { return nil }
        return _ReadOptions.missingMessage(required[k], records: tags, found: found.sorted(), what: "<sms> element", kind: "attribute")
    }

    func parseRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, into parsed: inout _Parsed) {
        let end = chunk.recordBytes
        var i = 0
        if let entry = _XMLKind(rawValue: chunk.entryState), entry != .text {
            // The chunk starts inside a comment, CDATA section or instruction that began before it.
            i = _XMLSyntax.terminatorEnd(entry, input, from: 0, end) ?? end
        }
        var line = 0
        var counted = 0
        while let lt = _find(UInt8(ascii: "<"), in: input, from: i, to: end) {
            guard let kind = _XMLSyntax.kind(at: lt, input, end) else { break }
            if kind == .startTag && _XMLSyntax.isStartTag("sms", at: lt, input, end) {
                line += _countNewlines(input, from: counted, to: lt)
                counted = lt
                i = record(at: lt, line: line, chunk, input, end, &parsed)
                continue
            }
            if kind == .startTag && _XMLSyntax.isStartTag("mms", at: lt, input, end) { chunk.counts.mms += 1 }
            i = _XMLSyntax.constructEnd(kind, input, start: lt, end) ?? end
        }
    }

    /// Parses the `<sms` element at `lt` into a record (or a rejected one); returns where parsing goes on.
    private func record(at lt: Int, line: Int, _ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ end: Int, _ parsed: inout _Parsed) -> Int {
        chunk.counts.records += 1
        let dropsBefore = parsed.drops.count
        var element = _Element(slots: layout.count)
        var problem = parseAttributes(lt, end, input, chunk, &element, &parsed)
        if problem == nil && element.close - lt > options.maxRecord {
            problem = Problem(end: element.close, reason: options.overlongReason, category: _ReadOptions.overlongCategory)
        }
        if let problem {
            parsed.drops.removeLast(parsed.drops.count - dropsBefore)
            chunk.reject(start: lt, end: problem.end, line: line, reason: problem.reason, category: problem.category)
            var skipped = _Record()
            skipped.rawStart = lt
            skipped.insertAt = -1
            skipped.rawEnd = problem.end
            skipped.relativeLine = line
            parsed.append(skipped, MessageSpan(senderStart: 0, senderCount: -1, bodyStart: 0, bodyCount: 0))
            return problem.end
        }
        var r = _Record()
        r.rawStart = lt
        r.insertAt = element.insertAt
        r.rawEnd = element.close
        r.contentEnd = element.close
        r.relativeLine = line
        r.dropStart = dropsBefore
        r.dropEnd = parsed.drops.count
        if let id = element.id { (r.idStart, r.idEnd) = id }
        let body = element.body!
        let span = MessageSpan(
            senderStart: element.sender?.0 ?? 0, senderCount: element.sender.map { $0.1 - $0.0 } ?? -1,
            bodyStart: body.0, bodyCount: body.1 - body.0)
        parsed.append(r, span)
        for (slot, value) in element.slots.enumerated() { if let value { parsed.setField(slot, value.0, value.1) } }
        return element.close
    }

    struct Problem: Error {
        var end: Int
        var reason: String
        var category = "malformed element"
    }

    /// What one `<sms>` start tag held.
    struct _Element {
        var id: (Int, Int)?
        var sender: (Int, Int)?
        var body: (Int, Int)?
        var slots: [(Int, Int)?]
        var insertAt = 0
        var close = 0
        init(slots: Int) { self.slots = Array(repeating: nil, count: slots) }
    }

    /// Reads the attributes of the `<sms` tag at `start`; nil when it is well formed and has a body.
    private func parseAttributes(
        _ start: Int, _ end: Int, _ input: UnsafeRawBufferPointer, _ chunk: _Chunk, _ element: inout _Element, _ parsed: inout _Parsed
    ) -> Problem? {
        var i = start + 4
        while true {
            let spaceStart = i
            while i < end && (input[i] == 0x20 || input[i] == 0x09 || input[i] == 0x0A || input[i] == 0x0D) { i += 1 }
            guard i < end else { return Problem(end: end, reason: "unterminated <sms> element") }
            if input[i] == UInt8(ascii: "/") || input[i] == UInt8(ascii: ">") {
                let close = input[i] == UInt8(ascii: "/") ? i + 2 : i + 1
                guard close <= end, input[close - 1] == UInt8(ascii: ">") else {
                    return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: "malformed end of <sms> element")
                }
                guard element.body != nil else {
                    return Problem(end: close, reason: "<sms> has no \(bodyName) attribute", category: "no body")
                }
                // The labels go after the last attribute, before the spaces and `/>` that end the tag.
                element.insertAt = spaceStart
                element.close = close
                return nil
            }
            if let problem = attribute(&i, spaceStart, end, input, chunk, &element, &parsed) { return problem }
        }
    }

    /// One `name="value"` at `i` (after the spaces that began at `spaceStart`); advances `i` past it.
    private func attribute(
        _ i: inout Int, _ spaceStart: Int, _ end: Int, _ input: UnsafeRawBufferPointer, _ chunk: _Chunk, _ element: inout _Element,
        _ parsed: inout _Parsed
    ) -> Problem? {
        let nameStart = i
        while i < end && input[i] != UInt8(ascii: "=") && input[i] != UInt8(ascii: ">") && input[i] != 0x20 { i += 1 }
        let nameEnd = i
        while i < end && input[i] == 0x20 { i += 1 }
        guard i < end, input[i] == UInt8(ascii: "=") else {
            return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: "attribute without a value")
        }
        i += 1
        while i < end && input[i] == 0x20 { i += 1 }
        guard i < end, input[i] == UInt8(ascii: "\"") || input[i] == UInt8(ascii: "'") else {
            return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: "attribute value is not quoted")
        }
        let quote = input[i]
        let valueStart = i + 1
        guard let valueEnd = _find(quote, in: input, from: valueStart, to: end) else {
            return Problem(end: end, reason: "unterminated attribute value")
        }
        i = valueEnd + 1
        // Every attribute, read or passed through: a character XML 1.0 cannot hold makes the element one that
        // is not well-formed, in the output as in the input (``_FormatLimits``).
        if let unfit = _FormatLimits.xmlUnfit(UnsafeRawBufferPointer(rebasing: input[valueStart..<valueEnd])) {
            return Problem(
                end: _XMLText.skipToTagEnd(input, i, end),
                reason: "a character XML 1.0 cannot hold: \(_FormatLimits.codePoint(unfit)) in an attribute",
                category: "character XML cannot hold")
        }
        // XML 1.0 does not allow a raw `<` in an attribute value (it is written `&lt;`): passed through, the
        // element would make the output not well-formed.
        if _find(UInt8(ascii: "<"), in: input, from: valueStart, to: valueEnd) != nil {
            return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: "a raw '<' in an attribute value (XML writes it &lt;)")
        }
        let name = UnsafeRawBufferPointer(rebasing: input[nameStart..<nameEnd])
        guard let which = lookUp(name) else { return nil }
        if which >= labelBase {
            // A label attribute from an earlier run: left out when written again.
            parsed.drops.append(spaceStart..<i)
            guard which - labelBase < 3, layout.ownCount == 3 else { return nil }
        }
        let decoded: (Int, Int)
        switch _XMLText.decode(input, valueStart, valueEnd, chunk) {
        case .failure(let refusal): return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: refusal.reason)
        case .success(let span): decoded = span
        }
        if which == Self.bodyName || which == Self.senderName {
            guard chunk.input.withUnsafeBytes(decoded.0..<decoded.1, _isValidUTF8) else {
                return Problem(end: _XMLText.skipToTagEnd(input, i, end), reason: "invalid UTF-8 in an attribute", category: "invalid UTF-8")
            }
        }
        for slot in aliases[which] { element.slots[slot] = decoded }
        switch which {
        case Self.idName: element.id = decoded
        case Self.senderName: element.sender = decoded
        case Self.bodyName: element.body = decoded
        default:
            let slot = which >= labelBase ? layout.ownBase + which - labelBase : which - Self.firstSlotName
            element.slots[slot] = decoded
        }
        return nil
    }

    @inline(__always)
    private func lookUp(_ name: UnsafeRawBufferPointer) -> Int? {
        for k in 0..<names.count where _XMLText.equal(name, names.keys[k]) { return k }
        return nil
    }

    func emitLabelled(_ chunk: _Chunk, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        chunk.input.withUnsafeBytes { emitRecords(chunk, $0, parsed, emitter, into: out) }
    }

    /// Writes the labelled records of `input` (the chunk's bytes) to `out`.
    private func emitRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        var from = 0
        for k in 0..<parsed.records.count {
            let r = parsed.records[k]
            // Everything between records (prolog, other elements, whitespace) passes through.
            out.append(input, from..<r.rawStart)
            from = r.rawEnd
            if r.isRejected { continue }
            var at = r.rawStart
            for d in r.dropStart..<r.dropEnd {
                let drop = parsed.drops[d]
                out.append(input, at..<drop.lowerBound)
                at = drop.upperBound
            }
            out.append(input, at..<r.insertAt)
            emitter.appendAttributes(parsed.verdicts[k], out)
            out.append(input, r.insertAt..<r.rawEnd)
        }
        out.append(input, from..<chunk.recordBytes)
    }

    func existingLabels(_ chunk: _Chunk, _ parsed: _Parsed, _ k: Int) -> _ExistingLabels? {
        guard layout.ownCount == 3 else { return nil }
        return _ExistingLabels(decodedFields: chunk, parsed, k, from: layout.ownBase)
    }
}
