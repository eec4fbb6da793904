/// The confirm-phase checks of `smsfilter check` for the body conditions (rules that can never fire).
enum _BodyConditionCheck {
    struct Finding {
        /// The field under the rule (`startsWith`, `startsWith[1]`).
        var field: String
        /// Completes "\"rule\" …".
        var message: String
    }

    /// - Parameter vetoed: whether a phrase contains one of the rule's `unless` phrases.
    static func findings(_ rule: RuleDefinition, vetoed: (String) -> Bool) -> [Finding] {
        var out: [Finding] = []
        if !rule.startsWith.isEmpty, rule.startsWith.allSatisfy(vetoed) {
            out.append(Finding(field: "startsWith", message: "can never fire: every startsWith phrase contains one of its unless phrases"))
        }
        for (i, p) in rule.startsWith.enumerated() {
            if let first = p.unicodeScalars.first, first == " " || ("\t"..."\r").contains(first) || first == "\u{FEFF}" {
                out.append(Finding(field: "startsWith[\(i)]", message: "startsWith phrase \"\(p)\" begins with a blank, but the body's leading blanks are skipped before it is compared: it can never match; remove the blank"))
            }
        }
        return out
    }

    /// Whether keyword `k` (folded, with boundary `kb`) matches wherever phrase `p` (folded, boundary `pb`)
    /// does: `k` occurs in `p`, and where `k` must stand as a word, each side of that occurrence is a
    /// non-alphanumeric character inside `p`, or an edge of `p` where `p` itself must stand as a word.
    static func covers(_ p: String, _ pb: _WordBoundary, _ k: String, _ kb: _WordBoundary) -> Bool {
        guard kb != .none else { return p.contains(k) }
        let ps = Array(p.unicodeScalars)
        let ks = Array(k.unicodeScalars)
        guard !ks.isEmpty, ks.count <= ps.count else { return false }
        func separates(_ c: Unicode.Scalar) -> Bool { !(c.properties.isAlphabetic || c.properties.numericType != nil) }
        for start in 0...(ps.count - ks.count) where Array(ps[start..<(start + ks.count)]) == ks {
            let end = start + ks.count
            // At an end of `p` itself, `p`'s own boundary holds, except that `wordEdges` bounds only ends that are
            // letters of a spaced script.
            func bounded(_ edge: Unicode.Scalar) -> Bool {
                pb == .wordEdges ? _isSpacedLetter(edge.value, _ScalarFlags.shared) : pb != .none
            }
            let left = start == 0 ? bounded(ps[0]) : separates(ps[start - 1])
            let right = end == ps.count ? bounded(ps[end - 1]) : separates(ps[end])
            if left && right { return true }
        }
        return false
    }
}
