// MARK: Internal API
//
// XML constructs, as the framer and the parser both see them. Text outside markup never holds a `<`, so every
// `<` starts a construct: a comment `<!-- … -->`, a CDATA section `<![CDATA[ … ]]>`, a processing instruction
// `<? … ?>`, a declaration `<!DOCTYPE … [ … ]>` (with its internal subset), an end tag `</…>` or a start
// tag `<name attr="…" …>` (attribute values may hold `>`). Only a start tag named `sms` is a record; the
// insides of comments, CDATA, processing instructions and attribute values are never looked into, so
// `<sms` written there is text.

enum _XMLKind: UInt8 {
    case text = 0
    case comment
    case cdata
    case pi
    case declaration
    case endTag
    case startTag

    /// The construct's opening bytes, its terminator (for the three that may pass through in pieces), and
    /// its name in messages.
    var openerLength: Int {
        switch self {
        case .text: 0
        case .comment: 4
        case .cdata: 9
        case .pi, .declaration, .endTag: 2
        case .startTag: 1
        }
    }

    var terminator: StaticString? {
        switch self {
        case .comment: "-->"
        case .cdata: "]]>"
        case .pi: "?>"
        default: nil
        }
    }

    var name: String {
        switch self {
        case .text: "text"
        case .comment: "comment (<!--)"
        case .cdata: "CDATA section (<![CDATA[)"
        case .pi: "processing instruction (<?)"
        case .declaration: "declaration (<!)"
        case .endTag: "end tag (</)"
        case .startTag: "tag (<)"
        }
    }
}

enum _XMLSyntax {
    /// The construct that starts with the `<` at `lt`, or nil when more bytes are needed to tell.
    static func kind(at lt: Int, _ b: UnsafeRawBufferPointer, _ end: Int) -> _XMLKind? {
        guard lt + 1 < end else { return nil }
        switch b[lt + 1] {
        case UInt8(ascii: "?"): return .pi
        case UInt8(ascii: "/"): return .endTag
        case UInt8(ascii: "!"):
            if let decided = prefixKind(b, lt, end, "<!--", .comment) { return decided == .text ? nil : decided }
            if let decided = prefixKind(b, lt, end, "<![CDATA[", .cdata) { return decided == .text ? nil : decided }
            return .declaration
        default: return .startTag
        }
    }

    /// `kind` when `opener` is at `lt`, `.text` when it may still be (too few bytes), nil when it is not.
    private static func prefixKind(_ b: UnsafeRawBufferPointer, _ lt: Int, _ end: Int, _ opener: StaticString, _ kind: _XMLKind) -> _XMLKind? {
        let n = opener.utf8CodeUnitCount
        let have = min(n, end - lt)
        for k in 0..<have where b[lt + k] != opener.utf8Start[k] { return nil }
        return have == n ? kind : .text
    }

    /// The index after the terminator of a comment, CDATA section or processing instruction, searching from
    /// `from` (a terminator may begin before `from` only if the caller backed up for it), or nil.
    static func terminatorEnd(_ kind: _XMLKind, _ b: UnsafeRawBufferPointer, from: Int, _ end: Int) -> Int? {
        let t = kind.terminator!
        let n = t.utf8CodeUnitCount
        var i = from + n - 1
        while let gt = _find(UInt8(ascii: ">"), in: b, from: i, to: end) {
            var same = true
            for k in 0..<(n - 1) where b[gt - (n - 1) + k] != t.utf8Start[k] { same = false }
            if same { return gt + 1 }
            i = gt + 1
        }
        return nil
    }

    /// The index after the `>` that closes a tag, skipping quoted attribute values; `quote` (0 or the open
    /// quote) carries over between calls. Nil when the tag goes on past `end`.
    static func tagEnd(_ b: UnsafeRawBufferPointer, from: Int, _ end: Int, quote: inout UInt8) -> Int? {
        var i = from
        while i < end {
            if quote != 0 {
                guard let q = _find(quote, in: b, from: i, to: end) else { return nil }
                quote = 0
                i = q + 1
                continue
            }
            let c = b[i]
            if c == UInt8(ascii: ">") { return i + 1 }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
            i += 1
        }
        return nil
    }

    /// The index after a declaration's closing `>` (outside quotes and its `[ … ]` internal subset).
    static func declarationEnd(_ b: UnsafeRawBufferPointer, from: Int, _ end: Int, quote: inout UInt8, depth: inout Int) -> Int? {
        var i = from
        while i < end {
            let c = b[i]
            i += 1
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if c == UInt8(ascii: ">") && depth == 0 {
                return i
            }
        }
        return nil
    }

