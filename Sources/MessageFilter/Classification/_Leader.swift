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
