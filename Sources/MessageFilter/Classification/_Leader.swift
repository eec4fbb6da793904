/// The leading firing rule among those considered so far for one message: the highest priority, then the
/// earliest match, then file order (the rule's index). `rule` is -1 until one is considered.
struct _Leader {
    var rule = -1
    var priority = Int.min
    var position = Int32.max

    /// Takes rule `r` (firing at `position`, of `priority`) as the leader when it goes before the current one.
    @inline(__always)
    mutating func consider(_ r: Int, priority p: Int, position pos: Int32) {
        if p > priority || (p == priority && (pos < position || (pos == position && r < rule))) {
            rule = r
            priority = p
            position = pos
        }
    }
}

/// The best firing rule below the model's priority of each action that can refine a model verdict
/// (`Classifier._refiningAction`: transaction, promotion, allow), gathered before the model is scored, so
/// that the one its winner asks for is at hand without weighing the rules again.
struct _Refiners {
    var transaction = _Leader()
    var promotion = _Leader()
    var allow = _Leader()

    @inline(__always)
    mutating func consider(_ r: Int, action: Action, priority p: Int, position pos: Int32) {
        switch action {
        case .transaction: transaction.consider(r, priority: p, position: pos)
        case .promotion: promotion.consider(r, priority: p, position: pos)
        case .allow: allow.consider(r, priority: p, position: pos)
        case .none, .junk: break
        }
    }

    /// The leading rule of `action` (-1 when none fired, or `action` is nil or cannot refine).
    @inline(__always)
    func rule(for action: Action?) -> Int {
        switch action {
        case .some(.transaction): transaction.rule
        case .some(.promotion): promotion.rule
        case .some(.allow): allow.rule
        case .some(.none), .some(.junk), nil: -1
        }
    }
}
