/// Swift identifiers that generated code declares (`export-extension` class names).
enum SwiftIdentifier {
    /// Swift's keywords (declarations, statements, expressions and types, and the contextual keywords that
    /// cannot name a class): `final class class:` would not compile.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "precedencegroup",
        "private", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "switch", "throw", "where", "while", "Any", "as", "await", "false", "is",
        "nil", "self", "Self", "super", "throws", "true", "try", "_", "some", "any", "async", "actor", "macro",
        "package", "consume", "copy", "discard", "each", "Type", "Protocol", "then",
    ]

    /// Whether `name` is a plain ASCII identifier (a letter or _, then letters, digits or _), not a keyword,
    /// not `_` alone and not one of `taken`.
    static func problem(_ name: String, taken: Set<String>) -> String? {
        guard let first = name.unicodeScalars.first,
            first == "_" || (first.isASCII && first.properties.isAlphabetic),
            name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) })
        else { return "is not a Swift type name (a letter or _, then letters, digits or _)" }
        if name.allSatisfy({ $0 == "_" }) { return "is not a usable Swift type name" }
        if keywords.contains(name) { return "is a Swift keyword" }
        if taken.contains(name) { return "is a name the generated code already uses" }
        return nil
    }

    /// The identifiers a Swift source uses outside comments and string literals (a small tokenizer: enough
    /// for the code `export-extension` generates, which has no raw or multi-line strings).
    static func identifiers(in source: String) -> Set<String> {
        var names: Set<String> = []
        let chars = Array(source.unicodeScalars)
        var i = 0
        func isHead(_ c: Unicode.Scalar) -> Bool { c == "_" || (c.isASCII && c.properties.isAlphabetic) }
        func isBody(_ c: Unicode.Scalar) -> Bool { isHead(c) || ("0"..."9").contains(c) }
        while i < chars.count {
            let c = chars[i]
            if c == "/" && i + 1 < chars.count && chars[i + 1] == "/" {
                while i < chars.count && chars[i] != "\n" { i += 1 }
            } else if c == "\"" {
                i += 1
                while i < chars.count && chars[i] != "\"" && chars[i] != "\n" {
                    if chars[i] == "\\" && i + 1 < chars.count && chars[i + 1] == "(" {
                        // An interpolation: its code is code.
                        i += 2
                        var depth = 1
                        let start = i
                        while i < chars.count && depth > 0 {
                            if chars[i] == "(" { depth += 1 }
                            if chars[i] == ")" { depth -= 1 }
                            i += 1
                        }
                        names.formUnion(identifiers(in: String(String.UnicodeScalarView(chars[start..<max(start, i - 1)]))))
                        continue
                    }
                    i += chars[i] == "\\" ? 2 : 1
                }
                i += 1
            } else if isHead(c) {
                let start = i
                while i < chars.count && isBody(chars[i]) { i += 1 }
                names.insert(String(String.UnicodeScalarView(chars[start..<i])))
            } else {
                i += 1
            }
        }
        return names
    }
}
