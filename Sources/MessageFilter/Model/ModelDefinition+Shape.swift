// The shapes a model phrase may have (`_ModelFeatures.swift` says why these are what the look-up finds).

extension ModelDefinition {
    /// Why a phrase cannot be matched as its kind says (nil when it can): a `word` phrase is words (letters,
    /// digits and marks) separated by single spaces; a `part` phrase holds no space and is either all word
    /// characters or all other characters. Checked after normalisation, as matched.
    public static func shapeProblem(_ text: String, kind: MatchKind, normalization: TextNormalization) -> String? {
        let normalized = normalization == .none ? text : normalization.apply(text)
        let scalars = Array((normalized.isEmpty ? text : normalized).unicodeScalars)
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
        }
        return nil
    }
}
