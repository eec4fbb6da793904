/// How a rule's phrases compare with the message text.
public enum CaseFoldMode: UInt8, Sendable, CaseIterable, Hashable {
    /// ASCII letters compare case-insensitively; other bytes exactly (the default).
    case ascii = 0
    /// Simple Unicode case folding (`Straße` ≠ `STRASSE`, but `ДОСТАВКА` = `доставка`).
    case unicode = 1

    /// The name used in rule files.
    public var name: String { self == .ascii ? "ascii" : "unicode" }
}

/// Conditions on a message's sender (SPEC §4). Every non-empty field must hold; within a field, any value may.
public struct SenderCondition: Sendable, Hashable {
    /// The sender equals one of these (ASCII case-insensitive; phone numbers compare in E.164 form `+CC…`).
    public var exact: [String] = []
    /// The sender starts with one of these (ASCII case-insensitive; phone numbers compare in E.164 form).
    public var prefix: [String] = []
    /// The sender is of one of these kinds.
    public var kinds: [SenderKind] = []
    /// The sender is a TRAI DLT header with one of these suffixes.
    public var suffixes: [TRAISuffix] = []
    /// The sender is a TRAI DLT header whose entity is one of these (`HDFCBK`, whatever the `XY-` prefix);
    /// `*` stands for any run of letters and digits, `?` for one (`HDFC*`, `*CTAXKR`).
    public var entities: [String] = []
    /// The sender is a phone number with one of these country calling codes.
    public var countryCodes: [Int32] = []

    /// A condition with nothing in it (always true).
    public init() {}

    /// Whether the condition checks nothing.
    public var isEmpty: Bool {
        exact.isEmpty && prefix.isEmpty && kinds.isEmpty && suffixes.isEmpty && entities.isEmpty
            && countryCodes.isEmpty
    }
}

/// One rule of a rule file, after parsing and filling in defaults (SPEC §3).
public struct RuleDefinition: Sendable, Hashable {
    /// Whether `name` can name a rule or a model: not empty, and without control characters (tab, newline,
    /// NUL, ESC, C1…), which would split a TSV row or a line of output, or move a terminal's cursor. Checked
    /// the same way in YAML, in a compiled `.smsf` and for `learn --model-name`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains(where: EchoedText.isUnsafe)
    }

    /// The rule's unique name.
    public var name: String
    /// The action the rule asks for.
    public var action: Action
    /// The sub-action the rule asks for (may be invalid for the action: validation drops it then).
    public var subAction: SubAction = .none
    /// Higher wins (default 0).
    public var priority: Int = 0
    /// Any of these phrases fires the rule (when empty, only the other conditions count).
    public var keywords: [String] = []
    /// Any of these phrases vetoes the rule.
    public var unless: [String] = []
    /// Groups of phrases that must all be present (one phrase of each group).
    public var all: [[String]] = []
    /// How phrases compare with the text.
    public var caseFold: CaseFoldMode = .ascii
    /// Whether a match may not touch a letter or digit on either side.
    public var wholeWord: Bool = false
    /// Whether phrases of at most four ASCII letters or digits match as whole words even when
    /// ``wholeWord`` is false (the default; `wholeWord: false` in a rule file turns it off).
    public var shortPhrasesWholeWord: Bool = true
    /// The body must start (after blanks) with one of these phrases.
    public var startsWith: [String] = []
    /// A condition on the URLs in the body (nil: none).
    public var urls: BodyRequirement<URLMatcher>?
    /// A condition on the phone numbers in the body (nil: none).
    public var phones: BodyRequirement<PhoneMatcher>?
    /// A condition on the amounts of money in the body (nil: none).
    public var amounts: BodyRequirement<AmountMatcher>?
    /// Conditions on the sender (nil: none).
    public var sender: SenderCondition?
    /// Senders the rule does not speak about: when the sender satisfies any of these conditions, the rule
    /// does not fire (`unlessSender:`; a veto, like `unless`). The default rules' `phishing` does not decide
    /// against a registered transactional sender on its own.
    public var unlessSender: [SenderCondition] = []
    /// The line of the rule in its file (0 when unknown).
    public var line: Int = 0
    /// The line of the rule's `subAction` field (the rule's line when it has none).
    public var subActionLine: Int = 0

    /// A rule that asks for `action`; fill in the conditions.
    public init(name: String, action: Action) {
        self.name = name
        self.action = action
    }

    /// Whether the rule has a text condition that must match (keywords, `all` groups, `startsWith`, or a
    /// `urls`, `phones` or `amounts` condition other than `none`).
    public var needsText: Bool { !keywords.isEmpty || !all.isEmpty || !_extraGroups.isEmpty }
}

/// A whole rule file, parsed, with defaults filled in: what a ``RuleSet`` is compiled from.
public struct RuleSetDefinition: Sendable, Hashable {
    /// The rule-file format version (1).
    public var version: Int = 1
    /// The declared sub-actions (``Capabilities/all`` when the file declares none).
    public var capabilities: Capabilities = .all
    /// The country calling code given to national phone numbers without one (default 1).
    public var defaultCountryCode: Int32 = 1
    /// The rules, in file order.
    public var rules: [RuleDefinition] = []
    /// The block list (strictly ascending numbers; verdict junk).
    public var blockList: [Int64] = []
    /// The identification list's numbers (strictly ascending; verdict allow with a label).
    public var identificationNumbers: [Int64] = []
    /// For each identification number, its label's index in ``labels``.
    public var identificationLabels: [Int32] = []
    /// The distinct identification labels, in order of first appearance.
    public var labels: [String] = []
    /// How text and phrases are normalised before matching (`normalize:`; default `standard`).
    public var normalization: TextNormalization = .standard
    /// The learned model (`model:`), if any.
    public var model: ModelDefinition?

    /// An empty rule set definition.
    public init() {}
}
