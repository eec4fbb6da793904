// MARK: Internal API
//
// CSV and TSV syntax, shared by the framer (where rows end) and the parser (where fields are), so that the
// two can never disagree.
//
// CSV (RFC 4180, read as Python's `csv` reads it): a quote is special only at the start of a field, where it
// opens a quoted field that may hold separators, newlines and doubled quotes (`""`); elsewhere it is an
// ordinary byte (`1,a,5" screen` has three fields). A row ends at a newline outside a quoted field; a CR
// before it belongs to the terminator. TSV has no quoting at all: a row ends at the next newline.

/// Where a CSV scan is within a row.
enum _CSVState: UInt8 {
    /// At the start of a field (the start of a row, or just after a separator).
    case fieldStart
    /// Inside an unquoted field (a quote here is an ordinary byte).
    case unquoted
    /// Inside a quoted field.
    case quoted
    /// Just after a quote inside a quoted field: a second quote continues the field, anything else ends it.
    case afterQuote
}

enum _DelimitedSyntax {
    /// Advances a CSV scan over `bytes[from..<to]`. `state` and `openQuote` (where the current quoted field
    /// opened) carry over between calls; `lastEnd` is set to the index after each row's terminating newline
    /// (with `firstRowOnly`, the scan stops there).
    static func scanCSV(
        _ bytes: UnsafeRawBufferPointer, from: Int, to end: Int, separator: UInt8,
        state: inout _CSVState, openQuote: inout Int, lastEnd: inout Int?, firstRowOnly: Bool = false
    ) {
        var i = from
        while i < end {
            switch state {
            case .fieldStart:
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    state = .quoted
                    openQuote = i
                } else if c == 0x0A {
                    lastEnd = i + 1
                    if firstRowOnly { return }
                } else if c != separator {
                    state = .unquoted
                }
                i += 1
            case .unquoted:
                // Only a separator or a newline ends an unquoted field.
                guard let hit = _findEither(separator, 0x0A, in: bytes, from: i, to: end) else { return }
                state = .fieldStart
                i = hit + 1
                if bytes[hit] == 0x0A {
                    lastEnd = hit + 1
                    if firstRowOnly { return }
                }
            case .quoted:
                guard let q = _find(UInt8(ascii: "\""), in: bytes, from: i, to: end) else { return }
                state = .afterQuote
                i = q + 1
            case .afterQuote:
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    state = .quoted
                } else if c == separator {
                    state = .fieldStart
                } else if c == 0x0A {
                    state = .fieldStart
                    lastEnd = i + 1
                    if firstRowOnly { return }
                } else {
                    // `"ab"c`: not RFC 4180; the row goes on to its newline and the parser rejects it.
                    state = .unquoted
                }
                i += 1
            }
        }
    }

    /// One row split into fields, starting at `start` (a row start) and ending before `end`.
    struct Row {
        /// The index after the row's terminator (its newline), or `end`.
        var next: Int
        /// The end of the row's content (before CR LF or LF).
        var contentEnd: Int
        /// Why the row is malformed, if it is.
        var problem: String?
    }

    /// Splits the row at `start` into `fields` (start, end, quoted) with the same rules as `scanCSV`
    /// (`quoting`: CSV; otherwise TSV, split on the separator only).
    static func splitRow(
        _ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, separator: UInt8, quoting: Bool,
        _ fields: inout [(Int, Int, Bool)]
    ) -> Row {
        fields.removeAll(keepingCapacity: true)
        var f = start
        var problem: String?
        while true {
            if quoting && f < end && input[f] == UInt8(ascii: "\"") {
                var i = f + 1
                var close = -1
                while let q = _find(UInt8(ascii: "\""), in: input, from: i, to: end) {
                    if q + 1 < end && input[q + 1] == UInt8(ascii: "\"") {
                        i = q + 2
                        continue
                    }
                    close = q
                    break
                }
                guard close >= 0 else {
                    // Only at the end of the input: the framer never hands over an open quote otherwise.
                    fields.append((f + 1, end, true))
                    return Row(next: end, contentEnd: end, problem: "unterminated quoted field")
                }
                fields.append((f + 1, close, true))
                let after = close + 1
                if after == end { return Row(next: end, contentEnd: end, problem: problem) }
                let c = input[after]
                if c == separator {
                    f = after + 1
                    continue
                }
                if c == 0x0A { return Row(next: after + 1, contentEnd: after, problem: problem) }
                if c == 0x0D && (after + 1 == end || input[after + 1] == 0x0A) {
                    return Row(next: min(end, after + 2), contentEnd: after, problem: problem)
                }
                // Text after a closing quote: the row runs on to its newline (as the framer saw it).
                problem = problem ?? "a quoted field must be followed by a separator (byte \(after - start + 1))"
                let newline = _find(0x0A, in: input, from: after, to: end)
                let rowEnd = newline ?? end
                var contentEnd = rowEnd
                if newline != nil && contentEnd > after && input[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                return Row(next: newline.map { $0 + 1 } ?? end, contentEnd: contentEnd, problem: problem)
            }
            let hit = _findEither(separator, 0x0A, in: input, from: f, to: end)
            if let hit, input[hit] == separator {
                fields.append((f, hit, false))
                f = hit + 1
                continue
            }
            let rowEnd = hit ?? end
            var contentEnd = rowEnd
            if contentEnd > f && input[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            fields.append((f, contentEnd, false))
            return Row(next: hit.map { $0 + 1 } ?? end, contentEnd: contentEnd, problem: problem)
        }
    }

    /// The decoded text of a field: in place, or (quoted with doubled quotes) copied into the chunk's scratch.
    @inline(__always)
    static func fieldText(_ field: (Int, Int, Bool), _ input: UnsafeRawBufferPointer, _ chunk: _Chunk) -> (Int, Int) {
        let (s, e, quoted) = field
        guard quoted, _find(UInt8(ascii: "\""), in: input, from: s, to: e) != nil else { return (s, e) }
        return chunk.appendScratch { out in
            var i = s
            while i < e {
                out.append(input[i])
                i += input[i] == UInt8(ascii: "\"") ? 2 : 1
            }
        }
    }

    /// The fields of a header row, decoded.
    static func names(_ row: UnsafeRawBufferPointer, separator: UInt8, quoting: Bool) -> [String] {
        var fields: [(Int, Int, Bool)] = []
        _ = splitRow(row, 0, row.count, separator: separator, quoting: quoting, &fields)
        return fields.map { field in
            let (s, e, quoted) = field
            var bytes: [UInt8] = []
            var i = s
            while i < e {
                bytes.append(row[i])
                i += quoted && row[i] == UInt8(ascii: "\"") ? 2 : 1
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// CSV: rows end at newlines outside quoted fields. A quoted field that has not closed within
/// `--max-record` bytes, or by the end of the input, is cut at the first newline after its opening quote:
/// that row is rejected ("unterminated quoted field") and every row after it is read again.
final class _CSVFramer: _Framer {
    let separator: UInt8
    private var state = _CSVState.fieldStart
    private var openQuote = 0
    private var scanned = 0
    private var last: Int?

    init(separator: UInt8) { self.separator = separator }

    func advance(_ buffer: UnsafeRawBufferPointer) -> Int? {
        _DelimitedSyntax.scanCSV(
            buffer, from: scanned, to: buffer.count, separator: separator, state: &state, openQuote: &openQuote, lastEnd: &last)
        scanned = buffer.count
        return last
    }

    var entryState: UInt8 { 0 }

    func cut(at offset: Int) {
        scanned -= offset
        openQuote -= offset
        last = nil
    }

    func overlong(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision {
        if let decision = cutOpenQuote(buffer) { return decision }
        return .stream(passThrough: false, mms: false)
    }

    func atEnd(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision {
        _ = advance(buffer)
        return cutOpenQuote(buffer) ?? .records(end: buffer.count, damage: nil)
    }

    /// In a quoted field that never closed: reject the row up to the first newline after the opening quote.
    private func cutOpenQuote(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision? {
        guard state == .quoted, let newline = _find(0x0A, in: buffer, from: openQuote, to: buffer.count) else { return nil }
        return .cut(recordsEnd: last ?? 0, rejectEnd: newline + 1, reason: "unterminated quoted field", category: "unterminated quoted field")
    }

    /// Streaming past an over-long row (unquoted, or quoted with no newline at all): it ends at a newline.
    func skip(_ block: UnsafeRawBufferPointer) -> Int? { _find(0x0A, in: block, from: 0, to: block.count).map { $0 + 1 } }

    func reset() {
        state = .fieldStart
        openQuote = 0
        scanned = 0
        last = nil
    }
}
