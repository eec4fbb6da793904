/// User-supplied text repeated in a message (a file name, a CSV header cell, a JSON key, a field or rule
/// name): every character that could forge or hide part of the message shown as an escape, so that a name
/// can neither start a new line nor a column, move the cursor, reorder what follows or pass for another.
///
/// The one helper every error and warning uses for what the user gave it; the messages themselves are
/// escaped once more as a whole where they are printed (their own line feeds kept).
public enum EchoedText {
    /// `text` with every ``isUnsafe(_:)`` character escaped: `\n`, `\t`, `\r`, other ASCII controls and DEL
    /// as `\xHH`, the rest (C1 controls, bidirectional marks, overrides and isolates, zero-width and other
    /// invisible format characters) as `\u{HHHH}`. A backslash stays as it is.
    ///
    /// - Complexity: O(n); returns `text` itself when there is nothing to escape.
    public static func escaped(_ text: String) -> String {
        escaped(text, where: isUnsafe)
    }

    /// `text` with each character `mustEscape` picks escaped the way ``escaped(_:)`` escapes it: for printers
    /// whose set of unsafe characters is their own (a terminal's line keeps its line feeds and tabs).
    ///
    /// - Complexity: O(n); returns `text` itself when there is nothing to escape.
    public static func escaped(_ text: String, where mustEscape: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: mustEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard mustEscape(scalar) else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(out)
    }

    /// Whether `scalar` is escaped in echoed text: a control character (C0, DEL, C1), or an invisible format
    /// character (general category Cf: the bidirectional marks U+200E/U+200F, embeddings and overrides
    /// U+202A–U+202E, isolates U+2066–U+2069, the zero-width space, joiners and word joiner U+200B–U+200D,
    /// U+2060–U+2064, the byte-order mark U+FEFF, soft hyphen U+00AD…), or a line or paragraph separator.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x09: return "\\t"
        case 0x0D: return "\\r"
        case 0..<0x80: return "\\x" + hex(scalar.value, digits: 2)
        default: return "\\u{" + hex(scalar.value, digits: 4) + "}"
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
