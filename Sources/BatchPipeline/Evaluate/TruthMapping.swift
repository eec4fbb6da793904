import Foundation
import MessageFilter

/// How a corpus's own labels (`spam`, `ham`, `OTP`…) map onto what the rules predict, for `evaluate`.
///
/// Targets, case-insensitive:
/// - an action, `none`, `allow`, `junk`, `promotion` or `transaction`: any folder of that action;
/// - a folder path, `Transactions/Finance`, `Promotions/Offers`, `Transactions/Public Services` (or with
///   `_` for the space, as fastText labels write it); `Junk`, `Inbox` and `Unknown Senders` are the same
///   as `junk`, `allow` and `none`; bare `Transactions`/`Promotions` are the folders without sub-action;
/// - `other`: not filtered, action `none` or `allow` (Unknown Senders or Inbox);
/// - `ignore`: records with this label are not scored.
///
/// A label may accept several targets: `spam=junk|promotion`. When every target is an action (or
/// `other`), scoring is per action; when one is a sub-folder, scoring is per folder.
public struct TruthMapping: Sendable, Equatable {
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        case action(Action)
        case folder(Folder)
        case other
        case ignore

        public var description: String {
            switch self {
            case .action(let a): a.name
            case .folder(let f): f.path
            case .other: "other"
            case .ignore: "ignore"
            }
        }

