// MARK: Internal API
//
// A YAML alias (`*name`) repeats its anchor's whole node. Yams shares the node rather than copying it, so
// composing is cheap, but everything after it (parsing rules, keyword lists, automata) pays for every use:
// a 354 KB file that reuses one 30,000-keyword anchor in 3,000 rules is 90 million keywords. The rule
// parser therefore measures the document as if every alias were written out, and refuses it past a budget.

import Yams

enum _YAMLBudget {
    /// The largest expanded document accepted: 32 MiB (a rule file of about two million keywords).
    static let maxExpandedBytes = 32 << 20

    /// What one node costs beyond its text: enough that a document of empty nodes cannot slip through.
    static let bytesPerNode = 8

    /// The size of `root` with every alias written out: the UTF-8 bytes of its scalars plus
    /// ``bytesPerNode`` per node; nil as soon as it passes `limit`.
    ///
    /// - Complexity: O(min(expanded size, `limit`) / ``bytesPerNode``) steps, whatever the nesting: an
    ///   explicit stack, no recursion.
    static func expandedSize(of root: Node, limit: Int = maxExpandedBytes) -> Int? {
        var total = 0
        var stack: [Node] = [root]
        while let node = stack.popLast() {
            total += bytesPerNode
            switch node {
            case .scalar(let scalar): total += scalar.string.utf8.count
            case .sequence(let sequence): stack.append(contentsOf: sequence)
            case .mapping(let mapping):
                for (key, value) in mapping {
                    stack.append(key)
                    stack.append(value)
                }
            case .alias: break
            }
            if total > limit { return nil }
        }
        return total
    }

    /// ``expandedSize(of:limit:)`` of YAML text (nil for an empty document too).
    static func expandedSize(ofYAML text: String, limit: Int = maxExpandedBytes) throws -> Int? {
        guard let root = try Yams.compose(yaml: text) else { return nil }
        return expandedSize(of: root, limit: limit)
    }
}
