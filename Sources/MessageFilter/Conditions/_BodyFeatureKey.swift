/// How the body conditions of a rule map onto the phrase machinery of ``RuleSet`` and ``Classifier``.
///
/// Each distinct alternative of a `urls:`, `phones:` or `amounts:` condition is a *feature*: a
/// pseudo-phrase with a global phrase id after the literal phrases, found by the byte scanners instead of
/// the automaton, and used by rules with the same roles as phrases. A rule's `startsWith`, `urls`,
/// `phones` and `amounts` conditions are extra `all` groups after its own (`all` group `all.count + x`);
/// `none` is a veto (the role of `unless`) by the feature "any". `startsWith` phrases are ordinary
/// phrases whose use carries the *anchored* flag (role | 0x80): the classifier counts such a match only
/// when it starts at the body's first non-blank byte.
enum _BodyFeatureKey: Hashable, Sendable {
    case url(URLMatcher)
    case phone(PhoneMatcher)
    case amount(AmountMatcher)

    /// The name shown in explanations and as ``RuleSet/phrase(at:)``: `urls: shortener`.
    var display: String {
        switch self {
        case .url(let m): "urls: \(m.name)"
        case .phone(let m): "phones: \(m.name)"
        case .amount(let m): "amounts: \(m.name)"
        }
    }
}
