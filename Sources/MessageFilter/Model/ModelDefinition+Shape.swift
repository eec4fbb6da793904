// The shapes a model phrase may have (`_ModelFeatures.swift` says why these are what the look-up finds).

extension ModelDefinition {
    /// Why a phrase cannot be matched as its kind says (nil when it can): a `word` phrase is words (letters,
    /// digits and marks) separated by single spaces; a `part` phrase holds no space and is either all word
    /// characters or all other characters. Checked after normalisation, as matched.
    public static func shapeProblem(_ text: String, kind: MatchKind, normalization: TextNormalization) -> String? {
        let normalized = normalization == .none ? text : normalization.apply(text)
        // (A text phrase is not normalised again on load: its white space must already be single spaces.)
        let scalars = Array((normalized.isEmpty || kind == .text ? text : normalized).unicodeScalars)
        guard !scalars.isEmpty else { return "the phrase is empty" }
        switch kind {
        case .word:
            var previousSpace = true
            for s in scalars {
                if s == " " {
                    if previousSpace { return "a word phrase is words separated by single spaces (no leading, trailing or double space)" }
                    previousSpace = true
                } else if _ScalarFlags.shared.isWord(s.value) {
                    previousSpace = false
                } else {
                    return "a word phrase holds only letters, digits and single spaces (\"\(s.escaped(asASCII: true))\" is neither); make it a part phrase"
                }
            }
            if previousSpace { return "a word phrase does not end with a space" }
        case .part:
            if scalars.contains(" ") { return "a part phrase holds no space (use a word phrase for words separated by spaces)" }
            let words = scalars.filter { _ScalarFlags.shared.isWord($0.value) }.count
            if words != 0 && words != scalars.count {
                return "a part phrase is either all letters and digits or all symbols, not both"
            }
        case .text:
            // The text scan sees whitespace only as single ASCII spaces between other characters.
            var previousSpace = false
            for s in scalars {
                if s == " " {
                    if previousSpace { return "a text phrase holds no double space" }
                    previousSpace = true
                    continue
                }
                previousSpace = false
                if Self.isWhitespaceOrControl(s.value) {
                    return "a text phrase holds no whitespace but single spaces, and no control character"
                }
            }
        }
        return nil
    }

    /// Whether `v` is whitespace (Unicode's White_Space) or a control character (general category Cc), by
    /// the lists themselves: a compiled model checks every scalar of its text phrases on load, and the
    /// scalar properties cost a table walk each (250M instructions for a 30,000-phrase Thai model).
    static func isWhitespaceOrControl(_ v: UInt32) -> Bool {
        switch v {
        case 0x00...0x20, 0x7F...0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