    /// The end of the construct `kind` that starts at `start` (its `<`), or nil when it goes on past `end`.
    static func constructEnd(_ kind: _XMLKind, _ b: UnsafeRawBufferPointer, start: Int, _ end: Int) -> Int? {
        var quote: UInt8 = 0
        var depth = 0
        switch kind {
        case .text: return start
        case .comment, .cdata, .pi: return terminatorEnd(kind, b, from: start + kind.openerLength, end)
        case .declaration: return declarationEnd(b, from: start + 2, end, quote: &quote, depth: &depth)
        case .endTag, .startTag: return tagEnd(b, from: start + 1, end, quote: &quote)
        }
    }

    /// Whether the start tag at `lt` is named `name` (followed by a space, `/` or `>`).
    @inline(__always)
    static func isStartTag(_ name: StaticString, at lt: Int, _ b: UnsafeRawBufferPointer, _ end: Int) -> Bool {
        let n = name.utf8CodeUnitCount
        guard lt + 1 + n < end else { return false }
        for k in 0..<n where b[lt + 1 + k] != name.utf8Start[k] { return false }
        let c = b[lt + 1 + n]
        return c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: "/") || c == UInt8(ascii: ">")
    }
}

/// XML: boundaries lie between constructs, anywhere in text, and inside comments, CDATA sections and
/// processing instructions (their bytes pass through, so a long one is streamed through in pieces: the
/// chunk after such a cut starts in that construct, `entryState`). Tags and declarations are whole in a
/// chunk; one longer than `--max-record` is over-long. The input ending inside any construct is damage.
final class _XMLFramer: _Framer {
    private var kind = _XMLKind.text
    /// Where the current construct's `<` is (negative once the buffer was cut inside it).
    private var start = 0
    private var scanned = 0
    private var quote: UInt8 = 0
    private var depth = 0
    private var last: Int?
    private var lastKind = _XMLKind.text
    private(set) var entryState: UInt8 = 0

    func advance(_ buffer: UnsafeRawBufferPointer) -> Int? {
        let end = buffer.count
        var i = scanned
        scan: while true {
            switch kind {
            case .text:
                guard let lt = _find(UInt8(ascii: "<"), in: buffer, from: i, to: end) else {
                    i = end
                    mark(end, .text)
                    break scan
                }
                mark(lt, .text)
                guard let k = _XMLSyntax.kind(at: lt, buffer, end) else {
                    i = lt
                    break scan
                }
                kind = k
                start = lt
                quote = 0
                depth = 0
                i = lt + k.openerLength
            case .comment, .cdata, .pi:
                let bodyStart = start + kind.openerLength
                if let e = _XMLSyntax.terminatorEnd(kind, buffer, from: max(i, bodyStart), end) {
                    close(at: e, &i)
                    continue
                }
                // Cut inside, holding back what could be the start of the terminator.
                let hold = max(bodyStart, end - (kind.terminator!.utf8CodeUnitCount - 1))
                mark(hold, kind)
                i = hold
                break scan
            case .declaration:
                guard let e = _XMLSyntax.declarationEnd(buffer, from: i, end, quote: &quote, depth: &depth) else {
                    i = end
                    break scan
                }
                close(at: e, &i)
            case .endTag, .startTag:
                guard let e = _XMLSyntax.tagEnd(buffer, from: i, end, quote: &quote) else {
                    i = end
                    break scan
                }
                close(at: e, &i)
            }
        }
        scanned = i
        return last
    }

    private func close(at e: Int, _ i: inout Int) {
        kind = .text
        i = e
        mark(e, .text)
    }

    private func mark(_ position: Int, _ state: _XMLKind) {
        guard position > 0, position >= (last ?? 0) else { return }
        last = position
        lastKind = state
    }

    func cut(at offset: Int) {
        entryState = lastKind.rawValue
        scanned -= offset
        start -= offset
        last = nil
    }

    func overlong(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision {
        let end = buffer.count
        let isRecord = kind == .startTag && start == 0 && _XMLSyntax.isStartTag("sms", at: 0, buffer, end)
        let isMMS = kind == .startTag && start == 0 && _XMLSyntax.isStartTag("mms", at: 0, buffer, end)
        return .stream(passThrough: !isRecord, mms: isMMS)
    }

    func atEnd(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision {
        _ = advance(buffer)
        if kind != .text {
            return .records(end: buffer.count, damage: ("unclosed \(kind.name)", start))
        }
        if scanned < buffer.count {
            // A `<` whose construct could not be told: the input ends in markup.
            return .records(end: buffer.count, damage: ("unclosed markup (<)", scanned))
        }
        return .records(end: buffer.count, damage: nil)
    }

    /// Streaming past an over-long tag or declaration: it ends at its closing `>`.
    func skip(_ block: UnsafeRawBufferPointer) -> Int? {
        if kind == .declaration { return _XMLSyntax.declarationEnd(block, from: 0, block.count, quote: &quote, depth: &depth) }
        return _XMLSyntax.tagEnd(block, from: 0, block.count, quote: &quote)
    }

    func reset() {
        kind = .text
        start = 0
        scanned = 0
        quote = 0
        depth = 0
        last = nil
        lastKind = .text
        entryState = 0
    }
}
