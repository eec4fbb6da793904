import Foundation

/// What a rule name looks like, for refusing names that pass for one another (`x`, Cyrillic `х`, Greek `χ`):
/// the name in NFKC, case-folded, with the Cyrillic and Greek letters that look like Latin ones replaced by
/// those. Two names of one rule set with the same skeleton are refused, each named with its line.
public enum RuleNameSkeleton {
    /// The skeleton of `name`.
    public static func of(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping.lowercased()
        var out = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if let latin = lookAlikes[scalar.value] { out.append(latin) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// Lower-case Cyrillic and Greek letters that look like a Latin letter in common fonts (after case
    /// folding, so the capitals are covered), after Unicode's confusables list (UTS #39).
    static let lookAlikes: [UInt32: Unicode.Scalar] = [
        // Cyrillic
        0x0430: "a", 0x0435: "e", 0x043E: "o", 0x0440: "p", 0x0441: "c", 0x0443: "y", 0x0445: "x", 0x0456: "i",
        0x0458: "j", 0x0455: "s", 0x0501: "d", 0x04BB: "h", 0x04CF: "l", 0x051B: "q", 0x051D: "w", 0x0475: "v",
        0x043A: "k", 0x0432: "b", 0x043D: "h", 0x0442: "t", 0x043C: "m", 0x0433: "r",
        // Greek
        0x03B1: "a", 0x03BF: "o", 0x03C1: "p", 0x03BD: "v", 0x03B9: "i", 0x03BA: "k", 0x03C5: "u", 0x03C7: "x",
        0x03B5: "e", 0x03C4: "t", 0x03B7: "n", 0x03B2: "b", 0x03BC: "u", 0x03C9: "w", 0x03B3: "y", 0x03B6: "z",
    ]
}
