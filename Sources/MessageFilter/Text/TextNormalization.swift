import AhoCorasick

/// How message text (and every phrase of a rule file, and a learned model's phrases) is normalised before
/// phrases are matched. Set once per rule file with `normalize:`; rules and model always see the same text
/// (but under `none`, where only the rules read a run of white space as one space).
///
/// | mode | what it does |
/// |---|---|
/// | `none` | the body's bytes as they are (phrases compare with ASCII or Unicode case folding, per rule), but for white space |
/// | `standard` (default) | compatibility forms folded as NFKC folds them (fullwidth `Ｆｒｅｅ` → `Free`, `ﬁ` → `fi`, `①` → `1`, math letters), invisible controls removed (zero-width spaces and joiners, soft hyphen, bidi controls, variation selectors, tags), Latin/Greek/Cyrillic look-alike letters mapped to the ASCII letter they imitate in words that mix them with ASCII letters or consist only of look-alikes (`Dеаr ϲuѕtomеr` → `Dear customer`, per Unicode's confusables), then every non-ASCII letter simply case-folded (`ДОСТАВКА` = `доставка` for every rule) |
/// | `leet` | `standard`, then in words of ASCII letters and digits the digits read as letters (`fr33` → `free`, `c1ick` → `click`: 0→o 1→i 3→e 4→a 5→s 7→t 8→b), `l` read as `i` everywhere, `@` and `$` between letters read as `a` and `s` (`p@ypal`, `ca$h`) |
///
/// Every mode, `none` included, reads each run of white space (spaces, tabs, line breaks, no-break and other
/// Unicode spaces: `_isWhitespace`) as one space, so `free prize` matches `free  prize` and `free\tprize`.
///
/// Phrases are normalised the same way, so a rule's `free` matches `ｆｒｅｅ`, `fr\u{200B}ee` and `frее` (Cyrillic
/// `е`). Every reported span still points into the original bytes of the body (an expanded or removed
/// character maps back to the whole original character; a run of white space to the whole run). ASCII bodies
/// spaced by single spaces are not touched under `none` and `standard` (nothing else in ASCII changes), so
/// they cost only the check; `leet` rewrites every body with an ASCII letter (and those `standard` rewrites).
public enum TextNormalization: UInt8, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// The bytes as they are.
    case none = 0
    /// Compatibility forms, invisible controls, look-alike letters, non-ASCII case.
    case standard = 1
    /// `standard` plus digit and symbol substitutions inside words.
    case leet = 2

    /// The name used in rule files.
    public var name: String {
        switch self {
        case .none: "none"
        case .standard: "standard"
        case .leet: "leet"
        }
    }

    public var description: String { name }

    /// The mode called `name` in rule files.
    public init?(name: String) {
        guard let m = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = m
    }

    /// The normalised form of `text` (allocates; for phrases and tests, not for bulk text). Under `none`, `text`
    /// itself: the learned model reads the body as it is (``rulePhrase(_:)`` is what the rules' phrases become).
    /// - Complexity: O(length of `text`).
    public func apply(_ text: String) -> String {
        guard self != .none else { return text }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { b in
            // A text the mode leaves as it is (under `standard`, ASCII spaced by single spaces: the common
            // case for phrases) needs no normaliser.
            guard needsRewrite(UnsafeRawBufferPointer(b)) else { return text }
            let n = _TextNormalizer.forPhrases
            n.lock.lock()
            defer { n.lock.unlock() }
            n.normalizer.normalize(UnsafeRawBufferPointer(b), mode: self)
            return n.normalizer.withOutput { text, _, _ in String(decoding: text, as: UTF8.self) }
        }
    }

    /// A rule's phrase as its automaton holds it: ``apply(_:)``, and under `none` with each run of white space
    /// one space (the rules read the body so under every mode; the model under `none` reads it as it is).
    public func rulePhrase(_ text: String) -> String {
        guard self == .none else { return apply(text) }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { b in
            guard _spacingChanges(UnsafeRawBufferPointer(b)) else { return text }
            let n = _TextNormalizer()
            n.normalize(UnsafeRawBufferPointer(b), mode: .none)
            return n.withOutput { text, _, _ in String(decoding: text, as: UTF8.self) }
        }
    }

    /// The normalised form of `text` and, for each of its bytes, the span of `text` it came from (for tests
    /// and for explaining spans).
    public func applyWithSpans(_ text: String) -> (text: String, spans: [Range<Int>]) {
        guard self != .none else { return (text, text.utf8.indices.map { let i = text.utf8.distance(from: text.utf8.startIndex, to: $0); return i..<(i + 1) }) }
        let n = _TextNormalizer()
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { b in
            n.normalize(UnsafeRawBufferPointer(b), mode: self)
            return n.withOutput { text, starts, ends in
                (String(decoding: text, as: UTF8.self), zip(starts, ends).map { Int($0)..<Int($1) })
            }
        }
    }

    /// Whether a body must be rewritten before matching under this mode (`none`: only bodies with white space
    /// other than lone spaces, `_spacingChanges`; `standard`: those, and bodies with a character that the
    /// normalisation changes: one with a table entry or a case fold, or an invalid byte; `leet`: those, and
    /// bodies with an ASCII letter or a spaced-out run, `_leetChanges`).
    /// A body `standard` leaves as it is (most Thai, Chinese, Hindi messages: no compatibility form, no
    /// look-alike, no case) is scanned in place, as ASCII bodies are: the rewrite, with a source span per
    /// byte, cost about a fifth of classifying a Thai message (callgrind).
    @inline(__always)
    func needsRewrite(_ body: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .none: _spacingChanges(body)
        case .standard: _standardChanges(body, flags: _ScalarFlags.shared)
        case .leet: _leetChanges(body, flags: _ScalarFlags.shared)
        }
    }
}
