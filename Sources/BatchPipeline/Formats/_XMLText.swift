// MARK: Internal API

/// XML attribute values: the five predefined entities and character references are decoded; any other
/// `&name;` is refused (entities are never expanded: no "billion laughs", nothing read from outside).
///
/// Character references are decimal (`&#233;`) or hexadecimal (`&#xE9;`). Android's SMS Backup & Restore
/// writes characters beyond the BMP (emoji) as two references to UTF-16 surrogates, `&#55357;&#56832;`:
/// a high surrogate followed by a low one decodes to the one character (U+1F600). A surrogate alone is
/// refused.
enum _XMLText {
    /// Decodes an attribute value's references into the chunk's scratch (in place when it has none);
    /// returns its span, or why it is refused.
    static func decode(_ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ chunk: _Chunk) -> Result<(Int, Int), Refusal> {
        guard _find(UInt8(ascii: "&"), in: input, from: start, to: end) != nil else { return .success((start, end)) }
        var failure: String?
        let span = chunk.appendScratch { out in failure = decodeValue(input, start, end) { out.append($0) } }
        if let failure { return .failure(Refusal(reason: failure)) }
        return .success(span)
    }

    /// Decodes the attribute value `input[start..<end]`, handing each byte of the result to `out`; returns why
    /// it is refused (a reference that is not one of XML's, a lone surrogate), or nil.
    static func decodeValue(_ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ out: (UInt8) -> Void) -> String? {
        var i = start
        while i < end {
            let c = input[i]
            guard c == UInt8(ascii: "&") else {
                out(c)
                i += 1
                continue
            }
            switch reference(input, i, end) {
            case .failure(let why):
                return why.reason
            case .success(let (value, next)):
                if let predefined = value.byte {
                    out(predefined)
                    i = next
                    continue
                }
                var scalar = value.scalar
                i = next
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by a low one: together they are one character.
                    guard case .success(let (low, after)) = reference(input, i, end), (0xDC00...0xDFFF).contains(low.scalar) else {
                        return "invalid character reference: a lone surrogate &#\(scalar); (no low surrogate after it)"
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low.scalar - 0xDC00)
                    i = after
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return "invalid character reference: a lone surrogate &#\(scalar);"
                }
                _encodeUTF8(scalar, out)
            }
        }
        return nil
    }

    /// Why a value is refused.
    struct Refusal: Error {
        var reason: String
    }

    /// A decoded reference: a predefined entity's byte, or a character reference's value.
    struct Value {
        var byte: UInt8?
        var scalar: UInt32 = 0
    }

    /// The reference at `i` (`&…;`) and the index after it.
    static func reference(_ input: UnsafeRawBufferPointer, _ i: Int, _ end: Int) -> Result<(Value, Int), Refusal> {
        guard i < end, input[i] == UInt8(ascii: "&") else { return .failure(Refusal(reason: "a bare '&' in an attribute value")) }
        guard let semi = _find(UInt8(ascii: ";"), in: input, from: i + 1, to: min(end, i + 12)) else {
            return .failure(Refusal(reason: "a bare '&' in an attribute value"))
        }
        let name = UnsafeRawBufferPointer(rebasing: input[(i + 1)..<semi])
        for (entity, byte) in predefined where equal(name, entity) { return .success((Value(byte: byte), semi + 1)) }
        guard name.count >= 2, name[0] == UInt8(ascii: "#") else {
            return .failure(Refusal(reason: "unknown entity &\(String(decoding: name, as: UTF8.self)); (entities are not expanded)"))
        }
        guard let value = number(name), value <= 0x10FFFF else {
            return .failure(Refusal(reason: "invalid character reference &\(String(decoding: name, as: UTF8.self));"))
        }
        // Surrogates are Char in no XML, but Android writes emoji as pairs of them: `decode` joins a pair.
        guard _FormatLimits.isXMLCharacter(value) || (0xD800...0xDFFF).contains(value) else {
            return .failure(Refusal(reason: "a character XML 1.0 cannot hold: &\(String(decoding: name, as: UTF8.self)); is \(_FormatLimits.codePoint(value))"))
        }
        return .success((Value(scalar: value), semi + 1))
    }

    static let predefined: [([UInt8], UInt8)] = [
        (Array("amp".utf8), UInt8(ascii: "&")), (Array("lt".utf8), UInt8(ascii: "<")), (Array("gt".utf8), UInt8(ascii: ">")),
        (Array("quot".utf8), UInt8(ascii: "\"")), (Array("apos".utf8), UInt8(ascii: "'")),
    ]

    /// The value of `#123` or `#x7B`, or nil when it is not a number.
    static func number(_ name: UnsafeRawBufferPointer) -> UInt32? {
        let hex = name[1] == UInt8(ascii: "x") || name[1] == UInt8(ascii: "X")
        let first = hex ? 2 : 1
        guard name.count > first else { return nil }
        var value: UInt32 = 0
        for k in first..<name.count {
            let d = name[k]
            let digit: UInt32
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(d - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(d - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(d - 55)
            default: return nil
            }
            value = value &* (hex ? 16 : 10) &+ digit
            if value > 0x10FFFF { return nil }
        }
        return value
    }

    /// The index after the `>` that ends the tag `from` is in (quotes skipped), or `end`.
    static func skipToTagEnd(_ input: UnsafeRawBufferPointer, _ from: Int, _ end: Int) -> Int {
        var quote: UInt8 = 0
        return _XMLSyntax.tagEnd(input, from: from, end, quote: &quote) ?? end
    }

    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }
}
