/// How a rule's body conditions and phrases are read by ``RuleSet`` (see `_BodyFeatureKey`).

/// One of a rule's conditions that is an extra group (see `_BodyFeatureKey`).
enum _ExtraGroup {
    case startsWith([String])
    case urls([URLMatcher])
    case phones([PhoneMatcher])
    case amounts([AmountMatcher])

    /// The rule-file field.
    var field: String {
        switch self {
        case .startsWith: "startsWith"
        case .urls: "urls"
        case .phones: "phones"
        case .amounts: "amounts"
        }
    }
}

/// The role flag of an anchored (`startsWith`) phrase use.
let _anchoredRole: UInt32 = 0x80

extension RuleDefinition {
    /// The conditions that become extra groups after `all`, in this order.
    var _extraGroups: [_ExtraGroup] {
        var out: [_ExtraGroup] = []
        if !startsWith.isEmpty { out.append(.startsWith(startsWith)) }
        if case .anyOf(let m)? = urls { out.append(.urls(m)) }
        if case .anyOf(let m)? = phones { out.append(.phones(m)) }
        if case .anyOf(let m)? = amounts { out.append(.amounts(m)) }
        return out
    }

    /// The features whose presence vetoes the rule (`none`).
    var _vetoFeatures: [_BodyFeatureKey] {
        var out: [_BodyFeatureKey] = []
        if urls == .absent { out.append(.url(.any)) }
        if phones == .absent { out.append(.phone(.any)) }
        if amounts == .absent { out.append(.amount(AmountMatcher())) }
        return out
    }

    /// `all` groups plus extra groups.
    var _groupCount: Int { all.count + _extraGroups.count }

    /// The field name of group `g` (`all[1]`, `startsWith`, `urls`, …).
    func _groupName(_ g: Int) -> String {
        if g < all.count { return "all[\(g)]" }
        let extra = _extraGroups
        return g - all.count < extra.count ? extra[g - all.count].field : "all[\(g)]"
    }

    /// How a match of `phrase` of this rule must be delimited: as a word (`wholeWord: true`); not at all
    /// (`wholeWord: false`); by default as a Latin word when it is short (see ``RuleDefinition/isShortWord(_:)``),
    /// else not inside a longer word of a spaced script when an end of it is a letter of one (`sale` is not
    /// found in "sales"; `_isWordEdgeMatch`).
    func _wordBoundary(_ phrase: String) -> _WordBoundary {
        if wholeWord { return .word }
        guard shortPhrasesWholeWord else { return .none }
        if Self.isShortWord(phrase) { return .latinWord }
        let flags = _ScalarFlags.shared
        guard let first = phrase.unicodeScalars.first, let last = phrase.unicodeScalars.last else { return .none }
        return _isSpacedLetter(first.value, flags) || _isSpacedLetter(last.value, flags) ? .wordEdges : .none
    }

    /// Whether `phrase` is at most four ASCII letters or digits (`emi`, `upi`, `10p`, `otp`, `cash`): the
    /// phrases that match as whole Latin words unless a rule says `wholeWord: false` (they may touch Thai,
    /// Chinese or Devanagari text, and Latin text across a letter–digit or lower–upper case change:
    /// `รหัสOTPคือ` and `ShopeePayOTP` have `otp`, `remind` has no `emi`).
    public static func isShortWord(_ phrase: String) -> Bool {
        let u = phrase.utf8
        return !u.isEmpty && u.count <= 4 && u.allSatisfy(SenderInfo.isASCIIAlnum)
    }
}
