// MARK: Internal API

import MessageFilter

/// Android "SMS Backup & Restore" XML, streamed: each `<sms …/>` element is a record; everything else
/// (the prolog, `<smses>`, `<mms>` elements, comments, whitespace) passes through untouched.
///
/// No DTD is read and no entity is expanded: attribute values may use the five predefined entities and
/// character references (`&#10;`, `&#x1F600;`); any other `&name;` rejects the record, so a hostile
/// document cannot grow ("billion laughs") or reach outside.
enum _XMLParser {
    /// Index just after the last complete tag (a `>` outside quotes and comments), or nil.
    static func lastBoundary(_ input: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        var last: Int?
        let end = input.count
        var inTag = false
        var quote: UInt8 = 0
        while i < end {
            let c = input[i]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if inTag {
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: ">") {
                    inTag = false
                    last = i + 1
                }
            } else if c == UInt8(ascii: "<") {
                if startsWith(input, i, "<!--") {
                    guard let close = find(input, "-->", from: i + 4) else { return last }
                    i = close + 3
                    last = i
                    continue
                }
                inTag = true
            }
            i += 1
        }
        return last
    }

    static func parse(_ chunk: _Chunk, _ file: _FileState, _ worker: _Worker, _ out: inout _Parsed) {
        let input = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.recordBytes)
        let end = chunk.recordBytes
        var i = 0
        var line = 0
        var counted = 0  // newlines counted up to here
        while let lt = _find(UInt8(ascii: "<"), in: input, from: i, to: end) {
            if startsWith(input, lt, "<!--") {
                i = (find(input, "-->", from: lt + 4) ?? end - 3) + 3
                continue
            }
            guard startsWith(input, lt, "<sms"), lt + 4 < end,
                input[lt + 4] == 0x20 || input[lt + 4] == 0x09 || input[lt + 4] == 0x0A || input[lt + 4] == 0x0D
                    || input[lt + 4] == UInt8(ascii: "/") || input[lt + 4] == UInt8(ascii: ">")
            else {
                i = lt + 1
                continue
            }
            line += _countNewlines(input, from: counted, to: lt)
            counted = lt
            chunk.counts.records += 1
            switch parseElement(input, lt, end, file, chunk, worker) {
            case .failure(let problem):
                worker.reject(chunk, start: lt, end: problem.end, line: line, reason: problem.reason)
                // The rejected element is not copied to the output: blank it out of the passthrough by
                // recording it as a gap the emitter skips.
                out.records.append(_Record.skip(lt, problem.end))
                out.spans.append(MessageSpan(senderStart: 0, senderCount: -1, bodyStart: 0, bodyCount: 0))
                i = problem.end
            case .success(let parsed):
                var record = parsed.0
                record.relativeLine = line
                out.records.append(record)
                out.spans.append(parsed.1)
                i = record.rawEnd
            }
        }
        line += _countNewlines(input, from: counted, to: end)
        chunk.counts.newlines = line
    }

    struct Problem: Error {
        var end: Int
        var reason: String
    }

    /// Parses `<sms a="…" …/>` at `start`.
    static func parseElement(
        _ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ file: _FileState, _ chunk: _Chunk, _ worker: _Worker
    ) -> Result<(_Record, MessageSpan), Problem> {
        var i = start + 4
        var body: (Int, Int)?
        var sender: (Int, Int)?
        var id: (Int, Int)?
        while true {
            while i < end && (input[i] == 0x20 || input[i] == 0x09 || input[i] == 0x0A || input[i] == 0x0D) { i += 1 }
            guard i < end else { return .failure(Problem(end: end, reason: "unterminated <sms> element")) }
            if input[i] == UInt8(ascii: "/") || input[i] == UInt8(ascii: ">") {
                let close = input[i] == UInt8(ascii: "/") ? i + 2 : i + 1
                guard close <= end, input[close - 1] == UInt8(ascii: ">") else {
                    return .failure(Problem(end: min(end, i + 1), reason: "malformed end of <sms> element"))
                }
                guard let body else {
                    let name = String(decoding: file.keys[_FileState.bodySlot], as: UTF8.self)
                    return .failure(Problem(end: close, reason: "<sms> has no \(name) attribute"))
                }
                var record = _Record()
                record.rawStart = start
                record.insertAt = i
                record.rawEnd = close
                record.contentEnd = close
                if let id { (record.idStart, record.idEnd) = id }
                let span = MessageSpan(
                    senderStart: sender?.0 ?? 0, senderCount: sender.map { $0.1 - $0.0 } ?? -1,
                    bodyStart: body.0, bodyCount: body.1 - body.0)
                return .success((record, span))
            }
            // name="value"
            let nameStart = i
            while i < end && input[i] != UInt8(ascii: "=") && input[i] != UInt8(ascii: ">") && input[i] != 0x20 { i += 1 }
            let nameEnd = i
            while i < end && input[i] == 0x20 { i += 1 }
            guard i < end, input[i] == UInt8(ascii: "=") else {
                return .failure(Problem(end: skipToTagEnd(input, i, end), reason: "attribute without a value"))
            }
            i += 1
            while i < end && input[i] == 0x20 { i += 1 }
            guard i < end, input[i] == UInt8(ascii: "\"") || input[i] == UInt8(ascii: "'") else {
                return .failure(Problem(end: skipToTagEnd(input, i, end), reason: "attribute value is not quoted"))
            }
            let quote = input[i]
            let valueStart = i + 1
            guard let valueEnd = _find(quote, in: input, from: valueStart, to: end) else {
                return .failure(Problem(end: end, reason: "unterminated attribute value"))
            }
            i = valueEnd + 1
            let name = UnsafeRawBufferPointer(rebasing: input[nameStart..<nameEnd])
            var slot = -1
            for k in 0..<3 where equal(name, file.keys[k]) { slot = k }
            guard slot >= 0 else { continue }
            let decoded: (Int, Int)
            switch decode(input, valueStart, valueEnd, chunk, worker) {
            case .failure(let problem): return .failure(Problem(end: skipToTagEnd(input, i, end), reason: problem.reason))
            case .success(let span): decoded = span
            }
            if slot == _FileState.bodySlot || slot == _FileState.senderSlot {
                guard _isValidUTF8(UnsafeRawBufferPointer(rebasing: chunk.input.bytes[decoded.0..<decoded.1])) else {
                    return .failure(Problem(end: skipToTagEnd(input, i, end), reason: "invalid UTF-8 in an attribute"))
                }
            }
            switch slot {
            case _FileState.bodySlot: body = decoded
            case _FileState.senderSlot: sender = decoded
            default: id = decoded
            }
        }
    }

    static func skipToTagEnd(_ input: UnsafeRawBufferPointer, _ from: Int, _ end: Int) -> Int {
        var quote: UInt8 = 0
        var i = from
        while i < end {
            let c = input[i]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: ">") {
                return i + 1
            }
            i += 1
        }
        return end
    }

    /// Decodes an attribute value's references into scratch (in place when it has none).
    static func decode(
        _ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ chunk: _Chunk, _ worker: _Worker
    ) -> Result<(Int, Int), Problem> {
        guard _find(UInt8(ascii: "&"), in: input, from: start, to: end) != nil else { return .success((start, end)) }
        var failure: String?
        let span = worker.appendScratch(chunk) { out in
            var i = start
            while i < end {
                let c = input[i]
                guard c == UInt8(ascii: "&") else {
                    out.append(c)
                    i += 1
                    continue
                }
                guard let semi = _find(UInt8(ascii: ";"), in: input, from: i + 1, to: min(end, i + 12)) else {
                    failure = "a bare '&' in an attribute value"
                    return
                }
                let name = UnsafeRawBufferPointer(rebasing: input[(i + 1)..<semi])
                if equal(name, Array("amp".utf8)) { out.append(UInt8(ascii: "&")) }
                else if equal(name, Array("lt".utf8)) { out.append(UInt8(ascii: "<")) }
                else if equal(name, Array("gt".utf8)) { out.append(UInt8(ascii: ">")) }
                else if equal(name, Array("quot".utf8)) { out.append(UInt8(ascii: "\"")) }
                else if equal(name, Array("apos".utf8)) { out.append(UInt8(ascii: "'")) }
                else if name.count >= 2 && name[0] == UInt8(ascii: "#") {
                    var value: UInt32 = 0
                    let hex = name[1] == UInt8(ascii: "x") || name[1] == UInt8(ascii: "X")
                    var ok = name.count > (hex ? 2 : 1)
                    for k in (hex ? 2 : 1)..<name.count {
                        let d = name[k]
                        let digit: UInt32
                        switch d {
                        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(d - 48)
                        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(d - 87)
                        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(d - 55)
                        default: ok = false; digit = 0
                        }
                        value = value &* (hex ? 16 : 10) &+ digit
                        if value > 0x10FFFF { ok = false }
                    }
                    guard ok, value != 0, !(0xD800...0xDFFF).contains(value) else {
                        failure = "invalid character reference &\(String(decoding: name, as: UTF8.self));"
                        return
                    }
                    _encodeUTF8(value) { out.append($0) }
                } else {
                    failure = "unknown entity &\(String(decoding: name, as: UTF8.self)); (entities are not expanded)"
                    return
                }
                i = semi + 1
            }
        }
        if let failure { return .failure(Problem(end: end, reason: failure)) }
        return .success(span)
    }

    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    @inline(__always)
    static func startsWith(_ input: UnsafeRawBufferPointer, _ i: Int, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard i + n <= input.count else { return false }
        for k in 0..<n where input[i + k] != text.utf8Start[k] { return false }
        return true
    }

    static func find(_ input: UnsafeRawBufferPointer, _ text: StaticString, from: Int) -> Int? {
        var i = from
        while let hit = _find(text.utf8Start[0], in: input, from: i, to: input.count) {
            if startsWith(input, hit, text) { return hit }
            i = hit + 1
        }
        return nil
    }
}

extension _Record {
    /// A rejected XML element: nothing to label, and its bytes are left out of the output.
    static func skip(_ start: Int, _ end: Int) -> _Record {
        var record = _Record()
        record.rawStart = start
        record.insertAt = -1
        record.rawEnd = end
        return record
    }
}