        /// Parses one target; nil when it names nothing known.
        public init?(_ text: String) {
            let t = text.trimmingCharacters(in: .whitespaces)
            let lower = t.lowercased()
            switch lower {
            case "other": self = .other; return
            case "ignore": self = .ignore; return
            case "junk": self = .action(.junk); return
            case "inbox": self = .action(.allow); return
            case "unknown senders", "unknown_senders": self = .action(.none); return
            default: break
            }
            if let action = Action(name: lower) {
                self = .action(action)
                return
            }
            let spaced = lower.replacingOccurrences(of: "_", with: " ")
            guard let folder = Folder.allCases.first(where: { $0.path.lowercased() == spaced }) else { return nil }
            self = .folder(folder)
        }
    }

    /// What the scores are computed over.
    public enum Granularity: String, Sendable, CaseIterable {
        case action
        case folder
    }

    /// Label → accepted targets, in the order given.
    public private(set) var entries: [(label: String, targets: [Target])]

    /// Whether truth labels that differ only in case are one label (``ignoringCase()``): `spam`, `Spam` and
    /// `SPAM` are all the mapping's `spam`.
    public private(set) var ignoreCase = false

    /// Lowercased label → index in `entries`, when ``ignoreCase``.
    private var folded: [String: Int] = [:]

    public static func == (a: TruthMapping, b: TruthMapping) -> Bool {
        a.ignoreCase == b.ignoreCase && a.entries.count == b.entries.count
            && zip(a.entries, b.entries).allSatisfy { $0.label == $1.label && $0.targets == $1.targets }
    }

    /// A mapping from (label, targets) pairs.
    public init(_ entries: [(label: String, targets: [Target])]) {
        self.entries = entries
    }

    /// This mapping with truth labels compared case-insensitively (`evaluate --ignore-case`): a record's label
    /// is the mapping's label that equals it ignoring case (`Spam` → `spam`), and an unmapped label is
    /// reported in lower case, so `Foo` and `FOO` are counted together. Two mapped labels that differ only in
    /// case must have the same targets (the first is kept); ``identity`` keeps its folder names (`Junk`, the
    /// folder, over `junk`, the action: the same class).
    ///
    /// - Throws: ``PipelineError`` (a usage error) when two labels differ only in case but not in targets.
    public func ignoringCase() throws(PipelineError) -> TruthMapping {
        var kept: [(label: String, targets: [Target])] = []
        var folded: [String: Int] = [:]
        let isIdentity = self == Self.identity
        for entry in entries {
            let key = entry.label.lowercased()
            if let i = folded[key] {
                guard isIdentity || Set(kept[i].targets) == Set(entry.targets) else {
                    throw PipelineError.mapping(
                        "\"\(kept[i].label)\" and \"\(entry.label)\" differ only in case but map to different targets (with --ignore-case they are one label)")
                }
                continue
            }
            folded[key] = kept.count
            kept.append(entry)
        }
        var mapping = TruthMapping(kept)
        mapping.ignoreCase = true
        mapping.folded = folded
        return mapping
    }

    /// The label a record's `label` counts as: itself, or with ``ignoreCase`` the mapped label equal to it
    /// ignoring case, else its lower case.
    public func canonicalLabel(_ label: String) -> String {
        guard ignoreCase else { return label }
        let key = label.lowercased()
        return folded[key].map { entries[$0].label } ?? key
    }

    /// Per folder when a target is a folder that no action stands for; per action otherwise.
    public var granularity: Granularity {
        entries.contains { $0.targets.contains { if case .folder = $0 { true } else { false } } } ? .folder : .action
    }

    /// The targets of `label`, or nil when it is not mapped.
    public func targets(of label: String) -> [Target]? {
        if ignoreCase { return folded[label.lowercased()].map { entries[$0].targets } }
        return entries.first { $0.label == label }?.targets
    }

    /// Every folder path and action name mapped to itself (`Transactions/Finance=Transactions/Finance`,
    /// `junk=junk`, …): for corpora whose truth labels already are folders, like `smsfilter generate`'s.
    /// Scores per folder.
    public static let identity: TruthMapping = {
        var entries: [(label: String, targets: [Target])] = Folder.allCases.map { ($0.path, [.folder($0)]) }
        entries += Folder.allCases.filter { $0.path.contains(" ") && $0.path.contains("/") }.map {
            ($0.path.replacingOccurrences(of: " ", with: "_"), [.folder($0)])
        }
        entries += Action.allCases.map { ($0.name, [.action($0)]) }
        return TruthMapping(entries)
    }()

    /// Parses `spam=junk|promotion,ham=none` (`identity`: ``identity``).
    ///
    /// - Throws: ``PipelineError`` (a usage error) naming the bad entry.
    public static func parse(_ text: String) throws(PipelineError) -> TruthMapping {
        if text.trimmingCharacters(in: .whitespaces) == "identity" { return identity }
        var entries: [(String, [Target])] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw PipelineError.mapping("\"\(item)\": write LABEL=TARGET, e.g. spam=junk") }
            let label = parts[0].trimmingCharacters(in: .whitespaces)
            entries.append((label, try targets(String(parts[1]), label: label)))
        }
        return try checked(entries)
    }

    /// Loads a mapping file: a JSON object or a flat YAML mapping (`spam: junk|promotion`,
    /// `spam: [junk, promotion]`, `# comments`), label → target, list of targets, or `a|b`.
    public static func load(path: String) throws(PipelineError) -> TruthMapping {
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: 16 << 20)
        } catch {
            throw PipelineError.mapping("\(error) (the mapping file)")
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw PipelineError.mapping("\(path): not a JSON object of label → target")
            }
            var entries: [(String, [Target])] = []
            for (label, value) in object.sorted(by: { $0.key < $1.key }) {
                if let s = value as? String {
                    entries.append((label, try targets(s, label: label)))
                } else if let list = value as? [String] {
                    entries.append((label, try targets(list.joined(separator: "|"), label: label)))
                } else {
                    throw PipelineError.mapping("\(path): \"\(label)\": give a target or a list of targets")
                }
            }
            return try checked(entries)
        }
        var entries: [(String, [Target])] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            line = line.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line == "---" { continue }
            guard let colon = line.lastIndex(of: ":") else {
                throw PipelineError.mapping("\(path):\(n + 1): write LABEL: TARGET, e.g. spam: junk")
            }
            let label = unquote(String(line[..<colon]))
            var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("[") && value.hasSuffix("]") {
                value = value.dropFirst().dropLast().split(separator: ",").map { unquote(String($0)) }.joined(separator: "|")
            }
            entries.append((label, try targets(unquote(value), label: label)))
        }
        return try checked(entries)
    }

    private static func unquote(_ s: String) -> String {
        let t = s.trimmingCharacters(in: .whitespaces)
        if t.count >= 2, let f = t.first, f == "\"" || f == "'", t.last == f { return String(t.dropFirst().dropLast()) }
        return t
    }

    private static func targets(_ text: String, label: String) throws(PipelineError) -> [Target] {
        var out: [Target] = []
        for part in text.split(separator: "|") {
            guard let target = Target(String(part)) else {
                throw PipelineError.mapping(
                    "\"\(label)\": unknown target \"\(part.trimmingCharacters(in: .whitespaces))\" (an action: none, allow, junk, promotion, transaction; a folder such as Transactions/Finance; other; ignore)")
            }
            if !out.contains(target) { out.append(target) }
        }
        guard !out.isEmpty else { throw PipelineError.mapping("\"\(label)\": no target") }
        return out
    }

    private static func checked(_ entries: [(String, [Target])]) throws(PipelineError) -> TruthMapping {
        guard !entries.isEmpty else { throw PipelineError.mapping("the mapping is empty") }
        var seen = Set<String>()
        for (label, _) in entries {
            guard !label.isEmpty else { throw PipelineError.mapping("a label is empty") }
            guard seen.insert(label).inserted else { throw PipelineError.mapping("\"\(label)\" is mapped twice") }
        }
        return TruthMapping(entries.map { (label: $0.0, targets: $0.1) })
    }
}

extension PipelineError {
    /// A mapping that cannot be parsed (a usage error).
    static func mapping(_ message: String) -> PipelineError { PipelineError(.usage, message) }
}
